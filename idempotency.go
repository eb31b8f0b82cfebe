package unical

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/unical/unical/internal/idempotency"
)

// Idempotency-Key: a write sent with a key runs once per application and
// key; its answer is kept for a day and every retry of the same request
// gets that answer instead of a second provider call. The HTTP layer
// (header Idempotency-Key) and the Go write methods (a key set with
// WithIdempotencyKey) both go through App.RunIdempotent; the claim, the
// lease, the checks and the replay are internal/idempotency's.

// IdempotencyKeyField is how errors about the key name it: the header.
const IdempotencyKeyField = "Idempotency-Key"

// CheckIdempotencyKey returns a CodeInvalid *Error naming Idempotency-Key
// unless key is 1 to 255 visible ASCII characters (0x21 to 0x7E): a UUID
// or any token a client makes fits, and the key can travel in an HTTP
// header unchanged.
func CheckIdempotencyKey(key string) error {
	if msg := idempotency.CheckKey(key); msg != "" {
		return FieldError(IdempotencyKeyField, "%s", msg)
	}
	return nil
}

type idempotencyKeyCtx struct{}

// WithIdempotencyKey returns ctx carrying an Idempotency-Key for the write
// it is passed to: App's methods whose HTTP form is POST, PUT or DELETE
// then run once per key (see App.RunIdempotent), and httpclient sends the
// key in the Idempotency-Key header. Reads ignore it. Use a new key for
// each intended write and the same key for its retries; the key is
// checked when the write is called; an empty key is no key, so that
// WithIdempotencyKey(ctx, "") takes it away. An in-process write with a
// key is not stopped by cancelling ctx: it runs to ctx's deadline (or two
// minutes), so that its answer is kept for the retry.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKeyCtx{}, key)
}

// IdempotencyKeyFrom returns the key WithIdempotencyKey set on ctx; ok is
// false when there is none or it is empty.
func IdempotencyKeyFrom(ctx context.Context) (key string, ok bool) {
	key, _ = ctx.Value(idempotencyKeyCtx{}).(string)
	return key, key != ""
}

// IdempotentResult is an encoded answer: what RunIdempotent keeps and
// replays.
type IdempotentResult struct {
	// Status is the HTTP status; 0 for an answer of a Go call.
	Status int
	// Code is the error code; "" for a success.
	Code Code
	// Body is the encoded answer, byte for byte.
	Body []byte
}

// keepsIdempotentResult reports whether an answer with code is kept. A
// success is, and so are the refusals that are the request's outcome for
// good and are given after the request has been looked at (not found, a
// conflict, a changed resource, a dropped cursor). Not kept, so that the
// key is freed and a retry runs again:
//   - invalid requests and oversized bodies: nothing was done, and the
//     client may fix the request and send it with the same key;
//   - rate limits, an expired account, refused credentials: nothing was
//     done and the same request may succeed later;
//   - every 5xx (provider errors, unavailability, timeouts, our own
//     failures, not implemented): were they kept, the same failure would
//     answer every retry for a day although the write may succeed now,
//     and the client's only way out would be a new key, which is no
//     safer. The risk of not keeping them is a second write when the
//     first reached the provider but its answer did not reach us; the
//     attempt runs to its deadline even when the client goes away, so a
//     lost client connection is never such a case.
func keepsIdempotentResult(code Code) bool {
	switch code {
	case "", CodeNotFound, CodeConflict, CodePrecondition, CodeGone, CodeSlotUnavailable, CodeLimitReached:
		return true
	}
	return false
}

