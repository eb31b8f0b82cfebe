package googletest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/googletest"
)

func eventsURL(f *fixture, calendarID string, q url.Values) string {
	u := f.srv.APIBaseURL() + "/calendars/" + url.PathEscape(calendarID) + "/events"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// listAll pages through an events list and returns the items and the
// final nextSyncToken, checking that every page carries nextPageToken XOR
// nextSyncToken.
func listAll(tb testing.TB, f *fixture, calendarID string, q url.Values) ([]map[string]any, string, int) {
	tb.Helper()
	var all []map[string]any
	pages := 0
	for range 100 {
		r := call(tb, "GET", eventsURL(f, calendarID, q), f.token, nil)
		if r.status != http.StatusOK {
			tb.Fatalf("list: %d %s", r.status, r.raw)
		}
		pages++
		all = append(all, items(tb, r)...)
		next, sync := str(r.body, "nextPageToken"), str(r.body, "nextSyncToken")
		if (next == "") == (sync == "") {
			tb.Fatalf("page %d has nextPageToken=%q nextSyncToken=%q: want exactly one", pages, next, sync)
		}
		if sync != "" {
			return all, sync, pages
		}
		q = cloneValues(q)
		q.Set("pageToken", next)
	}
	tb.Fatalf("paging did not end")
	return nil, "", 0
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func ids(its []map[string]any) []string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = str(it, "id")
	}
	return out
}

