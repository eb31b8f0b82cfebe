package icalmap_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
	"github.com/unical/unical/internal/recur"
)

// icalSeeds are calendar objects as servers send them, beside the CalDAV
// provider's fixtures (Apple, Google, Outlook, a custom VTIMEZONE).
var icalSeeds = []string{
	wrap(vevent("UID:ev-1@example.com", stamp, "CREATED:20241231T100000Z", "LAST-MODIFIED:20250102T080910Z",
		`SUMMARY:Planning\, Q1`, `DESCRIPTION:Line one\nLine two; with semicolon`, "LOCATION:Room 1",
		"DTSTART;TZID=Europe/Berlin:20250107T090000", "DTEND;TZID=Europe/Berlin:20250107T100000",
		"ORGANIZER;CN=Olga:mailto:olga@example.com", "ATTENDEE;CN=Me;PARTSTAT=TENTATIVE:mailto:me@example.com",
		"ATTENDEE;PARTSTAT=ACCEPTED;ROLE=OPT-PARTICIPANT:MAILTO:bob@example.com", "TRANSP:TRANSPARENT", "CLASS:PRIVATE",
		`X-UNICAL-PUBLIC;X-UNICAL-KEY="team:a":blue\, green`, `X-UNICAL-PRIVATE;X-UNICAL-KEY=say%22hi%22:x`)),
	wrap(vevent("UID:a", stamp, "SUMMARY:Holiday", "DTSTART;VALUE=DATE:20250101")),
	wrap(vevent("UID:u", stamp, "DTSTART:20250107T090000Z", "DURATION:PT1H30M", "ORGANIZER:mailto:me@example.com", "CLASS:CONFIDENTIAL", "STATUS:CANCELLED")),
	wrap(append(vevent("UID:r", stamp, "DTSTART;TZID=Europe/Berlin:20250106T090000", "DTEND;TZID=Europe/Berlin:20250106T093000",
		"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10", "EXDATE;TZID=Europe/Berlin:20250113T090000,20250120T090000", "RDATE:20250125T080000Z"),
		vevent("UID:r", stamp, "RECURRENCE-ID;TZID=Europe/Berlin:20250113T090000",
			"DTSTART;TZID=Europe/Berlin:20250113T110000", "DTEND;TZID=Europe/Berlin:20250113T113000")...)),
	wrap(vevent("UID:d", stamp, "RECURRENCE-ID;VALUE=DATE:20250108", "DTSTART;VALUE=DATE:20250109", "DTEND;VALUE=DATE:20250110")),
	wrap(vevent("UID:w", stamp, `DTSTART;TZID="W. Europe Standard Time":20250707T090000`, `DTEND;TZID="W. Europe Standard Time":20250707T100000`)),
	wrap(vevent("UID:f", stamp, "DTSTART:20250707T090000", "DTEND:20250707T100000")),
	wrap(vevent("UID:m", stamp, "DTSTART;TZID=/mozilla.org/20050126_1/Europe/Berlin:20250707T090000", "RRULE:FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20261231T225959Z")),
	wrap([]string{"BEGIN:VTIMEZONE", "TZID:Outlook 1601", "BEGIN:STANDARD", "DTSTART:16010101T030000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
		"TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD", "BEGIN:DAYLIGHT", "DTSTART:16010101T020000",
		"RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "END:DAYLIGHT", "END:VTIMEZONE",
		"BEGIN:VEVENT", "UID:o", stamp, "DTSTART;TZID=Outlook 1601:20260701T090000", "DTEND;TZID=Outlook 1601:20260701T100000",
		"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=Outlook 1601:20260702T090000", "END:VEVENT"}),
	// A sub-daily VTIMEZONE rule once took minutes and gigabytes to read.
	wrap([]string{"BEGIN:VTIMEZONE", "TZID:Custom", "BEGIN:STANDARD", "DTSTART:19000101T030000", "RRULE:FREQ=MINUTELY",
		"TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
		"BEGIN:VEVENT", "UID:c", stamp, "DTSTART;TZID=Custom:20260701T090000", "END:VEVENT"}),
	// An event from 2035 on in a DST zone once made AddTimezones loop.
	wrap(vevent("UID:late", stamp, "DTSTART;TZID=Europe/Berlin:20360105T090000", "RRULE:FREQ=YEARLY;COUNT=3")),
	wrap([]string{"BEGIN:VTIMEZONE", "TZID:Mars Base", "BEGIN:STANDARD", "DTSTART:19700101T000000", "RDATE:19800101T000000,19900101T000000",
		"TZOFFSETFROM:+0000", "TZOFFSETTO:+0317", "END:STANDARD", "END:VTIMEZONE",
		"BEGIN:VEVENT", "UID:x", stamp, "DTSTART;TZID=Mars Base:20260701T090000", "END:VEVENT"}),
}

