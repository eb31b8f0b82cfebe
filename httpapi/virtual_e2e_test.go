package httpapi_test

import (
	"net/http"
	"net/url"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/subscriptions"
)

const roomEmail = "room-4b@rooms.example.com"

// TestVirtualE2E drives a VIRTUAL account over HTTP from creation to
// deletion: calendars, a single and a recurring event listed with
// expandRecurrences, free/busy, RSVP, a sync token round trip, and a
// verified calendar.event.changed webhook after every write. Polling is
// off, so each message can only come from the write itself.
func TestVirtualE2E(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	st := apitest.Start(t, nil, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.AllowPrivateTargets = true
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = -1
		cfg.RetryJitter = -1
	})
	st.CreateApp(t, &admin.ApplicationParams{})
	go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()

	// Credentials are refused, naming the field: a VIRTUAL account has none.
	for field, body := range map[string]map[string]any{
		"password":     {"email": roomEmail, "providerType": "VIRTUAL", "password": "secret"},
		"refreshToken": {"email": roomEmail, "providerType": "VIRTUAL", "refreshToken": "1//token"},
		"email":        {"email": "Room 4B", "providerType": "VIRTUAL"},
	} {
		r := st.Do(t, "POST", "/v1/endUserAccounts", body)
		if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != field {
			t.Errorf("POST /v1/endUserAccounts with a bad %s = %d %+v, want 400 naming %s", field, r.Status, e, field)
		}
	}

	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": roomEmail, "providerType": "VIRTUAL", "externalId": "room-4b"}).Into(t, &acct)
	wantAcct := unical.Account{
		Email: roomEmail, ExternalID: "room-4b", AuthorizedScopes: []string{}, ProviderID: "virtual",
		ApplicationID: st.AppID, Status: unical.AccountStatusActive, ProviderType: unical.ProviderVirtual,
	}
	if d := cmp.Diff(wantAcct, acct, cmpopts.IgnoreFields(unical.Account{}, "ID", "CreatedAt", "UpdatedAt")); d != "" {
		t.Errorf("created account mismatch (-want +got):\n%s", d)
	}

	// Re-posting the email answers the same account; there are no
	// credentials to hand out.
	var again unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": roomEmail, "providerType": "VIRTUAL"}).Into(t, &again)
	if again.ID != acct.ID || again.ExternalID != "room-4b" {
		t.Errorf("re-posted account = %s (externalId %q), want %s kept with its externalId", again.ID, again.ExternalID, acct.ID)
	}
	var creds unical.Credentials
	st.Must(t, "GET", "/v1/endUserAccounts/"+acct.ID+"/credentials", nil).Into(t, &creds)
	if creds.AccessToken != "" || creds.RefreshToken != "" || creds.EndUserAccountID != acct.ID {
		t.Errorf("credentials = %+v, want empty tokens of %s", creds, acct.ID)
	}

	// The primary calendar exists from the start; more can be created.
	var created unical.Calendar
	st.Must(t, "POST", "/v1/calendars/"+acct.ID, map[string]any{"name": "Maintenance", "timeZone": "Europe/Berlin"}).Into(t, &created)
	var cals unical.Page[unical.Calendar]
	st.Must(t, "GET", "/v1/calendars/"+acct.ID, nil).Into(t, &cals)
	wantCals := []unical.Calendar{
		{ID: "primary", Name: roomEmail, IsPrimary: true, TimeZone: "UTC", InviteEmail: roomEmail, AllowedOnlineMeetingProviders: []string{}},
		{ID: created.ID, Name: "Maintenance", TimeZone: "Europe/Berlin", InviteEmail: roomEmail, AllowedOnlineMeetingProviders: []string{}},
	}
	if d := cmp.Diff(wantCals, cals.Data); d != "" {
		t.Errorf("calendars mismatch (-want +got):\n%s", d)
	}

	var sub subscriptions.Created
	st.Must(t, "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": "primary", "webhookUrl": rcv.URL + "/room"}).Into(t, &sub)
	rcv.SetSecret(sub.EndpointSecret)
	seen := 0
	expectChanged := func(step string) {
		t.Helper()
		got := rcv.WaitFor(t, seen+1)
		seen = len(got)
		last := got[seen-1]
		p := last.Payload(t)
		if !last.Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != sub.WebhookSubscriptionID {
			t.Errorf("%s: delivered %s (verified %v), want a verified calendar.event.changed for %s", step, last.Body, last.Verified, sub.WebhookSubscriptionID)
		}
	}

	base := "/v1/events/" + acct.ID + "/primary"
	var single, series unical.Event
	st.Must(t, "POST", base, map[string]any{
		"title": "Board meeting", "start": map[string]any{"dateTime": "2026-03-25T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-03-25T10:00:00Z"},
	}).Into(t, &single)
	expectChanged("create")
	// Weekly on Mondays at 14:00 Berlin time, across the change to summer
	// time on 29 March 2026: 13:00Z, then 12:00Z.
	st.Must(t, "POST", base, map[string]any{
		"title":      "Cleaning",
		"start":      map[string]any{"dateTime": "2026-03-23T14:00:00+01:00", "timeZone": "Europe/Berlin"},
		"end":        map[string]any{"dateTime": "2026-03-23T15:00:00+01:00", "timeZone": "Europe/Berlin"},
		"recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"},
	}).Into(t, &series)
	expectChanged("create series")

	q := url.Values{"startDateTime": {"2026-03-01T00:00:00Z"}, "endDateTime": {"2026-05-01T00:00:00Z"}, "expandRecurrences": {"true"}, "orderBy": {"startTime"}}
	var listed unical.SyncPage[unical.Event]
	st.Must(t, "GET", base+"?"+q.Encode(), nil).Into(t, &listed)
	type slot struct{ Title, Start, Series string }
	var gotSlots []slot
	for _, e := range listed.Data {
		start, _, err := e.Interval()
		if err != nil {
			t.Fatal(err)
		}
		gotSlots = append(gotSlots, slot{e.Title, start.UTC().Format(time.RFC3339), e.RecurringEventID})
	}
	wantSlots := []slot{
		{"Cleaning", "2026-03-23T13:00:00Z", series.ID},
		{"Board meeting", "2026-03-25T09:00:00Z", ""},
		{"Cleaning", "2026-03-30T12:00:00Z", series.ID},
		{"Cleaning", "2026-04-06T12:00:00Z", series.ID},
	}
	if d := cmp.Diff(wantSlots, gotSlots); d != "" {
		t.Errorf("expanded listing mismatch (-want +got):\n%s", d)
	}
	if listed.NextSyncToken == "" {
		t.Fatal("the listing has no nextSyncToken")
	}

	var busy []unical.FreeBusyResult
	st.Must(t, "POST", "/v1/freeBusy/"+acct.ID, map[string]any{
		"startDateTime": "2026-03-23T00:00:00Z", "endDateTime": "2026-04-01T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{"primary"},
	}).Into(t, &busy)
	utc := func(s string) unical.EventDateTime { return unical.EventDateTime{DateTime: s, TimeZone: "UTC"} }
	wantBusy := []unical.FreeBusyResult{{CalendarID: "primary", BusySlots: []unical.BusySlot{
		{Start: utc("2026-03-23T13:00:00Z"), End: utc("2026-03-23T14:00:00Z")},
		{Start: utc("2026-03-25T09:00:00Z"), End: utc("2026-03-25T10:00:00Z")},
		{Start: utc("2026-03-30T12:00:00Z"), End: utc("2026-03-30T13:00:00Z")},
	}}}
	if d := cmp.Diff(wantBusy, busy); d != "" {
		t.Errorf("free/busy mismatch (-want +got):\n%s", d)
	}

	// Changes after the sync token: an update, an invitation the room
	// accepts, and the series deleted.
	st.Must(t, "PUT", base+"/"+url.PathEscape(single.ID), map[string]any{"title": "Board meeting (moved)"})
	expectChanged("update")
	var invite unical.Event
	st.Must(t, "POST", base, map[string]any{
		"title": "Offsite", "start": map[string]any{"dateTime": "2026-04-02T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-04-02T17:00:00Z"},
		"attendees": []map[string]any{{"email": "ada@example.com"}, {"email": roomEmail}},
	}).Into(t, &invite)
	expectChanged("create invitation")
	st.Must(t, "POST", base+"/"+url.PathEscape(invite.ID)+"/rsvp", map[string]any{"responseStatus": "accepted"})
	expectChanged("rsvp")
	var accepted unical.Event
	st.Must(t, "GET", base+"/"+url.PathEscape(invite.ID), nil).Into(t, &accepted)
	if accepted.MyResponseStatus != unical.ResponseAccepted || len(accepted.Attendees) != 2 || accepted.Attendees[1].ResponseStatus != unical.ResponseAccepted {
		t.Errorf("after RSVP: myResponseStatus %q, attendees %+v; want the room accepted", accepted.MyResponseStatus, accepted.Attendees)
	}
	st.Must(t, "DELETE", base+"/"+url.PathEscape(series.ID), nil)
	expectChanged("delete series")

	var changes unical.SyncPage[unical.Event]
	st.Must(t, "GET", base+"?syncToken="+url.QueryEscape(listed.NextSyncToken), nil).Into(t, &changes)
	type change struct {
		ID, Title string
		Cancelled bool
	}
	var gotChanges []change
	for _, e := range changes.Data {
		gotChanges = append(gotChanges, change{e.ID, e.Title, e.IsCancelled})
	}
	wantChanges := []change{{single.ID, "Board meeting (moved)", false}, {invite.ID, "Offsite", false}, {series.ID, "", true}}
	byID := func(c []change) { sort.Slice(c, func(i, j int) bool { return c[i].ID < c[j].ID }) }
	byID(gotChanges)
	byID(wantChanges)
	if d := cmp.Diff(wantChanges, gotChanges); d != "" {
		t.Errorf("changes since the sync token mismatch (-want +got):\n%s", d)
	}
	var none unical.SyncPage[unical.Event]
	st.Must(t, "GET", base+"?syncToken="+url.QueryEscape(changes.NextSyncToken), nil).Into(t, &none)
	if len(none.Data) != 0 || none.NextSyncToken == "" {
		t.Errorf("sync with the newest token = %d events (token %q), want none and a token", len(none.Data), none.NextSyncToken)
	}

	// Deleting the account deletes its calendars from the Store.
	st.Must(t, "DELETE", "/v1/endUserAccounts/"+acct.ID, nil)
	recs, err := st.Store.ListRecords(t.Context(), st.AppID, acct.ID, "virtual.calendars", "", "", 0)
	if err != nil || len(recs) != 0 {
		t.Errorf("records after the account's deletion = %d, %v; want none", len(recs), err)
	}
	if got := len(rcv.Deliveries()); got != seen {
		t.Errorf("the receiver got %d messages, want exactly one per write (%d)", got, seen)
	}
}

