package httpapi_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/httpclient"
)

// TestIfMatch: If-Match on PUT and DELETE of an event, through the
// calendar alias primary: a stale etag is 412 naming If-Match and changes
// nothing, the current one goes through (sent by httpclient from
// WriteOptions.IfMatch), and what cannot be honoured is a 400 naming If-Match.
func TestIfMatch(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	events := "/v1/events/" + acct + "/primary"
	var e unical.Event
	ts.must(t, "POST", events, map[string]any{
		"title": "v1", "start": map[string]any{"dateTime": "2026-10-05T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-10-05T10:00:00Z"},
	}).Into(t, &e)
	path := events + "/" + url.PathEscape(e.ID)
	stale := e.ETag
	ts.must(t, "PUT", path, map[string]any{"title": "v2"}).Into(t, &e)

	for _, tc := range []struct {
		name, method, path, body string
		ifMatch                  []string
		status                   int
		code                     string
	}{
		{"stale update", "PUT", path, `{"title": "v3"}`, []string{stale}, 412, "precondition_failed"},
		{"stale delete", "DELETE", path, "", []string{stale}, 412, "precondition_failed"},
		{"stale update unquoted", "PUT", path, `{"title": "v3"}`, []string{strings.Trim(stale, `"`)}, 412, "precondition_failed"},
		{"two etags", "PUT", path, `{"title": "v3"}`, []string{stale + ", " + e.ETag}, 400, "invalid_request"},
		{"two headers", "DELETE", path, "", []string{e.ETag, e.ETag}, 400, "invalid_request"},
		{"split", "PUT", path + "?scope=thisAndFollowing", `{"title": "v3"}`, []string{e.ETag}, 400, "invalid_request"},
		{"calendar update", "PUT", "/v1/calendars/" + acct + "/primary", `{"name": "x"}`, []string{`"1"`}, 400, "invalid_request"},
		{"calendar delete", "DELETE", "/v1/calendars/" + acct + "/primary", "", []string{`"1"`}, 400, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.DoHeader(t, tc.method, tc.path, tc.body, http.Header{"If-Match": tc.ifMatch})
			got := r.Error(t)
			if r.Status != tc.status || got.Code != tc.code || got.Field != "If-Match" {
				t.Errorf("%s %s with If-Match %q = %d %s (field %q), want %d %s naming If-Match\n%s",
					tc.method, tc.path, tc.ifMatch, r.Status, got.Code, got.Field, tc.status, tc.code, r.Body)
			}
		})
	}
	var now unical.Event
	ts.must(t, "GET", path, nil).Into(t, &now)
	if diff := cmp.Diff(e, now); diff != "" {
		t.Errorf("the refused writes changed the event (-before +after):\n%s", diff)
	}

	api, err := httpclient.New(httpclient.Config{BaseURL: ts.URL, APIKey: ts.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = api.DeleteEvent(t.Context(), acct, "primary", e.ID, unical.WriteOptions{IfMatch: stale})
	var ue *unical.Error
	if !errors.As(err, &ue) || ue.Code != unical.CodePrecondition || ue.Field != "If-Match" {
		t.Errorf("httpclient DeleteEvent with a stale etag: %v, want precondition_failed naming If-Match", err)
	}
	if _, err := api.UpdateEvent(t.Context(), acct, "primary", e.ID, &unical.EventParams{Title: unical.Some("v3")}, unical.WriteOptions{IfMatch: e.ETag}); err != nil {
		t.Fatalf("httpclient UpdateEvent with the current etag: %v", err)
	}
	if r := ts.do(t, "GET", path, nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"v3"`) {
		t.Errorf("after the conditional update GET = %d %s, want v3", r.Status, r.Body)
	}
}

// TestICS_EmptyExport: exporting a calendar with no events, or a window
// with none, is 200 with an empty VCALENDAR, which imports as nothing.
func TestICS_EmptyExport(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	var cal unical.Calendar
	ts.must(t, "POST", "/v1/calendars/"+acct, map[string]any{"name": "empty"}).Into(t, &cal)
	base := "/v1/events/" + acct + "/" + url.PathEscape(cal.ID) + "/ics"
	for _, path := range []string{base, base + "?startDateTime=2026-10-01T00:00:00Z&endDateTime=2026-11-01T00:00:00Z"} {
		r := ts.must(t, "GET", path, nil)
		want := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//unical//unical calendar export//EN\r\nEND:VCALENDAR\r\n"
		if diff := cmp.Diff(want, string(r.Body)); diff != "" {
			t.Errorf("GET %s body (-want +got):\n%s", path, diff)
		}
		imported := ts.DoHeader(t, "POST", base, r.Body, http.Header{"Content-Type": {"text/calendar; charset=utf-8"}})
		if imported.Status != http.StatusOK {
			t.Errorf("importing the empty export = %d %s, want 200", imported.Status, imported.Body)
		}
	}
}
