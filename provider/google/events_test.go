package google

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
)

func zonedAt(dt, zone string) unical.Optional[unical.EventDateTime] {
	return unical.Some(unical.EventDateTime{DateTime: dt, TimeZone: zone})
}

func mustStored(t *testing.T, f *fixture, calendarID, eventID string) googletest.Event {
	t.Helper()
	ev, ok := f.srv.GetEvent(calendarID, eventID)
	if !ok {
		t.Fatalf("the fake has no event %s", eventID)
	}
	return ev
}

func TestCreateEvent_AllFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	ctx := t.Context()
	params := &unical.EventParams{
		Title:                      unical.Some("Planning"),
		Description:                unical.Some("Agenda <b>inside</b>"),
		Location:                   unical.Some("Room 1"),
		Start:                      zonedAt("2026-05-04T10:00:00+02:00", "Europe/Paris"),
		End:                        zonedAt("2026-05-04T11:00:00+02:00", "Europe/Paris"),
		Recurrence:                 unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=3"}),
		Attendees:                  unical.Some([]unical.Attendee{{Email: bob, Name: "Bob", Optional: true}, {Email: alice}}),
		MyResponseStatus:           unical.Some(unical.ResponseAccepted),
		Reminders:                  unical.Some(unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 10}}}),
		PrivateExtendedProperties:  unical.Some(map[string]string{"crm": "42"}),
		PublicExtendedProperties:   unical.Some(map[string]string{"project": "apollo"}),
		GenerateMeetingURLProvider: unical.Some(unical.MeetingProviderGoogleMeet),
		ColorID:                    unical.Some("5"),
		Visibility:                 unical.Some(unical.VisibilityPrivate),
		Transparency:               unical.Some(unical.TransparencyTransparent),
		EventType:                  unical.Some(unical.EventTypeDefault),
	}
	got, err := f.p.CreateEvent(ctx, s, alice, params)
	if err != nil {
		t.Fatal(err)
	}
	stored := mustStored(t, f, alice, got.ID)

	// Google's side of the mapping.
	wantStored := googletest.Event{
		Summary: "Planning", Description: "Agenda <b>inside</b>", Location: "Room 1", ColorID: "5",
		Start:        &googletest.EventDateTime{DateTime: "2026-05-04T10:00:00+02:00", TimeZone: "Europe/Paris"},
		End:          &googletest.EventDateTime{DateTime: "2026-05-04T11:00:00+02:00", TimeZone: "Europe/Paris"},
		Recurrence:   []string{"RRULE:FREQ=WEEKLY;COUNT=3"},
		Visibility:   "private",
		Transparency: "transparent",
		EventType:    "default",
		Attendees: []googletest.EventAttendee{
			{Email: bob, DisplayName: "Bob", Optional: true, ResponseStatus: "needsAction"},
			{Email: alice, ResponseStatus: "accepted"},
		},
		Reminders:          &googletest.EventReminders{Overrides: []googletest.EventReminder{{Method: "popup", Minutes: 10}}},
		ExtendedProperties: &googletest.ExtendedProperties{Private: map[string]string{"crm": "42"}, Shared: map[string]string{"project": "apollo"}},
	}
	gotStored := googletest.Event{
		Summary: stored.Summary, Description: stored.Description, Location: stored.Location, ColorID: stored.ColorID,
		Start: stored.Start, End: stored.End, Recurrence: stored.Recurrence, Visibility: stored.Visibility,
		Transparency: stored.Transparency, EventType: stored.EventType, Attendees: stored.Attendees,
		Reminders: stored.Reminders, ExtendedProperties: stored.ExtendedProperties,
	}
	if diff := cmp.Diff(wantStored, gotStored); diff != "" {
		t.Errorf("stored event mismatch (-want +got):\n%s", diff)
	}
	if cd := stored.ConferenceData; cd == nil || cd.CreateRequest == nil || cd.CreateRequest.ConferenceSolutionKey.Type != "hangoutsMeet" {
		t.Errorf("stored conferenceData = %+v, want a hangoutsMeet create request", cd)
	}

	// Ours.
	if got.ConferenceData == nil || got.ConferenceData.ConferenceType != unical.MeetingProviderGoogleMeet ||
		!strings.HasPrefix(got.ConferenceData.JoinURL, "https://meet.google.com/") || got.ConferenceData.ConferenceID == "" {
		t.Errorf("conferenceData = %+v, want a Meet link", got.ConferenceData)
	}
	if got.ConferenceData != nil && got.ConferenceData.ConferenceDetails.CreateRequest.Status.StatusCode != "success" {
		t.Errorf("conference create status = %+v", got.ConferenceData.ConferenceDetails.CreateRequest.Status)
	}
	want := &unical.Event{
		ID: got.ID, Title: "Planning", Description: "Agenda <b>inside</b>", Location: "Room 1",
		Start:       &unical.EventDateTime{DateTime: "2026-05-04T10:00:00+02:00", TimeZone: "Europe/Paris"},
		End:         &unical.EventDateTime{DateTime: "2026-05-04T11:00:00+02:00", TimeZone: "Europe/Paris"},
		IsRecurring: true, Recurrence: []string{"RRULE:FREQ=WEEKLY;COUNT=3"},
		ColorID: "5", Visibility: unical.VisibilityPrivate, Transparency: unical.TransparencyTransparent,
		EventType:        unical.EventTypeDefault,
		MyResponseStatus: unical.ResponseAccepted,
		Attendees: []unical.Attendee{
			{Email: bob, Name: "Bob", Optional: true, ResponseStatus: unical.ResponseNeedsAction},
			{Email: alice, ResponseStatus: unical.ResponseAccepted},
		},
		Organizer:                 &unical.Organizer{Name: "Alice", Email: alice, IsSelf: true},
		Creator:                   &unical.Creator{Name: "Alice", Email: alice, IsSelf: true},
		Reminders:                 &unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 10}}},
		PrivateExtendedProperties: map[string]string{"crm": "42"},
		PublicExtendedProperties:  map[string]string{"project": "apollo"},
		ETag:                      stored.Etag, ICalUID: stored.ICalUID, WebLink: stored.HTMLLink,
		CreatedAt: unical.FormatTimestamp(mustTime(t, stored.Created)), UpdatedAt: unical.FormatTimestamp(mustTime(t, stored.Updated)),
		ConferenceData: got.ConferenceData,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreateEvent() mismatch (-want +got):\n%s", diff)
	}
	if got.ETag == "" || got.ICalUID == "" || got.WebLink == "" {
		t.Errorf("etag %q iCalUid %q webLink %q, want all set", got.ETag, got.ICalUID, got.WebLink)
	}
	again, err := f.p.GetEvent(ctx, s, alice, got.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("GetEvent() differs from CreateEvent() (-create +get):\n%s", diff)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCreateEvent_ErrTeams(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.p.CreateEvent(t.Context(), f.session(t, alice), alice, &unical.EventParams{
		Title: unical.Some("x"), Start: zonedAt("2026-05-04T10:00:00Z", ""), End: zonedAt("2026-05-04T11:00:00Z", ""),
		GenerateMeetingURLProvider: unical.Some(unical.MeetingProviderTeams),
	})
	if e := (*unical.Error)(nil); !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != "generateMeetingUrlProvider" {
		t.Errorf("CreateEvent with Teams: %v, want CodeInvalid on generateMeetingUrlProvider", err)
	}
	if n := f.srv.RequestCount(http.MethodPost, "/calendar/v3/calendars/"); n != 0 {
		t.Errorf("%d inserts reached Google", n)
	}
}

func TestEvent_Invitation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	ctx := t.Context()
	guestsCannotInvite := false
	seeded := f.srv.AddEvent(alice, googletest.Event{
		Summary:   "Bob's meeting",
		Start:     &googletest.EventDateTime{DateTime: "2026-05-05T09:00:00Z"},
		End:       &googletest.EventDateTime{DateTime: "2026-05-05T10:00:00Z"},
		Organizer: &googletest.EventPerson{Email: bob, DisplayName: "Bob"},
		Creator:   &googletest.EventPerson{Email: bob},
		Attendees: []googletest.EventAttendee{
			{Email: bob, ResponseStatus: "accepted"},
			{Email: alice, ResponseStatus: "needsAction"},
		},
		// A shared property away from its default: writes in Alice's copy
		// that would reset it get 403 forbiddenForNonOrganizer (errors
		// guide), so the RSVP and the update below must be patches that
		// leave it alone.
		GuestsCanInviteOthers: &guestsCannotInvite,
	})
	got, err := f.p.GetEvent(ctx, s, alice, seeded.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&unical.Organizer{Name: "Bob", Email: bob}, got.Organizer); diff != "" {
		t.Errorf("organizer mismatch (-want +got):\n%s", diff)
	}
	if got.Creator.IsSelf || got.MyResponseStatus != unical.ResponseNeedsAction {
		t.Errorf("creator %+v myResponseStatus %q, want not self and needsAction", got.Creator, got.MyResponseStatus)
	}
	if err := f.p.RespondToEvent(ctx, s, alice, seeded.ID, unical.ResponseTentative); err != nil {
		t.Fatal(err)
	}
	stored := mustStored(t, f, alice, seeded.ID)
	want := []googletest.EventAttendee{{Email: bob, ResponseStatus: "accepted"}, {Email: alice, ResponseStatus: "tentative"}}
	if diff := cmp.Diff(want, stored.Attendees); diff != "" {
		t.Errorf("attendees after RSVP mismatch (-want +got):\n%s", diff)
	}
	// An update may set the account's own response too.
	upd, err := f.p.UpdateEvent(ctx, s, alice, seeded.ID, &unical.EventParams{MyResponseStatus: unical.Some(unical.ResponseDeclined)})
	if err != nil {
		t.Fatal(err)
	}
	if upd.MyResponseStatus != unical.ResponseDeclined || len(upd.Attendees) != 2 {
		t.Errorf("after update: myResponseStatus %q, %d attendees; want declined, 2", upd.MyResponseStatus, len(upd.Attendees))
	}
}

