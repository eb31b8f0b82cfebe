package microsoft

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// berlinStart is a Thursday, 2026-01-15 09:30 in Europe/Berlin.
func berlinStart(t *testing.T) time.Time {
	return time.Date(2026, 1, 15, 9, 30, 0, 0, mustLoc(t, "Europe/Berlin"))
}

func TestRecurrenceToGraph(t *testing.T) {
	t.Parallel()
	start := berlinStart(t)
	const zone = "W. Europe Standard Time"
	rng := func(typ string) recurrenceRange {
		return recurrenceRange{Type: typ, StartDate: "2026-01-15", RecurrenceTimeZone: zone}
	}
	noEnd := rng(rangeNoEnd)
	tests := []struct {
		name string
		rule string
		want patternedRecurrence
	}{
		{"daily", "RRULE:FREQ=DAILY",
			patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1}, noEnd}},
		{"daily interval", "RRULE:FREQ=DAILY;INTERVAL=3",
			patternedRecurrence{recurrencePattern{Type: "daily", Interval: 3}, noEnd}},
		{"daily on weekdays becomes weekly", "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
			patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"monday", "tuesday", "wednesday", "thursday", "friday"}, FirstDayOfWeek: "monday"}, noEnd}},
		{"weekly without BYDAY takes the start's weekday", "RRULE:FREQ=WEEKLY",
			patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"thursday"}, FirstDayOfWeek: "monday"}, noEnd}},
		{"weekly days interval wkst", "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=SU",
			patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 2, DaysOfWeek: []string{"monday", "wednesday"}, FirstDayOfWeek: "sunday"}, noEnd}},
		{"weekly lower case", "RRULE:freq=weekly;byday=sa",
			patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"saturday"}, FirstDayOfWeek: "monday"}, noEnd}},
		{"absolute monthly", "RRULE:FREQ=MONTHLY;BYMONTHDAY=31",
			patternedRecurrence{recurrencePattern{Type: "absoluteMonthly", Interval: 1, DayOfMonth: 31}, noEnd}},
		{"monthly takes the start's day", "RRULE:FREQ=MONTHLY;INTERVAL=2",
			patternedRecurrence{recurrencePattern{Type: "absoluteMonthly", Interval: 2, DayOfMonth: 15}, noEnd}},
		{"relative monthly ordinal", "RRULE:FREQ=MONTHLY;BYDAY=2TH",
			patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"thursday"}, Index: "second"}, noEnd}},
		{"relative monthly setpos", "RRULE:FREQ=MONTHLY;BYDAY=TH;BYSETPOS=2",
			patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"thursday"}, Index: "second"}, noEnd}},
		{"relative monthly last", "RRULE:FREQ=MONTHLY;BYDAY=-1FR",
			patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"friday"}, Index: "last"}, noEnd}},
		{"relative monthly first weekday", "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1",
			patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"monday", "tuesday", "wednesday", "thursday", "friday"}, Index: "first"}, noEnd}},
		{"relative monthly last weekend day", "RRULE:FREQ=MONTHLY;INTERVAL=3;BYDAY=SA,SU;BYSETPOS=-1",
			patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 3, DaysOfWeek: []string{"saturday", "sunday"}, Index: "last"}, noEnd}},
		{"absolute yearly", "RRULE:FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15",
			patternedRecurrence{recurrencePattern{Type: "absoluteYearly", Interval: 1, Month: 3, DayOfMonth: 15}, noEnd}},
		{"yearly takes the start's month and day", "RRULE:FREQ=YEARLY",
			patternedRecurrence{recurrencePattern{Type: "absoluteYearly", Interval: 1, Month: 1, DayOfMonth: 15}, noEnd}},
		{"yearly month takes the start's day", "RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=2",
			patternedRecurrence{recurrencePattern{Type: "absoluteYearly", Interval: 4, Month: 2, DayOfMonth: 15}, noEnd}},
		{"relative yearly", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH",
			patternedRecurrence{recurrencePattern{Type: "relativeYearly", Interval: 1, Month: 11, DaysOfWeek: []string{"thursday"}, Index: "fourth"}, noEnd}},
		{"relative yearly setpos", "RRULE:FREQ=YEARLY;BYMONTH=5;BYDAY=MO;BYSETPOS=-1",
			patternedRecurrence{recurrencePattern{Type: "relativeYearly", Interval: 1, Month: 5, DaysOfWeek: []string{"monday"}, Index: "last"}, noEnd}},
		{"count", "RRULE:FREQ=DAILY;COUNT=10",
			patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
				recurrenceRange{Type: "numbered", StartDate: "2026-01-15", NumberOfOccurrences: 10, RecurrenceTimeZone: zone}}},
		{"until utc late evening is the next day in Berlin", "RRULE:FREQ=DAILY;UNTIL=20260131T233000Z",
			patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
				recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-02-01", RecurrenceTimeZone: zone}}},
		{"until utc", "RRULE:FREQ=WEEKLY;BYDAY=TH;UNTIL=20260226T083000Z",
			patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"thursday"}, FirstDayOfWeek: "monday"},
				recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-02-26", RecurrenceTimeZone: zone}}},
		{"until date", "RRULE:FREQ=DAILY;UNTIL=20260120",
			patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
				recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-01-20", RecurrenceTimeZone: zone}}},
		{"until floating", "RRULE:FREQ=DAILY;UNTIL=20260120T235900",
			patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
				recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-01-20", RecurrenceTimeZone: zone}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := recurrenceToGraph([]string{tt.rule}, start, zone, false)
			if err != nil {
				t.Fatalf("recurrenceToGraph(%q): %v", tt.rule, err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("recurrenceToGraph(%q) (-want +got):\n%s", tt.rule, diff)
			}
		})
	}
}

