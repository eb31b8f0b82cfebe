package googletest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/googletest"
)

func TestCalendarList(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	shared := f.srv.AddCalendar(bobEmail, googletest.Calendar{Summary: "Team", TimeZone: "UTC"})
	f.srv.ShareCalendar(shared, aliceEmail, "reader")
	listURL := f.srv.APIBaseURL() + "/users/me/calendarList"

	r := call(t, "GET", listURL, f.token, nil)
	if r.status != 200 || str(r.body, "kind") != "calendar#calendarList" || str(r.body, "nextSyncToken") == "" {
		t.Fatalf("calendarList: %d %s", r.status, r.raw)
	}
	its := items(t, r)
	if len(its) != 2 {
		t.Fatalf("calendarList has %d entries, want 2", len(its))
	}
	primary := its[0]
	want := map[string]any{
		"kind": "calendar#calendarListEntry", "etag": primary["etag"], "id": aliceEmail, "summary": aliceEmail,
		"timeZone": "Europe/Berlin", "colorId": "14", "backgroundColor": "#9fe1e7", "foregroundColor": "#000000",
		"selected": true, "accessRole": "owner", "primary": true,
		"defaultReminders":     []any{map[string]any{"method": "popup", "minutes": float64(10)}},
		"notificationSettings": primary["notificationSettings"],
		"conferenceProperties": map[string]any{"allowedConferenceSolutionTypes": []any{"hangoutsMeet"}},
	}
	if diff := cmp.Diff(want, primary); diff != "" {
		t.Errorf("primary entry mismatch (-want +got):\n%s", diff)
	}
	if its[1]["accessRole"] != "reader" || its[1]["primary"] != nil || str(its[1], "dataOwner") != bobEmail {
		t.Errorf("shared entry = %v", its[1])
	}

	t.Run("Paging", func(t *testing.T) {
		r := call(t, "GET", listURL+"?maxResults=1", f.token, nil)
		if str(r.body, "nextPageToken") == "" || r.body["nextSyncToken"] != nil {
			t.Fatalf("first page: %s", r.raw)
		}
		r = call(t, "GET", listURL+"?maxResults=1&pageToken="+str(r.body, "nextPageToken"), f.token, nil)
		if str(r.body, "nextSyncToken") == "" || ids(items(t, r))[0] != shared {
			t.Fatalf("last page: %s", r.raw)
		}
	})
	t.Run("MinAccessRole", func(t *testing.T) {
		r := call(t, "GET", listURL+"?minAccessRole=writer", f.token, nil)
		if diff := cmp.Diff([]string{aliceEmail}, ids(items(t, r))); diff != "" {
			t.Errorf("minAccessRole=writer mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("ErrMinAccessRoleWithSyncToken", func(t *testing.T) {
		q := url.Values{"syncToken": {str(r.body, "nextSyncToken")}, "minAccessRole": {"reader"}}
		if code, _ := errorReason(t, call(t, "GET", listURL+"?"+q.Encode(), f.token, nil)); code != 400 {
			t.Fatalf("status %d, want 400", code)
		}
	})
	t.Run("Get", func(t *testing.T) {
		r := call(t, "GET", listURL+"/primary", f.token, nil)
		if r.status != 200 || str(r.body, "id") != aliceEmail {
			t.Fatalf("get primary entry: %d %s", r.status, r.raw)
		}
		if code, reason := errorReason(t, call(t, "GET", listURL+"/nobody@example.com", f.token, nil)); code != 404 || reason != "notFound" {
			t.Fatalf("get unknown: %d %s", code, reason)
		}
	})
	t.Run("ErrWriteToReaderCalendar", func(t *testing.T) {
		r := call(t, "POST", eventsURL(f, shared, nil), f.token, timed("x", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
		if code, _ := errorReason(t, r); code != 403 {
			t.Fatalf("status %d, want 403", code)
		}
	})
}

func TestCalendars_Lifecycle(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	api := f.srv.APIBaseURL()
	r := call(t, "GET", api+"/users/me/calendarList", f.token, nil)
	syncTok := str(r.body, "nextSyncToken")

	r = call(t, "POST", api+"/calendars", f.token, map[string]any{"summary": "Work", "timeZone": "Asia/Tokyo"})
	if r.status != 200 {
		t.Fatalf("insert: %d %s", r.status, r.raw)
	}
	id := str(r.body, "id")
	want := map[string]any{
		"kind": "calendar#calendar", "etag": r.body["etag"], "id": id, "summary": "Work", "timeZone": "Asia/Tokyo",
		"dataOwner":            aliceEmail,
		"conferenceProperties": map[string]any{"allowedConferenceSolutionTypes": []any{"hangoutsMeet"}},
	}
	if diff := cmp.Diff(want, r.body); diff != "" {
		t.Errorf("inserted calendar mismatch (-want +got):\n%s", diff)
	}
	calURL := api + "/calendars/" + url.PathEscape(id)

	r = call(t, "PATCH", calURL, f.token, map[string]any{"description": "d"})
	if r.status != 200 || str(r.body, "description") != "d" || str(r.body, "summary") != "Work" {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	t.Run("ErrMissingSummary", func(t *testing.T) {
		if code, _ := errorReason(t, call(t, "POST", api+"/calendars", f.token, map[string]any{})); code != 400 {
			t.Fatalf("status %d, want 400", code)
		}
	})
	t.Run("ErrDeletePrimary", func(t *testing.T) {
		r := call(t, "DELETE", api+"/calendars/primary", f.token, nil)
		if code, reason := errorReason(t, r); code != 403 || reason != "cannotDeletePrimaryCalendar" {
			t.Fatalf("got %d %s, want 403 cannotDeletePrimaryCalendar", code, reason)
		}
	})

	if r := call(t, "DELETE", calURL, f.token, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if code, _ := errorReason(t, call(t, "GET", calURL, f.token, nil)); code != 404 {
		t.Fatalf("get deleted calendar: %d, want 404", code)
	}
	// The calendar list's incremental sync reports the new calendar as a
	// deleted entry.
	r = call(t, "GET", api+"/users/me/calendarList?syncToken="+url.QueryEscape(syncTok), f.token, nil)
	wantItems := []map[string]any{{"kind": "calendar#calendarListEntry", "etag": items(t, r)[0]["etag"], "id": id, "deleted": true}}
	if diff := cmp.Diff(wantItems, items(t, r)); diff != "" {
		t.Errorf("calendarList sync mismatch (-want +got):\n%s", diff)
	}
}

func TestCalendars_EscapedIDAndSeeding(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	// Calendar ids may contain characters that must be escaped in paths.
	holidays := f.srv.AddCalendar(bobEmail, googletest.Calendar{ID: "en.usa#holiday@group.v.calendar.google.com", Summary: "Holidays"})
	f.srv.ShareCalendar(holidays, aliceEmail, "reader")
	if r := call(t, "GET", eventsURL(f, holidays, nil), f.token, nil); r.status != 200 || str(r.body, "accessRole") != "reader" {
		t.Fatalf("list escaped calendar id: %d %s", r.status, r.raw)
	}

	// An invitation from bob, seeded into alice's calendar.
	inv := f.srv.AddEvent(aliceEmail, googletest.Event{
		Summary:   "Invite",
		Start:     &googletest.EventDateTime{DateTime: "2025-01-07T10:00:00Z"},
		End:       &googletest.EventDateTime{DateTime: "2025-01-07T11:00:00Z"},
		Organizer: &googletest.EventPerson{Email: bobEmail},
		Attendees: []googletest.EventAttendee{{Email: aliceEmail}, {Email: bobEmail, ResponseStatus: "accepted"}},
	})
	r := call(t, "GET", eventsURL(f, "primary", nil)+"/"+inv.ID, f.token, nil)
	want := map[string]any{
		"organizer": map[string]any{"email": bobEmail},
		"attendees": []any{
			map[string]any{"email": aliceEmail, "self": true, "responseStatus": "needsAction"},
			map[string]any{"email": bobEmail, "organizer": true, "responseStatus": "accepted"},
		},
	}
	if diff := cmp.Diff(want, map[string]any{"organizer": r.body["organizer"], "attendees": r.body["attendees"]}); diff != "" {
		t.Errorf("invitation mismatch (-want +got):\n%s", diff)
	}

	_, tok, _ := listAll(t, f, "primary", nil)
	f.srv.UpdateEvent(aliceEmail, inv.ID, func(ev *googletest.Event) { ev.Summary = "Invite (moved)" })
	changes, tok, _ := listAll(t, f, "primary", url.Values{"syncToken": {tok}})
	if len(changes) != 1 || str(changes[0], "summary") != "Invite (moved)" {
		t.Fatalf("sync after external update = %v", changes)
	}
	f.srv.DeleteEvent(aliceEmail, inv.ID)
	changes, _, _ = listAll(t, f, "primary", url.Values{"syncToken": {tok}})
	if len(changes) != 1 || str(changes[0], "status") != "cancelled" {
		t.Fatalf("sync after external delete = %v", changes)
	}
	if ev, ok := f.srv.GetEvent(aliceEmail, inv.ID); !ok || ev.Status != "cancelled" {
		t.Fatalf("GetEvent() = %+v, %v", ev, ok)
	}
}

func TestCalendarList_PatchColors(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	entryURL := f.srv.APIBaseURL() + "/users/me/calendarList/primary"
	colors := call(t, "GET", f.srv.APIBaseURL()+"/colors", f.token, nil)
	want5 := map[string]any{"background": "#ff7537", "foreground": "#000000"}
	if diff := cmp.Diff(want5, colors.body["calendar"].(map[string]any)["5"]); diff != "" {
		t.Fatalf("colors.calendar[5] mismatch (-want +got):\n%s", diff)
	}

	tests := []struct {
		name    string
		query   string
		body    map[string]any
		wantBG  string
		wantCID string
	}{
		{"ColorID", "", map[string]any{"colorId": "5"}, "#ff7537", "5"},
		{"RGBIgnoredWithoutFlag", "", map[string]any{"backgroundColor": "#123456"}, "#ff7537", "5"},
		{"RGBWithFlag", "?colorRgbFormat=true", map[string]any{"backgroundColor": "#123456", "foregroundColor": "#ffffff"}, "#123456", "5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, "PATCH", entryURL+tc.query, f.token, tc.body)
			if r.status != 200 || str(r.body, "backgroundColor") != tc.wantBG || str(r.body, "colorId") != tc.wantCID {
				t.Fatalf("patch: %d %s", r.status, r.raw)
			}
		})
	}
}
