package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// The Go API's writes take their Idempotency-Key from their context, not
// a header: Once runs such a write once per key. Its answer is kept as
// JSON (a value, or a GoError), so that a retry, perhaps in another
// process, gets the first call's result back as the same Go value. The
// error type is the caller's (the root's *unical.Error), reached through
// GoCall, so that this package needs none of it.

// GoError is a Go call's kept error: the parts of the caller's error that
// are the call's answer. Code goes to the Answer, the rest to its body.
type GoError struct {
	Code    string   `json:"-"`
	Message string   `json:"message"`
	Field   string   `json:"field,omitempty"`
	Allowed []string `json:"allowed,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// GoCall is what Once needs of its caller.
type GoCall struct {
	// Run runs f at most once for the key and fingerprint and returns
	// the first or kept answer, and whether it was kept (replayed); it is
	// where keys are claimed and answers kept (App.RunIdempotent).
	Run func(ctx context.Context, fingerprint string, f func(context.Context) Answer) (Answer, bool, error)
	// ErrorOf returns the call's error as a GoError.
	ErrorOf func(error) GoError
	// Error turns a kept GoError back into the caller's error.
	Error func(GoError) error
	// Failed is the caller's error for a failure of Once itself: invalid
	// for arguments that do not encode, else an internal error.
	Failed func(invalid bool, err error, op string) error
}

// Once runs call once per key through g.Run. op and args (the method's
// name and arguments) make the fingerprint. The first call returns
// call's own result; a retry gets the kept one decoded from its JSON
// (its kept error through g.Error).
func Once[T any](ctx context.Context, g GoCall, call func(context.Context) (T, error), op string, args ...any) (T, error) {
	var zero T
	fp, err := json.Marshal(append([]any{op}, args...))
	if err != nil {
		return zero, g.Failed(true, err, op)
	}
	sum := sha256.Sum256(fp)
	var (
		first    T
		firstErr error
	)
	res, replayed, err := g.Run(ctx, "go:"+hex.EncodeToString(sum[:]), func(ctx context.Context) Answer {
		first, firstErr = call(ctx)
		if firstErr != nil {
			e := g.ErrorOf(firstErr)
			body, _ := json.Marshal(e)
			return Answer{Code: e.Code, Body: body}
		}
		body, err := json.Marshal(first)
		if err != nil {
			firstErr = g.Failed(false, err, op)
			return Answer{Code: g.ErrorOf(firstErr).Code}
		}
		return Answer{Body: body}
	})
	switch {
	case err != nil:
		return zero, err
	case !replayed:
		return first, firstErr
	case res.Code != "":
		e := GoError{Code: res.Code}
		if err := json.Unmarshal(res.Body, &e); err != nil {
			return zero, g.Failed(false, err, op)
		}
		return zero, g.Error(e)
	}
	var v T
	if err := json.Unmarshal(res.Body, &v); err != nil {
		return zero, g.Failed(false, fmt.Errorf("decode the kept answer of %s: %w", op, err), op)
	}
	return v, nil
}
