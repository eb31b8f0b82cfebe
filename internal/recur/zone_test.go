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

// TestParseLocal reads local date-times and dates by the rule of Date.
func TestParseLocal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, layout, in, zone, want string
	}{
		{"Ordinary", "2006-01-02T15:04:05", "2030-06-07T09:00:00", "America/New_York", "2030-06-07T13:00:00Z"},
		{"Gap", "2006-01-02T15:04:05", "2030-03-10T02:30:00", "America/New_York", "2030-03-10T07:30:00Z"},
		{"OverlapFirst", "2006-01-02T15:04:05", "2030-10-27T02:30:00", "Europe/Berlin", "2030-10-27T00:30:00Z"},
		{"Fraction", "2006-01-02T15:04:05", "2030-06-07T09:00:00.25", "UTC", "2030-06-07T09:00:00.25Z"},
		{"MidnightGap", "2006-01-02", "2026-09-06", "America/Santiago", "2026-09-06T04:00:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := recur.ParseLocal(tc.layout, tc.in, mustLoad(t, tc.zone))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.UTC().Format(time.RFC3339Nano)); diff != "" {
				t.Errorf("ParseLocal(%q in %s) mismatch (-want +got):\n%s", tc.in, tc.zone, diff)
			}
		})
	}
	if _, err := recur.ParseLocal("2006-01-02T15:04:05", "2030-02-30T09:00:00", time.UTC); err == nil {
		t.Error("ParseLocal accepted 30 February")
	}
}

// TestStampWallOf writes wall clocks with the offset that keeps their
// digits and reads the digits back: a time a gap skips keeps them with
// the offset before the gap, a repeated one is its first occurrence, and
// digits that do not denote the instant in its zone give way to the
// instant's own wall clock.
func TestStampWallOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, wall, zone, want string
	}{
		{"Ordinary", "2030-06-07T09:00:00", "America/New_York", "2030-06-07T09:00:00-04:00"},
		{"Gap", "2030-03-10T02:30:00", "America/New_York", "2030-03-10T02:30:00-05:00"},
		{"Overlap", "2030-10-27T02:30:00", "Europe/Berlin", "2030-10-27T02:30:00+02:00"},
		{"UTC", "2030-03-10T02:30:00", "UTC", "2030-03-10T02:30:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			loc := mustLoad(t, tc.zone)
			wall, err := time.Parse("2006-01-02T15:04:05", tc.wall)
			if err != nil {
				t.Fatal(err)
			}
			got := recur.Stamp(wall, loc)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Stamp(%s in %s) mismatch (-want +got):\n%s", tc.wall, tc.zone, diff)
			}
			inst, err := time.Parse(time.RFC3339, got)
			if err != nil {
				t.Fatal(err)
			}
			if !inst.Equal(recur.At(wall, loc)) {
				t.Errorf("Stamp(%s in %s) = %s, not the instant At gives, %s", tc.wall, tc.zone, got, recur.At(wall, loc))
			}
			if back := recur.WallOf(got, inst.In(loc)); !back.Equal(wall) {
				t.Errorf("WallOf(%s) = %s, want the digits %s", got, back, wall)
			}
		})
	}
	// The second 02:30 in Berlin, written with its offset: its digits
	// would read as the first, so the wall clock is the instant's.
	berlin := mustLoad(t, "Europe/Berlin")
	second := time.Date(2030, 10, 27, 1, 30, 0, 0, time.UTC).In(berlin)
	if got, want := recur.WallOf("2030-10-27T02:30:00+01:00", second), time.Date(2030, 10, 27, 2, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("WallOf(second 02:30) = %s, want %s", got, want)
	}
	// Digits in another zone than the instant's: the instant's wall clock.
	ny := mustLoad(t, "America/New_York")
	inst := time.Date(2030, 6, 7, 13, 0, 0, 0, time.UTC).In(ny)
	if got, want := recur.WallOf("2030-06-07T15:00:00+02:00", inst), time.Date(2030, 6, 7, 9, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("WallOf(a Berlin rendering of a New York time) = %s, want %s", got, want)
	}
}

// TestParseAt expands a daily series from a start that the first day's
// gap skips: the first instance moves forward by the gap, the later ones
// keep the time of day as written. Parse, given the instant, cannot know
// the wall clock and keeps 03:30.
func TestParseAt(t *testing.T) {
	t.Parallel()
	ny := mustLoad(t, "America/New_York")
	start := time.Date(2030, 3, 10, 7, 30, 0, 0, time.UTC).In(ny)
	set, err := recur.ParseAt([]string{"RRULE:FREQ=DAILY;COUNT=3"}, start, "2030-03-10T02:30:00", false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for occ := range set.Between(time.Date(2030, 3, 9, 0, 0, 0, 0, time.UTC), time.Date(2030, 3, 20, 0, 0, 0, 0, time.UTC), time.Hour) {
		got = append(got, occ.Start.Format(time.RFC3339))
	}
	want := []string{"2030-03-10T03:30:00-04:00", "2030-03-11T02:30:00-04:00", "2030-03-12T02:30:00-04:00"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instances mismatch (-want +got):\n%s", diff)
	}
}

// TestSet_Overlaps: a series overlaps a window when one of its instances
// does; one that ended before it or starts after it does not, and an open
// end reaches to the year 9999.
func TestSet_Overlaps(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 9, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name     string
		start    time.Time
		rule     string
		from, to time.Time
		want     bool
	}{
		{"Ended", day(1).Add(10 * time.Hour), "RRULE:FREQ=DAILY;COUNT=3", day(4), day(6), false},
		{"Running", day(1).Add(10 * time.Hour), "RRULE:FREQ=DAILY;COUNT=10", day(4), day(6), true},
		{"Later", day(20).Add(10 * time.Hour), "RRULE:FREQ=WEEKLY", day(4), day(6), false},
		{"LaterOpenEnd", day(20).Add(10 * time.Hour), "RRULE:FREQ=WEEKLY", day(4), time.Time{}, true},
		{"LastInstanceLasts", day(3).Add(23 * time.Hour), "RRULE:FREQ=DAILY;COUNT=1", day(4), day(6), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, err := recur.Parse([]string{tc.rule}, tc.start, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := set.Overlaps(tc.from, tc.to, 2*time.Hour); got != tc.want {
				t.Errorf("Overlaps(%v, %v) = %v, want %v", tc.from, tc.to, got, tc.want)
			}
		})
	}
}