// wrap puts lines into a VCALENDAR, CRLF-terminated.
func wrap(lines []string) string {
	return strings.Join(append(append([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//unical//test//EN"}, lines...), "END:VCALENDAR"), "\r\n") + "\r\n"
}

// FuzzObjectEvents reads calendar objects as a CalDAV server could send
// them. Reading must never panic; an object that reads gives one event per
// VEVENT with ids that name the resource, and each event written back into
// a fresh VEVENT reads as the same event.
func FuzzObjectEvents(f *testing.F) {
	for _, s := range icalSeeds {
		f.Add(s)
	}
	fixtures, _ := filepath.Glob(filepath.Join("..", "..", "provider", "caldav", "testdata", "*.ics"))
	for _, name := range fixtures {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	opts := &icalmap.Options{Self: "me@example.com", Floating: berlin}
	f.Fuzz(func(t *testing.T, data string) {
		if len(data) > 64<<10 {
			return
		}
		cal, err := icalmap.Decode(strings.NewReader(data))
		if err != nil {
			return
		}
		zones := icalmap.Zones(cal)
		for tzid, loc := range zones {
			if loc == nil {
				t.Fatalf("Zones gave a nil zone for %q", tzid)
			}
		}
		const id = "resource-1"
		events, err := icalmap.ObjectEvents(cal, id, opts)
		if err != nil {
			return
		}
		var vevents []*ical.Component
		for _, c := range cal.Children {
			if c.Name == ical.CompEvent {
				vevents = append(vevents, c)
			}
		}
		if len(events) != len(vevents) {
			t.Fatalf("%d events from %d VEVENTs", len(events), len(vevents))
		}
		for i, e := range events {
			if e.Start == nil || e.End == nil {
				t.Fatalf("event %d without start or end: %+v", i, e)
			}
			if e.OriginalStart == nil {
				if e.ID != id || e.RecurringEventID != "" {
					t.Fatalf("series event %d has id %q, recurringEventId %q", i, e.ID, e.RecurringEventID)
				}
			} else {
				series, _, _, err := recur.ParseInstanceID(e.ID)
				if err != nil || series != id || e.RecurringEventID != id {
					t.Fatalf("override %d has id %q (series %q, %v), recurringEventId %q", i, e.ID, series, err, e.RecurringEventID)
				}
			}

			if subMinuteOffset(e.Start) || subMinuteOffset(e.End) || subMinuteOffset(e.OriginalStart) {
				continue // RFC 3339 offsets have no seconds: local mean time before ~1900 cannot round-trip
			}
			if hasLineBreak(e) {
				continue // a line break inside a value cannot be written again (go-ical refuses it)
			}
			// Write the event into a fresh VEVENT as an update would, and
			// read it again through the encoder and decoder.
			out := ical.NewCalendar()
			out.Props.SetText(ical.PropVersion, "2.0")
			out.Props.SetText(ical.PropProductID, "-//unical//test//EN")
			comp := ical.NewComponent(ical.CompEvent)
			if e.ICalUID == "" {
				comp.Props.SetText(ical.PropUID, "uid")
			}
			now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
			if err := icalmap.Apply(comp, e, now, ""); err != nil {
				continue // what a server stores is not always what we write
			}
			out.Children = append(out.Children, comp)
			if err := icalmap.AddTimezones(out); err != nil {
				t.Fatalf("AddTimezones after Apply: %v", err)
			}
			var buf bytes.Buffer
			if err := ical.NewEncoder(&buf).Encode(out); err != nil {
				t.Fatalf("encode after Apply: %v", err)
			}
			again, err := ical.NewDecoder(bytes.NewReader(buf.Bytes())).Decode()
			if err != nil {
				t.Fatalf("decode after Apply: %v\n%s", err, buf.String())
			}
			back, err := icalmap.ToEvent(again.Children[len(again.Children)-1], &icalmap.Options{Self: opts.Self, Floating: opts.Floating, Zones: icalmap.Zones(again)})
			if err != nil {
				t.Fatalf("event %d does not read after Apply: %v\n%s", i, err, buf.String())
			}
			want := *e
			want.ID, want.RecurringEventID = "", ""
			want.CreatedAt = "2026-03-04T05:06:07.000Z"
			want.UpdatedAt = want.CreatedAt
			if want.ICalUID == "" {
				want.ICalUID = "uid"
			}
			normalizeWritten(&want)
			if diff := cmp.Diff(&want, back); diff != "" {
				t.Fatalf("event %d changes when written and read (-read +again):\n%s\n%s", i, diff, buf.String())
			}
		}
	})
}

// normalizeWritten applies to e what writing it to iCalendar changes on
// purpose: TEXT values hold line feeds, not carriage returns, and valid
// UTF-8, and parameter values (CN) hold no double quotes or line breaks.
func normalizeWritten(e *unical.Event) {
	lf := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace
	// go-ical writes TEXT rune by rune, so each invalid UTF-8 byte becomes
	// U+FFFD, as it does in the API's JSON anyway.
	text := func(s string) string { return string([]rune(lf(s))) }
	param := strings.NewReplacer(`"`, "'", "\r", "", "\n", " ").Replace
	e.Title, e.Description, e.Location, e.ICalUID = text(e.Title), text(e.Description), text(e.Location), text(e.ICalUID)
	for _, m := range []map[string]string{e.PublicExtendedProperties, e.PrivateExtendedProperties} {
		for k, v := range m {
			m[k] = text(v)
		}
	}
	for i := range e.Attendees {
		e.Attendees[i].Name = param(e.Attendees[i].Name)
	}
	if e.Organizer != nil {
		o := *e.Organizer
		o.Name = param(o.Name)
		e.Organizer = &o
	}
}

// subMinuteOffset reports whether d is a date-time in a zone whose offset
// then had seconds (local mean time, such as Berlin's +00:53:28 before 1893).
func subMinuteOffset(d *unical.EventDateTime) bool {
	if d == nil || d.DateTime == "" || d.TimeZone == "" {
		return false
	}
	loc, err := time.LoadLocation(d.TimeZone)
	if err != nil {
		return false
	}
	t, err := time.Parse(time.RFC3339, d.DateTime)
	if err != nil {
		return false
	}
	_, off := t.In(loc).Zone()
	return off%60 != 0
}

// hasLineBreak reports whether a server's value that is written back as it
// is (a recurrence line, an address) holds a line break: go-ical refuses to
// encode one, so such an event cannot be updated, which the API validation
// of addresses and lines keeps clients from causing.
func hasLineBreak(e *unical.Event) bool {
	var values []string
	for _, l := range e.Recurrence {
		values = append(values, strings.TrimSpace(l)) // Apply trims lines
	}
	for _, a := range e.Attendees {
		values = append(values, a.Email)
	}
	if e.Organizer != nil {
		values = append(values, e.Organizer.Email)
	}
	for _, v := range values {
		if strings.ContainsAny(v, "\r\n") {
			return true
		}
	}
	return false
}
