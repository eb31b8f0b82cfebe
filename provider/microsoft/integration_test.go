package microsoft

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestRecurrenceThroughGraph creates a series for each Graph pattern type
// through the fake, reads it back, and lists its instances.
func TestRecurrenceThroughGraph(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	cal, err := f.p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some("Series")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule      string
		allDay    bool
		wantFirst []string // start dateTimes of the first instances in Q1 2026
	}{
		{"RRULE:FREQ=DAILY;INTERVAL=2;COUNT=3", false, []string{"2026-01-15T09:30:00+01:00", "2026-01-17T09:30:00+01:00", "2026-01-19T09:30:00+01:00"}},
		{"RRULE:FREQ=WEEKLY;BYDAY=TH,FR;WKST=SU;COUNT=3", false, []string{"2026-01-15T09:30:00+01:00", "2026-01-16T09:30:00+01:00", "2026-01-22T09:30:00+01:00"}},
		{"RRULE:FREQ=MONTHLY;BYMONTHDAY=15;COUNT=2", false, []string{"2026-01-15T09:30:00+01:00", "2026-02-15T09:30:00+01:00"}},
		{"RRULE:FREQ=MONTHLY;BYDAY=3TH;COUNT=3", false, []string{"2026-01-15T09:30:00+01:00", "2026-02-19T09:30:00+01:00", "2026-03-19T09:30:00+01:00"}},
		{"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;UNTIL=20260331T215959Z", false, []string{"2026-01-30T09:30:00+01:00", "2026-02-27T09:30:00+01:00", "2026-03-31T09:30:00+02:00"}},
		{"RRULE:FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=15;COUNT=2", false, []string{"2026-01-15T09:30:00+01:00"}},
		{"RRULE:FREQ=YEARLY;BYMONTH=1;BYDAY=3TH", false, []string{"2026-01-15T09:30:00+01:00"}},
		{"RRULE:FREQ=WEEKLY;BYDAY=TH;UNTIL=20260129", true, []string{"2026-01-15T00:00:00", "2026-01-22T00:00:00", "2026-01-29T00:00:00"}},
	}
	for _, tt := range tests {
		params := &unical.EventParams{
			Title:      unical.Some(tt.rule),
			Start:      unical.Some(unical.EventDateTime{DateTime: "2026-01-15T09:30:00+01:00", TimeZone: "Europe/Berlin"}),
			End:        unical.Some(unical.EventDateTime{DateTime: "2026-01-15T10:00:00+01:00", TimeZone: "Europe/Berlin"}),
			Recurrence: unical.Some([]string{tt.rule}),
		}
		if tt.allDay {
			params.IsAllDay = unical.Some(true)
			params.Start = unical.Some(unical.EventDateTime{DateTime: "2026-01-15T00:00:00", TimeZone: "Europe/Berlin"})
			params.End = unical.Some(unical.EventDateTime{DateTime: "2026-01-16T00:00:00", TimeZone: "Europe/Berlin"})
		}
		created, err := f.p.CreateEvent(t.Context(), s, cal.ID, params)
		if err != nil {
			t.Errorf("CreateEvent(%s): %v", tt.rule, err)
			continue
		}
		got, err := f.p.GetEvent(t.Context(), s, cal.ID, created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{tt.rule}, got.Recurrence); diff != "" || !got.IsRecurring {
			t.Errorf("%s read back (-want +got):\n%s", tt.rule, diff)
		}
		batch, err := f.p.ListEvents(t.Context(), s, cal.ID, &unical.EventQuery{
			SeriesID: created.ID, TimeMin: mustTime(t, "2026-01-01T00:00:00Z"), TimeMax: mustTime(t, "2026-04-01T00:00:00Z"),
		})
		if err != nil {
			t.Fatal(err)
		}
		var starts []string
		for _, e := range batch.Events {
			starts = append(starts, e.Start.DateTime)
			if !e.IsException || e.RecurringEventID != created.ID || e.OriginalStart == nil {
				t.Errorf("%s instance %+v lacks instance fields", tt.rule, e)
			}
		}
		if len(starts) > len(tt.wantFirst) {
			starts = starts[:len(tt.wantFirst)]
		}
		if diff := cmp.Diff(tt.wantFirst, starts); diff != "" {
			t.Errorf("%s instances (-want +got):\n%s", tt.rule, diff)
		}
	}

	// Refused before anything is written.
	before := f.srv.RequestCount("/v1.0/me/calendars/")
	_, err = f.p.CreateEvent(t.Context(), s, cal.ID, &unical.EventParams{
		Title: unical.Some("hourly"), Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-15T09:30:00Z"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=HOURLY"}),
	})
	var e *unical.Error
	if !asError(err, &e) || e.Code != unical.CodeInvalid || e.Field != "recurrence[0]" {
		t.Errorf("hourly: %v; want CodeInvalid on recurrence[0]", err)
	}
	if f.srv.RequestCount("/v1.0/me/calendars/") != before {
		t.Error("a refused event reached Graph")
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustLocal(t *testing.T, s, zone string) time.Time {
	t.Helper()
	loc, err := unical.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	v, err := time.ParseInLocation(unical.LocalDateTimeLayout, s, loc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sameZone reports whether two locations agree on the offsets of 2026.
func sameZone(a, b *time.Location) bool {
	for m := time.January; m <= time.December; m++ {
		ta := time.Date(2026, m, 1, 12, 0, 0, 0, a)
		tb := time.Date(2026, m, 1, 12, 0, 0, 0, b)
		_, oa := ta.Zone()
		_, ob := tb.Zone()
		if oa != ob {
			return false
		}
	}
	return true
}

// TestZonesThroughGraph writes events in IANA zones, which go to Graph as
// Windows names, and reads them back in the same zones.
func TestZonesThroughGraph(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	def := f.srv.DefaultCalendarID(f.userID)
	for _, zone := range []string{"America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/London", "UTC", "Pacific/Chatham"} {
		created, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{
			Title: unical.Some(zone),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-07-01T09:00:00", TimeZone: zone}),
			End:   unical.Some(unical.EventDateTime{DateTime: "2026-07-01T10:00:00", TimeZone: zone}),
		})
		if err != nil {
			t.Errorf("%s: %v", zone, err)
			continue
		}
		got, err := f.p.GetEvent(t.Context(), s, def, created.ID)
		if err != nil {
			t.Fatal(err)
		}
		loc, _ := unical.LoadLocation(zone)
		want := unical.TimedAt(mustLocal(t, "2026-07-01T09:00:00", zone))
		if got.Start.DateTime != want.DateTime {
			t.Errorf("%s: start %+v, want %s", zone, got.Start, want.DateTime)
		}
		if gl, err := unical.LoadLocation(got.Start.TimeZone); err != nil || !sameZone(gl, loc) {
			t.Errorf("%s: start zone %q", zone, got.Start.TimeZone)
		}
	}
	_, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{
		Title: unical.Some("bad"), Start: unical.Some(unical.EventDateTime{DateTime: "2026-07-01T09:00:00", TimeZone: "Mars/Olympus"}),
	})
	if unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("unknown zone: %v", err)
	}
}

