package icalmap_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// calendar wraps VEVENT lines (joined with CRLF) in a VCALENDAR and decodes it.
func calendar(t *testing.T, lines ...string) *ical.Calendar {
	t.Helper()
	text := strings.Join(append(append([]string{
		"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//unical//test//EN",
	}, lines...), "END:VCALENDAR"), "\r\n") + "\r\n"
	cal, err := ical.NewDecoder(strings.NewReader(text)).Decode()
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, text)
	}
	return cal
}

// vevent wraps property lines in BEGIN/END:VEVENT.
func vevent(lines ...string) []string {
	return append(append([]string{"BEGIN:VEVENT"}, lines...), "END:VEVENT")
}

// encode encodes cal and decodes it again, as a server round trip would.
func reencode(t *testing.T, cal *ical.Calendar) (*ical.Calendar, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		t.Fatalf("encode: %v", err)
	}
	out, err := ical.NewDecoder(bytes.NewReader(buf.Bytes())).Decode()
	if err != nil {
		t.Fatalf("decode again: %v\n%s", err, buf.String())
	}
	return out, buf.String()
}

const (
	stamp    = "DTSTAMP:20250101T000000Z"
	stampOut = "2025-01-01T00:00:00.000Z"
)

var berlin = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return loc
}()

func TestToEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		opts  *icalmap.Options
		want  *unical.Event
	}{{
		name: "timed with every mapped field",
		lines: vevent(
			"UID:ev-1@example.com",
			stamp,
			"CREATED:20241231T100000Z",
			"LAST-MODIFIED:20250102T080910Z",
			"SUMMARY:Planning\\, Q1",
			"DESCRIPTION:Line one\\nLine two; with semicolon",
			"LOCATION:Room 1",
			"DTSTART;TZID=Europe/Berlin:20250107T090000",
			"DTEND;TZID=Europe/Berlin:20250107T100000",
			"ORGANIZER;CN=Olga:mailto:olga@example.com",
			"ATTENDEE;CN=Me;PARTSTAT=TENTATIVE:mailto:me@example.com",
			"ATTENDEE;PARTSTAT=ACCEPTED;ROLE=OPT-PARTICIPANT:MAILTO:bob@example.com",
			"ATTENDEE:mailto:carl@example.com",
			"TRANSP:TRANSPARENT",
			"CLASS:PRIVATE",
			`X-UNICAL-PUBLIC;X-UNICAL-KEY="team:a":blue\, green`,
			`X-UNICAL-PRIVATE;X-UNICAL-KEY=say%22hi%22:x`,
		),
		opts: &icalmap.Options{Self: "ME@example.com"},
		want: &unical.Event{
			ICalUID:     "ev-1@example.com",
			Title:       "Planning, Q1",
			Description: "Line one\nLine two; with semicolon",
			Location:    "Room 1",
			CreatedAt:   "2024-12-31T10:00:00.000Z",
			UpdatedAt:   "2025-01-02T08:09:10.000Z",
			Start:       &unical.EventDateTime{DateTime: "2025-01-07T09:00:00+01:00", TimeZone: "Europe/Berlin"},
			End:         &unical.EventDateTime{DateTime: "2025-01-07T10:00:00+01:00", TimeZone: "Europe/Berlin"},
			Organizer:   &unical.Organizer{Name: "Olga", Email: "olga@example.com"},
			Attendees: []unical.Attendee{
				{Name: "Me", Email: "me@example.com", ResponseStatus: unical.ResponseTentative},
				{Email: "bob@example.com", ResponseStatus: unical.ResponseAccepted, Optional: true},
				{Email: "carl@example.com", ResponseStatus: unical.ResponseNeedsAction},
			},
			MyResponseStatus:          unical.ResponseTentative,
			Transparency:              unical.TransparencyTransparent,
			Visibility:                unical.VisibilityPrivate,
			PublicExtendedProperties:  map[string]string{"team:a": "blue, green"},
			PrivateExtendedProperties: map[string]string{`say"hi"`: "x"},
		},
	}, {
		name:  "all-day without DTEND lasts one day",
		lines: vevent("UID:a", stamp, "SUMMARY:Holiday", "DTSTART;VALUE=DATE:20250101"),
		want: &unical.Event{
			ICalUID: "a", Title: "Holiday", UpdatedAt: stampOut, IsAllDay: true,
			Start:        &unical.EventDateTime{DateTime: "2025-01-01T00:00:00"},
			End:          &unical.EventDateTime{DateTime: "2025-01-02T00:00:00"},
			Transparency: unical.TransparencyOpaque, Visibility: unical.VisibilityDefault,
		},
	}, {
		name:  "UTC with DURATION, organizer is self",
		lines: vevent("UID:u", stamp, "DTSTART:20250107T090000Z", "DURATION:PT1H30M", "ORGANIZER:mailto:me@example.com", "CLASS:CONFIDENTIAL", "STATUS:CANCELLED"),
		opts:  &icalmap.Options{Self: "me@example.com"},
		want: &unical.Event{
			ICalUID: "u", UpdatedAt: stampOut, IsCancelled: true,
			Start:        &unical.EventDateTime{DateTime: "2025-01-07T09:00:00Z", TimeZone: "UTC"},
			End:          &unical.EventDateTime{DateTime: "2025-01-07T10:30:00Z", TimeZone: "UTC"},
			Organizer:    &unical.Organizer{Email: "me@example.com", IsSelf: true},
			Transparency: unical.TransparencyOpaque, Visibility: unical.VisibilityConfidential,
		},
	}, {
		name: "recurring master with comma-separated EXDATE and RDATE",
		lines: vevent("UID:r", stamp,
			"DTSTART;TZID=Europe/Berlin:20250106T090000",
			"DTEND;TZID=Europe/Berlin:20250106T093000",
			"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10",
			"EXDATE;TZID=Europe/Berlin:20250113T090000,20250120T090000",
			"RDATE:20250125T080000Z",
		),
		want: &unical.Event{
			ICalUID: "r", UpdatedAt: stampOut, IsRecurring: true,
			Start: &unical.EventDateTime{DateTime: "2025-01-06T09:00:00+01:00", TimeZone: "Europe/Berlin"},
			End:   &unical.EventDateTime{DateTime: "2025-01-06T09:30:00+01:00", TimeZone: "Europe/Berlin"},
			Recurrence: []string{
				"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10",
				"RDATE:20250125T080000Z",
				"EXDATE;TZID=Europe/Berlin:20250113T090000",
				"EXDATE;TZID=Europe/Berlin:20250120T090000",
			},
			Transparency: unical.TransparencyOpaque, Visibility: unical.VisibilityDefault,
		},
	}, {
		name: "timed override",
		lines: vevent("UID:r", stamp,
			"RECURRENCE-ID;TZID=Europe/Berlin:20250113T090000",
			"DTSTART;TZID=Europe/Berlin:20250113T110000",
			"DTEND;TZID=Europe/Berlin:20250113T113000",
		),
		want: &unical.Event{
			ICalUID: "r", UpdatedAt: stampOut, IsException: true,
			Start:         &unical.EventDateTime{DateTime: "2025-01-13T11:00:00+01:00", TimeZone: "Europe/Berlin"},
			End:           &unical.EventDateTime{DateTime: "2025-01-13T11:30:00+01:00", TimeZone: "Europe/Berlin"},
			OriginalStart: &unical.EventDateTime{DateTime: "2025-01-13T09:00:00+01:00", TimeZone: "Europe/Berlin"},
			Transparency:  unical.TransparencyOpaque, Visibility: unical.VisibilityDefault,
		},
	}, {
		name: "all-day override carries a date",
		lines: vevent("UID:d", stamp,
			"RECURRENCE-ID;VALUE=DATE:20250108",
			"DTSTART;VALUE=DATE:20250109",
			"DTEND;VALUE=DATE:20250110",
		),
		want: &unical.Event{
			ICalUID: "d", UpdatedAt: stampOut, IsException: true, IsAllDay: true,
			Start:         &unical.EventDateTime{DateTime: "2025-01-09T00:00:00"},
			End:           &unical.EventDateTime{DateTime: "2025-01-10T00:00:00"},
			OriginalStart: &unical.EventDateTime{Date: "2025-01-08"},
			Transparency:  unical.TransparencyOpaque, Visibility: unical.VisibilityDefault,
		},
	}, {
		name: "Windows zone name from Outlook",
		lines: vevent("UID:w", stamp,
			`DTSTART;TZID="W. Europe Standard Time":20250707T090000`,
			`DTEND;TZID="W. Europe Standard Time":20250707T100000`,
		),
		want: &unical.Event{
			ICalUID: "w", UpdatedAt: stampOut,
			Start:        &unical.EventDateTime{DateTime: "2025-07-07T09:00:00+02:00", TimeZone: "Europe/Berlin"},
			End:          &unical.EventDateTime{DateTime: "2025-07-07T10:00:00+02:00", TimeZone: "Europe/Berlin"},
			Transparency: unical.TransparencyOpaque, Visibility: unical.VisibilityDefault,
		},
	}, {
		name:  "floating time read in the given zone",
		lines: vevent("UID:f", stamp, "DTSTART:20250707T090000", "DTEND:20250707T100000"),
		opts:  &icalmap.Options{Floating: berlin},
		want: &unical.Event{
			ICalUID: "f", UpdatedAt: stampOut,
			Start:        &unical.EventDateTime{DateTime: "2025-07-07T09:00:00+02:00", TimeZone: "Europe/Berlin"},
			End:          &unical.EventDateTime{DateTime: "2025-07-07T10:00:00+02:00", TimeZone: "Europe/Berlin"},
			Transparency: unical.TransparencyOpaque, Visibility: unical.VisibilityDefault,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cal := calendar(t, tt.lines...)
			got, err := icalmap.ToEvent(cal.Children[0], tt.opts)
			if err != nil {
				t.Fatalf("ToEvent: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ToEvent (-want +got):\n%s", diff)
			}

			// Round trip: write the event into an empty VEVENT, encode,
			// decode and read it again.
			now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
			out := ical.NewCalendar()
			out.Props.SetText(ical.PropVersion, "2.0")
			out.Props.SetText(ical.PropProductID, "-//unical//test//EN")
			comp := ical.NewComponent(ical.CompEvent)
			if err := icalmap.Apply(comp, got, now, ""); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			out.Children = append(out.Children, comp)
			again, text := reencode(t, out)
			back, err := icalmap.ToEvent(again.Children[0], tt.opts)
			if err != nil {
				t.Fatalf("ToEvent after Apply: %v\n%s", err, text)
			}
			want := *tt.want
			want.CreatedAt = "2026-03-04T05:06:07.000Z"
			want.UpdatedAt = want.CreatedAt
			if diff := cmp.Diff(&want, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s\n%s", diff, text)
			}
		})
	}
}