func TestEvent_AllDay(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	ctx := t.Context()
	// A bare date makes an all-day event; the end defaults to the next day.
	got, err := f.p.CreateEvent(ctx, s, alice, &unical.EventParams{Title: unical.Some("Off"), Start: unical.Some(unical.EventDateTime{Date: "2026-07-01"})})
	if err != nil {
		t.Fatal(err)
	}
	stored := mustStored(t, f, alice, got.ID)
	if diff := cmp.Diff([]*googletest.EventDateTime{{Date: "2026-07-01"}, {Date: "2026-07-02"}}, []*googletest.EventDateTime{stored.Start, stored.End}); diff != "" {
		t.Errorf("stored all-day start/end mismatch (-want +got):\n%s", diff)
	}
	if !got.IsAllDay || got.Start.DateTime != "2026-07-01T00:00:00" || got.End.DateTime != "2026-07-02T00:00:00" || got.Start.TimeZone != "" {
		t.Errorf("all-day event: isAllDay %v start %+v end %+v", got.IsAllDay, got.Start, got.End)
	}

	// Timed, then all-day again from the stored start.
	got, err = f.p.UpdateEvent(ctx, s, alice, got.ID, &unical.EventParams{
		IsAllDay: unical.Some(false), Start: zonedAt("2026-07-01T09:00:00", "Europe/Paris"), End: zonedAt("2026-07-01T10:00:00", "Europe/Paris"),
	})
	if err != nil {
		t.Fatal(err)
	}
	stored = mustStored(t, f, alice, got.ID)
	if stored.Start.Date != "" || stored.Start.DateTime != "2026-07-01T09:00:00+02:00" || got.IsAllDay {
		t.Errorf("after the switch to timed: stored start %+v, isAllDay %v", stored.Start, got.IsAllDay)
	}
	got, err = f.p.UpdateEvent(ctx, s, alice, got.ID, &unical.EventParams{IsAllDay: unical.Some(true)})
	if err != nil {
		t.Fatal(err)
	}
	stored = mustStored(t, f, alice, got.ID)
	if diff := cmp.Diff([]*googletest.EventDateTime{{Date: "2026-07-01"}, {Date: "2026-07-02"}}, []*googletest.EventDateTime{stored.Start, stored.End}); diff != "" {
		t.Errorf("stored start/end after the switch to all-day mismatch (-want +got):\n%s", diff)
	}
}

