package unical

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/unical/unical/idempotency"
)

// WriteOptions are the per-call choices of a write, the Go form of a
// write request's Idempotency-Key and If-Match headers and its
// notifyAttendees and revokeGrant parameters. A write method takes at
// most one (its last, variadic argument); a field the write has no use
// for is refused with CodeInvalid naming it, as an option the request
// cannot honour. httpclient sends each field as its header or parameter.
type WriteOptions struct {
	// IdempotencyKey makes the write run once per application and key:
	// a retry with the same key and arguments gets the first answer
	// (see idempotency.App.Run). Use a new key for each intended write and
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

// Idempotency returns the application's side of the Client's
// idempotency.Service (a write sent with an Idempotency-Key runs once per
// application and key, and every retry gets the first answer), for writes
// built beside the root (package httpapi's Idempotency-Key header,
// booking, engine.ResendMessage, subscriptions): they run once per key as
// the App's own writes do.
func (a *App) Idempotency() idempotency.App { return a.c.idempotency.App(a.id) }

// idempotent runs call, a Go write named op with its arguments args,
// once per o's Idempotency-Key (directly without one): the one entry point
// of every App write into the Client's idempotency.Service.
func idempotent[T any](ctx context.Context, a *App, o WriteOptions, op string, call func(context.Context) (T, error), args ...any) (T, error) {
	return idempotency.Do(ctx, a.Idempotency(), idempotency.Options{Key: o.IdempotencyKey, Query: o.Query(), IfMatch: o.IfMatch}, call, op, args...)
}

// idempotencyErrors is how the Client's idempotency.Service speaks *Error.
type idempotencyErrors struct{}

func (idempotencyErrors) Make(f idempotency.Failure) error {
	return &Error{Code: Code(f.Code), Message: f.Message, Field: f.Field, Allowed: f.Allowed, Reason: StatusReason(f.Reason), RetryAfter: f.RetryAfter, Err: f.Err}
}

func (idempotencyErrors) Read(err error) idempotency.Failure {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: CodeInternal, Message: "Internal error."}
	}
	return idempotency.Failure{Code: string(e.Code), Message: e.Message, Field: e.Field, Allowed: e.Allowed, Reason: string(e.Reason)}
}
