package recur

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/teambition/rrule-go"
)

// parseFuzzZones are the series zones FuzzRRule picks from: UTC, zones with DST
// gaps on either side of UTC, a 30-minute DST shift and a 45-minute offset.
var parseFuzzZones = []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"}

// rruleSeeds are recurrence fields from the package's and the providers'
// tests, valid and not.
var rruleSeeds = []string{
	"RRULE:FREQ=WEEKLY;BYDAY=MO",
	"RRULE:FREQ=DAILY;COUNT=10",
	"RRULE:FREQ=DAILY;INTERVAL=2;BYDAY=MO,FR",
	"RRULE:FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30;COUNT=1000",
	"RRULE:FREQ=DAILY;UNTIL=20260131T225959Z",
	"RRULE:FREQ=DAILY;UNTIL=20260120T235900",
	"RRULE:FREQ=DAILY;UNTIL=20260107",
	"RRULE:FREQ=HOURLY;INTERVAL=2;BYHOUR=9",
	"RRULE:FREQ=MINUTELY;INTERVAL=30;BYMINUTE=15",
	"RRULE:FREQ=SECONDLY;INTERVAL=7777",
	"RRULE:FREQ=MONTHLY;BYDAY=-1FR",
	"RRULE:FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=7",
	"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12",
	"RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5",
	"RRULE:FREQ=MONTHLY;BYMONTHDAY=31",
	"RRULE:FREQ=MONTHLY;INTERVAL=6;BYMONTHDAY=31;UNTIL=20271231T225959Z",
	"RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;WKST=SU;UNTIL=20260401T035959Z",
	"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=SA;COUNT=50;WKST=SU",
	"RRULE:FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU;COUNT=20",
	"RRULE:FREQ=YEARLY;BYMONTH=1,2,3;BYDAY=MO;BYSETPOS=2,-2",
	"RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
	"RRULE:FREQ=YEARLY;BYYEARDAY=1,100,-1",
	"RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
	"RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=2",
	"RRULE:freq=weekly;byday=sa",
	"RRULE:FREQ=DAILY;COUNT=2;UNTIL=20260110T000000Z",
	"RRULE:RSCALE=HEBREW;FREQ=YEARLY",
	"RRULE:FREQ=WEEKLY;BYDAY=2MO",
	"RRULE:FREQ=DAILY;COUNT=5\nEXDATE;TZID=Europe/Berlin:20260105T090000,20260112T090000",
	"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4\nEXDATE;VALUE=DATE:20260112",
	"RRULE:FREQ=WEEKLY\nEXRULE:FREQ=MONTHLY;BYDAY=1MO",
	"RRULE:FREQ=DAILY;COUNT=3\nRDATE;VALUE=PERIOD:20260110T090000Z/20260110T110000Z,20260111T090000Z/PT3H",
	"RDATE;VALUE=PERIOD:20260301T080000Z/P3D",
	"RDATE;TZID=Europe/Berlin:20260704T120000,20310101T090000",
	"RDATE;VALUE=DATE:20260110\nEXDATE:20260107T090000Z,20270101T090000Z",
	"EXDATE;TZID=America/New_York:20260308T023000",
	"EXDATE;TZID=\"/mozilla.org/Europe/Berlin\":20260105T090000",
	"DTSTART:20260105T090000Z",
	"RRULE:",
	"",
}

// FuzzRRule feeds recurrence fields (lines separated by "\n") to the
// parser and, when they parse, expands them over a bounded window. Parsing
// must never panic, refusals must name the line at fault, a parsed rule
// written out again must parse to the same rule, and expansion must give
// ordered instances of the set inside the window.
func FuzzRRule(f *testing.F) {
	for i, s := range rruleSeeds {
		// 2026-01-05 09:00 (a Monday), and a start in a DST gap.
		f.Add(s, int64(1767603600), uint8(i), i%5 == 0)
		f.Add(s, int64(1773541800), uint8(i), false)
	}
	f.Fuzz(func(t *testing.T, text string, startUnix int64, zone uint8, allDay bool) {
		defer watchdog(t)()
		if len(text) > 2000 {
			return
		}
		recurrence := strings.Split(text, "\n")
		if len(recurrence) > 8 {
			return
		}
		// Starts from the year -1 to 10001: Parse must refuse those outside
		// 1..9999 (rrule-go panics from the year 0) and expand the rest.
		const lo, span = -62198755200, 315601977600
		startUnix = lo + ((startUnix%span)+span)%span
		loc, err := time.LoadLocation(parseFuzzZones[int(zone)%len(parseFuzzZones)])
		if err != nil {
			t.Fatal(err)
		}
		start := time.Unix(startUnix, 0).In(loc)

		ls, perr := parseLines(recurrence, allDay)
		verr := Validate(recurrence, allDay)
		if (perr == nil) != (verr == nil) {
			t.Fatalf("parseLines err %v, Validate err %v", perr, verr)
		}
		set, err := Parse(recurrence, start, allDay)
		if err != nil {
			// Parse may refuse more than Validate: rules that cannot occur
			// from this start.
			checkParseError(t, recurrence, err)
		} else if verr != nil {
			t.Fatalf("Parse accepted %q but Validate refused it: %v", recurrence, verr)
		}
		if perr != nil {
			checkParseError(t, recurrence, perr)
			return
		}
		for _, rl := range ls.rules {
			checkRuleRoundTrip(t, rl, allDay)
		}
		if set == nil {
			return
		}
		for _, rl := range ls.rules {
			if rl.opt.Count > 5000 {
				return // a large COUNT is found by iterating it: bounded, but slow
			}
		}
		checkExpansion(t, set, start, allDay)
	})
}