func TestUpdateEvent_Partial(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	ctx := t.Context()
	created, err := f.p.CreateEvent(ctx, s, alice, &unical.EventParams{
		Title: unical.Some("Draft"), Start: zonedAt("2026-06-01T09:00:00Z", ""), End: zonedAt("2026-06-01T10:00:00Z", ""),
		PrivateExtendedProperties:  unical.Some(map[string]string{"a": "1", "b": "2"}),
		PublicExtendedProperties:   unical.Some(map[string]string{"p": "1"}),
		Attendees:                  unical.Some([]unical.Attendee{{Email: bob}, {Email: "carol@example.com"}}),
		Reminders:                  unical.Some(unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "email", Minutes: 60}}}),
		GenerateMeetingURLProvider: unical.Some(unical.MeetingProviderGoogleMeet),
	})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.UpdateEvent(alice, created.ID, func(ev *googletest.Event) { ev.Attendees[0].ResponseStatus = "accepted" })
	got, err := f.p.UpdateEvent(ctx, s, alice, created.ID, &unical.EventParams{
		PrivateExtendedProperties: unical.Some(map[string]string{"a": "3"}),
		PublicExtendedProperties:  unical.Null[map[string]string](),
		Attendees:                 unical.Some([]unical.Attendee{{Email: bob}, {Email: "dave@example.com"}}),
		Reminders:                 unical.Null[unical.Reminders](),
		ConferenceData:            unical.Null[unical.ConferenceData](),
	})
	if err != nil {
		t.Fatal(err)
	}
	stored := mustStored(t, f, alice, created.ID)
	type view struct {
		Title      string
		Start, End *googletest.EventDateTime
		Props      *googletest.ExtendedProperties
		Attendees  []googletest.EventAttendee
		Reminders  *googletest.EventReminders
		Conference bool
	}
	want := view{
		Title: "Draft",
		Start: &googletest.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-06-01T10:00:00Z"},
		Props:     &googletest.ExtendedProperties{Private: map[string]string{"a": "3"}, Shared: map[string]string{}},
		Attendees: []googletest.EventAttendee{{Email: bob, ResponseStatus: "accepted"}, {Email: "dave@example.com", ResponseStatus: "needsAction"}},
		Reminders: &googletest.EventReminders{UseDefault: true},
	}
	gotView := view{Title: stored.Summary, Start: stored.Start, End: stored.End, Props: stored.ExtendedProperties,
		Attendees: stored.Attendees, Reminders: stored.Reminders, Conference: stored.ConferenceData != nil}
	if diff := cmp.Diff(want, gotView); diff != "" {
		t.Errorf("stored event after a partial update mismatch (-want +got):\n%s", diff)
	}
	if got.PublicExtendedProperties != nil || got.ConferenceData != nil || got.Title != "Draft" {
		t.Errorf("after the update: public %v conference %+v title %q", got.PublicExtendedProperties, got.ConferenceData, got.Title)
	}
}