func TestEventsList_Paging(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	var want []string
	for i := range 5 {
		ev := MustInsertEvent(t, f, "primary", timed("e"+itoa(i), "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
		want = append(want, str(ev, "id"))
	}
	got, _, pages := listAll(t, f, "primary", url.Values{"maxResults": {"2"}})
	if pages != 3 {
		t.Errorf("pages = %d, want 3", pages)
	}
	if diff := cmp.Diff(want, ids(got)); diff != "" {
		t.Errorf("ids mismatch (-want +got):\n%s", diff)
	}

	r := call(t, "GET", eventsURL(f, "primary", url.Values{"maxResults": {"2"}}), f.token, nil)
	env := map[string]any{"kind": r.body["kind"], "accessRole": r.body["accessRole"], "timeZone": r.body["timeZone"], "summary": r.body["summary"]}
	wantEnv := map[string]any{"kind": "calendar#events", "accessRole": "owner", "timeZone": "Europe/Berlin", "summary": aliceEmail}
	if diff := cmp.Diff(wantEnv, env); diff != "" {
		t.Errorf("envelope mismatch (-want +got):\n%s", diff)
	}

	t.Run("ErrPageTokenWithOtherQuery", func(t *testing.T) {
		q := url.Values{"pageToken": {str(r.body, "nextPageToken")}, "q": {"other"}}
		if code, _ := errorReason(t, call(t, "GET", eventsURL(f, "primary", q), f.token, nil)); code != 400 {
			t.Fatalf("status = %d, want 400", code)
		}
	})
}

func TestEventsList_IncrementalSync(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	keep := MustInsertEvent(t, f, "primary", timed("keep", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	upd := MustInsertEvent(t, f, "primary", timed("before", "2025-01-08T10:00:00Z", "2025-01-08T11:00:00Z"))
	del := MustInsertEvent(t, f, "primary", timed("doomed", "2025-01-09T10:00:00Z", "2025-01-09T11:00:00Z"))

	// A windowed full sync still yields a sync token.
	full, tok, _ := listAll(t, f, "primary", url.Values{"timeMin": {"2025-01-01T00:00:00Z"}, "maxResults": {"2"}})
	if len(full) != 3 {
		t.Fatalf("full sync returned %d items, want 3", len(full))
	}

	created := MustInsertEvent(t, f, "primary", timed("new", "2025-01-10T10:00:00Z", "2025-01-10T11:00:00Z"))
	if r := call(t, "PATCH", eventsURL(f, "primary", nil)+"/"+str(upd, "id"), f.token, map[string]any{"summary": "after"}); r.status != 200 {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	if r := call(t, "DELETE", eventsURL(f, "primary", nil)+"/"+str(del, "id"), f.token, nil); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}

	// Page the incremental sync with syncToken+pageToken, as the guide does.
	changes, tok2, _ := listAll(t, f, "primary", url.Values{"syncToken": {tok}, "maxResults": {"1"}})
	got := map[string]map[string]any{}
	for _, it := range changes {
		if _, dup := got[str(it, "id")]; dup {
			t.Errorf("item %s returned twice", str(it, "id"))
		}
		got[str(it, "id")] = it
	}
	if len(got) != 3 || got[str(keep, "id")] != nil {
		t.Fatalf("incremental ids = %v, want exactly the created, updated and deleted events", ids(changes))
	}
	if s := str(got[str(created, "id")], "summary"); s != "new" {
		t.Errorf("created event summary = %q", s)
	}
	if s := str(got[str(upd, "id")], "summary"); s != "after" {
		t.Errorf("updated event summary = %q", s)
	}
	// A deleted event is a cancelled tombstone; only id is guaranteed.
	tomb := got[str(del, "id")]
	wantTomb := map[string]any{"kind": "calendar#event", "id": str(del, "id"), "status": "cancelled", "etag": tomb["etag"]}
	if diff := cmp.Diff(wantTomb, tomb); diff != "" {
		t.Errorf("tombstone mismatch (-want +got):\n%s", diff)
	}

	again, _, _ := listAll(t, f, "primary", url.Values{"syncToken": {tok2}})
	if len(again) != 0 {
		t.Errorf("second incremental sync returned %v, want nothing", ids(again))
	}
}

func TestEventsList_SyncTokenExpired(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	_, tok, _ := listAll(t, f, "primary", nil)
	f.srv.ExpireSyncTokens()
	r := call(t, "GET", eventsURL(f, "primary", url.Values{"syncToken": {tok}}), f.token, nil)
	// The body the errors guide shows for 410 fullSyncRequired.
	want := map[string]any{"error": map[string]any{
		"errors": []any{map[string]any{
			"domain": "calendar", "reason": "fullSyncRequired",
			"message":      "Sync token is no longer valid, a full sync is required.",
			"locationType": "parameter", "location": "syncToken",
		}},
		"code":    float64(410),
		"message": "Sync token is no longer valid, a full sync is required.",
	}}
	if diff := cmp.Diff(want, r.body); diff != "" || r.status != http.StatusGone {
		t.Fatalf("expired token: status %d, body mismatch (-want +got):\n%s", r.status, diff)
	}
	if code, reason := errorReason(t, call(t, "GET", eventsURL(f, "primary", url.Values{"syncToken": {"garbage"}}), f.token, nil)); code != 410 || reason != "fullSyncRequired" {
		t.Errorf("unknown token: %d %s, want 410 fullSyncRequired", code, reason)
	}
	// A fresh full sync works again.
	_, tok2, _ := listAll(t, f, "primary", nil)
	if r := call(t, "GET", eventsURL(f, "primary", url.Values{"syncToken": {tok2}}), f.token, nil); r.status != 200 {
		t.Errorf("new token after expiry: %d %s", r.status, r.raw)
	}
	// The change history before the expiry is gone too: updatedMin earlier
	// than it gets the errors guide's other 410, a later one works.
	r = call(t, "GET", eventsURL(f, "primary", url.Values{"updatedMin": {"2025-01-06T08:00:00Z"}}), f.token, nil)
	want = map[string]any{"error": map[string]any{
		"errors": []any{map[string]any{
			"domain": "calendar", "reason": "updatedMinTooLongAgo",
			"message":      "The requested minimum modification time lies too far in the past.",
			"locationType": "parameter", "location": "updatedMin",
		}},
		"code":    float64(410),
		"message": "The requested minimum modification time lies too far in the past.",
	}}
	if diff := cmp.Diff(want, r.body); diff != "" || r.status != http.StatusGone {
		t.Errorf("old updatedMin: status %d, body mismatch (-want +got):\n%s", r.status, diff)
	}
	if r := call(t, "GET", eventsURL(f, "primary", url.Values{"updatedMin": {"2025-01-06T09:00:00Z"}}), f.token, nil); r.status != 200 {
		t.Errorf("recent updatedMin: %d %s", r.status, r.raw)
	}
}

func TestEventsList_SyncTokenParameterRestrictions(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	_, tok, _ := listAll(t, f, "primary", url.Values{"singleEvents": {"true"}})
	tests := []struct {
		name, key, value string
		wantStatus       int
	}{
		{"ErrICalUID", "iCalUID", "x@google.com", 400},
		{"ErrOrderBy", "orderBy", "updated", 400},
		{"ErrPrivateExtendedProperty", "privateExtendedProperty", "a=b", 400},
		{"ErrQ", "q", "x", 400},
		{"ErrSharedExtendedProperty", "sharedExtendedProperty", "a=b", 400},
		{"ErrTimeMin", "timeMin", "2025-01-01T00:00:00Z", 400},
		{"ErrTimeMax", "timeMax", "2025-01-01T00:00:00Z", 400},
		{"ErrUpdatedMin", "updatedMin", "2025-01-01T00:00:00Z", 400},
		{"ErrShowDeletedFalse", "showDeleted", "false", 400},
		{"OKSingleEvents", "singleEvents", "true", 200},
		{"OKShowDeletedTrue", "showDeleted", "true", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{"syncToken": {tok}, tc.key: {tc.value}}
			r := call(t, "GET", eventsURL(f, "primary", q), f.token, nil)
			if r.status != tc.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", r.status, tc.wantStatus, r.raw)
			}
			if tc.wantStatus == 400 {
				if _, reason := errorReason(t, r); reason != "syncTokenWithRequestRestrictions" {
					t.Errorf("reason = %q, want syncTokenWithRequestRestrictions", reason)
				}
			}
		})
	}
}

func TestEventsList_OrderingAndFilters(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	late := MustInsertEvent(t, f, "primary", timed("Late standup", "2025-01-08T10:00:00Z", "2025-01-08T11:00:00Z"))
	early := MustInsertEvent(t, f, "primary", timed("Early review", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	tagged := timed("Tagged", "2025-01-09T10:00:00Z", "2025-01-09T11:00:00Z")
	tagged["extendedProperties"] = map[string]any{"private": map[string]any{"app": "unical", "k": "v"}, "shared": map[string]any{"s": "1"}}
	tag := MustInsertEvent(t, f, "primary", tagged)

	tests := []struct {
		name    string
		q       url.Values
		want    []string
		wantErr string
	}{
		{name: "OrderByStartTime", q: url.Values{"singleEvents": {"true"}, "orderBy": {"startTime"}}, want: []string{str(early, "id"), str(late, "id"), str(tag, "id")}},
		{name: "ErrOrderByStartTimeWithoutSingleEvents", q: url.Values{"orderBy": {"startTime"}}, wantErr: "badRequest"},
		{name: "TimeMaxExclusiveOnStart", q: url.Values{"timeMax": {"2025-01-08T10:00:00Z"}}, want: []string{str(early, "id")}},
		{name: "TimeMinExclusiveOnEnd", q: url.Values{"timeMin": {"2025-01-08T11:00:00Z"}}, want: []string{str(tag, "id")}},
		{name: "ErrTimeRangeEmpty", q: url.Values{"timeMin": {"2025-01-08T00:00:00Z"}, "timeMax": {"2025-01-08T00:00:00Z"}}, wantErr: "timeRangeEmpty"},
		{name: "ErrTimeMinWithoutOffset", q: url.Values{"timeMin": {"2025-01-08T00:00:00"}}, wantErr: "invalid"},
		{name: "Q", q: url.Values{"q": {"STANDUP"}}, want: []string{str(late, "id")}},
		{name: "PrivateExtendedPropertyAND", q: url.Values{"privateExtendedProperty": {"app=unical", "k=v"}}, want: []string{str(tag, "id")}},
		{name: "PrivateExtendedPropertyNoMatch", q: url.Values{"privateExtendedProperty": {"app=unical", "k=other"}}, want: []string{}},
		{name: "SharedExtendedProperty", q: url.Values{"sharedExtendedProperty": {"s=1"}}, want: []string{str(tag, "id")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, "GET", eventsURL(f, "primary", tc.q), f.token, nil)
			if tc.wantErr != "" {
				if code, reason := errorReason(t, r); code != 400 || reason != tc.wantErr {
					t.Fatalf("got %d %s, want 400 %s", code, reason, tc.wantErr)
				}
				return
			}
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.raw)
			}
			got := ids(items(t, r))
			if tc.q.Get("orderBy") == "" {
				sort.Strings(got)
				sort.Strings(tc.want)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ids mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEventsList_TimeZoneRendering(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	ev := MustInsertEvent(t, f, "primary", map[string]any{
		"summary": "tz",
		"start":   map[string]any{"dateTime": "2025-01-07T10:00:00", "timeZone": "America/New_York"},
		"end":     map[string]any{"dateTime": "2025-01-07T11:00:00", "timeZone": "America/New_York"},
	})
	// Default: the calendar's zone (alice: Europe/Berlin).
	want := map[string]any{"dateTime": "2025-01-07T16:00:00+01:00", "timeZone": "America/New_York"}
	if diff := cmp.Diff(want, ev["start"]); diff != "" {
		t.Errorf("start mismatch (-want +got):\n%s", diff)
	}
	r := call(t, "GET", eventsURL(f, "primary", url.Values{"timeZone": {"UTC"}})+"", f.token, nil)
	want["dateTime"] = "2025-01-07T15:00:00Z"
	if diff := cmp.Diff(want, items(t, r)[0]["start"]); diff != "" {
		t.Errorf("start with timeZone=UTC mismatch (-want +got):\n%s", diff)
	}
	t.Run("ErrMissingTimeZone", func(t *testing.T) {
		r := call(t, "POST", eventsURL(f, "primary", nil), f.token, timed("x", "2025-01-07T10:00:00", "2025-01-07T11:00:00"))
		if code, _ := errorReason(t, r); code != 400 {
			t.Fatalf("status = %d, want 400", code)
		}
	})
}

func TestEvents_WriteSemantics(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	body := timed("Planning", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z")
	body["attendees"] = []any{map[string]any{"email": aliceEmail}, map[string]any{"email": bobEmail}}
	body["extendedProperties"] = map[string]any{"private": map[string]any{"a": "1", "b": "2"}}
	ev := MustInsertEvent(t, f, "primary", body)
	id := str(ev, "id")
	evURL := eventsURL(f, "primary", nil) + "/" + id

	// Read-only fields Google fills in on insert.
	for _, k := range []string{"etag", "htmlLink", "created", "updated", "iCalUID"} {
		if str(ev, k) == "" {
			t.Errorf("inserted event has no %s", k)
		}
	}
	wantPeople := map[string]any{
		"organizer": map[string]any{"email": aliceEmail, "displayName": "Alice", "self": true},
		"creator":   map[string]any{"email": aliceEmail, "displayName": "Alice", "self": true},
		"attendees": []any{
			map[string]any{"email": aliceEmail, "self": true, "organizer": true, "responseStatus": "needsAction"},
			map[string]any{"email": bobEmail, "responseStatus": "needsAction"},
		},
		"status": "confirmed", "sequence": float64(0), "eventType": "default",
	}
	gotPeople := map[string]any{
		"organizer": ev["organizer"], "creator": ev["creator"], "attendees": ev["attendees"],
		"status": ev["status"], "sequence": ev["sequence"], "eventType": ev["eventType"],
	}
	if diff := cmp.Diff(wantPeople, gotPeople); diff != "" {
		t.Errorf("inserted event mismatch (-want +got):\n%s", diff)
	}

	// PATCH merges objects, clears with null, replaces arrays, bumps etag.
	r := call(t, "PATCH", evURL, f.token, map[string]any{
		"extendedProperties": map[string]any{"private": map[string]any{"a": nil, "c": "3"}},
		"description":        "agenda",
	})
	if r.status != 200 {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	if diff := cmp.Diff(map[string]any{"private": map[string]any{"b": "2", "c": "3"}}, r.body["extendedProperties"]); diff != "" {
		t.Errorf("extendedProperties after patch (-want +got):\n%s", diff)
	}
	if str(r.body, "etag") == str(ev, "etag") {
		t.Errorf("etag did not change on write")
	}
	if r.body["sequence"] != float64(0) {
		t.Errorf("sequence = %v after a non-time change, want 0", r.body["sequence"])
	}
	etag1 := str(r.body, "etag")

	t.Run("ErrIfMatchStale", func(t *testing.T) {
		r := call(t, "PATCH", evURL, f.token, map[string]any{"summary": "x"}, "If-Match", str(ev, "etag"))
		if code, reason := errorReason(t, r); code != 412 || reason != "conditionNotMet" {
			t.Fatalf("got %d %s, want 412 conditionNotMet", code, reason)
		}
	})
	t.Run("IfNoneMatch", func(t *testing.T) {
		if r := call(t, "GET", evURL, f.token, nil, "If-None-Match", etag1); r.status != http.StatusNotModified {
			t.Fatalf("status = %d, want 304", r.status)
		}
	})

	// Moving the event is a significant change: sequence grows.
	r = call(t, "PATCH", evURL, f.token, map[string]any{"start": map[string]any{"dateTime": "2025-01-07T09:00:00Z"}}, "If-Match", etag1)
	if r.status != 200 || r.body["sequence"] != float64(1) {
		t.Fatalf("move: %d sequence=%v %s", r.status, r.body["sequence"], r.raw)
	}

	// RSVP as an attendee with attendeesOmitted.
	r = call(t, "PATCH", evURL, f.token, map[string]any{
		"attendeesOmitted": true,
		"attendees":        []any{map[string]any{"email": aliceEmail, "responseStatus": "accepted"}},
	})
	atts, _ := r.body["attendees"].([]any)
	if len(atts) != 2 || str(atts[0].(map[string]any), "responseStatus") != "accepted" || str(atts[1].(map[string]any), "responseStatus") != "needsAction" {
		t.Fatalf("attendees after RSVP = %v", r.body["attendees"])
	}

	// PUT replaces: fields left out are cleared.
	r = call(t, "PUT", evURL, f.token, timed("Replaced", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	if r.status != 200 || r.body["description"] != nil || r.body["attendees"] != nil || str(r.body, "id") != id {
		t.Fatalf("PUT result = %d %s", r.status, r.raw)
	}
	t.Run("ErrPutWithoutEnd", func(t *testing.T) {
		r := call(t, "PUT", evURL, f.token, map[string]any{"summary": "x", "start": map[string]any{"date": "2025-01-07"}})
		if code, reason := errorReason(t, r); code != 400 || reason != "required" {
			t.Fatalf("got %d %s, want 400 required", code, reason)
		}
	})

	// Delete, then delete again: 410 deleted. Get still returns it.
	if r := call(t, "DELETE", evURL, f.token, nil); r.status != 204 || len(r.raw) != 0 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if code, reason := errorReason(t, call(t, "DELETE", evURL, f.token, nil)); code != 410 || reason != "deleted" {
		t.Fatalf("second delete: %d %s, want 410 deleted", code, reason)
	}
	if r := call(t, "GET", evURL, f.token, nil); r.status != 200 || str(r.body, "status") != "cancelled" {
		t.Fatalf("get deleted: %d %s", r.status, r.raw)
	}
	t.Run("ErrDuplicateID", func(t *testing.T) {
		b := timed("dup", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z")
		b["id"] = id
		if code, reason := errorReason(t, call(t, "POST", eventsURL(f, "primary", nil), f.token, b)); code != 409 || reason != "duplicate" {
			t.Fatalf("got %d %s, want 409 duplicate", code, reason)
		}
	})
	t.Run("ErrInvalidClientID", func(t *testing.T) {
		b := timed("bad", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z")
		b["id"] = "UPPER_case"
		if code, _ := errorReason(t, call(t, "POST", eventsURL(f, "primary", nil), f.token, b)); code != 400 {
			t.Fatalf("status = %d, want 400", code)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if code, reason := errorReason(t, call(t, "GET", eventsURL(f, "primary", nil)+"/nosuchevent", f.token, nil)); code != 404 || reason != "notFound" {
			t.Fatalf("got %d %s, want 404 notFound", code, reason)
		}
	})
}

func TestEvents_ConferenceCreateRequest(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	body := timed("Meet", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z")
	body["conferenceData"] = map[string]any{"createRequest": map[string]any{
		"requestId": "req-1", "conferenceSolutionKey": map[string]any{"type": "hangoutsMeet"},
	}}

	t.Run("IgnoredWithoutVersion", func(t *testing.T) {
		ev := MustInsertEvent(t, f, "primary", body)
		if ev["conferenceData"] != nil || ev["hangoutLink"] != nil {
			t.Fatalf("conference created without conferenceDataVersion=1: %v", ev["conferenceData"])
		}
	})

	r := call(t, "POST", eventsURL(f, "primary", url.Values{"conferenceDataVersion": {"1"}}), f.token, body)
	if r.status != 200 {
		t.Fatalf("insert: %d %s", r.status, r.raw)
	}
	cd, _ := r.body["conferenceData"].(map[string]any)
	link := str(r.body, "hangoutLink")
	if !strings.HasPrefix(link, "https://meet.google.com/") {
		t.Fatalf("hangoutLink = %q", link)
	}
	code := strings.TrimPrefix(link, "https://meet.google.com/")
	want := map[string]any{
		"conferenceId": code,
		"conferenceSolution": map[string]any{
			"key": map[string]any{"type": "hangoutsMeet"}, "name": "Google Meet", "iconUri": str(cd, "conferenceSolution", "iconUri"),
		},
		"createRequest": map[string]any{
			"requestId":             "req-1",
			"conferenceSolutionKey": map[string]any{"type": "hangoutsMeet"},
			"status":                map[string]any{"statusCode": "success"},
		},
		"entryPoints": []any{map[string]any{"entryPointType": "video", "uri": link, "label": "meet.google.com/" + code}},
	}
	if diff := cmp.Diff(want, cd); diff != "" {
		t.Errorf("conferenceData mismatch (-want +got):\n%s", diff)
	}

	// Repeating the requestId does not create another conference.
	evURL := eventsURL(f, "primary", nil) + "/" + str(r.body, "id") + "?conferenceDataVersion=1"
	r2 := call(t, "PATCH", evURL, f.token, map[string]any{"conferenceData": map[string]any{"createRequest": map[string]any{
		"requestId": "req-1", "conferenceSolutionKey": map[string]any{"type": "hangoutsMeet"},
	}}})
	if str(r2.body, "hangoutLink") != link {
		t.Errorf("repeated requestId changed the link: %s", r2.raw)
	}

	t.Run("ErrSolutionNotAllowed", func(t *testing.T) {
		b := timed("x", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z")
		b["conferenceData"] = map[string]any{"createRequest": map[string]any{"requestId": "r2", "conferenceSolutionKey": map[string]any{"type": "eventHangout"}}}
		if code, _ := errorReason(t, call(t, "POST", eventsURL(f, "primary", url.Values{"conferenceDataVersion": {"1"}}), f.token, b)); code != 400 {
			t.Fatalf("status = %d, want 400", code)
		}
	})
}

// Conference creation is asynchronous at Google (ConferenceData reference:
// "generated asynchronously", statusCode "pending" until the entry points
// are populated). With SetConferencePending the fake answers the write with
// a pending request and completes it after the given number of reads.
func TestEvents_ConferenceCreatePending(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	f.srv.SetConferencePending(2)
	body := timed("Meet", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z")
	body["conferenceData"] = map[string]any{"createRequest": map[string]any{
		"requestId": "req-p", "conferenceSolutionKey": map[string]any{"type": "hangoutsMeet"},
	}}
	r := call(t, "POST", eventsURL(f, "primary", url.Values{"conferenceDataVersion": {"1"}}), f.token, body)
	if r.status != 200 {
		t.Fatalf("insert: %d %s", r.status, r.raw)
	}
	pending := map[string]any{"createRequest": map[string]any{
		"requestId":             "req-p",
		"conferenceSolutionKey": map[string]any{"type": "hangoutsMeet"},
		"status":                map[string]any{"statusCode": "pending"},
	}}
	if diff := cmp.Diff(pending, r.body["conferenceData"]); diff != "" || r.body["hangoutLink"] != nil {
		t.Fatalf("insert answer: hangoutLink %v, conferenceData mismatch (-want +got):\n%s", r.body["hangoutLink"], diff)
	}
	_, tok, _ := listAll(t, f, "primary", nil)
	evURL := eventsURL(f, "primary", nil) + "/" + str(r.body, "id")
	first := call(t, "GET", evURL, f.token, nil)
	if diff := cmp.Diff(pending, first.body["conferenceData"]); diff != "" {
		t.Fatalf("first read: conferenceData mismatch (-want +got):\n%s", diff)
	}
	second := call(t, "GET", evURL, f.token, nil)
	if got := str(second.body, "conferenceData", "createRequest", "status", "statusCode"); got != "success" {
		t.Fatalf("second read: statusCode %q, want success (%s)", got, second.raw)
	}
	if link := str(second.body, "hangoutLink"); !strings.HasPrefix(link, "https://meet.google.com/") {
		t.Fatalf("second read: hangoutLink %q", link)
	}
	if str(second.body, "etag") == str(first.body, "etag") {
		t.Errorf("completing the conference kept etag %s", str(first.body, "etag"))
	}
	changed, _, _ := listAll(t, f, "primary", url.Values{"syncToken": {tok}})
	if len(changed) != 1 || str(changed[0], "conferenceData", "createRequest", "status", "statusCode") != "success" {
		t.Errorf("incremental sync after completion: %v", changed)
	}
}

// With SetShortPages, pages before the last are short or empty, and only
// nextPageToken tells that more follow (events.list, maxResults).
func TestEventsList_ShortPages(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	f.srv.SetShortPages(true)
	for i := range 5 {
		MustInsertEvent(t, f, "primary", timed(fmt.Sprintf("e%d", i), "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	}
	var sizes []int
	var all []string
	q := url.Values{"maxResults": {"1"}}
	for range 20 {
		r := call(t, "GET", eventsURL(f, "primary", q), f.token, nil)
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.raw)
		}
		items, _ := r.body["items"].([]any)
		sizes = append(sizes, len(items))
		for _, it := range items {
			all = append(all, str(it.(map[string]any), "summary"))
		}
		next := str(r.body, "nextPageToken")
		if next == "" {
			if str(r.body, "nextSyncToken") == "" {
				t.Error("last page without nextSyncToken")
			}
			break
		}
		if str(r.body, "nextSyncToken") != "" {
			t.Error("nextSyncToken before the last page")
		}
		q.Set("pageToken", next)
	}
	if diff := cmp.Diff([]string{"e0", "e1", "e2", "e3", "e4"}, all); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if !slices.Contains(sizes, 0) {
		t.Errorf("page sizes %v, want some empty pages", sizes)
	}
}

// Only the organizer may set the shared properties; a PUT in an attendee's
// copy that leaves them out resets them to their defaults and is refused
// (errors guide, "403: Forbidden for non-organizer"). PATCH is fine.
func TestEvents_ForbiddenForNonOrganizer(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	no := false
	ev := f.srv.AddEvent(aliceEmail, googletest.Event{
		Summary:               "Bob's",
		Start:                 &googletest.EventDateTime{DateTime: "2025-01-07T10:00:00Z"},
		End:                   &googletest.EventDateTime{DateTime: "2025-01-07T11:00:00Z"},
		Organizer:             &googletest.EventPerson{Email: bobEmail},
		Attendees:             []googletest.EventAttendee{{Email: bobEmail, ResponseStatus: "accepted"}, {Email: aliceEmail, ResponseStatus: "needsAction"}},
		GuestsCanInviteOthers: &no,
	})
	evURL := eventsURL(f, "primary", nil) + "/" + ev.ID
	put := map[string]any{"summary": "mine", "start": map[string]any{"dateTime": "2025-01-07T10:00:00Z"}, "end": map[string]any{"dateTime": "2025-01-07T11:00:00Z"}}
	r := call(t, "PUT", evURL, f.token, put)
	want := map[string]any{"error": map[string]any{
		"errors": []any{map[string]any{
			"domain": "calendar", "reason": "forbiddenForNonOrganizer",
			"message": "Shared properties can only be changed by the organizer of the event.",
		}},
		"code":    float64(403),
		"message": "Shared properties can only be changed by the organizer of the event.",
	}}
	if diff := cmp.Diff(want, r.body); diff != "" || r.status != http.StatusForbidden {
		t.Fatalf("PUT without shared properties: status %d, body mismatch (-want +got):\n%s", r.status, diff)
	}
	put["guestsCanInviteOthers"] = false
	if r := call(t, "PUT", evURL, f.token, put); r.status != 200 {
		t.Errorf("PUT keeping them: %d %s", r.status, r.raw)
	}
	if r := call(t, "PATCH", evURL, f.token, map[string]any{"summary": "patched"}); r.status != 200 {
		t.Errorf("PATCH: %d %s", r.status, r.raw)
	}
	if r := call(t, "PATCH", evURL, f.token, map[string]any{"guestsCanModify": true}); r.status != 403 {
		t.Errorf("PATCH of a shared property: %d %s, want 403", r.status, r.raw)
	}
}

// sendUpdates takes the values the references enumerate.
func TestEvents_SendUpdates(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	ev := MustInsertEvent(t, f, "primary", timed("n", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	evURL := eventsURL(f, "primary", nil) + "/" + str(ev, "id")
	for _, v := range []string{"all", "externalOnly", "none"} {
		if r := call(t, "PATCH", evURL+"?sendUpdates="+v, f.token, map[string]any{"summary": v}); r.status != 200 {
			t.Errorf("sendUpdates=%s: %d %s", v, r.status, r.raw)
		}
	}
	if code, _ := errorReason(t, call(t, "PATCH", evURL+"?sendUpdates=everyone", f.token, map[string]any{"summary": "x"})); code != 400 {
		t.Errorf("sendUpdates=everyone: %d, want 400", code)
	}
	if code, _ := errorReason(t, call(t, "DELETE", evURL+"?sendUpdates=true", f.token, nil)); code != 400 {
		t.Errorf("delete with sendUpdates=true: %d, want 400", code)
	}
	if r := call(t, "DELETE", evURL+"?sendUpdates=all", f.token, nil); r.status != 204 {
		t.Errorf("delete: %d %s", r.status, r.raw)
	}
}

// TestInsertEventFieldLimits: the fake refuses what the Event reference
// limits (colorId outside the event palette, more than 5 reminder
// overrides, minutes beyond 40320, overrides with useDefault) with 400
// invalid, and keeps a client's iCalUID on insert.
func TestInsertEventFieldLimits(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	with := func(k string, v any) map[string]any {
		b := timed("Limits", "2025-02-03T10:00:00Z", "2025-02-03T11:00:00Z")
		b[k] = v
		return b
	}
	popups := func(minutes ...int) []map[string]any {
		var out []map[string]any
		for _, m := range minutes {
			out = append(out, map[string]any{"method": "popup", "minutes": m})
		}
		return out
	}
	for name, body := range map[string]map[string]any{
		"colorId 12":        with("colorId", "12"),
		"colorId 0":         with("colorId", "0"),
		"six overrides":     with("reminders", map[string]any{"useDefault": false, "overrides": popups(1, 2, 3, 4, 5, 6)}),
		"minutes too large": with("reminders", map[string]any{"useDefault": false, "overrides": popups(40321)}),
		"default and more":  with("reminders", map[string]any{"useDefault": true, "overrides": popups(10)}),
	} {
		r := call(t, "POST", eventsURL(f, "primary", nil), f.token, body)
		if code, reason := errorReason(t, r); code != 400 || reason != "invalid" {
			t.Errorf("%s: %d %s, want 400 invalid", name, code, reason)
		}
	}
	for _, body := range []map[string]any{with("colorId", "11"), with("reminders", map[string]any{"useDefault": false, "overrides": popups(0, 1, 2, 3, 40320)})} {
		MustInsertEvent(t, f, "primary", body)
	}
	got := MustInsertEvent(t, f, "primary", with("iCalUID", "client-uid-1@example.com"))
	if diff := cmp.Diff("client-uid-1@example.com", str(got, "iCalUID")); diff != "" {
		t.Errorf("iCalUID mismatch (-want +got):\n%s", diff)
	}
}
