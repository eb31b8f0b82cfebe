package caldav_test

import (
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// putFixture stores testdata/<name>.ics in a new calendar as <name>.ics
// and returns the calendar id; the event id is name.
func putFixture(t *testing.T, s *davtest.Server, name string) (cal, path string) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".ics")
	if err != nil {
		t.Fatal(err)
	}
	dir := s.NewCalendar(t, name)
	s.PutObject(t, dir+name+".ics", string(b))
	return segment(dir), dir + name + ".ics"
}

// rawGet returns the iCalendar text the server holds, unfolded.
func rawGet(t *testing.T, s *davtest.Server, path string) string {
	t.Helper()
	r := s.Do(t, http.MethodGet, path, "", nil)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, r.StatusCode)
	}
	return strings.ReplaceAll(strings.ReplaceAll(string(r.Body), "\r\n ", ""), "\r\n", "\n")
}

func mustContain(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, l) {
			t.Errorf("the stored object lacks %q:\n%s", l, text)
		}
	}
}

// expand lists a window and expands it as the Client does, returning the
// instances sorted by start.
func expand(t *testing.T, p *caldav.Provider, sess *unical.Session, cal string, from, to time.Time) []*unical.Event {
	t.Helper()
	batch, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{TimeMin: from, TimeMax: to, SingleEvents: true})
	if err != nil {
		t.Fatalf("ListEvents: %v", err)
	}
	if batch.Expanded {
		t.Fatal("the CalDAV provider claims to have expanded")
	}
	events, err := unical.ExpandEvents(batch.Events, from, to)
	if err != nil {
		t.Fatalf("ExpandEvents: %v", err)
	}
	var out []*unical.Event
	for _, e := range events {
		if s, en, err := e.Interval(); err == nil && s.Before(to) && en.After(from) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.DateTime < out[j].Start.DateTime })
	return out
}

type inst struct{ Start, Title string }

func instances(t *testing.T, events []*unical.Event) []inst {
	t.Helper()
	var out []inst
	for _, e := range events {
		v := e.Start.DateTime
		if !e.IsAllDay {
			v = instant(t, e.Start).Format(time.RFC3339)
		}
		out = append(out, inst{v, e.Title})
	}
	return out
}

func instant(t *testing.T, d *unical.EventDateTime) time.Time {
	t.Helper()
	v, err := d.Time("start")
	if err != nil {
		t.Fatal(err)
	}
	return v.UTC()
}

// TestFixture_Apple reads an Apple Calendar event and updates it: the
// VALARM, VTIMEZONE and X-APPLE-* properties unical does not map survive.
func TestFixture_Apple(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal, path := putFixture(t, s, "apple")
		e, err := p.GetEvent(t.Context(), sess, cal, "apple")
		if err != nil {
			t.Fatal(err)
		}
		want := unical.Event{
			ID: "apple", Title: "Coffee with Lena", Description: "Quarterly catch-up.\nBring the numbers.",
			Location: "Café Einstein\nKurfürstenstraße 58, 10785 Berlin, Germany",
			Start:    &unical.EventDateTime{DateTime: "2026-04-15T10:30:00+02:00", TimeZone: "Europe/Berlin"},
			End:      &unical.EventDateTime{DateTime: "2026-04-15T11:30:00+02:00", TimeZone: "Europe/Berlin"},
			ICalUID:  "5A1C7E2B-93D4-4F0A-B7C2-1E8F6D3A9B40", Transparency: unical.TransparencyOpaque,
			Visibility: unical.VisibilityDefault, EventType: unical.EventTypeDefault,
			CreatedAt: "2026-04-01T08:13:17.000Z", UpdatedAt: "2026-04-01T08:15:09.000Z",
			// The fixture's VALARM, 15 minutes before.
			Reminders: &unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 15}}},
		}
		e.ETag = ""
		if diff := cmp.Diff(&want, e); diff != "" {
			t.Errorf("Apple event (-want +got):\n%s", diff)
		}
		if _, err := p.UpdateEvent(t.Context(), sess, cal, "apple", &unical.EventParams{Title: unical.Some("Coffee with Lena and Max")}); err != nil {
			t.Fatal(err)
		}
		raw := rawGet(t, s, path)
		mustContain(t, raw, "SUMMARY:Coffee with Lena and Max", "BEGIN:VALARM", "TRIGGER:-PT15M", "X-WR-ALARMUID:0C9A3F55",
			"X-APPLE-DEFAULT-ALARM:TRUE", "X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC",
			`X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS="Kurfürstenstraße 58, 10785 Berlin, Germany"`,
			"DTSTART;TZID=Europe/Berlin:20260415T103000", "TZNAME:CEST")
		if n := strings.Count(raw, "BEGIN:VTIMEZONE"); n != 1 {
			t.Errorf("the object holds %d VTIMEZONEs, want the original one", n)
		}
	})
}

