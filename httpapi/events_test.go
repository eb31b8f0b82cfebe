package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// fullEvent sets every writable field the in-memory provider keeps.
func fullEvent(self string) map[string]any {
	return map[string]any{
		"title":                     "Planning",
		"description":               "Quarterly planning",
		"location":                  "Room 1",
		"start":                     map[string]any{"dateTime": "2026-03-02T09:00:00+01:00", "timeZone": "Europe/Berlin"},
		"end":                       map[string]any{"dateTime": "2026-03-02T10:00:00+01:00", "timeZone": "Europe/Berlin"},
		"isAllDay":                  false,
		"publicExtendedProperties":  map[string]any{"project": "apollo"},
		"privateExtendedProperties": map[string]any{"crmId": "42"},
		"colorId":                   "5",
		"customColor":               "#112233",
		"attendees":                 []any{map[string]any{"email": self, "name": "Me", "responseStatus": "needsAction"}, map[string]any{"email": "bob@example.com"}},
		"visibility":                "private",
		"transparency":              "opaque",
		"eventType":                 "default",
		"reminders":                 map[string]any{"useDefault": false, "overrides": []any{map[string]any{"method": "popup", "minutes": 10}}},
	}
}

var eventFields = sorted("id", "title", "description", "etag", "createdAt", "updatedAt", "start", "end", "isAllDay",
	"publicExtendedProperties", "privateExtendedProperties", "isRecurring", "isException", "isCancelled", "recurrence",
	"colorId", "customColor", "attendees", "visibility", "location", "iCalUid", "transparency", "eventType",
	"organizer", "creator", "reminders")