// RunIdempotent runs run at most once for the application's key: the one
// implementation behind the Idempotency-Key header and WithIdempotencyKey.
// fingerprint identifies the request (the HTTP layer hashes the method,
// path, query and body); a request is a retry when its key and fingerprint
// match.
//
//   - The first request claims the key and runs run with a context that
//     the caller's cancellation does not end (its deadline stays; without
//     one, two minutes). A kept answer (see keepsIdempotentResult) is
//     returned and stored, sealed, for a day; another is returned and the
//     key freed.
//   - A retry gets the kept answer with replayed true, and run is not
//     called.
//   - A retry while the first runs is CodeConflict, with RetryAfter; once
//     the first attempt's lease (its deadline plus a margin) has passed
//     without an answer, its process is taken to have died and the retry
//     runs.
//   - A request with a key first used with another fingerprint is
//     CodeKeyReused; a bad key is CodeInvalid; a new key of an
//     application holding 100,000 records is CodeRateLimited. All name
//     Idempotency-Key.
func (a *App) RunIdempotent(ctx context.Context, key, fingerprint string, run func(context.Context) IdempotentResult) (IdempotentResult, bool, error) {
	ans, replayed, err := a.runIdempotent(ctx, key, fingerprint, func(ctx context.Context) idempotency.Answer {
		res := run(ctx)
		return idempotency.Answer{Status: res.Status, Code: string(res.Code), Body: res.Body}
	})
	if err != nil {
		return IdempotentResult{}, false, err
	}
	return IdempotentResult{Status: ans.Status, Code: Code(ans.Code), Body: ans.Body}, replayed, nil
}

// runIdempotent is RunIdempotent over internal/idempotency's answers,
// with its failures made the root's errors.
func (a *App) runIdempotent(ctx context.Context, key, fingerprint string, run func(context.Context) idempotency.Answer) (idempotency.Answer, bool, error) {
	if err := CheckIdempotencyKey(key); err != nil {
		return idempotency.Answer{}, false, err
	}
	keep := func(code string) bool { return keepsIdempotentResult(Code(code)) }
	ans, replayed, err := a.c.idempotency.Run(ctx, idempotencyKeys{a, key}, a.id, key, fingerprint, keep, run)
	switch {
	case errors.Is(err, idempotency.ErrKeyReused):
		return ans, false, &Error{Code: CodeKeyReused, Field: IdempotencyKeyField,
			Message: "This Idempotency-Key was used with another request (method, path, query or body); use a new key for a new request."}
	case errors.Is(err, idempotency.ErrRunning):
		// A second: most writes finish within it, and the lease, which
		// may be minutes away, is only the bound for a dead attempt.
		return ans, false, &Error{Code: CodeConflict, Field: IdempotencyKeyField, RetryAfter: time.Second,
			Message: "A request with this Idempotency-Key is still running; retry after the seconds in Retry-After to get its answer."}
	case errors.Is(err, idempotency.ErrUnopened):
		return ans, false, WrapError(CodeInternal, err, "Internal error.")
	}
	return ans, replayed, err
}

// idempotencyKeys is the Store's IdempotencyStore for one key of the
// application.
type idempotencyKeys struct {
	a   *App
	key string
}

func (k idempotencyKeys) Begin(ctx context.Context, c *idempotency.Claim) (*idempotency.Held, error) {
	held, err := k.a.c.store.BeginIdempotent(ctx, &IdempotencyRecord{ApplicationID: k.a.id, Key: k.key, Fingerprint: c.Fingerprint,
		Claim: c.ID, CreatedAt: c.CreatedAt, LeaseExpiry: c.LeaseExpiry, ExpiresAt: c.ExpiresAt}, idempotency.MaxKeys)
	if ErrorCode(err) == CodeRateLimited {
		// Space comes back when the sweep removes expired records.
		return nil, &Error{Code: CodeRateLimited, Field: IdempotencyKeyField, RetryAfter: max(k.a.c.sweep.interval, time.Minute),
			Message: fmt.Sprintf("This application holds %d Idempotency-Keys of the last %s, the most kept; retry after the seconds in Retry-After, or send the write without a key.", idempotency.MaxKeys, idempotency.TTL)}
	}
	if err != nil || held == nil {
		return nil, err
	}
	out := &idempotency.Held{Fingerprint: held.Fingerprint}
	if r := held.Response; r != nil {
		out.Kept = &idempotency.Answer{Status: r.Status, Code: string(r.Code), Body: r.SealedBody}
	}
	return out, nil
}

func (k idempotencyKeys) Complete(ctx context.Context, c *idempotency.Claim, kept *idempotency.Answer) error {
	var resp *IdempotentResponse
	if kept != nil {
		resp = &IdempotentResponse{Status: kept.Status, Code: Code(kept.Code), SealedBody: kept.Body}
	}
	return k.a.c.store.CompleteIdempotent(ctx, k.a.id, k.key, c.ID, resp)
}