// TestFixture_Google reads a Google Calendar export of a weekly series
// with an EXDATE and three attendees, expands it across the US DST change
// of 8 March 2026, and answers the invitation: only the account's own
// PARTSTAT changes, and Google's X- parameters stay.
func TestFixture_Google(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal, path := putFixture(t, s, "google")
		e, err := p.GetEvent(t.Context(), sess, cal, "google")
		if err != nil {
			t.Fatal(err)
		}
		wantRec := []string{"RRULE:FREQ=WEEKLY;BYDAY=MO", "EXDATE;TZID=America/New_York:20260316T090000"}
		if diff := cmp.Diff(wantRec, e.Recurrence); diff != "" || !e.IsRecurring {
			t.Errorf("recurrence (-want +got):\n%s", diff)
		}
		if len(e.Attendees) != 3 || e.MyResponseStatus != unical.ResponseNeedsAction || e.Organizer == nil || e.Organizer.Email != "ada@example.com" {
			t.Errorf("attendees %+v, myResponseStatus %q, organizer %+v", e.Attendees, e.MyResponseStatus, e.Organizer)
		}
		if e.Description != "Weekly sync, agenda in the doc; join with Google Meet: https://meet.google.com/abc-defg-hij" {
			t.Errorf("description = %q", e.Description)
		}
		got := instances(t, expand(t, p, sess, cal, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)))
		want := []inst{
			{"2026-03-02T14:00:00Z", "Team sync"}, {"2026-03-09T13:00:00Z", "Team sync"},
			{"2026-03-23T13:00:00Z", "Team sync"}, {"2026-03-30T13:00:00Z", "Team sync"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("instances (-want +got):\n%s", diff)
		}

		if err := p.RespondToEvent(t.Context(), sess, cal, "google", unical.ResponseAccepted); err != nil {
			t.Fatal(err)
		}
		raw := rawGet(t, s, path)
		mustContain(t, raw, "PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT;RSVP=TRUE;X-NUM-GUESTS=0:mailto:UNICAL",
			"PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT;X-NUM-GUESTS=0:mailto:ada@example.com",
			"PARTSTAT=TENTATIVE;ROLE=OPT-PARTICIPANT;X-NUM-GUESTS=0:mailto:charles@example.com",
			"X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij", "X-WR-CALNAME:ada@example.com")
		e, err = p.GetEvent(t.Context(), sess, cal, "google")
		if err != nil {
			t.Fatal(err)
		}
		if e.MyResponseStatus != unical.ResponseAccepted {
			t.Errorf("after RSVP myResponseStatus = %q", e.MyResponseStatus)
		}
	})
}

// TestFixture_Outlook reads an Outlook export whose TZIDs are Windows zone
// names, with a comma-separated EXDATE, and keeps its Microsoft properties
// on update.
func TestFixture_Outlook(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal, path := putFixture(t, s, "outlook")
		e, err := p.GetEvent(t.Context(), sess, cal, "outlook")
		if err != nil {
			t.Fatal(err)
		}
		if e.Start.TimeZone != "Europe/Berlin" || e.Start.DateTime != "2026-03-05T14:00:00+01:00" || e.Title != "Steering committee" || e.Visibility != unical.VisibilityPublic {
			t.Errorf("start %+v title %q visibility %q", e.Start, e.Title, e.Visibility)
		}
		wantRec := []string{"RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=TH",
			"EXDATE;TZID=Europe/Berlin:20260319T140000", "EXDATE;TZID=Europe/Berlin:20260326T140000"}
		if diff := cmp.Diff(wantRec, e.Recurrence); diff != "" {
			t.Errorf("recurrence (-want +got):\n%s", diff)
		}
		got := instances(t, expand(t, p, sess, cal, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)))
		want := []inst{
			{"2026-03-05T13:00:00Z", "Steering committee"}, {"2026-03-12T13:00:00Z", "Steering committee"},
			{"2026-04-02T12:00:00Z", "Steering committee"}, {"2026-04-09T12:00:00Z", "Steering committee"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("instances (-want +got):\n%s", diff)
		}
		if _, err := p.UpdateEvent(t.Context(), sess, cal, "outlook", &unical.EventParams{Location: unical.Some("Room 2")}); err != nil {
			t.Fatal(err)
		}
		raw := rawGet(t, s, path)
		mustContain(t, raw, "LOCATION:Room 2", "X-MICROSOFT-CDO-BUSYSTATUS:BUSY", "PRIORITY:5", "BEGIN:VALARM",
			"SUMMARY;LANGUAGE=en-us:Steering committee", "X-MS-OLK-FORCEINSPECTOROPEN:TRUE")
	})
}

