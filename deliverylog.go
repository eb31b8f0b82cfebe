package unical

import (
	"encoding/json"
)

// The delivery log's operations (listing attempts, resending a message)
// are package engine's: engine.ListDeliveries and engine.ResendMessage.
// This file keeps their wire types and what they need of an App that only
// the root can give: its Client (the sealed page tokens are
// ListStorePage's; the Go path of an Idempotency-Key is App.Idempotency).

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
