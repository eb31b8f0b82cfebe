package unical

import (
	"context"
	"encoding/json"
)

// The delivery log's operations (listing attempts, resending a message)
// are package engine's: engine.ListDeliveries and engine.ResendMessage.
// This file keeps their wire types and what they need of an App that only
// the root can give: its Client and the Go path of an Idempotency-Key
// (the sealed page tokens are ListStorePage's).

// MarshalJSON adds latencyMs, the attempt's latency in whole milliseconds,
// to the attempt's fields, and writes its timestamp as FormatTimestamp does.
func (d DeliveryAttempt) MarshalJSON() ([]byte, error) {
	type plain DeliveryAttempt // without this method
	return json.Marshal(struct {
		plain
		At        string `json:"timestamp"`
		LatencyMS int64  `json:"latencyMs"`
	}{plain(d), FormatTimestamp(d.At), d.Latency.Milliseconds()})
}

// DeliveryListParams pages the delivery log.
type DeliveryListParams struct {
	PageToken string
	Limit     int
}

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