func TestEventEndpoints(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	cal := "primary/" + googleUser
	base := "/v1/events/" + acct + "/" + esc(cal)

	var created unical.Event
	t.Run("POST /v1/events/:account/:calendar", func(t *testing.T) {
		r := ts.must(t, "POST", base, fullEvent(googleUser))
		m := r.Object(t)
		checkKeys(t, "event", eventFields, m)
		r.Into(t, &created)
		if created.Recurrence != nil || m["recurrence"] != nil {
			t.Errorf("recurrence = %v, want null for a single event", m["recurrence"])
		}
		checkKeys(t, "attendee", sorted("email", "name", "responseStatus"), m["attendees"].([]any)[0].(map[string]any))
		checkKeys(t, "organizer", sorted("email", "isSelf"), m["organizer"].(map[string]any))
		checkKeys(t, "start", sorted("dateTime", "timeZone"), m["start"].(map[string]any))
	})
	t.Run("GET /v1/events/:account/:calendar/:event", func(t *testing.T) {
		m := ts.must(t, "GET", base+"/"+esc(created.ID), nil).Object(t)
		checkKeys(t, "event", eventFields, m)
		if m["id"] != created.ID {
			t.Errorf("id = %v, want %q", m["id"], created.ID)
		}
	})
	t.Run("PUT /v1/events/:account/:calendar/:event", func(t *testing.T) {
		var got unical.Event
		ts.must(t, "PUT", base+"/"+esc(created.ID), map[string]any{"title": "Planning v2", "description": nil}).Into(t, &got)
		if got.Title != "Planning v2" || got.Description != "" || got.Location != "Room 1" {
			t.Errorf("after PUT title=%q description=%q location=%q; want the title changed, description cleared, location kept", got.Title, got.Description, got.Location)
		}
	})
	t.Run("POST /v1/events/:account/:calendar/:event/rsvp", func(t *testing.T) {
		m := ts.must(t, "POST", base+"/"+esc(created.ID)+"/rsvp", map[string]any{"responseStatus": "accepted"}).Object(t)
		if diff := cmp.Diff(map[string]any{"success": true}, m); diff != "" {
			t.Errorf("rsvp answer mismatch (-want +got):\n%s", diff)
		}
		var got unical.Event
		ts.must(t, "GET", base+"/"+esc(created.ID), nil).Into(t, &got)
		if got.MyResponseStatus != unical.ResponseAccepted || got.Attendees[0].ResponseStatus != unical.ResponseAccepted {
			t.Errorf("after RSVP myResponseStatus=%q attendee=%q, want accepted", got.MyResponseStatus, got.Attendees[0].ResponseStatus)
		}
	})
	t.Run("GET /v1/events/:account/:calendar", func(t *testing.T) {
		m := ts.must(t, "GET", base+"?search=planning&timeZone=America/New_York", nil).Object(t)
		checkKeys(t, "sync list", sorted("data", "nextSyncToken"), m)
		data := m["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("events = %d, want 1", len(data))
		}
		start := data[0].(map[string]any)["start"].(map[string]any)
		want := map[string]any{"dateTime": "2026-03-02T03:00:00-05:00", "timeZone": "America/New_York"}
		if diff := cmp.Diff(want, start); diff != "" {
			t.Errorf("start shown in timeZone mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("DELETE /v1/events/:account/:calendar/:event", func(t *testing.T) {
		m := ts.must(t, "DELETE", base+"/"+esc(created.ID), nil).Object(t)
		if diff := cmp.Diff(map[string]any{"success": true}, m); diff != "" {
			t.Errorf("delete answer mismatch (-want +got):\n%s", diff)
		}
		if r := ts.do(t, "GET", base+"/"+esc(created.ID), nil); r.Status != http.StatusNotFound {
			t.Errorf("GET after delete = %d, want 404", r.Status)
		}
	})
}

func TestOccurrences(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	base := "/v1/events/" + acct + "/" + esc("primary/"+googleUser)
	var series unical.Event
	ts.must(t, "POST", base, map[string]any{
		"title": "Standup", "start": map[string]any{"dateTime": "2026-01-05T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-01-05T09:15:00Z"},
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=10"},
	}).Into(t, &series)
	if !series.IsRecurring {
		t.Fatalf("series isRecurring = false")
	}
	window := "startDateTime=2026-01-06T00:00:00Z&endDateTime=2026-01-09T00:00:00Z"

	t.Run("GET .../occurrences", func(t *testing.T) {
		m := ts.must(t, "GET", base+"/"+esc(series.ID)+"/occurrences?"+window, nil).Object(t)
		checkKeys(t, "sync list", sorted("data", "nextSyncToken"), m)
		var got []map[string]any
		for _, o := range m["data"].([]any) {
			e := o.(map[string]any)
			got = append(got, map[string]any{"isRecurring": e["isRecurring"], "isException": e["isException"],
				"recurringEventId": e["recurringEventId"], "originalStart": e["originalStart"].(map[string]any)["dateTime"]})
		}
		var want []map[string]any
		for _, day := range []string{"06", "07", "08"} {
			want = append(want, map[string]any{"isRecurring": false, "isException": true, "recurringEventId": series.ID,
				"originalStart": "2026-01-" + day + "T09:00:00Z"})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("occurrences mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("GET events expandRecurrences orderBy", func(t *testing.T) {
		var page unical.SyncPage[unical.Event]
		ts.must(t, "GET", base+"?expandRecurrences=true&orderBy=startTime&"+window, nil).Into(t, &page)
		if len(page.Data) != 3 || page.Data[0].Start.DateTime != "2026-01-06T09:00:00Z" || page.Data[2].Start.DateTime != "2026-01-08T09:00:00Z" {
			t.Errorf("expanded events = %+v, want three ordered instances", page.Data)
		}
	})
	t.Run("paging", func(t *testing.T) {
		var ids []string
		path := base + "?expandRecurrences=true&orderBy=startTime&limit=2&" + window
		for range 5 {
			var page unical.SyncPage[unical.Event]
			ts.must(t, "GET", path, nil).Into(t, &page)
			for _, e := range page.Data {
				ids = append(ids, e.ID)
			}
			if page.NextPageToken == "" {
				if page.NextSyncToken == "" {
					t.Error("last page has no nextSyncToken")
				}
				break
			}
			if page.NextSyncToken != "" {
				t.Error("a page with nextPageToken also has nextSyncToken")
			}
			path = base + "?limit=2&pageToken=" + url.QueryEscape(page.NextPageToken)
		}
		if len(ids) != 3 {
			t.Errorf("paged instances = %v, want 3", ids)
		}
	})
}

func TestEventSync(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	base := "/v1/events/" + acct + "/" + esc("primary/"+googleUser)
	event := func(title string) map[string]any {
		return map[string]any{"title": title, "start": map[string]any{"dateTime": "2026-02-01T10:00:00Z"}, "end": map[string]any{"dateTime": "2026-02-01T11:00:00Z"}}
	}
	var a, b unical.Event
	ts.must(t, "POST", base, event("A")).Into(t, &a)
	var first unical.SyncPage[unical.Event]
	ts.must(t, "GET", base, nil).Into(t, &first)

	ts.must(t, "POST", base, event("B")).Into(t, &b)
	ts.must(t, "PUT", base+"/"+esc(a.ID), map[string]any{"title": "A2"})
	var second unical.SyncPage[unical.Event]
	ts.must(t, "GET", base+"?syncToken="+url.QueryEscape(first.NextSyncToken), nil).Into(t, &second)
	titles := map[string]string{}
	for _, e := range second.Data {
		titles[e.ID] = e.Title
	}
	if diff := cmp.Diff(map[string]string{a.ID: "A2", b.ID: "B"}, titles); diff != "" {
		t.Errorf("sync after create+update mismatch (-want +got):\n%s", diff)
	}

	ts.must(t, "DELETE", base+"/"+esc(b.ID), nil)
	var third unical.SyncPage[unical.Event]
	ts.must(t, "GET", base+"?syncToken="+url.QueryEscape(second.NextSyncToken), nil).Into(t, &third)
	if len(third.Data) != 1 || third.Data[0].ID != b.ID || !third.Data[0].IsCancelled {
		t.Errorf("sync after delete = %+v, want only B with isCancelled", third.Data)
	}

	// A cursor the provider dropped is a 410 that says to sync again.
	ts.Providers[unical.ProviderGoogle].ExpireSyncCursors()
	r := ts.do(t, "GET", base+"?syncToken="+url.QueryEscape(third.NextSyncToken), nil)
	if r.Status != http.StatusGone || r.Object(t)["error"].(map[string]any)["code"] != "sync_token_expired" {
		t.Errorf("expired sync token = %d %s, want 410 sync_token_expired", r.Status, r.Body)
	}
}

func TestFreeBusy(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	cal := "primary/" + googleUser
	base := "/v1/events/" + acct + "/" + esc(cal)
	add := func(title, start, end string, extra map[string]any) {
		body := map[string]any{"title": title, "start": map[string]any{"dateTime": start}, "end": map[string]any{"dateTime": end}}
		for k, v := range extra {
			body[k] = v
		}
		ts.must(t, "POST", base, body)
	}
	add("a", "2026-04-01T09:00:00Z", "2026-04-01T10:00:00Z", nil)
	add("b", "2026-04-01T09:30:00Z", "2026-04-01T11:00:00Z", nil)                                              // overlaps a
	add("free", "2026-04-01T13:00:00Z", "2026-04-01T14:00:00Z", map[string]any{"transparency": "transparent"}) // never busy
	add("daily", "2026-04-01T15:00:00Z", "2026-04-01T15:30:00Z", map[string]any{"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=3"}})

	r := ts.must(t, "POST", "/v1/freeBusy/"+acct, map[string]any{
		"startDateTime": "2026-04-01T00:00:00Z", "endDateTime": "2026-04-03T00:00:00Z", "timeZone": "Europe/Berlin", "calendarIds": []string{cal},
	})
	var got []unical.FreeBusyResult
	r.Into(t, &got)
	slot := func(s, e string) unical.BusySlot {
		return unical.BusySlot{Start: unical.EventDateTime{DateTime: s, TimeZone: "Europe/Berlin"}, End: unical.EventDateTime{DateTime: e, TimeZone: "Europe/Berlin"}}
	}
	want := []unical.FreeBusyResult{{CalendarID: cal, BusySlots: []unical.BusySlot{
		slot("2026-04-01T11:00:00+02:00", "2026-04-01T13:00:00+02:00"),
		slot("2026-04-01T17:00:00+02:00", "2026-04-01T17:30:00+02:00"),
		slot("2026-04-02T17:00:00+02:00", "2026-04-02T17:30:00+02:00"),
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("free/busy mismatch (-want +got):\n%s", diff)
	}
	checkKeys(t, "free/busy result", sorted("calendarId", "busySlots"), r.JSON(t).([]any)[0].(map[string]any))
}

func TestSubscriptionEndpoints(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	base := "/v1/calendarSubscriptions/" + acct
	var created map[string]any
	t.Run("POST /v1/calendarSubscriptions/:account", func(t *testing.T) {
		created = ts.must(t, "POST", base, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": "https://hooks.example.com/cal", "rateLimit": 5}).Object(t)
		checkKeys(t, "subscription create answer", sorted("webhookSubscriptionId", "endpointSecret"), created)
		if s, _ := created["endpointSecret"].(string); len(s) < 20 || s[:6] != "whsec_" {
			t.Errorf("endpointSecret = %q, want whsec_...", s)
		}
	})
	t.Run("GET /v1/calendarSubscriptions/:account", func(t *testing.T) {
		m := ts.must(t, "GET", base+"?limit=10", nil).Object(t)
		checkKeys(t, "paginated list", sorted("data", "nextPageToken"), m)
		data := m["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("subscriptions = %d, want 1", len(data))
		}
		sub := data[0].(map[string]any)
		checkKeys(t, "subscription", subscriptionField, sub)
		if sub["id"] != created["webhookSubscriptionId"] || sub["provider"] != "PROVIDER_A" || sub["endUserAccountId"] != acct {
			t.Errorf("subscription = %v", sub)
		}
	})
	t.Run("DELETE /v1/calendarSubscriptions/:account", func(t *testing.T) {
		m := ts.must(t, "DELETE", base, map[string]any{"subscriptionId": created["webhookSubscriptionId"]}).Object(t)
		if diff := cmp.Diff(map[string]any{"success": true}, m); diff != "" {
			t.Errorf("delete answer mismatch (-want +got):\n%s", diff)
		}
		if data := ts.must(t, "GET", base, nil).Object(t)["data"].([]any); len(data) != 0 {
			t.Errorf("subscriptions after delete = %d, want 0", len(data))
		}
	})
}
