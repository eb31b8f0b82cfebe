package unical_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

func TestSplitRecurrence(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	monday := time.Date(2026, 3, 2, 9, 0, 0, 0, paris) // weekly on Mondays, across 29 March
	fifth := time.Date(2026, 3, 30, 9, 0, 0, 0, paris)
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name          string
		lines         []string
		start, at     time.Time
		allDay        bool
		shift         time.Duration
		before, after []string
	}{
		{
			name:  "COUNT stays counted",
			lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10"}, start: monday, at: fifth,
			before: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"},
			after:  []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6"},
		},
		{
			name:  "at the last counted occurrence",
			lines: []string{"RRULE:FREQ=WEEKLY;COUNT=5"}, start: monday, at: fifth,
			before: []string{"RRULE:FREQ=WEEKLY;COUNT=4"},
			after:  []string{"RRULE:FREQ=WEEKLY;COUNT=1"},
		},
		{
			name:  "no end: UNTIL at the last earlier occurrence",
			lines: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO"}, start: monday, at: fifth,
			before: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260323T080000Z"},
			after:  []string{"RRULE:FREQ=WEEKLY;BYDAY=MO"},
		},
		{
			name:  "UNTIL moves with the new series",
			lines: []string{"RRULE:FREQ=WEEKLY;UNTIL=20260504T070000Z;BYDAY=MO"}, start: monday, at: fifth, shift: time.Hour,
			before: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260323T080000Z"},
			after:  []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260504T080000Z"},
		},
		{
			name: "EXDATE and RDATE values split and move",
			lines: []string{
				"RRULE:FREQ=WEEKLY;COUNT=10",
				"EXDATE;TZID=Europe/Paris:20260309T090000,20260406T090000",
				"RDATE:20260401T070000Z",
			},
			start: monday, at: fifth, shift: time.Hour,
			before: []string{"RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=Europe/Paris:20260309T090000"},
			after:  []string{"RRULE:FREQ=WEEKLY;COUNT=6", "EXDATE;TZID=Europe/Paris:20260406T100000", "RDATE:20260401T080000Z"},
		},
		{
			// A quoted parameter value may hold ':' and ';': the line is
			// split where validation split it, not at the first ':'.
			name:  "parameter value with a colon",
			lines: []string{"RRULE:FREQ=WEEKLY;COUNT=10", `EXDATE;X-NOTE="a:b;TZID=Mars";TZID=Europe/Paris:20260309T090000,20260406T090000`},
			start: monday, at: fifth, shift: time.Hour,
			before: []string{"RRULE:FREQ=WEEKLY;COUNT=4", `EXDATE;X-NOTE="a:b;TZID=Mars";TZID=Europe/Paris:20260309T090000`},
			after:  []string{"RRULE:FREQ=WEEKLY;COUNT=6", `EXDATE;X-NOTE="a:b;TZID=Mars";TZID=Europe/Paris:20260406T100000`},
		},
		{
			name:  "all-day, moved a day later",
			lines: []string{"RRULE:FREQ=DAILY;COUNT=5", "EXDATE;VALUE=DATE:20260106,20260108"}, start: day(5), at: day(7), allDay: true, shift: 24 * time.Hour,
			before: []string{"RRULE:FREQ=DAILY;COUNT=2", "EXDATE;VALUE=DATE:20260106"},
			after:  []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;VALUE=DATE:20260109"},
		},
		{
			name:  "all-day without end",
			lines: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2"}, start: day(5), at: day(19), allDay: true,
			before: []string{"RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=20260105"},
			after:  []string{"RRULE:FREQ=WEEKLY;INTERVAL=2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, after, err := unical.SplitRecurrence(tc.lines, tc.start, tc.allDay, tc.at, tc.shift)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.before, before); diff != "" {
				t.Errorf("before (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.after, after); diff != "" {
				t.Errorf("after (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSplitRecurrenceKeepsInstances checks that the two halves of a split
// at shift 0 make exactly the instances the series made.
func TestSplitRecurrenceKeepsInstances(t *testing.T) {
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	series := func(id string, start time.Time, lines []string) *unical.Event {
		return &unical.Event{ID: id, IsRecurring: true, Recurrence: lines,
			Start: unical.TimedAt(start), End: unical.TimedAt(start.Add(30 * time.Minute))}
	}
	starts := func(events ...*unical.Event) []time.Time {
		t.Helper()
		insts, err := unical.ExpandEvents(events, from, to)
		if err != nil {
			t.Fatal(err)
		}
		var out []time.Time
		for _, e := range insts {
			s, err := e.Start.Time("start")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s.UTC())
		}
		return out
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 15, 8, 30, 0, 0, ny)
	for _, lines := range [][]string{
		{"RRULE:FREQ=DAILY;INTERVAL=3;COUNT=40"},
		{"RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260901T000000Z", "EXDATE;TZID=America/New_York:20260317T083000,20260507T083000"},
		{"RRULE:FREQ=MONTHLY;BYDAY=-1FR"},
		{"RRULE:FREQ=MONTHLY;BYMONTHDAY=15;COUNT=8", "RDATE;TZID=America/New_York:20260620T083000"},
	} {
		all := starts(series("s", start, lines))
		for _, k := range []int{1, 5, len(all) / 2, len(all) - 1} {
			at := all[k].In(ny)
			before, after, err := unical.SplitRecurrence(lines, start, false, at, 0)
			if err != nil {
				t.Fatalf("%q at %s: %v", lines, at, err)
			}
			got := starts(series("old", start, before), series("new", at, after))
			sortTimes(got)
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("%q split at %s into %q and %q (-want +got):\n%s", lines, at, before, after, diff)
			}
		}
	}
}

func sortTimes(ts []time.Time) {
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
}