func TestToEvent_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"no DTSTART", vevent("UID:x", stamp), "no DTSTART"},
		{"unknown TZID", vevent("UID:x", stamp, "DTSTART;TZID=Mars/Olympus:20250101T090000"), `unknown TZID "Mars/Olympus"`},
		{"DATE start with DATE-TIME end", vevent("UID:x", stamp, "DTSTART;VALUE=DATE:20250101", "DTEND:20250102T000000Z"), "different value types"},
		{"bad date", vevent("UID:x", stamp, "DTSTART:2025-01-01"), "DTSTART"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cal := calendar(t, tt.lines...)
			_, err := icalmap.ToEvent(cal.Children[0], nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ToEvent error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestApply_KeepsForeignData checks that an update through unical keeps
// what other clients stored: alarms, Apple properties, SEQUENCE, CREATED
// and attendee parameters unical does not map.
func TestApply_KeepsForeignData(t *testing.T) {
	t.Parallel()
	cal := calendar(t, vevent(
		"UID:apple-1", stamp, "CREATED:20240101T000000Z", "SEQUENCE:3",
		"SUMMARY:Old", "DTSTART;TZID=Europe/Berlin:20250107T090000", "DTEND;TZID=Europe/Berlin:20250107T100000",
		"X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC",
		"ATTENDEE;CUTYPE=INDIVIDUAL;RSVP=TRUE;PARTSTAT=NEEDS-ACTION:mailto:me@example.com",
		"BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "DESCRIPTION:Reminder", "END:VALARM",
	)...)
	comp := cal.Children[0]
	e, err := icalmap.ToEvent(comp, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Title = "New"
	e.Attendees[0].ResponseStatus = unical.ResponseAccepted
	if err := icalmap.Apply(comp, e, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ""); err != nil {
		t.Fatal(err)
	}
	_, text := reencode(t, cal)
	for _, want := range []string{
		"SUMMARY:New\r\n",
		"SEQUENCE:3\r\n",
		"CREATED:20240101T000000Z\r\n",
		"LAST-MODIFIED:20260101T000000Z\r\n",
		"X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r\n",
		"ATTENDEE;CUTYPE=INDIVIDUAL;PARTSTAT=ACCEPTED;RSVP=TRUE:mailto:me@example.com\r\n",
		"BEGIN:VALARM\r\n",
		"TRIGGER:-PT15M\r\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("encoded event lacks %q:\n%s", want, text)
		}
	}
}

// TestApply_SplitsMultiValueDates covers go-ical's gap: RecurrenceSet fails
// on a comma-separated EXDATE, so Apply writes one value per line.
func TestApply_SplitsMultiValueDates(t *testing.T) {
	t.Parallel()
	e := &unical.Event{
		ICalUID: "s",
		Start:   &unical.EventDateTime{DateTime: "2025-01-06T09:00:00+01:00", TimeZone: "Europe/Berlin"},
		End:     &unical.EventDateTime{DateTime: "2025-01-06T10:00:00+01:00", TimeZone: "Europe/Berlin"},
		Recurrence: []string{
			"RRULE:FREQ=DAILY;COUNT=5",
			`EXDATE;TZID="Europe/Berlin":20250107T090000,20250108T090000`,
		},
	}
	comp := ical.NewComponent(ical.CompEvent)
	if err := icalmap.Apply(comp, e, time.Now(), ""); err != nil {
		t.Fatal(err)
	}
	set, err := comp.RecurrenceSet(nil)
	if err != nil {
		t.Fatalf("go-ical RecurrenceSet: %v", err)
	}
	var got []string
	for _, t := range set.All() {
		got = append(got, t.In(berlin).Format("2006-01-02 15:04"))
	}
	want := []string{"2025-01-06 09:00", "2025-01-09 09:00", "2025-01-10 09:00"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
}

func TestApply_Errors(t *testing.T) {
	t.Parallel()
	start := &unical.EventDateTime{DateTime: "2025-01-06T09:00:00Z"}
	tests := []struct {
		name string
		e    *unical.Event
		want string
	}{
		{"no UID", &unical.Event{Start: start}, "no UID"},
		{"no start", &unical.Event{ICalUID: "x"}, "no start"},
		{"bad recurrence line", &unical.Event{ICalUID: "x", Start: start, Recurrence: []string{"FREQ=DAILY"}}, "not an iCalendar line"},
		{"line break in key", &unical.Event{ICalUID: "x", Start: start, PublicExtendedProperties: map[string]string{"a\nb": "c"}}, "line break"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := icalmap.Apply(ical.NewComponent(ical.CompEvent), tt.e, time.Now(), "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestFields_OtherClients: alarms and colours another client wrote are
// read where reminders and customColor can hold them and kept as they are
// when another field changes; a changed reminders field replaces the
// alarms.
func TestFields_OtherClients(t *testing.T) {
	cal := calendar(t, vevent(
		"UID:other-1", stamp, "SUMMARY:Old", "DTSTART:20260107T090000Z", "DTEND:20260107T100000Z",
		"COLOR:turquoise",
		"BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:-PT5M", "END:VALARM",
		"BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:20260107T080000Z", "DESCRIPTION:x", "END:VALARM",
		"BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;RELATED=END:PT0S", "DESCRIPTION:x", "END:VALARM",
	)...)
	comp := cal.Children[0]
	e, err := icalmap.ToEvent(comp, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 5}}}
	if diff := cmp.Diff(want, e.Reminders); diff != "" || e.CustomColor != "" {
		t.Errorf("read reminders (-want +got):\n%s\ncustomColor %q, want none (COLOR is a CSS name)", diff, e.CustomColor)
	}
	e.Title = "New"
	if err := icalmap.Apply(comp, e, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "me@example.com"); err != nil {
		t.Fatal(err)
	}
	_, text := reencode(t, cal)
	for _, kept := range []string{"COLOR:turquoise\r\n", "ACTION:AUDIO\r\n", "TRIGGER;VALUE=DATE-TIME:20260107T080000Z\r\n", "TRIGGER;RELATED=END:PT0S\r\n"} {
		if !strings.Contains(text, kept) {
			t.Errorf("an update of the title lost %q:\n%s", kept, text)
		}
	}

	e.Reminders = &unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "email", Minutes: 30}}}
	e.CustomColor = "#00AA00"
	if err := icalmap.Apply(comp, e, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "me@example.com"); err != nil {
		t.Fatal(err)
	}
	_, text = reencode(t, cal)
	if n := strings.Count(text, "BEGIN:VALARM"); n != 1 {
		t.Errorf("VALARMs after setting reminders = %d, want 1:\n%s", n, text)
	}
	for _, want := range []string{"COLOR:#00AA00\r\n", "ACTION:EMAIL\r\n", "TRIGGER:-PT30M\r\n", "ATTENDEE:mailto:me@example.com\r\n", "SUMMARY:New\r\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("encoded event lacks %q:\n%s", want, text)
		}
	}
}
