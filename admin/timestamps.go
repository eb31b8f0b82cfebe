package admin

import (
	"encoding/json"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/audit"
)

// The admin API writes every timestamp as /v1 does
// (unical.FormatTimestamp: RFC 3339 in UTC with milliseconds), so that a
// client parses both APIs' times alike and a time does not carry the
// store's precision (nanoseconds in bbolt, microseconds in PostgreSQL).
// encoding/json would write time.Time with RFC3339Nano, so each view with
// a time marshals it here, as the root's Account and Subscription do.

// timestampPtr is unical.FormatTimestamp of an optional time: nil for nil.
func timestampPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := unical.FormatTimestamp(*t)
	return &s
}

// MarshalJSON writes createdAt and updatedAt as /v1 writes timestamps.
func (v ApplicationView) MarshalJSON() ([]byte, error) {
	type plain ApplicationView // without this method
	return json.Marshal(struct {
		ID        string `json:"applicationId"`
		Name      string `json:"name"`
		CreatedAt string `json:"createdAt"`
		UpdatedAt string `json:"updatedAt"`
		plain
	}{v.ID, v.Name, unical.FormatTimestamp(v.CreatedAt), unical.FormatTimestamp(v.UpdatedAt), plain(v)})
}

// MarshalJSON writes failingSince and disabledAt as /v1 writes
// timestamps.
func (v WebhookView) MarshalJSON() ([]byte, error) {
	type plain WebhookView // without this method
	return json.Marshal(struct {
		plain
		FailingSince *string `json:"failingSince,omitempty"`
		DisabledAt   *string `json:"disabledAt,omitempty"`
	}{plain(v), timestampPtr(v.FailingSince), timestampPtr(v.DisabledAt)})
}

// MarshalJSON writes createdAt and lastUsedAt as /v1 writes timestamps.
func (v APIKeyView) MarshalJSON() ([]byte, error) {
	type plain APIKeyView // without this method
	return json.Marshal(struct {
		plain
		CreatedAt  string  `json:"createdAt"`
		LastUsedAt *string `json:"lastUsedAt"`
	}{plain(v), unical.FormatTimestamp(v.CreatedAt), timestampPtr(v.LastUsedAt)})
}

// MarshalJSON writes updatedAt as /v1 writes timestamps.
func (v DelegationView) MarshalJSON() ([]byte, error) {
	type plain DelegationView // without this method
	return json.Marshal(struct {
		plain
		UpdatedAt string `json:"updatedAt"`
	}{plain(v), unical.FormatTimestamp(v.UpdatedAt)})
}

// MarshalJSON writes oldestPendingAt as /v1 writes timestamps.
func (o OutboxStatus) MarshalJSON() ([]byte, error) {
	type plain OutboxStatus // without this method
	return json.Marshal(struct {
		plain
		OldestPendingAt *string `json:"oldestPendingAt"`
	}{plain(o), timestampPtr(o.OldestPendingAt)})
}

// MarshalJSON writes each entry's at as /v1 writes timestamps.
func (p AuditPage) MarshalJSON() ([]byte, error) {
	type entry struct {
		ID string `json:"id"`
		At string `json:"at"`
		*audit.Entry
	}
	var data []entry
	for _, e := range p.Data {
		data = append(data, entry{e.ID, unical.FormatTimestamp(e.At), e})
	}
	if data == nil && p.Data != nil {
		data = []entry{}
	}
	return json.Marshal(struct {
		Data          []entry `json:"data"`
		NextPageToken string  `json:"nextPageToken,omitempty"`
	}{data, p.NextPageToken})
}