func TestUpdateEvent_ErrPrecondition(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	f := newFixtureWith(t, googletest.Options{}, rec)
	s := f.session(t, alice)
	created, err := f.p.CreateEvent(t.Context(), s, alice, &unical.EventParams{Title: unical.Some("v1"), Start: zonedAt("2026-06-01T09:00:00Z", ""), End: zonedAt("2026-06-01T10:00:00Z", "")})
	if err != nil {
		t.Fatal(err)
	}
	rec.before = func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPatch {
			// Someone else edits the event between our read and our write.
			f.srv.UpdateEvent(alice, created.ID, func(ev *googletest.Event) { ev.Summary = "theirs" })
			rec.before = nil
		}
		return nil, nil
	}
	_, err = f.p.UpdateEvent(t.Context(), s, alice, created.ID, &unical.EventParams{Title: unical.Some("ours")})
	if unical.ErrorCode(err) != unical.CodePrecondition {
		t.Fatalf("UpdateEvent after a concurrent change: %v, want CodePrecondition", err)
	}
	if got := mustStored(t, f, alice, created.ID).Summary; got != "theirs" {
		t.Errorf("summary = %q, want the concurrent change kept", got)
	}
	patches := rec.requests(http.MethodPatch, "/events/")
	if len(patches) != 1 || patches[0].Header.Get("If-Match") == "" || patches[0].URL.Query().Get("conferenceDataVersion") != "1" {
		t.Errorf("patch requests %d, want one with If-Match and conferenceDataVersion=1", len(patches))
	}
}

