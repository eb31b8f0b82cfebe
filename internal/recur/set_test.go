package recur_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/recur"
)

func mustParse(tb testing.TB, lines []string, start time.Time, allDay bool) *recur.Set {
	tb.Helper()
	s, err := recur.Parse(lines, start, allDay)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// formatAll renders occurrences, marking moved ones with their original
// start.
func formatAll(seq func(func(recur.Occurrence) bool)) []string {
	var out []string
	for o := range seq {
		s := format(o)
		if o.Overridden {
			orig := o.OriginalStart.Format(time.RFC3339)
			if o.AllDay {
				orig = o.OriginalStart.Format(time.DateOnly)
			}
			s += " (moved from " + orig + ")"
		}
		out = append(out, s)
	}
	return out
}

func TestSet_Between(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	ny := mustLoad(t, "America/New_York")
	be := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, berlin) }
	daily9 := []string{"RRULE:FREQ=DAILY"}
	tests := []struct {
		name     string
		lines    []string
		start    time.Time
		allDay   bool
		from, to time.Time
		dur      time.Duration
		want     []string
	}{
		{
			name: "OverlapFromBeforeWindow", lines: daily9, start: be(1, 5, 9),
			from: be(1, 6, 10), to: be(1, 7, 10), dur: 2 * time.Hour,
			want: []string{"2026-01-06T09:00:00+01:00/2026-01-06T11:00:00+01:00", "2026-01-07T09:00:00+01:00/2026-01-07T11:00:00+01:00"},
		},
		{
			name: "EndEqualsFromExcluded", lines: daily9, start: be(1, 5, 9),
			from: be(1, 6, 10), to: be(1, 6, 12), dur: time.Hour,
			want: nil,
		},
		{
			name: "StartEqualsToExcluded", lines: daily9, start: be(1, 5, 9),
			from: be(1, 6, 8), to: be(1, 6, 9), dur: time.Hour,
			want: nil,
		},
		{
			name: "ZeroLengthAtFromIncluded", lines: daily9, start: be(1, 5, 9),
			from: be(1, 6, 9), to: be(1, 6, 10),
			want: []string{"2026-01-06T09:00:00+01:00/2026-01-06T09:00:00+01:00"},
		},
		{
			name: "WindowInOtherZone", lines: daily9, start: be(1, 5, 9),
			from: time.Date(2026, 1, 6, 3, 0, 0, 0, ny), to: time.Date(2026, 1, 6, 4, 0, 0, 0, ny), dur: time.Hour,
			want: []string{"2026-01-06T09:00:00+01:00/2026-01-06T10:00:00+01:00"},
		},
		{
			name: "PeriodLongerThanDurationReachesBack", lines: []string{"RRULE:FREQ=WEEKLY;COUNT=1", "RDATE;VALUE=PERIOD:20260301T080000Z/P3D"}, start: be(1, 5, 9),
			from: be(3, 3, 0), to: be(3, 3, 1), dur: time.Hour,
			want: []string{"2026-03-01T09:00:00+01:00/2026-03-04T09:00:00+01:00"},
		},
		{
			name: "AllDayWindowInDisplayZone", lines: []string{"RRULE:FREQ=DAILY;COUNT=5"}, allDay: true,
			start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC),
			// 23:30 in Berlin on Jan 6 is still Jan 6 there: the Jan 6
			// instance overlaps, the Jan 7 one does not start before to.
			from: time.Date(2026, 1, 6, 23, 30, 0, 0, berlin), to: time.Date(2026, 1, 7, 0, 0, 0, 0, berlin),
			want: []string{"2026-01-06/2026-01-07"},
		},
		{
			name: "AllDayMultiDay", lines: []string{"RRULE:FREQ=WEEKLY;COUNT=3"}, allDay: true,
			start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC),
			from:  time.Date(2026, 1, 14, 0, 0, 0, 0, ny), to: time.Date(2026, 1, 15, 0, 0, 0, 0, ny), dur: 3 * 24 * time.Hour,
			want: []string{"2026-01-12/2026-01-15"},
		},
		{
			name: "RDateBeforeStartAndDuplicateOfRule", lines: []string{"RRULE:FREQ=DAILY;COUNT=2", "RDATE:20260101T080000Z,20260106T080000Z"}, start: be(1, 5, 9),
			from: be(1, 1, 0), to: be(2, 1, 0), dur: time.Hour,
			want: []string{
				"2026-01-01T09:00:00+01:00/2026-01-01T10:00:00+01:00", "2026-01-05T09:00:00+01:00/2026-01-05T10:00:00+01:00",
				"2026-01-06T09:00:00+01:00/2026-01-06T10:00:00+01:00",
			},
		},
		{
			name: "RDateDateOnTimedSeriesUsesStartTime", lines: []string{"RDATE;VALUE=DATE:20260110"}, start: be(1, 5, 9),
			from: be(1, 1, 0), to: be(2, 1, 0), dur: time.Hour,
			want: []string{"2026-01-05T09:00:00+01:00/2026-01-05T10:00:00+01:00", "2026-01-10T09:00:00+01:00/2026-01-10T10:00:00+01:00"},
		},
		{
			name: "FloatingExdateInSeriesZone", lines: []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20260106T090000"}, start: be(1, 5, 9),
			from: be(1, 1, 0), to: be(2, 1, 0), dur: time.Hour,
			want: []string{"2026-01-05T09:00:00+01:00/2026-01-05T10:00:00+01:00", "2026-01-07T09:00:00+01:00/2026-01-07T10:00:00+01:00"},
		},
		{
			name: "NoRecurrenceIsSingleInstance", start: be(1, 5, 9),
			from: be(1, 1, 0), to: be(2, 1, 0), dur: time.Hour,
			want: []string{"2026-01-05T09:00:00+01:00/2026-01-05T10:00:00+01:00"},
		},
		{
			name: "UnionDeduplicates", lines: []string{"RRULE:FREQ=DAILY;COUNT=3", "RRULE:FREQ=WEEKLY;COUNT=2"}, start: be(1, 5, 9),
			from: be(1, 1, 0), to: be(2, 1, 0), dur: time.Hour,
			want: []string{
				"2026-01-05T09:00:00+01:00/2026-01-05T10:00:00+01:00", "2026-01-06T09:00:00+01:00/2026-01-06T10:00:00+01:00",
				"2026-01-07T09:00:00+01:00/2026-01-07T10:00:00+01:00", "2026-01-12T09:00:00+01:00/2026-01-12T10:00:00+01:00",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tc.lines, tc.start, tc.allDay)
			got := formatAll(s.Between(tc.from, tc.to, tc.dur))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Between() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSet_WithOverrides(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	be := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, berlin) }
	s := mustParse(t, []string{"RRULE:FREQ=DAILY"}, be(1, 5, 9), false)
	s, err := s.WithOverrides([]recur.Override{
		{OriginalStart: be(1, 6, 9), Start: be(1, 20, 13), End: be(1, 20, 15)},        // Moved into the window.
		{OriginalStart: be(1, 21, 9), Start: be(2, 1, 9)},                             // Moved out of it.
		{OriginalStart: be(1, 19, 9), Cancelled: true},                                // Cancelled.
		{OriginalStart: be(1, 19, 10), Start: be(1, 20, 8)},                           // Orphan: no such instance.
		{OriginalStart: be(1, 22, 9).UTC(), Start: be(1, 21, 20), End: be(1, 21, 21)}, // Same instant, other zone.
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		from, to time.Time
		want     []string
	}{
		{
			name: "Window", from: be(1, 19, 0), to: be(1, 22, 0),
			want: []string{
				"2026-01-20T09:00:00+01:00/2026-01-20T10:00:00+01:00",
				"2026-01-20T13:00:00+01:00/2026-01-20T15:00:00+01:00 (moved from 2026-01-06T09:00:00+01:00)",
				"2026-01-21T20:00:00+01:00/2026-01-21T21:00:00+01:00 (moved from 2026-01-22T09:00:00+01:00)",
			},
		},
		{
			name: "OriginalWindowOfMovedOut", from: be(1, 6, 0), to: be(1, 7, 0),
			want: nil,
		},
		{
			name: "NewWindowOfMovedOut", from: be(2, 1, 0), to: be(2, 2, 0),
			want: []string{
				"2026-02-01T09:00:00+01:00/2026-02-01T10:00:00+01:00",
				"2026-02-01T09:00:00+01:00/2026-02-01T10:00:00+01:00 (moved from 2026-01-21T09:00:00+01:00)",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := formatAll(s.Between(tc.from, tc.to, time.Hour))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Between() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSet_WithOverrides_AllDay(t *testing.T) {
	t.Parallel()
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	s := mustParse(t, []string{"RRULE:FREQ=WEEKLY;COUNT=4"}, day(1, 5), true)
	s, err := s.WithOverrides([]recur.Override{
		// The RECURRENCE-ID date as a Berlin midnight still names Jan 12.
		{OriginalStart: time.Date(2026, 1, 12, 0, 0, 0, 0, mustLoad(t, "Europe/Berlin")), Start: day(1, 14), End: day(1, 16)},
		{OriginalStart: day(1, 19), Cancelled: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := formatAll(s.All(0))
	want := []string{
		"2026-01-05/2026-01-06",
		"2026-01-14/2026-01-16 (moved from 2026-01-12)",
		"2026-01-26/2026-01-27",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("All() mismatch (-want +got):\n%s", diff)
	}
}

func TestSet_WithOverrides_Errors(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	s := mustParse(t, []string{"RRULE:FREQ=DAILY"}, start, false)
	tests := []struct {
		name string
		ovs  []recur.Override
		want string
	}{
		{name: "ErrNoOriginalStart", ovs: []recur.Override{{Start: start}}, want: "no original start"},
		{name: "ErrDuplicate", ovs: []recur.Override{{OriginalStart: start, Cancelled: true}, {OriginalStart: start.In(mustLoad(t, "Asia/Tokyo")), Cancelled: true}}, want: "two overrides"},
		{name: "ErrNoStart", ovs: []recur.Override{{OriginalStart: start}}, want: "has no start"},
		{name: "ErrEndBeforeStart", ovs: []recur.Override{{OriginalStart: start, Start: start, End: start.Add(-time.Hour)}}, want: "ends before"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.WithOverrides(tc.ovs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("WithOverrides() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestSet_Contains(t *testing.T) {
	t.Parallel()
	ny := mustLoad(t, "America/New_York")
	timed := mustParse(t, []string{"RRULE:FREQ=DAILY;UNTIL=20340101T000000Z", "EXDATE:20300102T140000Z"}, time.Date(2026, 1, 1, 9, 0, 0, 0, ny), false)
	allDay := mustParse(t, []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1"}, time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), true)
	tests := []struct {
		name string
		set  *recur.Set
		t    time.Time
		want bool
	}{
		{name: "Start", set: timed, t: time.Date(2026, 1, 1, 14, 0, 0, 0, time.UTC), want: true},
		{name: "FarInstanceInSummer", set: timed, t: time.Date(2033, 7, 4, 9, 0, 0, 0, ny), want: true},
		{name: "WrongTime", set: timed, t: time.Date(2033, 7, 4, 10, 0, 0, 0, ny), want: false},
		{name: "Excluded", set: timed, t: time.Date(2030, 1, 2, 9, 0, 0, 0, ny), want: false},
		{name: "AfterUntil", set: timed, t: time.Date(2034, 1, 1, 9, 0, 0, 0, ny), want: false},
		{name: "SubSecond", set: timed, t: time.Date(2026, 1, 2, 9, 0, 0, 1, ny), want: false},
		{name: "AllDayLastOfFebruary", set: allDay, t: time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC), want: true},
		{name: "AllDayDateInOtherZone", set: allDay, t: time.Date(2028, 2, 29, 0, 0, 0, 0, ny), want: true},
		{name: "AllDayNotLast", set: allDay, t: time.Date(2028, 2, 28, 0, 0, 0, 0, time.UTC), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.set.Contains(tc.t); got != tc.want {
				t.Errorf("Contains(%v) = %v, want %v", tc.t, got, tc.want)
			}
		})
	}
}

func TestSet_All_StopsOnBreak(t *testing.T) {
	t.Parallel()
	s := mustParse(t, []string{"RRULE:FREQ=SECONDLY"}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false)
	var got []string
	for o := range s.All(0) {
		got = append(got, o.Start.Format(time.TimeOnly))
		if len(got) == 3 {
			break
		}
	}
	if diff := cmp.Diff([]string{"00:00:00", "00:00:01", "00:00:02"}, got); diff != "" {
		t.Errorf("All() mismatch (-want +got):\n%s", diff)
	}
}

// TestSet_ConcurrentUse lets the race detector check that a Set, including
// the lazily computed last instance of a COUNT rule, is safe to share.
func TestSet_ConcurrentUse(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	s := mustParse(t, []string{"RRULE:FREQ=MONTHLY;BYDAY=MO;COUNT=300"}, time.Date(2026, 1, 5, 9, 0, 0, 0, berlin), false)
	from := time.Date(2029, 1, 1, 0, 0, 0, 0, berlin)
	// A twin set computes the expectation, so the shared one starts cold.
	twin := mustParse(t, []string{"RRULE:FREQ=MONTHLY;BYDAY=MO;COUNT=300"}, time.Date(2026, 1, 5, 9, 0, 0, 0, berlin), false)
	want := formatAll(twin.Between(from, from.AddDate(0, 2, 0), time.Hour))
	done := make(chan []string)
	for range 4 {
		go func() { done <- formatAll(s.Between(from, from.AddDate(0, 2, 0), time.Hour)) }()
	}
	for range 4 {
		if diff := cmp.Diff(want, <-done); diff != "" {
			t.Errorf("concurrent Between() mismatch (-want +got):\n%s", diff)
		}
	}
	if len(want) != 9 {
		t.Errorf("Between() = %d Mondays, want 9", len(want))
	}
}
