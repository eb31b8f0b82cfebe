package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Options are a Go write's unical.WriteOptions as Do needs them: its key,
// and the options that change what the write does, which join the
// write's name and arguments in its fingerprint, so that a retry with
// other options is refused as a reused key, on the Go path as over HTTP
// (where they are the query and the If-Match header), rather than
// replayed. Without them the fingerprint is the one it was before options
// counted.
type Options struct {
	// Key is the Idempotency-Key; "" runs the write directly.
	Key string
	// Query are the options that are query parameters of the write's
	// HTTP request (WriteOptions.Query: notifyAttendees, revokeGrant).
	Query map[string]string
	// IfMatch is the write's precondition, the If-Match header.
	IfMatch string
}

// Do runs call, a Go write named op with its arguments args, once per
// o.Key of the application a: the Go API's writes take their
// Idempotency-Key as WriteOptions, not a header. Without a key it just
// calls call. op, args and o's options make the fingerprint. The first
// call returns call's own result; its answer is kept as JSON (a value, or
// the Failure of its error), so that a retry, perhaps in another process,
// gets the first call's result back as the same Go value and error.
func Do[T any](ctx context.Context, a App, o Options, call func(context.Context) (T, error), op string, args ...any) (T, error) {
	if o.Key == "" {
		return call(ctx)
	}
	if o.Query != nil {
		args = append(args, o.Query)
	}
	if o.IfMatch != "" {
		args = append(args, map[string]string{"If-Match": o.IfMatch})
	}
	errs := a.s.errors
	failed := func(err error) error {
		return errs.Make(Failure{Code: CodeInternal, Message: "Internal error.", Err: err})
	}
	var zero T
	fp, err := json.Marshal(append([]any{op}, args...))
	if err != nil {
		return zero, errs.Make(Failure{Code: CodeInvalid, Message: fmt.Sprintf("The arguments of %s could not be encoded.", op), Err: err})
	}
	sum := sha256.Sum256(fp)
	var (
		first    T
		firstErr error
	)
	res, replayed, err := a.Run(ctx, o.Key, "go:"+hex.EncodeToString(sum[:]), func(ctx context.Context) Answer {
		first, firstErr = call(ctx)
		if firstErr != nil {
			f := errs.Read(firstErr)
			body, _ := json.Marshal(f)
			return Answer{Code: f.Code, Body: body}
		}
		body, err := json.Marshal(first)
		if err != nil {
			firstErr = failed(err)
			return Answer{Code: CodeInternal}
		}
		return Answer{Body: body}
	})
	switch {
	case err != nil:
		return zero, err
	case !replayed:
		return first, firstErr
	case res.Code != "":
		f := Failure{Code: res.Code}
		if err := json.Unmarshal(res.Body, &f); err != nil {
			return zero, failed(err)
		}
		return zero, errs.Make(f)
	}
	var v T
	if err := json.Unmarshal(res.Body, &v); err != nil {
		return zero, failed(fmt.Errorf("decode the kept answer of %s: %w", op, err))
	}
	return v, nil
}
