package recur_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/recur"
)

func TestDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		zone     string
		y        int
		m        time.Month
		d, h, mi int
		want     string
	}{
		{name: "Ordinary", zone: "Europe/Berlin", y: 2026, m: 1, d: 5, h: 9, want: "2026-01-05T09:00:00+01:00"},
		{name: "NewYorkGap", zone: "America/New_York", y: 2026, m: 3, d: 8, h: 2, mi: 30, want: "2026-03-08T03:30:00-04:00"},
		{name: "BerlinGap", zone: "Europe/Berlin", y: 2026, m: 3, d: 29, h: 2, mi: 30, want: "2026-03-29T03:30:00+02:00"},
		{name: "RFCExampleGap", zone: "America/New_York", y: 2007, m: 3, d: 11, h: 2, mi: 30, want: "2007-03-11T03:30:00-04:00"},
		{name: "NewYorkFoldFirst", zone: "America/New_York", y: 2026, m: 11, d: 1, h: 1, mi: 30, want: "2026-11-01T01:30:00-04:00"},
		{name: "RFCExampleFold", zone: "America/New_York", y: 2007, m: 11, d: 4, h: 1, mi: 30, want: "2007-11-04T01:30:00-04:00"},
		{name: "BerlinFoldFirst", zone: "Europe/Berlin", y: 2026, m: 10, d: 25, h: 2, mi: 30, want: "2026-10-25T02:30:00+02:00"},
		{name: "BerlinAfterFold", zone: "Europe/Berlin", y: 2026, m: 10, d: 25, h: 3, mi: 0, want: "2026-10-25T03:00:00+01:00"},
		{name: "LordHoweHalfHourGap", zone: "Australia/Lord_Howe", y: 2026, m: 10, d: 4, h: 2, mi: 15, want: "2026-10-04T02:45:00+11:00"},
		{name: "LordHoweHalfHourFold", zone: "Australia/Lord_Howe", y: 2026, m: 4, d: 5, h: 1, mi: 45, want: "2026-04-05T01:45:00+11:00"},
		{name: "ApiaSkippedDay", zone: "Pacific/Apia", y: 2011, m: 12, d: 30, h: 10, want: "2011-12-31T10:00:00+14:00"},
		{name: "SantiagoMidnightGap", zone: "America/Santiago", y: 2026, m: 9, d: 6, h: 0, mi: 30, want: "2026-09-06T01:30:00-03:00"},
		{name: "UTC", zone: "UTC", y: 2026, m: 3, d: 29, h: 2, mi: 30, want: "2026-03-29T02:30:00Z"},
		{name: "Normalises", zone: "UTC", y: 2026, m: 1, d: 32, h: 25, want: "2026-02-02T01:00:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			loc := mustLoad(t, tc.zone)
			got := recur.Date(tc.y, tc.m, tc.d, tc.h, tc.mi, 0, loc)
			if diff := cmp.Diff(tc.want, got.Format(time.RFC3339)); diff != "" {
				t.Errorf("Date() mismatch (-want +got):\n%s", diff)
			}
			if got.Location() != loc {
				t.Errorf("Date() location = %v, want %v", got.Location(), loc)
			}
		})
	}
}

func TestLoadLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		zone    string
		wantErr bool
	}{
		{name: "OK", zone: "Europe/Berlin"},
		{name: "OKUTC", zone: "UTC"},
		{name: "ErrEmpty", zone: "", wantErr: true},
		{name: "ErrLocal", zone: "Local", wantErr: true},
		{name: "ErrUnknown", zone: "Mars/Olympus", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			loc, err := recur.LoadLocation(tc.zone)
			if (err != nil) != tc.wantErr {
				t.Fatalf("LoadLocation(%q) error = %v, wantErr %v", tc.zone, err, tc.wantErr)
			}
			if err == nil && loc.String() != tc.zone {
				t.Errorf("LoadLocation(%q) = %v", tc.zone, loc)
			}
		})
	}
}

func TestOccurrence_In(t *testing.T) {
	t.Parallel()
	tokyo := mustLoad(t, "Asia/Tokyo")
	berlin := mustLoad(t, "Europe/Berlin")
	timed := recur.Occurrence{
		Start:         time.Date(2026, 1, 5, 9, 0, 0, 0, berlin),
		End:           time.Date(2026, 1, 5, 10, 0, 0, 0, berlin),
		OriginalStart: time.Date(2026, 1, 4, 9, 0, 0, 0, berlin),
	}
	allDay := recur.Occurrence{
		Start:         time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC),
		End:           time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC),
		OriginalStart: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC),
		AllDay:        true,
	}
	tests := []struct {
		name string
		o    recur.Occurrence
		want []string
	}{
		{name: "Timed", o: timed, want: []string{"2026-01-05T17:00:00+09:00", "2026-01-05T18:00:00+09:00", "2026-01-04T17:00:00+09:00"}},
		{name: "AllDayUnchanged", o: allDay, want: []string{"2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z", "2026-01-05T00:00:00Z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := tc.o.In(tokyo)
			got := []string{o.Start.Format(time.RFC3339), o.End.Format(time.RFC3339), o.OriginalStart.Format(time.RFC3339)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("In() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstanceID(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	tests := []struct {
		name      string
		seriesID  string
		orig      time.Time
		allDay    bool
		want      string
		wantStart time.Time
	}{
		{name: "Timed", seriesID: "abc123", orig: time.Date(2026, 1, 5, 9, 0, 0, 0, berlin), want: "abc123_20260105T080000Z", wantStart: time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)},
		{name: "TimedDropsSubSecond", seriesID: "abc", orig: time.Date(2026, 1, 5, 8, 0, 0, 999, time.UTC), want: "abc_20260105T080000Z", wantStart: time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)},
		{name: "AllDay", seriesID: "abc123", orig: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), allDay: true, want: "abc123_20260105", wantStart: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)},
		{name: "AllDayDateInOwnZone", seriesID: "x", orig: time.Date(2026, 1, 5, 0, 0, 0, 0, berlin), allDay: true, want: "x_20260105", wantStart: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)},
		{name: "SeriesIDWithUnderscores", seriesID: "uid_with_underscores@example.com", orig: time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC), want: "uid_with_underscores@example.com_20260105T080000Z", wantStart: time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id := recur.InstanceID(tc.seriesID, tc.orig, tc.allDay)
			if id != tc.want {
				t.Fatalf("InstanceID() = %q, want %q", id, tc.want)
			}
			seriesID, start, allDay, err := recur.ParseInstanceID(id)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{seriesID, start.Format(time.RFC3339), allDay}
			want := []any{tc.seriesID, tc.wantStart.Format(time.RFC3339), tc.allDay}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ParseInstanceID(%q) mismatch (-want +got):\n%s", id, diff)
			}
		})
	}
}

func TestParseInstanceID_Errors(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", "abc", "abc_", "_20260105", "abc_2026010", "abc_20261301", "abc_20260105T250000Z", "abc_20260105T080000", "abc_20260105X080000Z"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			if s, st, _, err := recur.ParseInstanceID(id); err == nil {
				t.Errorf("ParseInstanceID(%q) = %q, %v, want an error", id, s, st)
			}
		})
	}
}
