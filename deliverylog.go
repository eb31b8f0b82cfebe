package unical

import (
	"context"
)

// The delivery log's operations (listing attempts, resending a message)
// are package engine's, their wire types package outbox's. This file
// keeps what they need of an App that only the root can give: its Client
// and the Go path of an Idempotency-Key (the sealed page tokens are
// ListStorePage's).

// Client returns the Client the App belongs to, for operations built
// beside the root over its Store (package engine's delivery log).
func (a *App) Client() *Client { return a.c }

// RunOnce runs the write op of a, named op with its arguments args, once
// per Idempotency-Key when opts (a write's variadic argument, at most one
// [WriteOptions], which takes only a key) has one, as
// the App's own writes do: a repeat replays the first answer, and the
// same key with other arguments is CodeKeyReused. Without a key it just
// calls call. It exists for writes built outside the root
// (engine.ResendMessage).
func RunOnce[T any](ctx context.Context, a *App, opts []WriteOptions, op string, call func(context.Context) (T, error), args ...any) (T, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		var zero T
		return zero, err
	}
	return idempotent(ctx, a, o, op, call, args...)
}