func TestRecurrenceToGraphEmpty(t *testing.T) {
	t.Parallel()
	got, err := recurrenceToGraph(nil, berlinStart(t), "UTC", false)
	if got != nil || err != nil {
		t.Fatalf("recurrenceToGraph(nil) = %v, %v; want nil, nil", got, err)
	}
}

func TestRecurrenceToGraphRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lines     []string
		field     string
		mentioned string // a word the message must contain
	}{
		{[]string{"RRULE:FREQ=HOURLY"}, "recurrence[0]", "HOURLY"},
		{[]string{"RRULE:FREQ=MINUTELY;INTERVAL=15"}, "recurrence[0]", "MINUTELY"},
		{[]string{"RRULE:FREQ=SECONDLY"}, "recurrence[0]", "SECONDLY"},
		{[]string{"RRULE:FREQ=DAILY;BYHOUR=9,17"}, "recurrence[0]", "BYHOUR"},
		{[]string{"RRULE:FREQ=DAILY;BYMINUTE=30"}, "recurrence[0]", "BYMINUTE"},
		{[]string{"RRULE:FREQ=YEARLY;BYYEARDAY=100"}, "recurrence[0]", "BYYEARDAY"},
		{[]string{"RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO"}, "recurrence[0]", "BYWEEKNO"},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1"}, "recurrence[0]", "BYMONTHDAY"},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=1,15"}, "recurrence[0]", "BYMONTHDAY"},
		{[]string{"RRULE:FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=1"}, "recurrence[0]", "BYMONTH"},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTH=3;BYMONTHDAY=1"}, "recurrence[0]", "BYMONTH"},
		{[]string{"RRULE:FREQ=DAILY;BYMONTH=3"}, "recurrence[0]", "BYMONTH"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5"}, "recurrence[0]", "BYSETPOS"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-2"}, "recurrence[0]", "BYSETPOS"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=MO,FR;BYSETPOS=1,-1"}, "recurrence[0]", "BYSETPOS"},
		{[]string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=1;BYSETPOS=1"}, "recurrence[0]", "BYSETPOS"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=1MO;BYSETPOS=1"}, "recurrence[0]", "BYSETPOS"},
		{[]string{"RRULE:FREQ=WEEKLY;BYDAY=MO;BYSETPOS=1"}, "recurrence[0]", "BYSETPOS"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=1MO,3MO"}, "recurrence[0]", "BYDAY"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=5FR"}, "recurrence[0]", "BYDAY"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=-2FR"}, "recurrence[0]", "BYDAY"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=MO"}, "recurrence[0]", "BYSETPOS"},
		{[]string{"RRULE:FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=7"}, "recurrence[0]", "BYMONTHDAY"},
		{[]string{"RRULE:FREQ=YEARLY;BYDAY=1MO"}, "recurrence[0]", "BYMONTH"},
		{[]string{"RRULE:FREQ=YEARLY;BYMONTHDAY=1"}, "recurrence[0]", "BYMONTH"},
		{[]string{"RRULE:FREQ=WEEKLY;BYDAY=1MO"}, "recurrence[0]", "BYDAY"},
		{[]string{"RRULE:FREQ=WEEKLY;BYMONTHDAY=1"}, "recurrence[0]", "BYMONTHDAY"},
		{[]string{"RRULE:FREQ=DAILY;INTERVAL=2;BYDAY=MO,FR"}, "recurrence[0]", "INTERVAL"},
		{[]string{"RRULE:FREQ=DAILY;UNTIL=20250101"}, "recurrence[0]", "UNTIL"},
		{[]string{"RRULE:FREQ=DAILY", "RRULE:FREQ=WEEKLY"}, "recurrence[1]", "one RRULE"},
		{[]string{"RRULE:FREQ=DAILY", "EXRULE:FREQ=WEEKLY"}, "recurrence[1]", "EXRULE"},
		{[]string{"RRULE:FREQ=DAILY", "RDATE:20260301T090000Z"}, "recurrence[1]", "RDATE"},
		{[]string{"EXDATE;TZID=Europe/Berlin:20260116T093000", "RRULE:FREQ=DAILY"}, "recurrence[0]", "EXDATE"},
		{[]string{"RRULE:FREQ=FORTNIGHTLY"}, "recurrence[0]", "FREQ"},
		{[]string{"DTSTART:20260115T093000Z"}, "recurrence[0]", "DTSTART"},
		// A quoted parameter value may hold ':'; cutting the line there
		// read BYDAY=M from it and sliced past its start.
		{[]string{`RRULE;X-A="b:FREQ=WEEKLY;BYDAY=M;":FREQ=WEEKLY`}, "recurrence[0]", "parameters"},
		{[]string{"RRULE;X-A=b:FREQ=DAILY"}, "recurrence[0]", "parameters"},
		{[]string{}, "", ""},
	}
	for _, tt := range tests {
		if len(tt.lines) == 0 {
			continue
		}
		t.Run(strings.Join(tt.lines, " "), func(t *testing.T) {
			got, err := recurrenceToGraph(tt.lines, berlinStart(t), "W. Europe Standard Time", false)
			if err == nil {
				b, _ := json.Marshal(got)
				t.Fatalf("recurrenceToGraph(%q) = %s; want an error", tt.lines, b)
			}
			var e *unical.Error
			if !asError(err, &e) || e.Code != unical.CodeInvalid || e.Field != tt.field {
				t.Fatalf("recurrenceToGraph(%q) error = %#v; want CodeInvalid on %s", tt.lines, err, tt.field)
			}
			if !strings.Contains(e.Message, tt.mentioned) {
				t.Errorf("message %q does not mention %q", e.Message, tt.mentioned)
			}
		})
	}
	if _, err := recurrenceToGraph([]string{"EXDATE:20260116T093000Z"}, berlinStart(t), "UTC", false); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("EXDATE alone: %v; want CodeInvalid", err)
	}
}