func TestCreateEvent_LostAnswer(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	f := newFixtureWith(t, googletest.Options{}, rec)
	rec.before = func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/events") {
			rec.before = nil
			// The insert reaches Google, but its answer is lost.
			resp, err := http.DefaultTransport.RoundTrip(r)
			if err == nil {
				resp.Body.Close()
			}
			return nil, errors.New("connection reset by peer")
		}
		return nil, nil
	}
	s := f.session(t, alice)
	got, err := f.p.CreateEvent(t.Context(), s, alice, &unical.EventParams{Title: unical.Some("Once"), Start: zonedAt("2026-06-01T09:00:00Z", ""), End: zonedAt("2026-06-01T10:00:00Z", "")})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := f.p.ListEvents(t.Context(), s, alice, &unical.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Events) != 1 || batch.Events[0].ID != got.ID || got.Title != "Once" {
		t.Errorf("after a retried insert: %d events (created %s), want exactly the one", len(batch.Events), got.ID)
	}
	if n := len(rec.requests(http.MethodPost, "/events")); n != 2 {
		t.Errorf("inserts sent = %d, want 2", n)
	}
}

func TestListEvents_Query(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	f := newFixtureWith(t, googletest.Options{}, rec)
	s := f.session(t, alice)
	ctx := t.Context()
	for i, title := range []string{"plan A", "plan B", "plan C", "other"} {
		props := map[string]string{"k": "v"}
		if title == "other" {
			props = nil
		}
		start := time.Date(2026, 8, 1+i, 9, 0, 0, 0, time.UTC)
		params := &unical.EventParams{Title: unical.Some(title), Start: zonedAt(start.Format(time.RFC3339), ""), End: zonedAt(start.Add(time.Hour).Format(time.RFC3339), "")}
		if props != nil {
			params.PrivateExtendedProperties = unical.Some(props)
		}
		if _, err := f.p.CreateEvent(ctx, s, alice, params); err != nil {
			t.Fatal(err)
		}
	}
	q := unical.EventQuery{
		TimeMin: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		SingleEvents: true, OrderBy: unical.OrderByStartTime, Search: "plan",
		Metadata: &unical.MetadataFilters{Private: map[string]string{"k": "v"}},
		TimeZone: "America/New_York", WantSync: true, PageSize: 2,
	}
	var titles []string
	var last *unical.EventBatch
	for page := q; ; {
		batch, err := f.p.ListEvents(ctx, s, alice, &page)
		if err != nil {
			t.Fatal(err)
		}
		if !batch.Expanded || !batch.Ordered {
			t.Errorf("batch expanded %v ordered %v, want both", batch.Expanded, batch.Ordered)
		}
		for _, e := range batch.Events {
			titles = append(titles, e.Title)
			if e.Start.TimeZone != "America/New_York" || !strings.HasSuffix(e.Start.DateTime, "-04:00") {
				t.Errorf("start %+v, want New York time", e.Start)
			}
		}
		last = batch
		if batch.NextPageCursor == "" {
			break
		}
		page.PageCursor = batch.NextPageCursor
	}
	if diff := cmp.Diff([]string{"plan A", "plan B", "plan C"}, titles); diff != "" {
		t.Errorf("titles mismatch (-want +got):\n%s", diff)
	}
	lists := rec.requests(http.MethodGet, "/events")
	if len(lists) != 2 {
		t.Fatalf("list requests = %d, want 2", len(lists))
	}
	first := lists[0].URL.Query()
	for k, v := range map[string]string{
		"singleEvents": "true", "orderBy": "startTime", "q": "", "privateExtendedProperty": "k=v",
		"timeZone": "America/New_York", "maxResults": "2", "timeMin": "2026-08-01T00:00:00Z", "timeMax": "2026-09-01T00:00:00Z",
	} {
		if got := first.Get(k); got != v {
			t.Errorf("first page %s = %q, want %q", k, got, v)
		}
	}
	if second := lists[1].URL.Query(); second.Get("pageToken") == "" || second.Get("privateExtendedProperty") != "k=v" {
		t.Errorf("second page query %v, want the same query with a pageToken", second)
	}
	if last.NextSyncCursor == "" {
		t.Fatal("no NextSyncCursor on the last page")
	}

	// The Client repeats the saved query with the cursor; Google's
	// forbidden parameters must stay out.
	if _, err := f.p.CreateEvent(ctx, s, alice, &unical.EventParams{Title: unical.Some("later"), Start: zonedAt("2026-12-01T09:00:00Z", ""), End: zonedAt("2026-12-01T10:00:00Z", "")}); err != nil {
		t.Fatal(err)
	}
	sq := q
	sq.SyncCursor, sq.PageSize = last.NextSyncCursor, 0
	batch, err := f.p.ListEvents(ctx, s, alice, &sq)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Events) != 1 || batch.Events[0].Title != "later" || batch.NextSyncCursor == "" || batch.Ordered {
		t.Errorf("incremental sync: %d events, next cursor %q, ordered %v", len(batch.Events), batch.NextSyncCursor, batch.Ordered)
	}
	lists = rec.requests(http.MethodGet, "/events")
	sent := lists[len(lists)-1].URL.Query()
	for _, k := range []string{"iCalUID", "orderBy", "privateExtendedProperty", "q", "sharedExtendedProperty", "timeMin", "timeMax", "updatedMin"} {
		if sent.Has(k) {
			t.Errorf("incremental sync sent %s", k)
		}
	}
	if sent.Get("syncToken") == "" || sent.Get("singleEvents") != "true" {
		t.Errorf("incremental sync query %v, want syncToken and singleEvents", sent)
	}
}