func checkParseError(t *testing.T, recurrence []string, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is a %T, want *ParseError", err, err)
	}
	if pe.Index >= len(recurrence) || pe.Index < -1 {
		t.Fatalf("error names line %d of %d: %v", pe.Index, len(recurrence), err)
	}
	if pe.Index >= 0 && pe.Line != recurrence[pe.Index] {
		t.Fatalf("error quotes %q, line %d is %q", pe.Line, pe.Index, recurrence[pe.Index])
	}
	if pe.Field == "" || pe.Reason == "" {
		t.Fatalf("error without field or reason: %#v", pe)
	}
}

// checkRuleRoundTrip writes a parsed rule out again and parses it back.
func checkRuleRoundTrip(t *testing.T, rl recurLine, allDay bool) {
	t.Helper()
	text := formatRecur(rl)
	back, perr := parseRecur(text, allDay)
	if perr != nil {
		t.Fatalf("rule written as %q does not parse again: %s: %s", text, perr.field, perr.reason)
	}
	opts := cmp.AllowUnexported(rrule.Weekday{}, dtValue{})
	if diff := cmp.Diff(rl.opt, back.opt, opts); diff != "" {
		t.Fatalf("rule written as %q parses differently (-first +second):\n%s", text, diff)
	}
	if diff := cmp.Diff(rl.until, back.until, opts, cmp.Comparer(func(a, b *time.Location) bool { return a == b })); diff != "" {
		t.Fatalf("rule written as %q has another UNTIL (-first +second):\n%s", text, diff)
	}
}

// formatRecur writes a parsed RECUR value back as text.
func formatRecur(rl recurLine) string {
	s := rl.opt.RRuleString()
	if u := rl.until; u != nil {
		s += fmt.Sprintf(";UNTIL=%04d%02d%02d", u.year, int(u.month), u.day)
		switch u.kind {
		case kindLocal:
			s += fmt.Sprintf("T%02d%02d%02d", u.hour, u.min, u.sec)
		case kindUTC:
			s += fmt.Sprintf("T%02d%02d%02dZ", u.hour, u.min, u.sec)
		}
	}
	return s
}

// checkExpansion expands set over a window near its start and checks what
// comes out, taking a bounded number of instances.
func checkExpansion(t *testing.T, set *Set, start time.Time, allDay bool) {
	t.Helper()
	const maxInstances = 100
	from := start.AddDate(0, 1, 0)
	to := from.AddDate(2, 0, 0)
	dur := 90 * time.Minute
	if allDay {
		from = time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC)
		to = time.Date(to.Year(), to.Month(), to.Day(), 0, 0, 0, 0, time.UTC)
		dur = 0
	}
	var prev time.Time
	n := 0
	for o := range set.Between(from, to, dur) {
		if o.AllDay != allDay {
			t.Fatalf("instance %v: AllDay %v in a series with allDay %v", o.Start, o.AllDay, allDay)
		}
		if n > 0 && o.Start.Before(prev) {
			t.Fatalf("instance %v comes after %v", o.Start, prev)
		}
		if !o.Start.Before(to) {
			t.Fatalf("instance %v starts at or after the window end %v", o.Start, to)
		}
		if o.End.Before(o.Start) {
			t.Fatalf("instance %v ends before it starts, at %v", o.Start, o.End)
		}
		if o.End.Equal(o.Start) && o.Start.Before(from) || !o.End.Equal(o.Start) && !o.End.After(from) {
			t.Fatalf("instance %v-%v does not overlap the window from %v", o.Start, o.End, from)
		}
		// Contains costs about as much as a window of its own; check a few.
		if n < 10 && !set.Contains(o.OriginalStart) {
			t.Fatalf("instance %v is not in the set it came from", o.OriginalStart)
		}
		prev = o.Start
		if n++; n == maxInstances {
			break
		}
	}
	// The series from its start: ordered, without duplicates.
	n = 0
	for o := range set.All(dur) {
		if n > 0 && !o.OriginalStart.After(prev) {
			t.Fatalf("All: instance %v after %v", o.OriginalStart, prev)
		}
		prev = o.OriginalStart
		if n++; n == 50 {
			break
		}
	}
}

// watchdog fails the input when it runs for more than two minutes while
// fuzzing: go's fuzzer reports crashes but not inputs that hang, and a hang
// in expansion is a bug here. It returns the function that stops it.
func watchdog(t *testing.T) func() {
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			// t.Fatal cannot be called from here; print the test name
			// and exit so the fuzzer keeps the input as a crasher.
			fmt.Fprintf(os.Stderr, "%s: input still running after two minutes\n", t.Name())
			panic("fuzz input hangs")
		}
	}()
	return func() { close(done) }
}