// Every App write goes through one of writeN (N its argument count), the
// one place that gives Go calls their Idempotency-Key: the exported method
// is a single call of writeN, and the write itself, an unexported method,
// never sees the key. op and the arguments make the request's fingerprint.
func write1[A, R any](ctx context.Context, a *App, op string, f func(context.Context, A) (R, error), x A) (R, error) {
	return once(ctx, a, op, func(ctx context.Context) (R, error) { return f(ctx, x) }, x)
}

func write2[A, B, R any](ctx context.Context, a *App, op string, f func(context.Context, A, B) (R, error), x A, y B) (R, error) {
	return once(ctx, a, op, func(ctx context.Context) (R, error) { return f(ctx, x, y) }, x, y)
}

func write3[A, B, C, R any](ctx context.Context, a *App, op string, f func(context.Context, A, B, C) (R, error), x A, y B, z C) (R, error) {
	return once(ctx, a, op, func(ctx context.Context) (R, error) { return f(ctx, x, y, z) }, x, y, z)
}

func write4[A, B, C, D, R any](ctx context.Context, a *App, op string, f func(context.Context, A, B, C, D) (R, error), x A, y B, z C, w D) (R, error) {
	return once(ctx, a, op, func(ctx context.Context) (R, error) { return f(ctx, x, y, z, w) }, x, y, z, w)
}

func write5[A, B, C, D, E, R any](ctx context.Context, a *App, op string, f func(context.Context, A, B, C, D, E) (R, error), x A, y B, z C, w D, v E) (R, error) {
	return once(ctx, a, op, func(ctx context.Context) (R, error) { return f(ctx, x, y, z, w, v) }, x, y, z, w, v)
}

// once runs call directly when ctx carries no Idempotency-Key, and else
// once per key through internal/idempotency's Once, with the key taken
// off ctx so that the write's own calls of other App methods do not claim
// it again.
func once[T any](ctx context.Context, a *App, op string, call func(context.Context) (T, error), args ...any) (T, error) {
	key, ok := IdempotencyKeyFrom(ctx)
	if !ok {
		return call(ctx)
	}
	return idempotency.Once(WithIdempotencyKey(ctx, ""), a.goCall(key), call, op, append(args, writeOptions(ctx)...)...)
}

// writeOptions are the options on ctx that change what a write does, as
// the query parameters httpclient sends for them. They are part of a Go
// write's fingerprint as the query is part of an HTTP request's, so that
// a retry with other options is refused as a reused key on both paths
// rather than replayed in process. Without options the fingerprint is
// the one it was before options counted.
func writeOptions(ctx context.Context) []any {
	q := map[string]string{}
	if notify, ok := NotifyAttendeesFrom(ctx); ok {
		q[NotifyAttendeesParameter] = strconv.FormatBool(notify)
	}
	if !RevokeGrantFrom(ctx) {
		q["revokeGrant"] = "false"
	}
	if len(q) == 0 {
		return nil
	}
	return []any{q}
}

// goCall runs a Go write once for key through runIdempotent, keeping its
// *Error as the error of a retry.
func (a *App) goCall(key string) idempotency.GoCall {
	return idempotency.GoCall{
		Run: func(ctx context.Context, fingerprint string, f func(context.Context) idempotency.Answer) (idempotency.Answer, bool, error) {
			return a.runIdempotent(ctx, key, fingerprint, f)
		},
		ErrorOf: func(err error) idempotency.GoError {
			var e *Error
			if !errors.As(err, &e) {
				e = &Error{Code: CodeInternal, Message: "Internal error."}
			}
			return idempotency.GoError{Code: string(e.Code), Message: e.Message, Field: e.Field, Allowed: e.Allowed, Reason: string(e.Reason)}
		},
		Error: func(e idempotency.GoError) error {
			return &Error{Code: Code(e.Code), Message: e.Message, Field: e.Field, Allowed: e.Allowed, Reason: StatusReason(e.Reason)}
		},
		Failed: func(invalid bool, err error, op string) error {
			if invalid {
				return WrapError(CodeInvalid, err, "The arguments of %s could not be encoded.", op)
			}
			return WrapError(CodeInternal, err, "Internal error.")
		},
	}
}
