package icalmap_test

import (
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// TestVTimezone_RoundTrip builds VTIMEZONEs from Go's zone data and reads
// them back with ParseVTimezone: every instant of the covered range gets
// the offset Go gives it, including zones with half-hour and negative
// offsets and one without DST.
func TestVTimezone_RoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Europe/Berlin", "America/New_York", "Australia/Adelaide", "Asia/Kolkata", "America/Sao_Paulo"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			loc, err := time.LoadLocation(name)
			if err != nil {
				t.Fatal(err)
			}
			from, to := time.Date(2015, 1, 1, 0, 0, 0, 0, loc), time.Date(2030, 12, 31, 0, 0, 0, 0, loc)
			vtz := icalmap.VTimezone("Custom "+name, loc, from, to)
			// Through the encoder and decoder, as a server would keep it.
			cal := ical.NewCalendar()
			cal.Props.SetText(ical.PropProductID, "-//test//EN")
			cal.Props.SetText(ical.PropVersion, "2.0")
			cal.Children = append(cal.Children, vtz)
			cal, _ = reencode(t, cal)
			got, err := icalmap.ParseVTimezone(cal.Children[0])
			if err != nil {
				t.Fatal(err)
			}
			for at := from; at.Before(to); at = at.Add(7 * time.Hour) {
				_, want := at.Zone()
				if _, off := at.In(got).Zone(); off != want {
					t.Fatalf("at %v: offset %d, want %d", at, off, want)
				}
			}
		})
	}
}

// TestParseVTimezone_Outlook reads the rule-based VTIMEZONE Outlook writes
// (observances starting in 1601, with yearly RRULEs).
func TestParseVTimezone_Outlook(t *testing.T) {
	t.Parallel()
	cal := calendar(t,
		"BEGIN:VTIMEZONE", "TZID:Eastern (Legacy)",
		"BEGIN:STANDARD", "DTSTART:16011104T020000", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11",
		"TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "END:STANDARD",
		"BEGIN:DAYLIGHT", "DTSTART:16010311T020000", "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3",
		"TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "END:DAYLIGHT",
		"END:VTIMEZONE")
	loc, err := icalmap.ParseVTimezone(cal.Children[0])
	if err != nil {
		t.Fatal(err)
	}
	ny, _ := time.LoadLocation("America/New_York")
	for _, at := range []time.Time{
		time.Date(2026, 3, 8, 6, 59, 0, 0, time.UTC), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 1, 5, 59, 0, 0, time.UTC), time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC),
		time.Date(2030, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		_, want := at.In(ny).Zone()
		if _, got := at.In(loc).Zone(); got != want {
			t.Errorf("at %v: offset %d, want %d", at, got, want)
		}
	}
}

