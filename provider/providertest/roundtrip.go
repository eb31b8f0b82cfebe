package providertest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
)

// fieldCase writes one writable field and says what reading it back must
// show.
type fieldCase struct {
	field string
	// params returns the parameters that write the field and the view a
	// reader must get back. They are a create's, completed with a title
	// and times where they have none, unless update is set: then they
	// update cur, an event made before.
	params func(self string, cur *unical.Event) (*unical.EventParams, any)
	update bool
	// view is what of an event is compared.
	view func(e *unical.Event) any
}

// meetingProviderOf is the generateMeetingUrlProvider each provider type
// can create; the others are refused by value, as the table's note says.
var meetingProviderOf = map[unical.ProviderType]string{
	unical.ProviderGoogle:    unical.MeetingProviderGoogleMeet,
	unical.ProviderMicrosoft: unical.MeetingProviderTeams,
}

// eventFieldCases covers every field of unical.EventFields.
func eventFieldCases(t *testing.T, typ unical.ProviderType) []fieldCase {
	one := func(field string, params *unical.EventParams, want any, view func(e *unical.Event) any) fieldCase {
		return fieldCase{field: field, params: func(string, *unical.Event) (*unical.EventParams, any) { return params, want }, view: view}
	}
	when := func(d *unical.EventDateTime) any {
		if d == nil {
			return nil
		}
		return []any{instant(t, d), d.TimeZone}
	}
	emails := func(e *unical.Event) any {
		var out []unical.Attendee
		for _, a := range e.Attendees {
			out = append(out, unical.Attendee{Email: strings.ToLower(a.Email), Name: a.Name, Optional: a.Optional})
		}
		return out
	}
	meeting := meetingProviderOf[typ]
	if meeting == "" {
		meeting = unical.MeetingProviderGoogleMeet
	}
	return []fieldCase{
		one("title", &unical.EventParams{Title: unical.Some("Renamed, twice; at least")}, "Renamed, twice; at least", func(e *unical.Event) any { return e.Title }),
		one("description", &unical.EventParams{Description: unical.Some("Line one\nLine two, with a comma; and a semicolon.")},
			"Line one\nLine two, with a comma; and a semicolon.", func(e *unical.Event) any { return e.Description }),
		one("start", &unical.EventParams{Start: zoned("2030-01-07T08:30:00+01:00", "Europe/Paris")},
			[]any{time.Date(2030, 1, 7, 7, 30, 0, 0, time.UTC), "Europe/Paris"}, func(e *unical.Event) any { return when(e.Start) }),
		one("end", &unical.EventParams{End: zoned("2030-01-07T11:00:00+01:00", "Europe/Paris")},
			[]any{time.Date(2030, 1, 7, 10, 0, 0, 0, time.UTC), "Europe/Paris"}, func(e *unical.Event) any { return when(e.End) }),
		one("isAllDay", &unical.EventParams{IsAllDay: unical.Some(true), Start: unical.Some(unical.EventDateTime{DateTime: "2030-01-07T00:00:00"}), End: unical.Some(unical.EventDateTime{DateTime: "2030-01-08T00:00:00"})},
			[]any{true, "2030-01-07T00:00:00", "2030-01-08T00:00:00"}, func(e *unical.Event) any { return []any{e.IsAllDay, e.Start.DateTime, e.End.DateTime} }),
		one("publicExtendedProperties", &unical.EventParams{PublicExtendedProperties: unical.Some(map[string]string{"project": "apollo"})},
			map[string]string{"project": "apollo"}, func(e *unical.Event) any { return e.PublicExtendedProperties }),
		one("privateExtendedProperties", &unical.EventParams{PrivateExtendedProperties: unical.Some(map[string]string{"crmId": "42"})},
			map[string]string{"crmId": "42"}, func(e *unical.Event) any { return e.PrivateExtendedProperties }),
		one("isRecurring", &unical.EventParams{IsRecurring: unical.Some(true), Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=3"})},
			true, func(e *unical.Event) any { return e.IsRecurring }),
		one("isException", &unical.EventParams{IsException: unical.Some(true)}, true, func(e *unical.Event) any { return e.IsException }),
		{field: "isCancelled", update: true, params: func(string, *unical.Event) (*unical.EventParams, any) {
			return &unical.EventParams{IsCancelled: unical.Some(true)}, true
		}, view: func(e *unical.Event) any { return e.IsCancelled }},
		one("recurrence", &unical.EventParams{Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=4"})},
			[]string{"RRULE:FREQ=WEEKLY;COUNT=4"}, func(e *unical.Event) any { return e.Recurrence }),
		one("originalStart", &unical.EventParams{OriginalStart: zoned("2030-01-06T09:00:00+01:00", "Europe/Paris")},
			[]any{time.Date(2030, 1, 6, 8, 0, 0, 0, time.UTC), "Europe/Paris"}, func(e *unical.Event) any { return when(e.OriginalStart) }),
		one("recurringEventId", &unical.EventParams{RecurringEventID: unical.Some("series-1")}, "series-1", func(e *unical.Event) any { return e.RecurringEventID }),
		one("colorId", &unical.EventParams{ColorID: unical.Some("5")}, "5", func(e *unical.Event) any { return e.ColorID }),
		one("customColor", &unical.EventParams{CustomColor: unical.Some("#0b8043")}, "#0b8043", func(e *unical.Event) any { return strings.ToLower(e.CustomColor) }),
		{field: "myResponseStatus", params: func(self string, _ *unical.Event) (*unical.EventParams, any) {
			return &unical.EventParams{
				Attendees:        unical.Some([]unical.Attendee{{Email: self}, {Email: "guest@example.com"}}),
				MyResponseStatus: unical.Some(unical.ResponseAccepted),
			}, unical.ResponseAccepted
		}, view: func(e *unical.Event) any { return e.MyResponseStatus }},
		one("attendees", &unical.EventParams{Attendees: unical.Some([]unical.Attendee{{Email: "guest@example.com", Name: "Guest"}, {Email: "other@example.com", Optional: true}})},
			[]unical.Attendee{{Email: "guest@example.com", Name: "Guest"}, {Email: "other@example.com", Optional: true}}, emails),
		one("visibility", &unical.EventParams{Visibility: unical.Some(unical.VisibilityConfidential)}, unical.VisibilityConfidential, func(e *unical.Event) any { return e.Visibility }),
		one("location", &unical.EventParams{Location: unical.Some("Room 4, Main St.")}, "Room 4, Main St.", func(e *unical.Event) any { return e.Location }),
		one("conferenceData", &unical.EventParams{ConferenceData: unical.Some(unical.ConferenceData{ConferenceType: "addOn", JoinURL: "https://meet.example.com/r-1"})},
			[]string{"addOn", "https://meet.example.com/r-1"}, func(e *unical.Event) any {
				if e.ConferenceData == nil {
					return nil
				}
				return []string{e.ConferenceData.ConferenceType, e.ConferenceData.JoinURL}
			}),
		one("webLink", &unical.EventParams{WebLink: unical.Some("https://calendar.example.com/e/1")}, "https://calendar.example.com/e/1", func(e *unical.Event) any { return e.WebLink }),
		one("transparency", &unical.EventParams{Transparency: unical.Some(unical.TransparencyTransparent)}, unical.TransparencyTransparent, func(e *unical.Event) any { return e.Transparency }),
		one("eventType", &unical.EventParams{EventType: unical.Some(unical.EventTypeOutOfOffice)}, unical.EventTypeOutOfOffice, func(e *unical.Event) any { return e.EventType }),
		{field: "organizer", update: true, params: func(_ string, cur *unical.Event) (*unical.EventParams, any) {
			// The organizer as read must be accepted back unchanged; another
			// one is the provider's to refuse or keep, as its note says.
			o := unical.Organizer{}
			if cur.Organizer != nil {
				o = *cur.Organizer
			}
			return &unical.EventParams{Organizer: unical.Some(o)}, strings.ToLower(o.Email)
		}, view: func(e *unical.Event) any {
			if e.Organizer == nil {
				return ""
			}
			return strings.ToLower(e.Organizer.Email)
		}},
		one("creator", &unical.EventParams{Creator: unical.Some(unical.Creator{Email: "someone-else@example.com"})}, "someone-else@example.com", func(e *unical.Event) any {
			if e.Creator == nil {
				return ""
			}
			return e.Creator.Email
		}),
		one("reminders", &unical.EventParams{Reminders: unical.Some(unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 30}}})},
			&unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 30}}}, func(e *unical.Event) any { return e.Reminders }),
		one("generateMeetingUrlProvider", &unical.EventParams{GenerateMeetingURLProvider: unical.Some(meeting)},
			meeting, func(e *unical.Event) any { return e.GenerateMeetingURLProvider }),
	}
}