// TestFixture_AllDaySeries reads an all-day weekly series (a Thunderbird
// export) with an EXDATE and an override moved by a day, then edits one
// instance and deletes another through instance ids.
func TestFixture_AllDaySeries(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal, path := putFixture(t, s, "allday-series")
		from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		got := instances(t, expand(t, p, sess, cal, from, to))
		want := []inst{
			{"2026-01-05T00:00:00", "Gym"}, {"2026-01-12T00:00:00", "Gym"}, {"2026-01-20T00:00:00", "Gym (moved to Tuesday)"},
			{"2026-01-26T00:00:00", "Gym"}, {"2026-02-02T00:00:00", "Gym"}, {"2026-02-16T00:00:00", "Gym"}, {"2026-02-23T00:00:00", "Gym"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("instances (-want +got):\n%s", diff)
		}
		moved, err := p.GetEvent(t.Context(), sess, cal, "allday-series_20260119")
		if err != nil {
			t.Fatal(err)
		}
		if moved.Title != "Gym (moved to Tuesday)" || moved.RecurringEventID != "allday-series" || moved.OriginalStart == nil || moved.OriginalStart.Date != "2026-01-19" {
			t.Errorf("override = %+v", moved)
		}

		if _, err := p.UpdateEvent(t.Context(), sess, cal, "allday-series_20260126", &unical.EventParams{Title: unical.Some("Gym with Sam")}); err != nil {
			t.Fatal(err)
		}
		if err := p.DeleteEvent(t.Context(), sess, cal, "allday-series_20260202"); err != nil {
			t.Fatal(err)
		}
		raw := rawGet(t, s, path)
		mustContain(t, raw, "RECURRENCE-ID;VALUE=DATE:20260126", "EXDATE;VALUE=DATE:20260202", "X-MOZ-GENERATION:2")
		got = instances(t, expand(t, p, sess, cal, from, to))
		want = []inst{
			{"2026-01-05T00:00:00", "Gym"}, {"2026-01-12T00:00:00", "Gym"}, {"2026-01-20T00:00:00", "Gym (moved to Tuesday)"},
			{"2026-01-26T00:00:00", "Gym with Sam"}, {"2026-02-16T00:00:00", "Gym"}, {"2026-02-23T00:00:00", "Gym"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("instances after an edit and a deletion (-want +got):\n%s", diff)
		}
		if _, err := p.GetEvent(t.Context(), sess, cal, "allday-series_20260202"); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("GetEvent(deleted instance) = %v, want CodeNotFound", err)
		}
	})
}

// TestFixture_CustomZone reads an event whose TZID is neither IANA nor
// Windows, from the rules of its own VTIMEZONE.
func TestFixture_CustomZone(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal, _ := putFixture(t, s, "custom-tz")
		e, err := p.GetEvent(t.Context(), sess, cal, "custom-tz")
		if err != nil {
			t.Fatal(err)
		}
		if got := instant(t, e.Start); !got.Equal(time.Date(2026, 7, 1, 7, 0, 0, 0, time.UTC)) {
			t.Errorf("start = %+v (%v), want 07:00 UTC (09:00 CEST)", e.Start, got)
		}
		if got := instant(t, e.End); !got.Equal(time.Date(2026, 7, 1, 8, 0, 0, 0, time.UTC)) {
			t.Errorf("end = %+v, want 08:00 UTC", e.End)
		}
	})
}
