package adminapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// TestAPIKeyLabels: a label given at creation and changed later is shown
// in the key list; a bad label and another application's key are refused
// and change nothing.
func TestAPIKeyLabels(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	app := s.createApp(t, "labels")
	other := s.createApp(t, "other")
	keys := "/admin/v1/applications/" + app.Application.ID + "/keys"
	var made admin.CreatedAPIKey
	s.must(t, "POST", keys, map[string]string{"label": "billing service"}, &made)
	if made.Key.Label != "billing service" {
		t.Errorf("created key label = %q, want %q", made.Key.Label, "billing service")
	}
	var relabelled admin.APIKeyView
	s.must(t, "PUT", keys+"/"+made.Key.ID, map[string]string{"label": "billing v2"}, &relabelled)
	if relabelled.Label != "billing v2" {
		t.Errorf("PUT label = %q, want %q", relabelled.Label, "billing v2")
	}
	wantError(t, s.admin(t, "PUT", keys+"/"+made.Key.ID, map[string]string{"label": "line\nbreak"}), http.StatusBadRequest, "invalid_request", "label")
	wantError(t, s.admin(t, "PUT", keys+"/"+made.Key.ID, map[string]string{"label": strings.Repeat("x", 101)}), http.StatusBadRequest, "invalid_request", "label")
	wantError(t, s.admin(t, "PUT", "/admin/v1/applications/"+other.Application.ID+"/keys/"+made.Key.ID, map[string]string{"label": "stolen"}), http.StatusNotFound, "not_found", "")
	var list struct {
		Data []admin.APIKeyView `json:"data"`
	}
	s.must(t, "GET", keys, nil, &list)
	labels := map[string]string{}
	for _, k := range list.Data {
		labels[k.ID] = k.Label
	}
	if d := cmp.Diff(map[string]string{made.Key.ID: "billing v2"}, map[string]string{made.Key.ID: labels[made.Key.ID]}); d != "" || len(labels) != 2 {
		t.Errorf("key labels mismatch (-want +got):\n%s (all: %v)", d, labels)
	}
	if r := s.v1(t, made.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK {
		t.Errorf("GET /v1/endUserAccounts with the labelled key = %d, want 200", r.status)
	}
}

// TestAuditLog: every change through the admin API is in the audit log,
// newest first, attributed to the admin token and naming the ids it
// changed; an application's log holds only its own changes; reads are
// not recorded and no secret appears.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	app := s.createApp(t, "audited")
	other := s.createApp(t, "other")
	appPath := "/admin/v1/applications/" + app.Application.ID
	var key admin.CreatedAPIKey
	s.must(t, "POST", appPath+"/keys", nil, &key)
	s.must(t, "PUT", appPath+"/keys/"+key.Key.ID, map[string]string{"label": "ops"}, nil)
	s.must(t, "DELETE", appPath+"/keys/"+key.Key.ID, nil, nil)
	s.must(t, "PUT", appPath+"/providers/provider_a", map[string]any{"clientId": "id", "clientSecret": "s3cret-value"}, nil)
	s.must(t, "GET", appPath, nil, nil)
	type entry struct{ Actor, Operation, ApplicationID, TargetID string }
	read := func(path string) ([]entry, string) {
		t.Helper()
		var page admin.AuditPage
		r := s.admin(t, "GET", path, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s = %d\n%s", path, r.status, r.body)
		}
		if strings.Contains(string(r.body), "s3cret-value") || strings.Contains(string(r.body), key.APIKey) {
			t.Errorf("GET %s shows a secret: %s", path, r.body)
		}
		r.into(t, &page)
		var out []entry
		for _, e := range page.Data {
			out = append(out, entry{e.Actor, e.Operation, e.ApplicationID, e.TargetID})
		}
		return out, page.NextPageToken
	}
	appID := app.Application.ID
	want := []entry{
		{"admin-token", "provider.set", appID, "provider_a"},
		{"admin-token", "apiKey.revoke", appID, key.Key.ID},
		{"admin-token", "apiKey.label", appID, key.Key.ID},
		{"admin-token", "apiKey.create", appID, key.Key.ID},
		{"admin-token", "apiKey.create", appID, strings.Split(strings.TrimPrefix(app.APIKey, unical.APIKeyPrefix), "_")[0]},
		{"admin-token", "application.create", appID, ""},
	}
	want[4].TargetID = "key_" + want[4].TargetID
	got, next := read(appPath + "/audit")
	if d := cmp.Diff(want, got); d != "" || next != "" {
		t.Errorf("GET %s/audit mismatch (-want +got):\n%s (next %q)", appPath, d, next)
	}
	got, next = read("/admin/v1/audit?limit=2")
	if d := cmp.Diff(want[:2], got); d != "" || next == "" {
		t.Errorf("GET /admin/v1/audit?limit=2 mismatch (-want +got):\n%s (next %q)", d, next)
	}
	all, _ := read("/admin/v1/audit?limit=250")
	others := 0
	for _, e := range all {
		if e.ApplicationID == other.Application.ID {
			others++
		}
	}
	if len(all) != len(want)+2 || others != 2 {
		t.Errorf("GET /admin/v1/audit = %d entries %v, want the application's %d and the other's 2", len(all), all, len(want))
	}
	got, _ = read("/admin/v1/audit?limit=2&pageToken=" + next)
	if d := cmp.Diff(want[2:4], got); d != "" {
		t.Errorf("second page mismatch (-want +got):\n%s", d)
	}
	wantError(t, s.admin(t, "GET", "/admin/v1/audit?limit=0", nil), http.StatusBadRequest, "invalid_request", "limit")
	wantError(t, s.admin(t, "GET", "/admin/v1/applications/app_unknown/audit", nil), http.StatusNotFound, "not_found", "")
}
