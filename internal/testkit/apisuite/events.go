package apisuite

import (
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/series"
)

// at is an EventDateTime in UTC.
func at(s string) unical.Optional[unical.EventDateTime] {
	return unical.Some(unical.EventDateTime{DateTime: s, TimeZone: "UTC"})
}

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// seedEvents creates, in the Google user's primary calendar, a meeting
// with a private property, a lunch on another day and a weekly series of
// five.
func (e *env) seedEvents(acctID, calID string) (standup, lunch, weekly *unical.Event) {
	e.t.Helper()
	standup = must(e.api.CreateEvent(e.ctx, acctID, calID, &unical.EventParams{
		Title: unical.Some("Standup"), Start: at("2026-03-02T09:00:00Z"), End: at("2026-03-02T09:30:00Z"),
		PrivateExtendedProperties: unical.Some(map[string]string{"team": "core"}),
	}))
	lunch = must(e.api.CreateEvent(e.ctx, acctID, calID, &unical.EventParams{
		Title: unical.Some("Lunch"), Start: at("2026-03-20T12:00:00Z"), End: at("2026-03-20T13:00:00Z"),
		Location: unical.Some("Canteen"),
	}))
	weekly = must(e.api.CreateEvent(e.ctx, acctID, calID, &unical.EventParams{
		Title: unical.Some("Weekly"), Start: at("2026-03-03T10:00:00Z"), End: at("2026-03-03T11:00:00Z"),
		Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=5"}),
	}))
	return standup, lunch, weekly
}

func titles(events []*unical.Event) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.Title
	}
	return out
}

func testEvents(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	var syncToken string
	if before := collect(t, unical.AllEvents(e.ctx, e.api, acct.ID, cal, nil, &syncToken)); len(before) != 0 || syncToken == "" {
		t.Fatalf("empty calendar lists %d events, sync token %q", len(before), syncToken)
	}
	standup, _, weekly := e.seedEvents(acct.ID, cal)
	if standup.Title != "Standup" || standup.Start == nil || standup.PrivateExtendedProperties["team"] != "core" || standup.ID == "" {
		t.Errorf("created event = %+v", standup)
	}
	if !weekly.IsRecurring || len(weekly.Recurrence) != 1 {
		t.Errorf("created series = %+v", weekly)
	}
	if got := must(e.api.GetEvent(e.ctx, acct.ID, cal, standup.ID)); !cmp.Equal(got, standup, equate) {
		t.Errorf("GetEvent differs from the created event:\n%s", cmp.Diff(standup, got, equate))
	}
	moved := must(e.api.UpdateEvent(e.ctx, acct.ID, cal, standup.ID, &unical.EventParams{
		Title: unical.Some("Standup (moved)"), Start: at("2026-03-02T10:00:00Z"), End: at("2026-03-02T10:30:00Z"),
	}))
	if moved.Title != "Standup (moved)" || moved.Start.DateTime != "2026-03-02T10:00:00Z" || moved.PrivateExtendedProperties["team"] != "core" {
		t.Errorf("updated event = %+v", moved)
	}
	if got := must(e.api.GetEvent(e.ctx, acct.ID, cal, standup.ID)); !cmp.Equal(got, moved, equate) {
		t.Errorf("GetEvent differs from the updated event:\n%s", cmp.Diff(moved, got, equate))
	}

	// The sync token from before returns all three new events.
	changed := collect(t, unical.AllEvents(e.ctx, e.api, acct.ID, cal, &unical.EventListParams{SyncToken: syncToken}, &syncToken))
	if len(changed) != 3 {
		t.Errorf("sync after three creates returned %v", titles(changed))
	}
	if ok := must(e.api.DeleteEvent(e.ctx, acct.ID, cal, standup.ID)); !ok.Success {
		t.Errorf("DeleteEvent = %+v", ok)
	}
	_, err := e.api.GetEvent(e.ctx, acct.ID, cal, standup.ID)
	wantError(t, "GetEvent after delete", err, &unical.Error{Code: unical.CodeNotFound})
	_, err = e.api.DeleteEvent(e.ctx, acct.ID, cal, standup.ID)
	wantError(t, "DeleteEvent twice", err, &unical.Error{Code: unical.CodeNotFound})
	// The delete comes back through the sync token as a cancelled event.
	changed = collect(t, unical.AllEvents(e.ctx, e.api, acct.ID, cal, &unical.EventListParams{SyncToken: syncToken}, nil))
	if len(changed) != 1 || changed[0].ID != standup.ID || !changed[0].IsCancelled {
		t.Errorf("sync after the delete returned %+v", changed)
	}
}

