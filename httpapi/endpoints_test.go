package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// Field names of the spec's resource tables.
var (
	accountFields     = sorted("id", "createdAt", "updatedAt", "email", "externalId", "authorizedScopes", "providerAccountId", "providerId", "applicationId", "status", "providerType")
	credentialFields  = sorted("id", "endUserAccountId", "accessToken", "refreshToken", "expiresAt", "status", "createdAt", "updatedAt")
	calendarFields    = sorted("id", "name", "hexColor", "readOnly", "isPrimary", "isShared", "timeZone", "inviteEmail", "allowedOnlineMeetingProviders", "defaultOnlineMeetingProvider")
	subscriptionField = sorted("id", "provider", "url", "calendarId", "expiration", "subscriptionId", "resourceId", "endUserAccountId", "createdAt", "updatedAt")
)

// esc percent-encodes one path segment, as a client must for ids with
// reserved characters.
func esc(s string) string { return url.PathEscape(s) }

func checkKeys(t *testing.T, what string, want []string, m map[string]any) {
	t.Helper()
	if diff := cmp.Diff(want, keys(m)); diff != "" {
		t.Errorf("%s field names mismatch (-want +got):\n%s", what, diff)
	}
}

func TestAccountEndpoints(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	ids := ts.mustConnect(t)
	google := ids[unical.ProviderGoogle]

	t.Run("POST /v1/endUserAccounts", func(t *testing.T) {
		r := ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_C", "password": davPassword})
		m := r.Object(t)
		checkKeys(t, "account", accountFields, m)
		want := map[string]any{"email": davUser, "providerType": "PROVIDER_C", "status": "ACTIVE", "providerAccountId": nil,
			"authorizedScopes": []any{}, "externalId": "", "applicationId": ts.AppID, "id": ids[unical.ProviderCalDAV], "providerId": "provider_c"}
		got := map[string]any{}
		for k := range want {
			got[k] = m[k]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("re-posted CalDAV account mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("GET /v1/endUserAccounts", func(t *testing.T) {
		m := ts.must(t, "GET", "/v1/endUserAccounts?search=ADA&statusFilter=active", nil).Object(t)
		checkKeys(t, "paginated list", sorted("data", "nextPageToken"), m)
		data := m["data"].([]any)
		if len(data) != 1 || data[0].(map[string]any)["id"] != google || m["nextPageToken"] != nil {
			t.Fatalf("search=ADA got %s, want only the Google account and a null nextPageToken", ts.do(t, "GET", "/v1/endUserAccounts?search=ADA", nil).Body)
		}
		checkKeys(t, "account", accountFields, data[0].(map[string]any))
		// The external id is searchable too.
		if data := ts.must(t, "GET", "/v1/endUserAccounts?search=user-1", nil).Object(t)["data"].([]any); len(data) != 1 {
			t.Errorf("search by externalId found %d accounts, want 1", len(data))
		}
	})
	t.Run("GET /v1/endUserAccounts paging", func(t *testing.T) {
		var seen []string
		token := ""
		for range 5 {
			path := "/v1/endUserAccounts?limit=1"
			if token != "" {
				path += "&pageToken=" + url.QueryEscape(token)
			}
			var page struct {
				Data          []unical.Account `json:"data"`
				NextPageToken *string          `json:"nextPageToken"`
			}
			ts.must(t, "GET", path, nil).Into(t, &page)
			for _, a := range page.Data {
				seen = append(seen, a.ID)
			}
			if page.NextPageToken == nil {
				break
			}
			token = *page.NextPageToken
		}
		if len(seen) != 3 {
			t.Fatalf("paging with limit=1 saw %d accounts %v, want 3", len(seen), seen)
		}
	})
	t.Run("GET /v1/endUserAccounts/:id", func(t *testing.T) {
		m := ts.must(t, "GET", "/v1/endUserAccounts/"+google, nil).Object(t)
		checkKeys(t, "account", accountFields, m)
		if m["providerAccountId"] != "uid-"+googleUser || m["externalId"] != "user-1" {
			t.Errorf("account = %s", ts.do(t, "GET", "/v1/endUserAccounts/"+google, nil).Body)
		}
	})
	t.Run("GET /v1/endUserAccounts/:id/credentials", func(t *testing.T) {
		m := ts.must(t, "GET", "/v1/endUserAccounts/"+google+"/credentials", nil).Object(t)
		checkKeys(t, "credentials", credentialFields, m)
		if m["refreshToken"] != googleToken || m["endUserAccountId"] != google || m["status"] != "ACTIVE" || !strings.HasPrefix(m["accessToken"].(string), "access-") {
			t.Errorf("credentials = %v", m)
		}
	})
	t.Run("DELETE /v1/endUserAccounts/:id", func(t *testing.T) {
		id := ids[unical.ProviderMicrosoft]
		m := ts.must(t, "DELETE", "/v1/endUserAccounts/"+id, nil).Object(t)
		checkKeys(t, "delete answer", sorted("message", "ok"), m)
		if m["ok"] != true {
			t.Errorf("ok = %v", m["ok"])
		}
		if r := ts.do(t, "GET", "/v1/endUserAccounts/"+id, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET after delete = %d, want 404", r.Status)
		}
	})
}

func TestBasicAuthConnect(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	r := ts.must(t, "POST", "/v1/basicAuth/connect/"+ts.AppID+"/provider_c", map[string]any{"email": davUser, "password": davPassword, "externalId": "ext-9"})
	m := r.Object(t)
	checkKeys(t, "account", accountFields, m)
	if m["providerType"] != "PROVIDER_C" || m["externalId"] != "ext-9" || m["status"] != "ACTIVE" {
		t.Errorf("connected account = %s", r.Body)
	}
	// A wrong password stores nothing.
	r = ts.do(t, "POST", "/v1/basicAuth/connect/"+ts.AppID+"/provider_c", map[string]any{"email": "other@example.com", "password": "wrong"})
	if r.Status != http.StatusBadRequest || r.Object(t)["error"].(map[string]any)["field"] != "password" {
		t.Errorf("wrong password = %d %s, want 400 naming password", r.Status, r.Body)
	}
	if data := ts.must(t, "GET", "/v1/endUserAccounts", nil).Object(t)["data"].([]any); len(data) != 1 {
		t.Errorf("accounts after a failed connect = %d, want 1", len(data))
	}
}

func TestCalendarEndpoints(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	base := "/v1/calendars/" + acct

	var created unical.Calendar
	t.Run("POST /v1/calendars/:account", func(t *testing.T) {
		r := ts.must(t, "POST", base, map[string]any{"name": "Team", "hexColor": "#aa00ff", "timeZone": "Europe/Berlin"})
		checkKeys(t, "calendar", calendarFields, r.Object(t))
		r.Into(t, &created)
		want := unical.Calendar{ID: created.ID, Name: "Team", HexColor: "#aa00ff", TimeZone: "Europe/Berlin", AllowedOnlineMeetingProviders: []string{}}
		if diff := cmp.Diff(want, created); diff != "" {
			t.Errorf("created calendar mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("GET /v1/calendars/:account", func(t *testing.T) {
		m := ts.must(t, "GET", base, nil).Object(t)
		checkKeys(t, "sync list", sorted("data", "nextSyncToken"), m)
		if n := len(m["data"].([]any)); n != 2 {
			t.Fatalf("calendars = %d, want 2", n)
		}
		checkKeys(t, "calendar", calendarFields, m["data"].([]any)[0].(map[string]any))
		// With the sync token, only what changed since comes back.
		tok := m["nextSyncToken"].(string)
		ts.must(t, "PUT", base+"/"+esc(created.ID), map[string]any{"name": "Team 2"})
		m = ts.must(t, "GET", base+"?syncToken="+url.QueryEscape(tok), nil).Object(t)
		data := m["data"].([]any)
		if len(data) != 1 || data[0].(map[string]any)["name"] != "Team 2" {
			t.Errorf("calendar sync after a rename = %v, want just the renamed calendar", data)
		}
	})
	t.Run("GET /v1/calendars/:account paging", func(t *testing.T) {
		var names []string
		path := base + "?limit=1"
		for range 4 {
			var page unical.SyncPage[unical.Calendar]
			ts.must(t, "GET", path, nil).Into(t, &page)
			for _, c := range page.Data {
				names = append(names, c.Name)
			}
			if page.NextPageToken == "" {
				if page.NextSyncToken == "" {
					t.Error("the last page has no nextSyncToken")
				}
				break
			}
			path = base + "?limit=1&pageToken=" + url.QueryEscape(page.NextPageToken)
		}
		if diff := cmp.Diff([]string{googleUser, "Team 2"}, names); diff != "" {
			t.Errorf("paged calendars mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("GET /v1/calendars/:account/:calendar", func(t *testing.T) {
		// The id holds '/', '@', '=' and '+': it round-trips percent-encoded.
		if !strings.ContainsAny(created.ID, "/@=+") {
			t.Fatalf("test calendar id %q has no reserved characters", created.ID)
		}
		m := ts.must(t, "GET", base+"/"+esc(created.ID), nil).Object(t)
		checkKeys(t, "calendar", calendarFields, m)
		if m["id"] != created.ID {
			t.Errorf("id = %v, want %q", m["id"], created.ID)
		}
	})
	t.Run("PUT /v1/calendars/:account/:calendar", func(t *testing.T) {
		m := ts.must(t, "PUT", base+"/"+esc(created.ID), map[string]any{"hexColor": nil}).Object(t)
		if _, has := m["hexColor"]; has {
			t.Errorf("hexColor after null = %v, want it cleared", m["hexColor"])
		}
		if m["name"] != "Team 2" || m["timeZone"] != "Europe/Berlin" {
			t.Errorf("fields absent from the update changed: %v", m)
		}
	})
	t.Run("DELETE /v1/calendars/:account/:calendar", func(t *testing.T) {
		m := ts.must(t, "DELETE", base+"/"+esc(created.ID), nil).Object(t)
		if diff := cmp.Diff(map[string]any{"success": true}, m); diff != "" {
			t.Errorf("delete answer mismatch (-want +got):\n%s", diff)
		}
		if r := ts.do(t, "GET", base+"/"+esc(created.ID), nil); r.Status != http.StatusNotFound {
			t.Errorf("GET after delete = %d, want 404", r.Status)
		}
	})
}
