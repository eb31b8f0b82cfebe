package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Do runs call, a Go write named op with its arguments args, once per key
// of the application a: the Go API's writes take their Idempotency-Key as
// WriteOptions, not a header. Without a key it just calls call. op and
// args make the fingerprint (a write adds the options that change what it
// does). The first call returns call's own result; its answer is kept as
// JSON (a value, or the Failure of its error), so that a retry, perhaps in
// another process, gets the first call's result back as the same Go value
// and error.
func Do[T any](ctx context.Context, a App, key string, call func(context.Context) (T, error), op string, args ...any) (T, error) {
	if key == "" {
		return call(ctx)
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
	res, replayed, err := a.Run(ctx, key, "go:"+hex.EncodeToString(sum[:]), func(ctx context.Context) Answer {
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