// testFieldRoundTrip writes every writable event field onto a fresh event
// and checks the outcome against the provider's declared capabilities
// (what GET /v1/capabilities serves): a supported field reads back equal,
// a field mapped with loss is accepted, a refused field is CodeInvalid
// naming it and leaves the event as it was. Writes go through the same
// check the Client makes before calling the provider.
func testFieldRoundTrip(t *testing.T, h *Harness) {
	caps, err := unical.CapabilitiesOf(h.Provider)
	if err != nil {
		t.Fatal(err)
	}
	cal := h.NewCalendar(t)
	cases := eventFieldCases(t, h.Provider.Type())
	var covered []string
	for _, tc := range cases {
		covered = append(covered, tc.field)
	}
	if diff := cmp.Diff(unical.EventFields, covered, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Fatalf("the round-trip table does not cover the writable event fields (-want +got):\n%s", diff)
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			support := caps.Event[tc.field]
			title := "Round trip " + tc.field
			base := &unical.EventParams{
				Title: unical.Some(title),
				Start: zoned("2030-01-07T09:00:00+01:00", "Europe/Paris"), End: zoned("2030-01-07T10:00:00+01:00", "Europe/Paris"),
			}
			var before *unical.Event
			var params *unical.EventParams
			var want any
			if tc.update {
				before = must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, base))
				params, want = tc.params(h.Session.Email, before)
			} else {
				params, want = tc.params(h.Session.Email, nil)
				p := *params
				if !p.Title.IsSet() {
					p.Title = base.Title
				}
				if !p.Start.IsSet() {
					p.Start = base.Start
				}
				if !p.End.IsSet() {
					p.End = base.End
				}
				params = &p
			}
			written, err := writeChecked(t, h, caps, cal, before, params)
			switch support.Support {
			case unical.Refused:
				wantRefusal(t, tc.field, err)
				if before != nil {
					after := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, before.ID))
					if diff := cmp.Diff(before, after); diff != "" {
						t.Errorf("a refused write changed the event (-before +after):\n%s", diff)
					}
					return
				}
				all, _ := listAll(t, h, cal, unical.EventQuery{TimeMin: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)})
				for _, e := range all {
					if e.Title == title {
						t.Errorf("a refused create left event %s", e.ID)
					}
				}
			case unical.MappedWithLoss:
				if err != nil {
					t.Fatalf("writing %s, declared %s (%s): %v", tc.field, support.Support, support.Note, err)
				}
			default:
				if err != nil {
					t.Fatalf("writing %s, declared supported: %v", tc.field, err)
				}
				got := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, written.ID))
				if diff := cmp.Diff(want, tc.view(got)); diff != "" {
					t.Errorf("%s read back (-written +read):\n%s", tc.field, diff)
				}
				if diff := cmp.Diff(tc.view(got), tc.view(written)); diff != "" {
					t.Errorf("%s: the write's answer differs from GetEvent (-get +write):\n%s", tc.field, diff)
				}
			}
		})
	}
}