func TestRecurrenceFromGraph(t *testing.T) {
	t.Parallel()
	const zone = "W. Europe Standard Time"
	noEnd := recurrenceRange{Type: "noEnd", StartDate: "2026-01-15", EndDate: "0001-01-01", RecurrenceTimeZone: zone}
	tests := []struct {
		name   string
		rec    patternedRecurrence
		allDay bool
		want   string
	}{
		{"daily", patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1, FirstDayOfWeek: "sunday", Index: "first"}, noEnd},
			false, "RRULE:FREQ=DAILY"},
		{"daily interval", patternedRecurrence{recurrencePattern{Type: "daily", Interval: 2}, noEnd},
			false, "RRULE:FREQ=DAILY;INTERVAL=2"},
		{"weekly sunday start", patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"monday", "wednesday"}, FirstDayOfWeek: "sunday"}, noEnd},
			false, "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;WKST=SU"},
		{"weekly default first day is sunday", patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 3, DaysOfWeek: []string{"friday"}}, noEnd},
			false, "RRULE:FREQ=WEEKLY;INTERVAL=3;BYDAY=FR;WKST=SU"},
		{"weekly monday start", patternedRecurrence{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"tuesday"}, FirstDayOfWeek: "monday"}, noEnd},
			false, "RRULE:FREQ=WEEKLY;BYDAY=TU"},
		{"absolute monthly", patternedRecurrence{recurrencePattern{Type: "absoluteMonthly", Interval: 1, DayOfMonth: 15}, noEnd},
			false, "RRULE:FREQ=MONTHLY;BYMONTHDAY=15"},
		{"relative monthly one day", patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"thursday"}, Index: "second"}, noEnd},
			false, "RRULE:FREQ=MONTHLY;BYDAY=2TH"},
		{"relative monthly default index", patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"monday"}}, noEnd},
			false, "RRULE:FREQ=MONTHLY;BYDAY=1MO"},
		{"relative monthly last of several", patternedRecurrence{recurrencePattern{Type: "relativeMonthly", Interval: 2, DaysOfWeek: []string{"saturday", "sunday"}, Index: "last"}, noEnd},
			false, "RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=SA,SU;BYSETPOS=-1"},
		{"absolute yearly", patternedRecurrence{recurrencePattern{Type: "absoluteYearly", Interval: 1, Month: 3, DayOfMonth: 15}, noEnd},
			false, "RRULE:FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15"},
		{"relative yearly", patternedRecurrence{recurrencePattern{Type: "relativeYearly", Interval: 1, Month: 11, DaysOfWeek: []string{"thursday"}, Index: "fourth"}, noEnd},
			false, "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=4TH"},
		{"numbered", patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
			recurrenceRange{Type: "numbered", StartDate: "2026-01-15", NumberOfOccurrences: 7, RecurrenceTimeZone: zone}},
			false, "RRULE:FREQ=DAILY;COUNT=7"},
		{"end date timed is the end of the day in the zone", patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
			recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-01-31", RecurrenceTimeZone: zone}},
			false, "RRULE:FREQ=DAILY;UNTIL=20260131T225959Z"},
		{"end date in summer", patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
			recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-07-01", RecurrenceTimeZone: "Europe/Berlin"}},
			false, "RRULE:FREQ=DAILY;UNTIL=20260701T215959Z"},
		{"end date all-day", patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
			recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-01-31", RecurrenceTimeZone: zone}},
			true, "RRULE:FREQ=DAILY;UNTIL=20260131"},
		{"end date without zone uses the fallback", patternedRecurrence{recurrencePattern{Type: "daily", Interval: 1},
			recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-01-31"}},
			false, "RRULE:FREQ=DAILY;UNTIL=20260201T045959Z"},
	}
	ny := mustLoc(t, "America/New_York")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := recurrenceFromGraph(&tt.rec, tt.allDay, ny)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRecurrenceFromGraphBad(t *testing.T) {
	t.Parallel()
	okRange := recurrenceRange{Type: "noEnd", StartDate: "2026-01-15"}
	for _, rec := range []patternedRecurrence{
		{recurrencePattern{Type: "hourly", Interval: 1}, okRange},
		{recurrencePattern{Type: "weekly", Interval: 1}, okRange},
		{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"funday"}}, okRange},
		{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"monday"}, FirstDayOfWeek: "x"}, okRange},
		{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"monday"}, Index: "fifth"}, okRange},
		{recurrencePattern{Type: "absoluteMonthly", Interval: 1}, okRange},
		{recurrencePattern{Type: "absoluteYearly", Interval: 1, DayOfMonth: 1}, okRange},
		{recurrencePattern{Type: "relativeYearly", Interval: 1, Month: 13, DaysOfWeek: []string{"monday"}}, okRange},
		{recurrencePattern{Type: "daily", Interval: 1}, recurrenceRange{Type: "forever"}},
		{recurrencePattern{Type: "daily", Interval: 1}, recurrenceRange{Type: "numbered"}},
		{recurrencePattern{Type: "daily", Interval: 1}, recurrenceRange{Type: "endDate", EndDate: "soon"}},
		{recurrencePattern{Type: "daily", Interval: 1}, recurrenceRange{Type: "endDate", EndDate: "2026-01-01", RecurrenceTimeZone: "Mars Standard Time"}},
	} {
		if got, err := recurrenceFromGraph(&rec, false, time.UTC); err == nil {
			t.Errorf("recurrenceFromGraph(%+v) = %q; want an error", rec, got)
		}
	}
}

