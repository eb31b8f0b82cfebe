// Package timefmt writes the API's timestamps: UTC, with milliseconds.
// It is a leaf so that the root and the public packages beside it (the
// outbox's delivery log) write one format.
package timefmt

import "time"

// Format returns t in UTC as 2006-01-02T15:04:05.000Z, or "" for the zero
// time.
func Format(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