// TestParseVTimezone_FixedOffset reads a zone with one observance and no
// rule, starting before 1901, which TZif version 1 cannot hold.
func TestParseVTimezone_FixedOffset(t *testing.T) {
	t.Parallel()
	cal := calendar(t,
		"BEGIN:VTIMEZONE", "TZID:India (Legacy)",
		"BEGIN:STANDARD", "DTSTART:16010101T000000", "TZOFFSETFROM:+0530", "TZOFFSETTO:+0530", "END:STANDARD",
		"END:VTIMEZONE")
	loc, err := icalmap.ParseVTimezone(cal.Children[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, off := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).In(loc).Zone(); off != 5*3600+1800 {
		t.Errorf("offset %d, want +05:30", off)
	}
}

// TestAddTimezones checks that writing an event adds one VTIMEZONE per
// TZID used (RFC 5545 §3.2.19), and none for UTC or a TZID defined already.
func TestAddTimezones(t *testing.T) {
	t.Parallel()
	cal := calendar(t, vevent("UID:a", "DTSTAMP:20260101T000000Z",
		"DTSTART;TZID=Europe/Berlin:20260301T090000", "DTEND;TZID=America/New_York:20260301T100000",
		"EXDATE;TZID=Europe/Berlin:20260302T090000", "RRULE:FREQ=DAILY")...)
	if err := icalmap.AddTimezones(cal); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cal.Children {
		if c.Name == ical.CompTimezone {
			id, _ := c.Props.Text(ical.PropTimezoneID)
			ids = append(ids, id)
		}
	}
	if diff := cmp.Diff([]string{"Europe/Berlin", "America/New_York"}, ids); diff != "" {
		t.Errorf("VTIMEZONEs (-want +got):\n%s", diff)
	}
	_, text := reencode(t, cal)
	for _, want := range []string{"TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "DTSTART:20260329T020000", "TZNAME:CEST"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if err := icalmap.AddTimezones(cal); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(func() string { _, s := reencode(t, cal); return s }(), "BEGIN:VTIMEZONE"); n != 2 {
		t.Errorf("after a second AddTimezones: %d VTIMEZONEs, want 2", n)
	}
}

// TestObjectEvents_CustomZone reads an event, its recurrence and an
// override in a zone only the object's VTIMEZONE defines. Its rules are
// central Europe's, so it becomes the IANA zone CLDR names for them, and
// the series expands across DST with the override and EXDATE applied.
func TestObjectEvents_CustomZone(t *testing.T) {
	t.Parallel()
	cal := calendar(t, append(append([]string{
		"BEGIN:VTIMEZONE", "TZID:Berlin (Legacy)",
		"BEGIN:STANDARD", "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
		"TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
		"BEGIN:DAYLIGHT", "DTSTART:19700329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
		"TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "END:DAYLIGHT",
		"END:VTIMEZONE"},
		vevent("UID:s", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Berlin (Legacy):20260327T090000",
			"DURATION:PT30M", "RRULE:FREQ=DAILY;COUNT=5", "EXDATE;TZID=Berlin (Legacy):20260330T090000", "SUMMARY:s")...),
		vevent("UID:s", "DTSTAMP:20260101T000000Z", "RECURRENCE-ID;TZID=Berlin (Legacy):20260329T090000",
			"DTSTART;TZID=Berlin (Legacy):20260329T100000", "DURATION:PT30M", "SUMMARY:moved")...)...)
	events, err := icalmap.ObjectEvents(cal, "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("%d events, want master and override", len(events))
	}
	master, ov := events[0], events[1]
	if master.Start.DateTime != "2026-03-27T09:00:00+01:00" || master.Start.TimeZone != "Europe/Budapest" {
		t.Errorf("master start %+v, want 09:00+01:00 in Europe/Budapest (CLDR's zone for these rules)", master.Start)
	}
	if diff := cmp.Diff([]string{"RRULE:FREQ=DAILY;COUNT=5", "EXDATE;TZID=Europe/Budapest:20260330T090000"}, master.Recurrence); diff != "" {
		t.Errorf("recurrence (-want +got):\n%s", diff)
	}
	if ov.ID != "s_20260329T070000Z" || ov.RecurringEventID != "s" {
		t.Errorf("override id %q series %q", ov.ID, ov.RecurringEventID)
	}
	insts, err := unical.ExpandEvents(events, time.Date(2026, 3, 27, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range insts {
		got = append(got, e.Start.DateTime+" "+e.Title)
	}
	want := []string{"2026-03-27T09:00:00+01:00 s", "2026-03-28T09:00:00+01:00 s", "2026-03-29T10:00:00+02:00 moved", "2026-03-31T09:00:00+02:00 s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
}

// TestObjectEvents_UnmatchedZone reads an event in a VTIMEZONE that
// matches no real zone: its instants are right, shown in UTC, and its
// EXDATEs become UTC date-times the recurrence engine can read.
func TestObjectEvents_UnmatchedZone(t *testing.T) {
	t.Parallel()
	cal := calendar(t, append([]string{
		"BEGIN:VTIMEZONE", "TZID:Mars Base",
		"BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0317", "TZOFFSETTO:+0317", "END:STANDARD",
		"END:VTIMEZONE"},
		vevent("UID:m", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Mars Base:20260601T091700",
			"DTEND;TZID=Mars Base:20260601T101700", "RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=Mars Base:20260602T091700")...)...)
	events, err := icalmap.ObjectEvents(cal, "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := events[0]
	if e.Start.DateTime != "2026-06-01T06:00:00Z" || e.End.DateTime != "2026-06-01T07:00:00Z" {
		t.Errorf("start %+v end %+v, want 06:00Z-07:00Z", e.Start, e.End)
	}
	if diff := cmp.Diff([]string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20260602T060000Z"}, e.Recurrence); diff != "" {
		t.Errorf("recurrence (-want +got):\n%s", diff)
	}
}

// TestToEvent_WindowsRecurrenceZone checks that EXDATE lines naming a
// Windows zone come out with its IANA name, which the recurrence engine
// knows.
func TestToEvent_WindowsRecurrenceZone(t *testing.T) {
	t.Parallel()
	cal := calendar(t, vevent("UID:w", "DTSTAMP:20260101T000000Z",
		`DTSTART;TZID="W. Europe Standard Time":20260305T140000`, "RRULE:FREQ=WEEKLY;COUNT=3",
		`EXDATE;TZID="W. Europe Standard Time":20260312T140000,20260319T140000`)...)
	e, err := icalmap.ToEvent(cal.Children[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=Europe/Berlin:20260312T140000", "EXDATE;TZID=Europe/Berlin:20260319T140000"}
	if diff := cmp.Diff(want, e.Recurrence); diff != "" {
		t.Errorf("recurrence (-want +got):\n%s", diff)
	}
	// Writing the event back unchanged keeps the Windows form.
	if err := icalmap.Apply(cal.Children[0], e, time.Now(), ""); err != nil {
		t.Fatal(err)
	}
	_, text := reencode(t, cal)
	for _, line := range []string{`DTSTART;TZID=W. Europe Standard Time:20260305T140000`, `EXDATE;TZID=W. Europe Standard Time:20260312T140000`} {
		if !strings.Contains(text, line) {
			t.Errorf("output lacks %q:\n%s", line, text)
		}
	}
}

// TestParseVTimezone_RuleFromYearZero: rrule-go walks a rule from the year
// 0 into empty per-year tables and panicked (a weekly or monthly rule with
// COUNT, which is not moved to 1900); such an observance is refused, so
// its zone is left out and a TZID naming it stays an error.
func TestParseVTimezone_RuleFromYearZero(t *testing.T) {
	t.Parallel()
	for _, rule := range []string{"FREQ=WEEKLY;COUNT=3", "FREQ=MONTHLY;BYDAY=-1SU;COUNT=500", "FREQ=YEARLY;COUNT=3", "FREQ=WEEKLY"} {
		t.Run(rule, func(t *testing.T) {
			cal := calendar(t, append([]string{
				"BEGIN:VTIMEZONE", "TZID:Custom",
				"BEGIN:STANDARD", "DTSTART:00000103T000000", "RRULE:" + rule,
				"TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
				"END:VTIMEZONE"},
				vevent("UID:c", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Custom:20260701T090000")...)...)
			if loc, err := icalmap.ParseVTimezone(cal.Children[0]); err == nil {
				t.Errorf("ParseVTimezone = %v, want an error", loc)
			}
			if zones := icalmap.Zones(cal); zones["Custom"] != nil {
				t.Errorf("Zones kept the zone: %v", zones)
			}
		})
	}
}
