package unical_test

import (
	"errors"
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

// TestParseDateTime_YearBounds refuses instants outside the years 1 to
// 9999 (in UTC) naming the field, and keeps the first instant,
// 0001-01-01T00:00:00Z, a bound: as the zero time.Time it would read as
// no bound at all.
func TestParseDateTime_YearBounds(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Time
		wantErr  bool
	}{
		{name: "First", in: "0001-01-01T00:00:00Z", want: time.Time{}.Add(time.Nanosecond)},
		{name: "FirstLocal", in: "0001-01-01T00:00:00", want: time.Time{}.Add(time.Nanosecond)},
		{name: "Second", in: "0001-01-01T00:00:01Z", want: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)},
		{name: "Last", in: "9999-12-31T23:59:59Z", want: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
		{name: "ErrYearZero", in: "0000-12-31T23:00:00Z", wantErr: true},
		{name: "ErrBeforeYearOneInUTC", in: "0001-01-01T00:30:00+01:00", wantErr: true},
		{name: "ErrAfter9999InUTC", in: "9999-12-31T23:00:00-05:00", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := unical.ParseDateTime("startDateTime", tc.in, nil)
			if tc.wantErr {
				var ue *unical.Error
				if !errors.As(err, &ue) || ue.Code != unical.CodeInvalid || ue.Field != "startDateTime" {
					t.Fatalf("ParseDateTime(%q) error = %v, want invalid_request naming startDateTime", tc.in, err)
				}
				// An event time outside the years is refused the same way.
				_, err = (&unical.EventDateTime{DateTime: tc.in}).Time("start")
				if !errors.As(err, &ue) || ue.Code != unical.CodeInvalid || ue.Field != "start" {
					t.Errorf("EventDateTime %q: Time error = %v, want invalid_request naming start", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.want) || got.IsZero() {
				t.Errorf("ParseDateTime(%q) = %v, want %v (not the zero time)", tc.in, got, tc.want)
			}
		})
	}
}

// TestExpandEvents_EndOfYear9999 expands series to the end of the year
// 9999: an instance that would end after it is answered as ending at its
// last second, never with a five-digit year.
func TestExpandEvents_EndOfYear9999(t *testing.T) {
	tests := []struct {
		name      string
		series    unical.Event
		wantStart unical.EventDateTime
		wantEnd   unical.EventDateTime
	}{
		{
			name: "Timed",
			series: unical.Event{ID: "s", IsRecurring: true, Recurrence: []string{"RRULE:FREQ=YEARLY"},
				Start: &unical.EventDateTime{DateTime: "9998-12-31T23:00:00Z", TimeZone: "UTC"},
				End:   &unical.EventDateTime{DateTime: "9999-01-01T01:00:00Z", TimeZone: "UTC"}},
			wantStart: unical.EventDateTime{DateTime: "9999-12-31T23:00:00Z", TimeZone: "UTC"},
			wantEnd:   unical.EventDateTime{DateTime: "9999-12-31T23:59:59Z", TimeZone: "UTC"},
		},
		{
			name: "TimedEastOfUTC",
			series: unical.Event{ID: "s", IsRecurring: true, Recurrence: []string{"RRULE:FREQ=YEARLY"},
				Start: &unical.EventDateTime{DateTime: "9998-12-31T22:00:00+01:00", TimeZone: "Europe/Berlin"},
				End:   &unical.EventDateTime{DateTime: "9999-01-01T02:00:00+01:00", TimeZone: "Europe/Berlin"}},
			wantStart: unical.EventDateTime{DateTime: "9999-12-31T22:00:00+01:00", TimeZone: "Europe/Berlin"},
			wantEnd:   unical.EventDateTime{DateTime: "9999-12-31T23:59:59+01:00", TimeZone: "Europe/Berlin"},
		},
		{
			name: "AllDay",
			series: unical.Event{ID: "s", IsRecurring: true, IsAllDay: true, Recurrence: []string{"RRULE:FREQ=YEARLY"},
				Start: &unical.EventDateTime{DateTime: "9998-12-31T00:00:00"}, End: &unical.EventDateTime{DateTime: "9999-01-01T00:00:00"}},
			wantStart: unical.EventDateTime{DateTime: "9999-12-31T00:00:00"},
			wantEnd:   unical.EventDateTime{DateTime: "9999-12-31T00:00:00"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := unical.ExpandEvents([]*unical.Event{&tc.series}, time.Date(9999, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 30, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("ExpandEvents gave %d instances, want 1", len(got))
			}
			if diff := cmp.Diff([2]unical.EventDateTime{tc.wantStart, tc.wantEnd}, [2]unical.EventDateTime{*got[0].Start, *got[0].End}); diff != "" {
				t.Errorf("the last instance mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