// TestRecurrenceRoundTrip converts RRULEs to Graph and back, and Graph
// recurrences to RRULEs and back.
func TestRecurrenceRoundTrip(t *testing.T) {
	t.Parallel()
	start := berlinStart(t)
	const zone = "W. Europe Standard Time"
	rules := []string{
		"RRULE:FREQ=DAILY",
		"RRULE:FREQ=DAILY;INTERVAL=5;COUNT=3",
		"RRULE:FREQ=WEEKLY;BYDAY=TH",
		"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU",
		"RRULE:FREQ=WEEKLY;BYDAY=SA;WKST=SA;COUNT=4",
		"RRULE:FREQ=MONTHLY;BYMONTHDAY=1",
		"RRULE:FREQ=MONTHLY;INTERVAL=6;BYMONTHDAY=31;UNTIL=20271231T225959Z",
		"RRULE:FREQ=MONTHLY;BYDAY=3WE",
		"RRULE:FREQ=MONTHLY;BYDAY=-1SU",
		"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1",
		"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12",
		"RRULE:FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15",
		"RRULE:FREQ=YEARLY;INTERVAL=2;BYMONTH=11;BYDAY=4TH",
		"RRULE:FREQ=YEARLY;BYMONTH=5;BYDAY=SA,SU;BYSETPOS=2;UNTIL=20300101T225959Z",
	}
	for _, rule := range rules {
		g, err := recurrenceToGraph([]string{rule}, start, zone, false)
		if err != nil {
			t.Errorf("recurrenceToGraph(%q): %v", rule, err)
			continue
		}
		// Through JSON, as Graph would store and return it.
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		var back patternedRecurrence
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		got, err := recurrenceFromGraph(&back, false, time.UTC)
		if err != nil {
			t.Errorf("recurrenceFromGraph(%s): %v", b, err)
			continue
		}
		if diff := cmp.Diff([]string{rule}, got); diff != "" {
			t.Errorf("round trip of %q via %s (-want +got):\n%s", rule, b, diff)
		}
	}

	// All-day series keep DATE UNTILs.
	allDayStart := time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)
	for _, rule := range []string{"RRULE:FREQ=DAILY;UNTIL=20260131", "RRULE:FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=15;UNTIL=20360115"} {
		g, err := recurrenceToGraph([]string{rule}, allDayStart, "UTC", true)
		if err != nil {
			t.Fatal(err)
		}
		got, err := recurrenceFromGraph(g, true, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{rule}, got); diff != "" {
			t.Errorf("all-day round trip (-want +got):\n%s", diff)
		}
	}

	// Graph -> RRULE -> Graph.
	graphs := []patternedRecurrence{
		{recurrencePattern{Type: "daily", Interval: 4}, recurrenceRange{Type: "numbered", StartDate: "2026-01-15", NumberOfOccurrences: 9, RecurrenceTimeZone: zone}},
		{recurrencePattern{Type: "weekly", Interval: 1, DaysOfWeek: []string{"sunday", "thursday"}, FirstDayOfWeek: "sunday"}, recurrenceRange{Type: "noEnd", StartDate: "2026-01-15", RecurrenceTimeZone: zone}},
		{recurrencePattern{Type: "weekly", Interval: 2, DaysOfWeek: []string{"thursday"}, FirstDayOfWeek: "monday"}, recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2026-06-30", RecurrenceTimeZone: zone}},
		{recurrencePattern{Type: "absoluteMonthly", Interval: 1, DayOfMonth: 15}, recurrenceRange{Type: "noEnd", StartDate: "2026-01-15", RecurrenceTimeZone: zone}},
		{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"thursday"}, Index: "third"}, recurrenceRange{Type: "noEnd", StartDate: "2026-01-15", RecurrenceTimeZone: zone}},
		{recurrencePattern{Type: "relativeMonthly", Interval: 1, DaysOfWeek: []string{"monday", "friday"}, Index: "last"}, recurrenceRange{Type: "noEnd", StartDate: "2026-01-15", RecurrenceTimeZone: zone}},
		{recurrencePattern{Type: "absoluteYearly", Interval: 1, Month: 1, DayOfMonth: 15}, recurrenceRange{Type: "endDate", StartDate: "2026-01-15", EndDate: "2030-01-15", RecurrenceTimeZone: zone}},
		{recurrencePattern{Type: "relativeYearly", Interval: 1, Month: 9, DaysOfWeek: []string{"monday"}, Index: "first"}, recurrenceRange{Type: "numbered", StartDate: "2026-01-15", NumberOfOccurrences: 3, RecurrenceTimeZone: zone}},
	}
	for _, g := range graphs {
		lines, err := recurrenceFromGraph(&g, false, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		back, err := recurrenceToGraph(lines, start, zone, false)
		if err != nil {
			t.Errorf("recurrenceToGraph(%q): %v", lines, err)
			continue
		}
		if diff := cmp.Diff(&g, back); diff != "" {
			t.Errorf("round trip via %q (-want +got):\n%s", lines, diff)
		}
	}
}

func asError(err error, target **unical.Error) bool { return errors.As(err, target) }
