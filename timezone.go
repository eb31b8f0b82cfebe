package unical

import (
	"sync"
	"time"

	"github.com/unical/unical/internal/recur"
)

var locations sync.Map // string -> *time.Location

// LoadLocation returns the IANA time zone called name, caching the result.
// Unlike time.LoadLocation it refuses "" and "Local", whose meaning depends
// on the machine.
func LoadLocation(name string) (*time.Location, error) {
	if v, ok := locations.Load(name); ok {
		return v.(*time.Location), nil
	}
	if name == "" || name == "Local" {
		return nil, Errorf(CodeInvalid, "unknown time zone %q", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	locations.Store(name, loc)
	return loc, nil
}

// ParseDateTime reads an ISO 8601 date-time query or body value: RFC 3339
// with an offset, or a local date-time read in loc. field names the value in
// the error.
func ParseDateTime(field, s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	if t, err := recur.ParseLocal(LocalDateTimeLayout, s, loc); err == nil {
		return t, nil
	}
	if t, err := recur.ParseLocal(DateLayout, s, loc); err == nil {
		return t, nil
	}
	return time.Time{}, invalidf(field, "%s %q is not an ISO 8601 date-time such as 2026-01-05T09:00:00Z.", field, s)
}