// TestInvitationThroughGraph answers an invitation seeded from another
// organizer and creates a Teams meeting.
func TestInvitationThroughGraph(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	def := f.srv.DefaultCalendarID(f.userID)
	id, err := f.srv.AddEvent(f.userID, "", `{
	  "subject": "Board meeting",
	  "start": {"dateTime": "2026-03-02T15:00:00", "timeZone": "Pacific Standard Time"},
	  "end": {"dateTime": "2026-03-02T16:00:00", "timeZone": "Pacific Standard Time"},
	  "organizer": {"emailAddress": {"name": "Grace", "address": "grace@fabrikam.test"}},
	  "responseStatus": {"response": "notResponded", "time": "0001-01-01T00:00:00Z"},
	  "attendees": [{"type": "required", "emailAddress": {"name": "Ada", "address": "ada@contoso.test"}, "status": {"response": "none", "time": "0001-01-01T00:00:00Z"}}]
	}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.p.GetEvent(t.Context(), s, def, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Organizer == nil || got.Organizer.IsSelf || got.MyResponseStatus != unical.ResponseNeedsAction || got.Start.TimeZone != "America/Los_Angeles" {
		t.Errorf("invitation = %+v %+v", got.Organizer, got)
	}
	if err := f.p.RespondToEvent(t.Context(), s, def, id, unical.ResponseNeedsAction); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("needsAction: %v", err)
	}
	if err := f.p.RespondToEvent(t.Context(), s, def, id, unical.ResponseTentative); err != nil {
		t.Fatal(err)
	}
	got, err = f.p.GetEvent(t.Context(), s, def, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.MyResponseStatus != unical.ResponseTentative {
		t.Errorf("myResponseStatus = %q, want tentative", got.MyResponseStatus)
	}

	meeting, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{
		Title:                      unical.Some("Sync"),
		Start:                      unical.Some(unical.EventDateTime{DateTime: "2026-03-03T09:00:00Z"}),
		End:                        unical.Some(unical.EventDateTime{DateTime: "2026-03-03T09:30:00Z"}),
		GenerateMeetingURLProvider: unical.Some(unical.MeetingProviderTeams),
	})
	if err != nil {
		t.Fatal(err)
	}
	if meeting.ConferenceData == nil || meeting.ConferenceData.JoinURL == "" || meeting.ConferenceData.ConferenceType != "teamsForBusiness" {
		t.Errorf("conferenceData = %+v", meeting.ConferenceData)
	}
	if !meeting.Organizer.IsSelf || meeting.MyResponseStatus != unical.ResponseAccepted {
		t.Errorf("own meeting organizer %+v response %q", meeting.Organizer, meeting.MyResponseStatus)
	}
	if err := f.p.RespondToEvent(t.Context(), s, def, meeting.ID, unical.ResponseAccepted); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("RSVP to own meeting: %v", err)
	}
}