// TestVirtualE2E_Instances edits single occurrences of a VIRTUAL series
// over HTTP: one moved, one cancelled and one answered; the expanded
// listing, the occurrences, free/busy and reads of the instances all show
// the edits, and deleting the series takes its edited instances along.
func TestVirtualE2E_Instances(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": roomEmail, "providerType": "VIRTUAL"}).Into(t, &acct)
	base := "/v1/events/" + acct.ID + "/primary"
	var series unical.Event
	st.Must(t, "POST", base, map[string]any{
		"title": "Daily check", "start": map[string]any{"dateTime": "2026-06-01T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-06-01T09:30:00Z"},
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=4"},
		"attendees":  []map[string]any{{"email": "ada@example.com"}, {"email": roomEmail}},
	}).Into(t, &series)
	window := url.Values{"startDateTime": {"2026-06-01T00:00:00Z"}, "endDateTime": {"2026-06-08T00:00:00Z"}}
	type slot struct{ ID, Title, Start, Response string }
	list := func(path string, q url.Values) []slot {
		t.Helper()
		var page unical.SyncPage[unical.Event]
		st.Must(t, "GET", path+"?"+q.Encode(), nil).Into(t, &page)
		var out []slot
		for _, e := range page.Data {
			start, _, err := e.Interval()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, slot{e.ID, e.Title, start.UTC().Format(time.RFC3339), string(e.MyResponseStatus)})
		}
		return out
	}
	expanded := url.Values{"expandRecurrences": {"true"}, "orderBy": {"startTime"}}
	for k, v := range window {
		expanded[k] = v
	}
	before := list(base, expanded)
	if len(before) != 4 {
		t.Fatalf("expanded listing = %+v, want 4 instances", before)
	}
	moved, cancelled, answered := before[1].ID, before[2].ID, before[3].ID

	st.Must(t, "PUT", base+"/"+url.PathEscape(moved), map[string]any{
		"title": "Daily check (late)", "start": map[string]any{"dateTime": "2026-06-02T15:00:00Z"}, "end": map[string]any{"dateTime": "2026-06-02T15:30:00Z"},
	})
	st.Must(t, "DELETE", base+"/"+url.PathEscape(cancelled), nil)
	st.Must(t, "POST", base+"/"+url.PathEscape(answered)+"/rsvp", map[string]any{"responseStatus": "declined"})

	want := []slot{
		{before[0].ID, "Daily check", "2026-06-01T09:00:00Z", ""},
		{moved, "Daily check (late)", "2026-06-02T15:00:00Z", ""},
		{answered, "Daily check", "2026-06-04T09:00:00Z", "declined"},
	}
	if d := cmp.Diff(want, list(base, expanded)); d != "" {
		t.Errorf("expanded listing after the edits mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, list(base+"/"+url.PathEscape(series.ID)+"/occurrences", window)); d != "" {
		t.Errorf("occurrences after the edits mismatch (-want +got):\n%s", d)
	}
	var got unical.Event
	st.Must(t, "GET", base+"/"+url.PathEscape(moved), nil).Into(t, &got)
	if got.Title != "Daily check (late)" || got.RecurringEventID != series.ID || got.OriginalStart == nil {
		t.Errorf("GET moved instance = title %q, series %q, originalStart %v; want the edit, linked to %s", got.Title, got.RecurringEventID, got.OriginalStart, series.ID)
	}
	if r := st.Do(t, "GET", base+"/"+url.PathEscape(cancelled), nil); r.Status != http.StatusNotFound {
		t.Errorf("GET cancelled instance = %d, want 404", r.Status)
	}

	// Free/busy follows the edits; the declined instance blocks nothing.
	var busy []unical.FreeBusyResult
	st.Must(t, "POST", "/v1/freeBusy/"+acct.ID, map[string]any{
		"startDateTime": "2026-06-01T00:00:00Z", "endDateTime": "2026-06-08T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{"primary"},
	}).Into(t, &busy)
	utc := func(s string) unical.EventDateTime { return unical.EventDateTime{DateTime: s, TimeZone: "UTC"} }
	wantBusy := []unical.FreeBusyResult{{CalendarID: "primary", BusySlots: []unical.BusySlot{
		{Start: utc("2026-06-01T09:00:00Z"), End: utc("2026-06-01T09:30:00Z")},
		{Start: utc("2026-06-02T15:00:00Z"), End: utc("2026-06-02T15:30:00Z")},
	}}}
	if d := cmp.Diff(wantBusy, busy); d != "" {
		t.Errorf("free/busy after the edits mismatch (-want +got):\n%s", d)
	}

	st.Must(t, "DELETE", base+"/"+url.PathEscape(series.ID), nil)
	if left := list(base, expanded); len(left) != 0 {
		t.Errorf("expanded listing after deleting the series = %+v, want nothing", left)
	}
	if r := st.Do(t, "GET", base+"/"+url.PathEscape(moved), nil); r.Status != http.StatusNotFound {
		t.Errorf("GET moved instance of a deleted series = %d, want 404", r.Status)
	}
}
