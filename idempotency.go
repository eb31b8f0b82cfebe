package unical

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/unical/unical/internal/idempotency"
)

// Idempotency-Key: a write sent with a key runs once per application and
// key; its answer is kept for a day and every retry of the same request
// gets that answer instead of a second provider call. The HTTP layer
// (header Idempotency-Key) and the Go write methods (WriteOptions'
// IdempotencyKey) both go through App.RunIdempotent; the claim, the
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

// WriteOptions are the per-call choices of a write, the Go form of a
// write request's Idempotency-Key and If-Match headers and its
// notifyAttendees and revokeGrant parameters. A write method takes at
// most one (its last, variadic argument); a field the write has no use
// for is refused with CodeInvalid naming it, as an option the request
// cannot honour. httpclient sends each field as its header or parameter.
type WriteOptions struct {
	// IdempotencyKey makes the write run once per application and key:
	// a retry with the same key and arguments gets the first answer
	// (see App.RunIdempotent). Use a new key for each intended write and
	// the same key for its retries; "" is none. An in-process write with
	// a key is not stopped by cancelling ctx: it runs to ctx's deadline
	// (or two minutes), so that its answer is kept for the retry. Every
	// write takes it.
	IdempotencyKey string
	// NotifyAttendees asks an event write (create, update, delete, and
	// their scoped forms) to email the attendees (true) or not (false);
	// nil leaves it to the provider's default (see GET /v1/capabilities).
	// A value the account's provider cannot honour is refused with
	// CodeInvalid naming notifyAttendees.
	NotifyAttendees *bool
	// KeepGrant asks DeleteAccount to leave the account's grant alive at
	// the provider (revokeGrant=false) rather than revoke it, for an
	// application that keeps using the grant elsewhere.
	KeepGrant bool
	// IfMatch makes an event update or delete conditional on etag, the
	// event's etag as read: a write to an event no longer at it is
	// CodePrecondition naming If-Match, and nothing is written.
	IfMatch string
}

// The names of WriteOptions' fields besides IdempotencyKey, as a write
// request names them and as OptionsOf takes them.
const (
	OptionNotifyAttendees = NotifyAttendeesParameter
	OptionRevokeGrant     = "revokeGrant"
	OptionIfMatch         = "If-Match"
)

// OptionsOf returns the WriteOptions of a write's variadic argument (the
// zero value for none), refusing a second one and a field the write does
// not take: takes names those it does, by the Option constants. Writes
// built outside the root (package booking, subscriptions) use it as the
// App's own do.
func OptionsOf(opts []WriteOptions, takes ...string) (WriteOptions, error) {
	switch {
	case len(opts) == 0:
		return WriteOptions{}, nil
	case len(opts) > 1:
		return WriteOptions{}, Errorf(CodeInvalid, "Pass at most one WriteOptions to a write.")
	}
	o := opts[0]
	for _, f := range []struct {
		name  string
		given bool
	}{
		{OptionNotifyAttendees, o.NotifyAttendees != nil},
		{OptionRevokeGrant, o.KeepGrant},
		{OptionIfMatch, o.IfMatch != ""},
	} {
		if f.given && !slices.Contains(takes, f.name) {
			return WriteOptions{}, FieldError(f.name, "This write does not take %s.", f.name)
		}
	}
	return o, nil
}

// Query returns the options of o that are query parameters of the write's
// HTTP request (notifyAttendees, revokeGrant), as httpclient sends them
// and as a Go write's fingerprint counts them; nil when there is none.
func (o WriteOptions) Query() map[string]string {
	q := map[string]string{}
	if o.NotifyAttendees != nil {
		q[NotifyAttendeesParameter] = strconv.FormatBool(*o.NotifyAttendees)
	}
	if o.KeepGrant {
		q[OptionRevokeGrant] = "false"
	}
	if len(q) == 0 {
		return nil
	}
	return q
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
// implementation behind the Idempotency-Key header and
// WriteOptions.IdempotencyKey.
// fingerprint identifies the request (the HTTP layer hashes the method,
// path, query and body); a request is a retry when its key and fingerprint
// match.
//
//   - The first request claims the key and runs run with a context that
//     the caller's cancellation does not end (its deadline stays; without
//     one, two minutes). A kept answer (see keepsIdempotentResult) is
//     returned and stored, sealed, for a day (over 64 KiB, its status
//     alone: a retry is CodeConflict); another is returned, key freed.
//   - A retry gets the kept answer with replayed true; run is not called.
//   - A retry while the first runs is CodeConflict, with RetryAfter; once
//     the first attempt's lease (its deadline plus a margin) has passed
//     without an answer, its process is taken to have died: the retry runs.
//   - A request with a key first used with another fingerprint is
//     CodeKeyReused; a bad key is CodeInvalid; a new key of an
//     application holding 100,000 records or 64 MiB of kept answers is
//     CodeRateLimited. All name Idempotency-Key.
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
	case errors.Is(err, idempotency.ErrNotKept):
		return ans, false, &Error{Code: CodeConflict, Field: IdempotencyKeyField, Message: fmt.Sprintf("The request with this Idempotency-Key was done, but its answer was larger than %d KiB and is not kept; read the resource to see it.", idempotency.MaxKeptBody>>10)}
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
		Claim: c.ID, CreatedAt: c.CreatedAt, LeaseExpiry: c.LeaseExpiry, ExpiresAt: c.ExpiresAt}, idempotency.MaxKeys, idempotency.MaxBytes)
	if ErrorCode(err) == CodeRateLimited {
		// Space comes back when the sweep removes expired records (every 5 minutes by default: engine.DefaultSweepInterval).
		return nil, &Error{Code: CodeRateLimited, Field: IdempotencyKeyField, RetryAfter: 5 * time.Minute,
			Message: fmt.Sprintf("This application holds the most Idempotency-Keys kept (%d keys or %d MiB of answers of the last %s); retry after the seconds in Retry-After, or send the write without a key.", idempotency.MaxKeys, idempotency.MaxBytes>>20, idempotency.TTL)}
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

// idempotent runs call, a Go write named op with its arguments args,
// directly when o has no Idempotency-Key, and else once per key through
// internal/idempotency's Once. op, the arguments and the options that
// change what the write does make the request's fingerprint, so that a
// retry with other options is refused as a reused key, on the Go path as
// over HTTP (where they are the query and the If-Match header), rather
// than replayed. Without options the fingerprint is the one it was before
// options counted.
func idempotent[T any](ctx context.Context, a *App, o WriteOptions, op string, call func(context.Context) (T, error), args ...any) (T, error) {
	if o.IdempotencyKey == "" {
		return call(ctx)
	}
	if q := o.Query(); q != nil {
		args = append(args, q)
	}
	if o.IfMatch != "" {
		args = append(args, map[string]string{OptionIfMatch: o.IfMatch})
	}
	return idempotency.Once(ctx, a.goCall(o.IdempotencyKey), call, op, args...)
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
