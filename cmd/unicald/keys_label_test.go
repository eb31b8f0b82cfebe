package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/memory"
)

// TestKeysCreateLabel: `keys create --label` stores the label offline and
// through --server; `keys list` shows it; the audit log names the CLI
// for the offline change and the admin token for the other.
func TestKeysCreateLabel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(env map[string]string, args ...string) string {
		t.Helper()
		out, errOut, err := runCommand(t, env, args...)
		if err != nil {
			t.Fatalf("unicald %v: %v\n%s", args, err, errOut)
		}
		return out
	}
	var created struct {
		ApplicationID string `json:"applicationId"`
	}
	json.Unmarshal([]byte(run(nil, "apps", "create", "--name", "labels", "--json", "--data", dir)), &created)
	var offline, remote struct {
		KeyID string `json:"keyId"`
	}
	json.Unmarshal([]byte(run(nil, "keys", "create", "--app", created.ApplicationID, "--label", "cron job", "--data", dir)), &offline)

	srv := MustRunMain(t, dir, []unical.Provider{memory.New(memory.Config{Type: unical.ProviderCalDAV})})
	token := adminTokenFrom(t, srv.Stdout.String())
	env := map[string]string{"UNICAL_ADMIN_TOKEN": token}
	json.Unmarshal([]byte(run(env, "keys", "create", "--app", created.ApplicationID, "--label", "web app", "--server", srv.URL)), &remote)
	var keys []admin.APIKeyView
	if err := json.Unmarshal([]byte(run(env, "keys", "list", "--app", created.ApplicationID, "--json", "--server", srv.URL)), &keys); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	for _, k := range keys {
		labels[k.ID] = k.Label
	}
	if labels[offline.KeyID] != "cron job" || labels[remote.KeyID] != "web app" {
		t.Errorf("keys list labels = %v, want %s: cron job and %s: web app", labels, offline.KeyID, remote.KeyID)
	}

	status, body := adminRequest(t, "GET", srv.URL+"/admin/v1/applications/"+created.ApplicationID+"/audit", token, nil)
	if status != http.StatusOK {
		t.Fatalf("GET audit = %d %s", status, body)
	}
	var page admin.AuditPage
	json.Unmarshal(body, &page)
	var got []string
	for _, e := range page.Data {
		got = append(got, e.Actor+" "+e.Operation+" "+e.TargetID)
	}
	want := []string{
		"admin-token apiKey.create " + remote.KeyID,
		"cli apiKey.create " + offline.KeyID,
	}
	if len(got) < 2 {
		t.Fatalf("audit = %q, want at least %q", got, want)
	}
	if d := cmp.Diff(want, got[:2]); d != "" {
		t.Errorf("newest audit entries mismatch (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(got[len(got)-1], "cli application.create") || bytes.Contains(body, []byte("uk_")) {
		t.Errorf("audit = %q; want the CLI's application.create first and no key", got)
	}
}
