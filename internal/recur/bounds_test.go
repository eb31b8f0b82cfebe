package recur

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A rule that passes every check but never matches must not send rrule-go
// searching towards the year 9999 on each expansion: Parse finds out once
// (within a bounded probe) and the rule then has no stream at all.
func TestNeverOccurringRuleHasNoStream(t *testing.T) {
	start := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		rule  string
		never bool
		want  []string // instances in 2044, the year of a Monday 29 February
	}{
		{rule: "RRULE:FREQ=SECONDLY;BYMONTH=1;BYYEARDAY=200", never: true},
		{rule: "RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU", never: true}, // starts on a Monday
		{rule: "RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29", never: true},
		{rule: "RRULE:FREQ=MINUTELY;BYMONTH=1;BYYEARDAY=200;COUNT=5", never: true},
		{rule: "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO",
			want: []string{"2044-02-29T10:00:00Z/2044-02-29T11:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			s, err := Parse([]string{tt.rule}, start, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.rules[0].empty; got != tt.never {
				t.Errorf("rule without instances = %v, want %v", got, tt.never)
			}
			got := collect(s.Between(time.Date(2044, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2045, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("instances in 2044 (-want +got):\n%s", diff)
			}
			// DTSTART stays the series' one instance.
			first := collect(s.Between(start, start.Add(time.Minute), time.Hour))
			if diff := cmp.Diff([]string{"2026-01-05T10:00:00Z/2026-01-05T11:00:00Z"}, first); diff != "" {
				t.Errorf("first instance (-want +got):\n%s", diff)
			}
		})
	}
}

// Rules whose expansion cannot be bounded are refused, naming the part.
func TestParseRefusesUnboundedRules(t *testing.T) {
	start := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		rule, field string
	}{
		// One yearly period of 4.5 million instances, built in memory.
		{"RRULE:FREQ=YEARLY;BYDAY=MO;BYHOUR=" + seq(0, 23) + ";BYMINUTE=" + seq(0, 59) + ";BYSECOND=" + seq(0, 59), "FREQ"},
		// A COUNT that can only be skipped by walking through every instance.
		{"RRULE:FREQ=SECONDLY;BYHOUR=9;COUNT=20000000", "COUNT"},
		{"RRULE:FREQ=SECONDLY;COUNT=20000000", ""}, // skipped arithmetically
		{"RRULE:FREQ=DAILY;BYHOUR=9,10;BYMINUTE=0,30", ""},
	}
	for _, tt := range tests {
		_, err := Parse([]string{tt.rule}, start, false)
		var pe *ParseError
		if tt.field == "" {
			if err != nil {
				t.Errorf("%.60s: %v", tt.rule, err)
			}
			continue
		}
		if !errors.As(err, &pe) || pe.Field != tt.field || pe.Index != 0 {
			t.Errorf("%.60s: err = %v, want a ParseError naming %s", tt.rule, err, tt.field)
		}
	}
}

func seq(from, to int) string {
	s := ""
	for i := from; i <= to; i++ {
		if s != "" {
			s += ","
		}
		s += strconv.Itoa(i)
	}
	return s
}

// StartingIn is Between without the instances that began before the window.
func TestStartingIn(t *testing.T) {
	start := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	s, err := Parse([]string{"RRULE:FREQ=DAILY", "RDATE;VALUE=PERIOD:20260110T200000Z/P5D"}, start, false)
	if err != nil {
		t.Fatal(err)
	}
	from, to := time.Date(2026, 1, 12, 10, 0, 0, 0, time.UTC), time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)
	var want []Occurrence
	for o := range s.Between(from, to, 72*time.Hour) {
		if !o.Start.Before(from) {
			want = append(want, o)
		}
	}
	var got []Occurrence
	for o := range s.StartingIn(from, to, 72*time.Hour) {
		got = append(got, o)
	}
	if len(want) != 3 {
		t.Fatalf("Between gave %d instances starting in the window, want 3", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StartingIn (-want +got):\n%s", diff)
	}
}

// Overridden returns just the changed instances that meet the window.
func TestOverridden(t *testing.T) {
	start := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	s, err := Parse([]string{"RRULE:FREQ=DAILY"}, start, false)
	if err != nil {
		t.Fatal(err)
	}
	day := func(d, h int) time.Time { return time.Date(2026, 1, d, h, 0, 0, 0, time.UTC) }
	s, err = s.WithOverrides([]Override{
		{OriginalStart: day(6, 10), Start: day(6, 10)},  // changed in place
		{OriginalStart: day(7, 10), Start: day(20, 9)},  // moved out of the window
		{OriginalStart: day(21, 10), Start: day(8, 15)}, // moved into it
		{OriginalStart: day(8, 10), Cancelled: true},    // not an instance any more
		{OriginalStart: day(9, 11), Start: day(9, 12)},  // orphan: no such instance
	})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(func(yield func(Occurrence) bool) {
		for _, o := range s.Overridden(day(6, 0), day(10, 0), time.Hour) {
			if !yield(o) {
				return
			}
		}
	})
	want := []string{
		"2026-01-06T10:00:00Z/2026-01-06T11:00:00Z",
		"2026-01-08T15:00:00Z/2026-01-08T16:00:00Z orig 2026-01-21T10:00:00Z",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Overridden (-want +got):\n%s", diff)
	}
}

// rrule-go builds its per-year tables only when the year changes from the
// zero it starts with, so a rule walked from a DTSTART in the year 0
// indexed empty tables and panicked. A series must start in the years
// 1-9999 (the four-digit years of RFC 5545 and RFC 3339, less the year 0):
// Parse refuses another start naming it, for every frequency.
func TestParseRefusesStartOutsideYears(t *testing.T) {
	tests := []struct {
		name    string
		start   time.Time
		allDay  bool
		refused bool
	}{
		{name: "year 0", start: time.Date(0, 1, 10, 9, 0, 0, 0, time.UTC), refused: true},
		{name: "year 0 all-day", start: time.Date(0, 1, 10, 0, 0, 0, 0, time.UTC), allDay: true, refused: true},
		{name: "before year 0", start: time.Date(-3, 5, 1, 9, 0, 0, 0, time.UTC), refused: true},
		{name: "after 9999", start: time.Date(10000, 1, 3, 9, 0, 0, 0, time.UTC), refused: true},
		// The wall clock counts: 23:30 UTC on the last day of the year 0
		// is 00:30 in the year 1 at UTC+1.
		{name: "year 1 by its wall clock", start: time.Date(1, 1, 1, 0, 30, 0, 0, time.FixedZone("UTC+1", 3600))},
		{name: "year 1", start: time.Date(1, 1, 1, 9, 0, 0, 0, time.UTC)},
		{name: "year 9999", start: time.Date(9999, 12, 1, 9, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		for _, freq := range []string{"YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY"} {
			if tt.allDay && freq == "HOURLY" {
				continue // refused in an all-day series whatever the start
			}
			t.Run(tt.name+"/"+freq, func(t *testing.T) {
				s, err := Parse([]string{"RRULE:FREQ=" + freq + ";BYDAY=MO,FR;COUNT=4"}, tt.start, tt.allDay)
				if tt.refused {
					var pe *ParseError
					if !errors.As(err, &pe) || pe.Field != "start" {
						t.Fatalf("Parse = %v, want a ParseError naming start", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := collect(s.Between(tt.start, tt.start.AddDate(2, 0, 0), time.Hour)); len(got) == 0 {
					t.Errorf("no instances after %v", tt.start)
				}
			})
		}
	}
}
