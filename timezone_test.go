package unical_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestParseDateTime reads query and body date-times: local ones by the
// rule of RFC 5545 §3.3.5, as event times are (a time a gap skips moves
// forward by the gap, a repeated one is its first occurrence).
func TestParseDateTime(t *testing.T) {
	tests := []struct {
		name, in, zone, want string
	}{
		{"Offset", "2030-03-10T02:30:00-05:00", "Europe/Berlin", "2030-03-10T07:30:00Z"},
		{"Local", "2030-06-07T09:00:00", "America/New_York", "2030-06-07T13:00:00Z"},
		{"Gap", "2030-03-10T02:30:00", "America/New_York", "2030-03-10T07:30:00Z"},
		{"Overlap", "2030-10-27T02:30:00", "Europe/Berlin", "2030-10-27T00:30:00Z"},
		{"Date", "2030-10-27", "Europe/Berlin", "2030-10-26T22:00:00Z"},
		{"NoZone", "2030-03-10T02:30:00", "", "2030-03-10T02:30:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var loc *time.Location
			if tc.zone != "" {
				var err error
				if loc, err = unical.LoadLocation(tc.zone); err != nil {
					t.Fatal(err)
				}
			}
			got, err := unical.ParseDateTime("startDateTime", tc.in, loc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.UTC().Format(time.RFC3339)); diff != "" {
				t.Errorf("ParseDateTime(%q in %q) mismatch (-want +got):\n%s", tc.in, tc.zone, diff)
			}
			ev := unical.EventDateTime{DateTime: tc.in, TimeZone: tc.zone}
			if len(tc.in) == len(unical.DateLayout) {
				ev = unical.EventDateTime{Date: tc.in, TimeZone: tc.zone}
			}
			if et, err := ev.Time("start"); err != nil || !et.Equal(got) {
				t.Errorf("EventDateTime%+v.Time() = %v, %v; want %v as ParseDateTime reads it", ev, et, err, got)
			}
		})
	}
}