// testCalendarFieldRoundTrip is testFieldRoundTrip for the writable
// calendar fields, written by updating a fresh calendar.
func testCalendarFieldRoundTrip(t *testing.T, h *Harness) {
	caps, err := unical.CapabilitiesOf(h.Provider)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		field  string
		params *unical.CalendarParams
		want   string
		view   func(c *unical.Calendar) string
		// lacks is the Harness.Lacks feature of a server (not a provider
		// type) without the field: there the write is refused naming it.
		lacks string
	}{
		{"name", &unical.CalendarParams{Name: unical.Some("Renamed calendar")}, "Renamed calendar", func(c *unical.Calendar) string { return c.Name }, ""},
		{"hexColor", &unical.CalendarParams{HexColor: unical.Some("#0b8043")}, "#0b8043", func(c *unical.Calendar) string { return strings.ToLower(c.HexColor) }, ""},
		{"timeZone", &unical.CalendarParams{TimeZone: unical.Some("Asia/Tokyo")}, "Asia/Tokyo", func(c *unical.Calendar) string { return c.TimeZone }, "calendarTimeZone"},
	}
	var covered []string
	for _, tc := range cases {
		covered = append(covered, tc.field)
	}
	if diff := cmp.Diff(unical.CalendarFields, covered); diff != "" {
		t.Fatalf("the round-trip table does not cover the writable calendar fields (-want +got):\n%s", diff)
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			cal := h.NewCalendar(t)
			before := must[*unical.Calendar](t, "GetCalendar")(h.Provider.GetCalendar(ctxOf(t), h.Session, cal))
			support := caps.Calendar[tc.field]
			var written *unical.Calendar
			err := caps.CheckCalendar(tc.params)
			if err == nil {
				written, err = h.Provider.UpdateCalendar(ctxOf(t), h.Session, cal, tc.params)
			}
			if tc.lacks != "" && h.lacks(t, tc.lacks) {
				var ue *unical.Error
				if !errors.As(err, &ue) || ue.Field != tc.field {
					t.Errorf("writing %s on a server without it = %v, want a refusal naming %s", tc.field, err, tc.field)
				}
				after := must[*unical.Calendar](t, "GetCalendar")(h.Provider.GetCalendar(ctxOf(t), h.Session, cal))
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("a refused write changed the calendar (-before +after):\n%s", diff)
				}
				return
			}
			switch support.Support {
			case unical.Refused:
				wantRefusal(t, tc.field, err)
				after := must[*unical.Calendar](t, "GetCalendar")(h.Provider.GetCalendar(ctxOf(t), h.Session, cal))
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("a refused write changed the calendar (-before +after):\n%s", diff)
				}
			case unical.MappedWithLoss:
				if err != nil {
					t.Fatalf("writing %s, declared %s (%s): %v", tc.field, support.Support, support.Note, err)
				}
			default:
				if err != nil {
					t.Fatalf("writing %s, declared supported: %v", tc.field, err)
				}
				got := must[*unical.Calendar](t, "GetCalendar")(h.Provider.GetCalendar(ctxOf(t), h.Session, cal))
				if diff := cmp.Diff(tc.want, tc.view(got)); diff != "" {
					t.Errorf("%s read back (-written +read):\n%s", tc.field, diff)
				}
				if diff := cmp.Diff(tc.view(got), tc.view(written)); diff != "" {
					t.Errorf("%s: UpdateCalendar's answer differs from GetCalendar (-get +update):\n%s", tc.field, diff)
				}
			}
		})
	}
}

// writeChecked is CreateEvent (cur nil) or UpdateEvent of cur as the
// Client makes them: refused by the capability table first.
func writeChecked(t *testing.T, h *Harness, caps *unical.Capabilities, cal string, cur *unical.Event, params *unical.EventParams) (*unical.Event, error) {
	t.Helper()
	if err := caps.CheckEvent(params); err != nil {
		return nil, err
	}
	if cur == nil {
		return h.Provider.CreateEvent(ctxOf(t), h.Session, cal, params)
	}
	return h.Provider.UpdateEvent(ctxOf(t), h.Session, cal, cur.ID, params)
}

// wantRefusal checks that err is CodeInvalid naming field.
func wantRefusal(t *testing.T, field string, err error) {
	t.Helper()
	var e *unical.Error
	ok := errors.As(err, &e)
	if !ok || e.Code != unical.CodeInvalid || e.Field != field {
		t.Fatalf("writing %s, declared refused: error %v, want CodeInvalid naming %s", field, err, field)
	}
}