func TestListEvents_Occurrences(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	ctx := t.Context()
	series, err := f.p.CreateEvent(ctx, s, alice, &unical.EventParams{
		Title: unical.Some("Daily"), Start: zonedAt("2026-04-01T09:00:00+02:00", "Europe/Paris"), End: zonedAt("2026-04-01T09:30:00+02:00", "Europe/Paris"),
		Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=5"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	q := unical.EventQuery{SeriesID: series.ID, SingleEvents: true, WantSync: true,
		TimeMin: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	batch, err := f.p.ListEvents(ctx, s, alice, &q)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Events) != 5 || !batch.Expanded || batch.NextSyncCursor == "" {
		t.Fatalf("occurrences: %d events, expanded %v, sync cursor %q; want 5, true, set", len(batch.Events), batch.Expanded, batch.NextSyncCursor)
	}
	second := batch.Events[1]
	if second.RecurringEventID != series.ID || second.OriginalStart == nil || second.OriginalStart.DateTime != "2026-04-02T09:00:00+02:00" || !second.IsException {
		t.Errorf("instance %+v, want recurringEventId, originalStart and isException", second)
	}

	// Change one instance, cancel another, and add an unrelated event.
	if _, err := f.p.UpdateEvent(ctx, s, alice, second.ID, &unical.EventParams{Title: unical.Some("Moved")}); err != nil {
		t.Fatal(err)
	}
	if err := f.p.DeleteEvent(ctx, s, alice, batch.Events[2].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.p.CreateEvent(ctx, s, alice, &unical.EventParams{Title: unical.Some("unrelated"), Start: zonedAt("2026-04-03T12:00:00Z", ""), End: zonedAt("2026-04-03T13:00:00Z", "")}); err != nil {
		t.Fatal(err)
	}
	sq := q
	sq.SyncCursor = batch.NextSyncCursor
	changes, err := f.p.ListEvents(ctx, s, alice, &sq)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range changes.Events {
		got[e.ID] = e.Title
		if e.IsCancelled {
			got[e.ID] = "cancelled"
		}
	}
	want := map[string]string{second.ID: "Moved", batch.Events[2].ID: "cancelled"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series sync mismatch (-want +got):\n%s", diff)
	}
	if changes.Expanded || changes.NextSyncCursor == "" {
		t.Errorf("series sync expanded %v next cursor %q", changes.Expanded, changes.NextSyncCursor)
	}
}

func TestListEvents_Throttled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	f.srv.InjectFault(googletest.Fault{Method: http.MethodGet, PathPrefix: "/calendar/v3/calendars/", Status: 403, Reason: "rateLimitExceeded", RetryAfter: "1", Times: 2})
	if _, err := f.p.ListEvents(t.Context(), s, alice, &unical.EventQuery{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, time.Second}, f.recordedWaits()); diff != "" {
		t.Errorf("waits mismatch (-want +got):\n%s", diff)
	}
	f.srv.InjectFault(googletest.Fault{Method: http.MethodGet, PathPrefix: "/calendar/v3/calendars/", Status: 429, Times: 10})
	_, err := f.p.ListEvents(t.Context(), s, alice, &unical.EventQuery{})
	if unical.ErrorCode(err) != unical.CodeRateLimited {
		t.Errorf("ListEvents under lasting throttling: %v, want CodeRateLimited", err)
	}
}

func TestListEvents_ErrBadCursor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.p.ListEvents(t.Context(), f.session(t, alice), alice, &unical.EventQuery{PageCursor: "not-ours"})
	if unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("ListEvents with a foreign page cursor: %v, want CodeInvalid", err)
	}
}

