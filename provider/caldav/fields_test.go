package caldav_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// mapped is what of an event the fields of issue 21 cover.
type mapped struct {
	ColorID, CustomColor string
	EventType            unical.EventType
	Reminders            *unical.Reminders
}

func mappedOf(e *unical.Event) mapped {
	return mapped{ColorID: e.ColorID, CustomColor: e.CustomColor, EventType: e.EventType, Reminders: e.Reminders}
}

// TestEventFields_RoundTrip: reminders, colours and the event type, which
// iCalendar has no plain property for, are written on each server, read
// back as written, kept when another field changes, and cleared as asked.
func TestEventFields_RoundTrip(t *testing.T) {
	t.Parallel()
	overrides := []unical.ReminderOverride{{Method: "popup", Minutes: 10}, {Method: "email", Minutes: 60}, {Method: "popup", Minutes: 0}}
	cases := []struct {
		name   string
		params unical.EventParams
		want   mapped
	}{
		{"reminder overrides", unical.EventParams{Reminders: unical.Some(unical.Reminders{Overrides: overrides})},
			mapped{EventType: unical.EventTypeDefault, Reminders: &unical.Reminders{Overrides: overrides}}},
		{"default reminders", unical.EventParams{Reminders: unical.Some(unical.Reminders{UseDefault: true})},
			mapped{EventType: unical.EventTypeDefault, Reminders: &unical.Reminders{UseDefault: true}}},
		{"no reminders", unical.EventParams{Reminders: unical.Some(unical.Reminders{})},
			mapped{EventType: unical.EventTypeDefault, Reminders: &unical.Reminders{}}},
		{"colours", unical.EventParams{ColorID: unical.Some("7"), CustomColor: unical.Some("#1a2B3c")},
			mapped{ColorID: "7", CustomColor: "#1a2B3c", EventType: unical.EventTypeDefault}},
		{"out of office", unical.EventParams{EventType: unical.Some(unical.EventTypeOutOfOffice)},
			mapped{EventType: unical.EventTypeOutOfOffice}},
		{"focus time", unical.EventParams{EventType: unical.Some(unical.EventTypeFocusTime)},
			mapped{EventType: unical.EventTypeFocusTime}},
	}
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal := segment(s.NewCalendar(t, t.Name()))
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				params := tc.params
				params.Title = unical.Some("Fields " + tc.name)
				params.Start = unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"})
				params.End = unical.Some(unical.EventDateTime{DateTime: "2026-06-01T10:00:00Z"})
				created, err := p.CreateEvent(t.Context(), sess, cal, &params)
				if err != nil {
					t.Fatalf("CreateEvent: %v", err)
				}
				got, err := p.GetEvent(t.Context(), sess, cal, created.ID)
				if err != nil {
					t.Fatalf("GetEvent: %v", err)
				}
				for what, e := range map[string]*unical.Event{"created": created, "read back": got} {
					if diff := cmp.Diff(tc.want, mappedOf(e)); diff != "" {
						t.Errorf("%s (-want +got):\n%s", what, diff)
					}
				}
				// Another field changes; these stay.
				upd, err := p.UpdateEvent(t.Context(), sess, cal, created.ID, &unical.EventParams{Title: unical.Some("renamed")})
				if err != nil {
					t.Fatalf("UpdateEvent: %v", err)
				}
				if diff := cmp.Diff(tc.want, mappedOf(upd)); diff != "" {
					t.Errorf("after a title change (-want +got):\n%s", diff)
				}
				// Cleared: null reminders are the defaults, as on Google.
				cleared, err := p.UpdateEvent(t.Context(), sess, cal, created.ID, &unical.EventParams{
					ColorID: unical.Null[string](), CustomColor: unical.Null[string](),
					EventType: unical.Some(unical.EventTypeDefault), Reminders: unical.Null[unical.Reminders](),
				})
				if err != nil {
					t.Fatalf("UpdateEvent clearing: %v", err)
				}
				want := mapped{EventType: unical.EventTypeDefault, Reminders: &unical.Reminders{UseDefault: true}}
				if diff := cmp.Diff(want, mappedOf(cleared)); diff != "" {
					t.Errorf("after clearing (-want +got):\n%s", diff)
				}
			})
		}
	})
}