func testEventListings(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	standup, lunch, weekly := e.seedEvents(acct.ID, cal)
	list := func(p *unical.EventListParams) []string {
		t.Helper()
		var out []string
		for ev, err := range unical.AllEvents(e.ctx, e.api, acct.ID, cal, p, nil) {
			if err != nil {
				t.Fatalf("listing %+v: %v", p, err)
			}
			out = append(out, ev.ID)
		}
		return out
	}
	ids := func(events ...*unical.Event) []string {
		out := make([]string, len(events))
		for i, ev := range events {
			out[i] = ev.ID
		}
		return out
	}
	sorted := cmp.Transformer("sorted", func(in []string) []string {
		out := append([]string(nil), in...)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if out[j] < out[i] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	})
	for _, tc := range []struct {
		name   string
		params *unical.EventListParams
		want   []string
	}{
		{"all, in pages of one", &unical.EventListParams{Limit: 1}, ids(standup, lunch, weekly)},
		{"search", &unical.EventListParams{Search: "LUN"}, ids(lunch)},
		{"private metadata", &unical.EventListParams{MetadataFilters: &unical.MetadataFilters{Private: map[string]string{"team": "core"}}}, ids(standup)},
		{"window", &unical.EventListParams{Start: date("2026-03-15T00:00:00Z"), End: date("2026-03-21T00:00:00Z")}, ids(lunch, weekly)},
	} {
		if diff := cmp.Diff(tc.want, list(tc.params), sorted, equate); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	// An expanded listing in pages of two: every instance once. (The order
	// is checked within a page only: the in-memory provider pages its
	// instances unordered, and each page is sorted on its own.)
	expanded := &unical.EventListParams{Start: date("2026-03-01T00:00:00Z"), End: date("2026-04-15T00:00:00Z"),
		ExpandRecurrences: true, OrderBy: unical.OrderByStartTime, Limit: 2, TimeZone: "Europe/Berlin"}
	first := must(e.api.ListEvents(e.ctx, acct.ID, cal, expanded))
	if len(first.Data) != 2 || first.NextPageToken == "" || first.NextSyncToken != "" {
		t.Fatalf("first expanded page: %d events, tokens %q %q", len(first.Data), first.NextPageToken, first.NextSyncToken)
	}
	if first.Data[0].Start.DateTime > first.Data[1].Start.DateTime {
		t.Errorf("first expanded page out of order: %s, %s", first.Data[0].Start.DateTime, first.Data[1].Start.DateTime)
	}
	var starts []string
	seen := map[string]bool{}
	var syncToken string
	for ev, err := range unical.AllEvents(e.ctx, e.api, acct.ID, cal, expanded, &syncToken) {
		if err != nil {
			t.Fatalf("expanded listing: %v", err)
		}
		if seen[ev.ID] {
			t.Errorf("instance %q listed twice", ev.ID)
		}
		seen[ev.ID] = true
		starts = append(starts, ev.Title+" "+ev.Start.DateTime)
	}
	wantStarts := []string{
		"Standup 2026-03-02T10:00:00+01:00", "Weekly 2026-03-03T11:00:00+01:00", "Weekly 2026-03-10T11:00:00+01:00",
		"Weekly 2026-03-17T11:00:00+01:00", "Lunch 2026-03-20T13:00:00+01:00", "Weekly 2026-03-24T11:00:00+01:00",
		"Weekly 2026-03-31T12:00:00+02:00",
	}
	if diff := cmp.Diff(wantStarts, starts, sorted); diff != "" {
		t.Errorf("expanded listing (-want +got):\n%s", diff)
	}
	if syncToken == "" {
		t.Error("the expanded listing ended without a sync token")
	}

	occ := &unical.OccurrenceListParams{Start: date("2026-03-09T00:00:00Z"), End: date("2026-04-30T00:00:00Z"), Limit: 2}
	var occStarts []string
	for ev, err := range unical.AllOccurrences(e.ctx, e.api, acct.ID, cal, weekly.ID, occ, nil) {
		if err != nil {
			t.Fatalf("occurrences: %v", err)
		}
		if ev.RecurringEventID != weekly.ID || ev.OriginalStart == nil {
			t.Errorf("occurrence %+v does not name its series", ev)
		}
		occStarts = append(occStarts, ev.Start.DateTime)
	}
	if diff := cmp.Diff([]string{"2026-03-10T10:00:00Z", "2026-03-17T10:00:00Z", "2026-03-24T10:00:00Z", "2026-03-31T10:00:00Z"}, occStarts); diff != "" {
		t.Errorf("occurrences (-want +got):\n%s", diff)
	}
}

func testEventErrors(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	_, _, weekly := e.seedEvents(acct.ID, cal)
	window := func(p unical.EventListParams) *unical.EventListParams {
		p.Start, p.End = date("2026-03-01T00:00:00Z"), date("2026-04-01T00:00:00Z")
		return &p
	}
	for _, tc := range []struct {
		name   string
		params *unical.EventListParams
		want   *unical.Error
	}{
		{"expand without window", &unical.EventListParams{ExpandRecurrences: true, Start: date("2026-03-01T00:00:00Z")},
			&unical.Error{Code: unical.CodeInvalid, Field: "endDateTime"}},
		{"orderBy without expand", window(unical.EventListParams{OrderBy: unical.OrderByStartTime}),
			&unical.Error{Code: unical.CodeInvalid, Field: "orderBy"}},
		{"unknown orderBy", window(unical.EventListParams{ExpandRecurrences: true, OrderBy: "title"}),
			&unical.Error{Code: unical.CodeInvalid, Field: "orderBy", Allowed: unical.OrderByValues}},
		{"end before start", &unical.EventListParams{Start: date("2026-03-02T00:00:00Z"), End: date("2026-03-01T00:00:00Z")},
			&unical.Error{Code: unical.CodeInvalid, Field: "endDateTime"}},
		{"unknown time zone", &unical.EventListParams{TimeZone: "Mars/Olympus"},
			&unical.Error{Code: unical.CodeInvalid, Field: "timeZone"}},
		{"foreign sync token", &unical.EventListParams{SyncToken: "bm90LWEtdG9rZW4"},
			&unical.Error{Code: unical.CodeInvalid, Field: "syncToken"}},
		{"negative limit", &unical.EventListParams{Limit: -1},
			&unical.Error{Code: unical.CodeInvalid, Field: "limit"}},
	} {
		_, err := e.api.ListEvents(e.ctx, acct.ID, cal, tc.params)
		wantError(t, "ListEvents "+tc.name, err, tc.want)
	}
	_, err := e.api.ListOccurrences(e.ctx, acct.ID, cal, weekly.ID, &unical.OccurrenceListParams{End: date("2026-04-01T00:00:00Z")})
	wantError(t, "occurrences without startDateTime", err, &unical.Error{Code: unical.CodeInvalid, Field: "startDateTime"})

	_, err = e.api.CreateEvent(e.ctx, acct.ID, cal, &unical.EventParams{Start: at("2026-03-02T09:00:00Z"), End: at("2026-03-02T10:00:00Z")})
	wantError(t, "event without title", err, &unical.Error{Code: unical.CodeInvalid, Field: "title"})
	_, err = e.api.CreateEvent(e.ctx, acct.ID, cal, &unical.EventParams{Title: unical.Some("x"), Start: at("tomorrow"), End: at("2026-03-02T10:00:00Z")})
	wantError(t, "bad start", err, &unical.Error{Code: unical.CodeInvalid, Field: "start.dateTime"})
	_, err = e.api.UpdateEvent(e.ctx, acct.ID, cal, weekly.ID, &unical.EventParams{Visibility: unical.Some(unical.Visibility("secret"))})
	wantError(t, "bad visibility", err, &unical.Error{Code: unical.CodeInvalid, Field: "visibility",
		Allowed: []string{"default", "public", "private", "confidential"}})
	_, err = e.api.UpdateEventWithScope(e.ctx, acct.ID, cal, weekly.ID, "everything", &unical.EventParams{Title: unical.Some("x")})
	wantError(t, "unknown scope", err, &unical.Error{Code: unical.CodeInvalid, Field: "scope", Allowed: series.EditScopes})
	_, err = e.api.DeleteEventWithScope(e.ctx, acct.ID, cal, weekly.ID, "everything")
	wantError(t, "unknown scope on delete", err, &unical.Error{Code: unical.CodeInvalid, Field: "scope", Allowed: series.EditScopes})
	_, err = e.api.UpdateEventWithScope(e.ctx, acct.ID, cal, weekly.ID, series.ScopeThisAndFollowing, &unical.EventParams{Title: unical.Some("x")})
	wantError(t, "thisAndFollowing on a series id", err, &unical.Error{Code: unical.CodeInvalid, Field: "scope"})
	_, err = e.api.DeleteEventWithScope(e.ctx, acct.ID, cal, weekly.ID, series.ScopeThisAndFollowing)
	wantError(t, "thisAndFollowing delete on a series id", err, &unical.Error{Code: unical.CodeInvalid, Field: "scope"})
	_, err = e.api.GetEvent(e.ctx, acct.ID, cal, "no-such-event")
	wantError(t, "unknown event", err, &unical.Error{Code: unical.CodeNotFound})
	_, err = e.api.CreateEvent(e.ctx, acct.ID, "no-such-calendar", &unical.EventParams{Title: unical.Some("x"), Start: at("2026-03-02T09:00:00Z"), End: at("2026-03-02T10:00:00Z")})
	wantError(t, "unknown calendar", err, &unical.Error{Code: unical.CodeNotFound})
	if n := len(collect(t, unical.AllEvents(e.ctx, e.api, acct.ID, cal, nil, nil))); n != 3 {
		t.Errorf("%d events after the failed writes, want the 3 seeded", n)
	}
}

func testRSVP(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	invite := must(e.api.CreateEvent(e.ctx, acct.ID, cal, &unical.EventParams{
		Title: unical.Some("Review"), Start: at("2026-03-04T15:00:00Z"), End: at("2026-03-04T16:00:00Z"),
		Attendees: unical.Some([]unical.Attendee{{Email: googleUser}, {Email: "linus@example.com"}}),
	}))
	if ok := must(e.api.RSVP(e.ctx, acct.ID, cal, invite.ID, &unical.RSVPParams{ResponseStatus: unical.ResponseTentative})); !ok.Success {
		t.Errorf("RSVP = %+v", ok)
	}
	got := must(e.api.GetEvent(e.ctx, acct.ID, cal, invite.ID))
	if got.MyResponseStatus != unical.ResponseTentative {
		t.Errorf("myResponseStatus after RSVP = %q", got.MyResponseStatus)
	}
	_, err := e.api.RSVP(e.ctx, acct.ID, cal, invite.ID, &unical.RSVPParams{ResponseStatus: "maybe"})
	wantError(t, "RSVP maybe", err, &unical.Error{Code: unical.CodeInvalid, Field: "responseStatus",
		Allowed: []string{"needsAction", "declined", "tentative", "accepted"}})
	_, err = e.api.RSVP(e.ctx, acct.ID, cal, invite.ID, &unical.RSVPParams{})
	wantError(t, "RSVP without status", err, &unical.Error{Code: unical.CodeInvalid, Field: "responseStatus"})
	_, err = e.api.RSVP(e.ctx, acct.ID, cal, "no-such-event", &unical.RSVPParams{ResponseStatus: unical.ResponseAccepted})
	wantError(t, "RSVP to an unknown event", err, &unical.Error{Code: unical.CodeNotFound})
}