func TestCreateEvent_ErrNoEnd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	for name, params := range map[string]*unical.EventParams{
		"NoEnd":      {Title: unical.Some("x"), Start: zonedAt("2026-05-04T10:00:00Z", "")},
		"EndAtStart": {Title: unical.Some("x"), Start: zonedAt("2026-05-04T10:00:00Z", ""), End: zonedAt("2026-05-04T12:00:00+02:00", "")},
	} {
		_, err := f.p.CreateEvent(t.Context(), s, alice, params)
		if e := (*unical.Error)(nil); !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != "end" {
			t.Errorf("%s: CreateEvent() error %v, want CodeInvalid on end", name, err)
		}
	}
	if n := f.srv.RequestCount(http.MethodPost, "/calendar/v3/calendars/"); n != 0 {
		t.Errorf("%d inserts reached Google", n)
	}
}

// Google creates Meet conferences asynchronously: the insert may answer
// createRequest.status "pending" with no entry points (ConferenceData
// reference). CreateEvent re-reads the event a few times, with backoff,
// until the conference is there; if it is still pending after that, the
// event comes back without a join URL and the pending status, not an error.
func TestCreateEvent_MeetCreationPending(t *testing.T) {
	t.Parallel()
	params := func() *unical.EventParams {
		return &unical.EventParams{
			Title:                      unical.Some("Sync"),
			Start:                      zonedAt("2026-05-04T10:00:00+02:00", "Europe/Paris"),
			End:                        zonedAt("2026-05-04T11:00:00+02:00", "Europe/Paris"),
			GenerateMeetingURLProvider: unical.Some(unical.MeetingProviderGoogleMeet),
		}
	}
	t.Run("SettlesAfterRereads", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.srv.SetConferencePending(2)
		got, err := f.p.CreateEvent(t.Context(), f.session(t, alice), alice, params())
		if err != nil {
			t.Fatal(err)
		}
		cd := got.ConferenceData
		if cd == nil || !strings.HasPrefix(cd.JoinURL, "https://meet.google.com/") ||
			cd.ConferenceDetails.CreateRequest.Status.StatusCode != "success" {
			t.Fatalf("conferenceData = %+v, want a created Meet conference", cd)
		}
		if n := f.srv.RequestCount("GET", "/calendar/v3/calendars/"+alice+"/events/"+got.ID); n != 2 {
			t.Errorf("events.get calls = %d, want 2", n)
		}
		if len(f.waits) != 2 {
			t.Errorf("waits = %v, want one backoff before each re-read", f.waits)
		}
	})
	t.Run("StillPending", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.srv.SetConferencePending(100)
		got, err := f.p.CreateEvent(t.Context(), f.session(t, alice), alice, params())
		if err != nil {
			t.Fatal(err)
		}
		cd := got.ConferenceData
		if cd == nil || cd.JoinURL != "" || cd.ConferenceType != unical.MeetingProviderGoogleMeet ||
			cd.ConferenceDetails.CreateRequest.Status.StatusCode != "pending" {
			t.Fatalf("conferenceData = %+v, want a pending Meet request without a join URL", cd)
		}
	})
}

