package unical

import (
	"context"
	"encoding/json"
)

// The delivery log's operations (listing attempts, resending a message)
// are package engine's: engine.ListDeliveries and engine.ResendMessage.
// This file keeps their wire types and the three things they need of an
// App that only the root can give: its Client, the sealed page tokens of
// its listings, and the Go path of an Idempotency-Key.

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

// ListStorePage returns one page of a listing of the App's Store records
// in id order, with the App's sealed page tokens: kind and scope bind a
// token to its listing (another listing's token, or another
// application's, is CodeInvalid naming pageToken), and limit is checked
// as every listing checks it (0: DefaultPageSize). list returns up to
// limit records after the id after; id names a record and view is what
// the page shows of it. It exists for listings built outside the root
// (engine.ListDeliveries), which must page as the App's own do.
func ListStorePage[R, T any](ctx context.Context, a *App, kind, scope, pageToken string, limit int, list func(after string, limit int) ([]R, error), id func(R) string, view func(R) T) (*Page[T], error) {
	return listPage(ctx, a, storeListing{kind: kind, scope: scope, pageToken: pageToken, limit: limit}, list, id, view)
}

// RunOnce runs the write op of a, named op with its arguments args, once
// per Idempotency-Key when ctx carries one (see [WithIdempotencyKey]), as
// the App's own writes do: a repeat replays the first answer, and the
// same key with other arguments is CodeKeyReused. Without a key it just
// calls call. It exists for writes built outside the root
// (engine.ResendMessage).
func RunOnce[T any](ctx context.Context, a *App, op string, call func(context.Context) (T, error), args ...any) (T, error) {
	return once(ctx, a, op, call, args...)
}
