package recur

import (
	"errors"
	"time"
)

// ParseDateTime reads an ISO 8601 date-time as the API takes it in query
// and body values: RFC 3339 with an offset, or a local date-time or date
// read in loc (UTC when nil) by the rule of [Date]. Instants outside the
// years 1 to 9999 in UTC are refused. The first of them,
// 0001-01-01T00:00:00Z, is the zero time.Time, which means "no bound" in
// the Go API: it is read as one nanosecond later, so that it stays a
// bound. The error completes a sentence that starts with the value.
func ParseDateTime(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t, err = ParseLocal(localLayout, s, loc)
	}
	if err != nil {
		t, err = ParseLocal(time.DateOnly, s, loc)
	}
	switch {
	case err != nil:
		return time.Time{}, errors.New("is not an ISO 8601 date-time such as 2026-01-05T09:00:00Z")
	case !InYears(t):
		return time.Time{}, errors.New("is outside the years 0001 to 9999 in UTC")
	case t.IsZero():
		return t.Add(time.Nanosecond).UTC(), nil
	}
	return t, nil
}