// Google may answer a page with fewer events than maxResults, or none, and
// still have more (events.list, maxResults); only nextPageToken tells.
// Listings must follow it through short and empty pages.
func TestList_ShortPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.SetShortPages(true)
	s := f.session(t, alice)
	ctx := t.Context()
	var want []string
	for i := range 5 {
		title := fmt.Sprintf("e%d", i)
		want = append(want, title)
		start := time.Date(2026, 8, 1+i, 9, 0, 0, 0, time.UTC)
		f.srv.AddEvent(alice, googletest.Event{Summary: title,
			Start: &googletest.EventDateTime{DateTime: start.Format(time.RFC3339)},
			End:   &googletest.EventDateTime{DateTime: start.Add(time.Hour).Format(time.RFC3339)}})
	}
	q := unical.EventQuery{SingleEvents: true, OrderBy: unical.OrderByStartTime, WantSync: true, PageSize: 1}
	var titles []string
	var pages, empty int
	for page := q; pages < 50; pages++ {
		batch, err := f.p.ListEvents(ctx, s, alice, &page)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch.Events) == 0 {
			empty++
		}
		for _, e := range batch.Events {
			titles = append(titles, e.Title)
		}
		if batch.NextPageCursor == "" {
			if batch.NextSyncCursor == "" {
				t.Error("no NextSyncCursor on the last page")
			}
			break
		}
		page.PageCursor = batch.NextPageCursor
	}
	if diff := cmp.Diff(want, titles); diff != "" || empty == 0 {
		t.Errorf("%d empty pages; titles mismatch (-want +got):\n%s", empty, diff)
	}

	for range 9 {
		f.srv.AddCalendar(alice, googletest.Calendar{Summary: "C"})
	}
	cals, err := f.p.ListCalendars(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(cals) != 10 {
		t.Errorf("calendars = %d, want 10", len(cals))
	}
}