// TestEventFields_Refused: useDefault with overrides has no CalDAV form
// and is refused before anything is written; conferencing, which CalDAV
// events do not have, is refused by the capability table.
func TestEventFields_Refused(t *testing.T) {
	t.Parallel()
	s := davtest.Shared(t, davtest.Radicale)
	p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
	sess := connect(t, p, s)
	path := s.NewCalendar(t, t.Name())
	_, err := p.CreateEvent(t.Context(), sess, segment(path), &unical.EventParams{
		Title: unical.Some("both"), Start: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}),
		Reminders: unical.Some(unical.Reminders{UseDefault: true, Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 5}}}),
	})
	wantField(t, "useDefault with overrides", err, unical.CodeInvalid, "reminders")
	batch, err := p.ListEvents(t.Context(), sess, segment(path), &unical.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Events) != 0 {
		t.Errorf("the refused event left %d events in the calendar", len(batch.Events))
	}

	// myResponseStatus is the account's PARTSTAT: without the account
	// among the attendees it has no place; with it, it round-trips.
	start := unical.Some(unical.EventDateTime{DateTime: "2026-06-02T09:00:00Z"})
	_, err = p.CreateEvent(t.Context(), sess, segment(path), &unical.EventParams{
		Title: unical.Some("not invited"), Start: start, MyResponseStatus: unical.Some(unical.ResponseAccepted),
	})
	wantField(t, "myResponseStatus without the account attending", err, unical.CodeInvalid, "myResponseStatus")
	e, err := p.CreateEvent(t.Context(), sess, segment(path), &unical.EventParams{
		Title: unical.Some("invited"), Start: start, MyResponseStatus: unical.Some(unical.ResponseTentative),
		Attendees: unical.Some([]unical.Attendee{{Email: s.Username}, {Email: "bob@example.com"}}),
	})
	if err != nil {
		t.Fatalf("CreateEvent with the account attending: %v", err)
	}
	if got, err := p.GetEvent(t.Context(), sess, segment(path), e.ID); err != nil || got.MyResponseStatus != unical.ResponseTentative {
		t.Errorf("myResponseStatus read back = %+v, %v; want tentative", got, err)
	}

	caps, err := unical.CapabilitiesOf(p)
	if err != nil {
		t.Fatal(err)
	}
	for field, params := range map[string]*unical.EventParams{
		"generateMeetingUrlProvider": {GenerateMeetingURLProvider: unical.Some("GOOGLE_MEET")},
		"conferenceData":             {ConferenceData: unical.Some(unical.ConferenceData{JoinURL: "https://meet.example/x"})},
	} {
		wantField(t, field, caps.CheckEvent(params), unical.CodeInvalid, field)
	}
	var refused []string
	for f, s := range caps.Event {
		if s.Support == unical.Refused {
			refused = append(refused, f)
		}
	}
	slices.Sort(refused)
	if diff := cmp.Diff([]string{"conferenceData", "generateMeetingUrlProvider"}, refused); diff != "" {
		t.Errorf("refused event fields (-want +got):\n%s", diff)
	}
}

// TestCreateCalendar_TimeZoneNotKept: Xandikos answers MKCALENDAR 201 yet
// drops calendar-timezone; the create is refused with 501 naming timeZone
// and leaves no calendar. Radicale and Cyrus keep it.
func TestCreateCalendar_TimeZoneNotKept(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		name := "Zoned " + t.Name()
		cal, err := p.CreateCalendar(t.Context(), sess, &unical.CalendarParams{Name: unical.Some(name), TimeZone: unical.Some("Europe/Berlin")})
		if s.Kind == davtest.Xandikos {
			wantField(t, "CreateCalendar with timeZone", err, unical.CodeNotImplemented, "timeZone")
			after, err := p.ListCalendars(t.Context(), sess)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(after, func(c *unical.Calendar) bool { return c.Name == name }) {
				t.Errorf("the refused create left the calendar %q", name)
			}
			return
		}
		if err != nil {
			t.Fatalf("CreateCalendar: %v", err)
		}
		if cal.TimeZone != "Europe/Berlin" {
			t.Errorf("timeZone = %q, want Europe/Berlin", cal.TimeZone)
		}
		if err := p.DeleteCalendar(t.Context(), sess, cal.ID); err != nil {
			t.Error(err)
		}
	})
}

func wantField(t *testing.T, what string, err error, code unical.Code, field string) {
	t.Helper()
	var ue *unical.Error
	if !errors.As(err, &ue) || ue.Code != code || ue.Field != field {
		t.Errorf("%s: %v, want %s naming %s", what, err, code, field)
	}
}
