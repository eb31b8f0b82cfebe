package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/memory"
)

// TestAppsDelegation sets, reads and removes a Microsoft 365 delegation
// credential with the apps delegation commands, offline and then with
// --server; the client secret is never printed.
func TestAppsDelegation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	offline := func(args ...string) (string, error) {
		t.Helper()
		out, _, err := runCommand(t, nil, append(args, "--data", dir)...)
		return out, err
	}
	out, err := offline("apps", "create", "--name", "corp", "--json")
	var created struct {
		ApplicationID string `json:"applicationId"`
	}
	if err != nil || json.Unmarshal([]byte(out), &created) != nil {
		t.Fatalf("apps create: %v %s", err, out)
	}
	secretFile := filepath.Join(t.TempDir(), "secret")
	const secret = "ms-tenant-secret-4f1c9b"
	os.WriteFile(secretFile, []byte(secret+"\n"), 0o600)
	set := []string{"apps", "delegation", "set", "--id", created.ApplicationID, "--provider", "provider_b",
		"--tenant-id", "tenant-1", "--client-id", "app-1", "--client-secret-file", secretFile, "--domain", "corp.example.com"}
	type view struct {
		Provider        string   `json:"provider"`
		ClientID        string   `json:"clientId"`
		Domains         []string `json:"domains"`
		Status          string   `json:"status"`
		AdminConsentURL string   `json:"adminConsentUrl"`
	}
	check := func(name, out string) {
		t.Helper()
		var v view
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s printed %s: %v", name, out, err)
		}
		if v.Provider != "PROVIDER_B" || v.ClientID != "app-1" || len(v.Domains) != 1 || v.Status != "pending" || !strings.Contains(v.AdminConsentURL, "tenant-1/adminconsent") {
			t.Errorf("%s printed %s", name, out)
		}
		if strings.Contains(out, secret) {
			t.Errorf("%s printed the client secret", name)
		}
	}
	out, err = offline(set...)
	if err != nil {
		t.Fatalf("apps delegation set: %v", err)
	}
	check("apps delegation set", out)
	if _, err := offline("apps", "delegation", "set", "--id", created.ApplicationID, "--provider", "provider_b", "--tenant-id", "t", "--client-id", "c", "--domain", "corp.example.com"); err == nil || !strings.Contains(err.Error(), "clientSecret") {
		t.Errorf("set without a secret: %v, want an error naming clientSecret", err)
	}

	srv := MustRunMain(t, dir, []unical.Provider{memory.New(memory.Config{Type: unical.ProviderCalDAV})})
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminTokenFrom(t, srv.Stdout.String())}
	remote := func(args ...string) (string, error) {
		t.Helper()
		out, _, err := runCommand(t, env, append(args, "--server", srv.URL)...)
		return out, err
	}
	out, err = remote("apps", "delegation", "get", "--id", created.ApplicationID, "--provider", "provider_b")
	if err != nil {
		t.Fatalf("apps delegation get --server: %v", err)
	}
	check("apps delegation get --server", out)
	if _, err := remote("apps", "delegation", "remove", "--id", created.ApplicationID, "--provider", "provider_b"); err != nil {
		t.Fatalf("apps delegation remove --server: %v", err)
	}
	if _, err := remote("apps", "delegation", "get", "--id", created.ApplicationID, "--provider", "provider_b"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("get after remove: %v, want 404", err)
	}
}
