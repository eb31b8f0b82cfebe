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
// with an offset, or a local date-time or date read in loc (see
// recur.ParseDateTime: instants outside the years 1 to 9999 are refused,
// and 0001-01-01T00:00:00Z stays a bound). field names the value in the
// error.
func ParseDateTime(field, s string, loc *time.Location) (time.Time, error) {
	t, err := recur.ParseDateTime(s, loc)
	if err != nil {
		return time.Time{}, invalidf(field, "%s %q %v.", field, s, err)
	}
	return t, nil
}
