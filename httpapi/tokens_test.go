package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/unical/unical"
)

// TestTokensAreBound checks that page and sync tokens only work for the
// listing and the application that issued them.
func TestTokensAreBound(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	primary := "/v1/events/" + acct + "/" + esc("primary/"+googleUser)
	var other unical.Calendar
	ts.must(t, "POST", "/v1/calendars/"+acct, map[string]any{"name": "Other"}).Into(t, &other)
	otherEvents := "/v1/events/" + acct + "/" + esc(other.ID)

	var page unical.SyncPage[unical.Event]
	ts.must(t, "GET", primary, nil).Into(t, &page)
	var accounts unical.Page[unical.Account]
	ts.must(t, "GET", "/v1/endUserAccounts?limit=1&search=example.com", nil).Into(t, &accounts)
	_, keyB := ts.mustCreateApp(t, "other", "")

	tests := []struct {
		name, key, path, field string
	}{
		{"SyncTokenOnOtherCalendar", ts.APIKey, otherEvents + "?syncToken=" + url.QueryEscape(page.NextSyncToken), "syncToken"},
		{"SyncTokenAsPageToken", ts.APIKey, primary + "?pageToken=" + url.QueryEscape(page.NextSyncToken), "pageToken"},
		{"SyncTokenAsCalendarToken", ts.APIKey, "/v1/calendars/" + acct + "?syncToken=" + url.QueryEscape(page.NextSyncToken), "syncToken"},
		{"SyncTokenWithSearch", ts.APIKey, primary + "?search=x&syncToken=" + url.QueryEscape(page.NextSyncToken), "syncToken"},
		{"PageTokenOfOtherQuery", ts.APIKey, "/v1/endUserAccounts?search=zzz&pageToken=" + url.QueryEscape(*accounts.NextPageToken), "pageToken"},
		{"PageTokenOfOtherApp", keyB, "/v1/endUserAccounts?search=example.com&pageToken=" + url.QueryEscape(*accounts.NextPageToken), "pageToken"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := ts.doKey(t, tc.key, "GET", tc.path, nil)
			if r.Status != http.StatusBadRequest {
				t.Fatalf("GET %s = %d, want 400\n%s", tc.path, r.Status, r.Body)
			}
			if f := r.Object(t)["error"].(map[string]any)["field"]; f != tc.field {
				t.Errorf("field = %v, want %s", f, tc.field)
			}
		})
	}
	// The token still works where it belongs.
	ts.must(t, "GET", primary+"?syncToken="+url.QueryEscape(page.NextSyncToken)+"&timeZone=Europe/Paris", nil)
}
