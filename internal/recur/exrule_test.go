package recur

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// EXRULE removes the instances whose start is an EXRULE instance (RFC 5545
// §3.8.5.3), and an EXRULE that never matches costs nothing: fuzzing found
// weekly series where one such EXRULE cost a search towards the year 9999
// for every instance listed.
func TestExrule(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, berlin) // a Monday
	firstWeeks := [2]time.Time{start, start.AddDate(0, 0, 35)}
	june2030 := [2]time.Time{time.Date(2030, 6, 1, 0, 0, 0, 0, berlin), time.Date(2030, 7, 1, 0, 0, 0, 0, berlin)}
	allFirstWeeks := []string{
		"2026-01-05T09:00:00+01:00/2026-01-05T10:00:00+01:00",
		"2026-01-12T09:00:00+01:00/2026-01-12T10:00:00+01:00",
		"2026-01-19T09:00:00+01:00/2026-01-19T10:00:00+01:00",
		"2026-01-26T09:00:00+01:00/2026-01-26T10:00:00+01:00",
		"2026-02-02T09:00:00+01:00/2026-02-02T10:00:00+01:00",
	}
	allJune2030 := []string{
		"2030-06-03T09:00:00+02:00/2030-06-03T10:00:00+02:00",
		"2030-06-10T09:00:00+02:00/2030-06-10T10:00:00+02:00",
		"2030-06-17T09:00:00+02:00/2030-06-17T10:00:00+02:00",
		"2030-06-24T09:00:00+02:00/2030-06-24T10:00:00+02:00",
	}
	tests := []struct {
		name, rrule, exrule string
		never               bool // the probe finds no EXRULE instance
		window              [2]time.Time
		want                []string
	}{
		{
			name:  "fifth Monday on the first",
			rrule: "RRULE:FREQ=WEEKLY", exrule: "EXRULE:FREQ=MONTHLY;BYDAY=5MO;BYMONTHDAY=1",
			never: true, window: firstWeeks, want: allFirstWeeks,
		},
		{
			name:  "June in week 1",
			rrule: "RRULE:FREQ=WEEKLY", exrule: "EXRULE:FREQ=YEARLY;BYMONTH=6;BYWEEKNO=1",
			never: true, window: june2030, want: allJune2030,
		},
		{
			name:  "every other week, from the start",
			rrule: "RRULE:FREQ=WEEKLY", exrule: "EXRULE:FREQ=WEEKLY;INTERVAL=2",
			window: firstWeeks,
			want: []string{
				"2026-01-12T09:00:00+01:00/2026-01-12T10:00:00+01:00",
				"2026-01-26T09:00:00+01:00/2026-01-26T10:00:00+01:00",
			},
		},
		{
			name:  "every other week, years later",
			rrule: "RRULE:FREQ=WEEKLY", exrule: "EXRULE:FREQ=WEEKLY;INTERVAL=2",
			window: june2030,
			want: []string{
				"2030-06-10T09:00:00+02:00/2030-06-10T10:00:00+02:00",
				"2030-06-24T09:00:00+02:00/2030-06-24T10:00:00+02:00",
			},
		},
		{
			// Rare but real: the probe must not drop it.
			name:  "Monday 29 February",
			rrule: "RRULE:FREQ=DAILY", exrule: "EXRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO",
			window: [2]time.Time{time.Date(2044, 2, 28, 0, 0, 0, 0, berlin), time.Date(2044, 3, 2, 0, 0, 0, 0, berlin)},
			want: []string{
				"2044-02-28T09:00:00+01:00/2044-02-28T10:00:00+01:00",
				"2044-03-01T09:00:00+01:00/2044-03-01T10:00:00+01:00",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]string{tt.rrule, tt.exrule}, start, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s.exrules) == 0; got != tt.never {
				t.Errorf("EXRULE dropped as never occurring = %v, want %v", got, tt.never)
			}
			got := collect(s.Between(tt.window[0], tt.window[1], time.Hour))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("instances (-want +got):\n%s", diff)
			}
			for _, inst := range got {
				st, _ := time.Parse(time.RFC3339, inst[:25])
				if !s.Contains(st) {
					t.Errorf("Contains(%v) = false for an instance listed", st)
				}
			}
		})
	}
}

// The probe behind dropping an EXRULE: the two rules fuzzing found have no
// instance, and each answer is found without walking to the year 9999
// (which costs thousands of allocations per call in rrule-go).
func TestNeverOccurringExruleProbe(t *testing.T) {
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for _, exrule := range []string{
		"EXRULE:FREQ=MONTHLY;BYDAY=5MO;BYMONTHDAY=1",
		"EXRULE:FREQ=YEARLY;BYMONTH=6;BYWEEKNO=1",
	} {
		ls, perr := parseLines([]string{exrule}, false)
		if perr != nil {
			t.Fatal(perr)
		}
		s := &Set{loc: time.UTC, start: item{key: start.Unix(), wall: start.Unix()}}
		r, ferr := s.newRule(ls.rules[0])
		if ferr != nil {
			t.Fatalf("%s: %s: %s", exrule, ferr.field, ferr.reason)
		}
		if !r.empty {
			t.Errorf("%s: the probe finds an instance, want none", exrule)
		}
		if occurs(r.opt) {
			t.Errorf("%s: occurs = true, want false", exrule)
		}
	}
}

// An EXRULE's cost is bounded by what it excludes, not by how far rrule-go
// must search for its next instance for each instance of the series. Work
// is counted in allocations (rrule-go allocates for every period it
// visits), not in time: a year of a weekly series with an EXRULE that never
// matches allocates as much as without it, and one with an every-other-week
// EXRULE at most twice as much (the EXRULE is a second weekly rule).
func TestExruleWorkIsBounded(t *testing.T) {
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	from, to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
	allocs := func(recurrence ...string) float64 {
		t.Helper()
		s, err := Parse(recurrence, start, false)
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(2, func() {
			for o := range s.Between(from, to, time.Hour) {
				s.Contains(o.OriginalStart)
			}
		})
	}
	base := allocs("RRULE:FREQ=WEEKLY")
	tests := []struct {
		exrule string
		most   float64
	}{
		{"EXRULE:FREQ=MONTHLY;BYDAY=5MO;BYMONTHDAY=1", base},
		{"EXRULE:FREQ=YEARLY;BYMONTH=6;BYWEEKNO=1", base},
		{"EXRULE:FREQ=WEEKLY;INTERVAL=2", 2 * base},
	}
	for _, tt := range tests {
		if got := allocs("RRULE:FREQ=WEEKLY", tt.exrule); got > tt.most {
			t.Errorf("%s: %.0f allocations for a year with Contains on each instance, want at most %.0f (%.0f without the EXRULE)",
				tt.exrule, got, tt.most, base)
		}
	}
}
