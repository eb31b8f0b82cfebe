package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/smtptest"
	"github.com/unical/unical/provider/memory"
)

// TestAppsMailCommands sets an application's mail settings with apps
// update and sends the test message with apps verify-mail, through a
// running server.
func TestAppsMailCommands(t *testing.T) {
	t.Parallel()
	mta := smtptest.MustStart(t)
	srv := mustRunMainEnv(t, t.TempDir(), []unical.Provider{memory.New(unical.ProviderCalDAV)}, map[string]string{"UNICAL_ALLOW_PRIVATE_TARGETS": "1"})
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminTokenFrom(t, srv.Stdout.String())}
	run := func(args ...string) (string, error) {
		t.Helper()
		out, errOut, err := runCommand(t, env, append(args, "--server", srv.URL)...)
		if err != nil {
			t.Logf("unicald %v: %s", args, errOut)
		}
		return out, err
	}
	out, err := run("apps", "create", "--name", "rooms", "--json")
	var created struct {
		ApplicationID string `json:"applicationId"`
	}
	if err != nil || json.Unmarshal([]byte(out), &created) != nil {
		t.Fatalf("apps create: %v %s", err, out)
	}
	password := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(password, []byte(mta.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run("apps", "update", "--id", created.ApplicationID, "--smtp-url", mta.URL); err == nil || !strings.Contains(err.Error(), "--mail-from") {
		t.Errorf("apps update with --smtp-url alone: %v, want a usage error naming --mail-from", err)
	}
	if _, err := run("apps", "update", "--id", created.ApplicationID, "--smtp-url", mta.URL, "--smtp-user", mta.Username,
		"--smtp-password-file", password, "--mail-from", "rooms@example.com"); err != nil {
		t.Fatalf("apps update with mail flags: %v", err)
	}
	out, err = run("apps", "verify-mail", "--id", created.ApplicationID, "--to", "ops@example.org")
	if err != nil || !strings.HasPrefix(out, "accepted: 250 ") {
		t.Fatalf("apps verify-mail = %q, %v; want accepted with a 250 reply", out, err)
	}
	if got := mta.Wait(t, 1); got[0].To != "ops@example.org" {
		t.Errorf("test message delivered to %q", got[0].To)
	}
	if _, err := run("apps", "verify-mail", "--id", created.ApplicationID); err == nil || !strings.Contains(err.Error(), "--to") {
		t.Errorf("apps verify-mail without --to: %v", err)
	}
}
