package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/memory"
)

// adminTokenFrom finds the admin token the first start printed.
func adminTokenFrom(tb testing.TB, out string) string {
	tb.Helper()
	for _, line := range strings.Split(out, "\n") {
		if k, ok := strings.CutPrefix(strings.TrimSpace(line), "adminToken:"); ok {
			return strings.TrimSpace(k)
		}
	}
	tb.Fatalf("no adminToken in the first start's output:\n%s", out)
	return ""
}

// runCommand runs one unicald command with env and returns its output.
func runCommand(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }, Providers: []unical.Provider{}}
	err = m.Run(t.Context(), args)
	return out.String(), errOut.String(), err
}

func TestAdminCommandsAgainstRunningServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := MustRunMain(t, dir, []unical.Provider{memory.New(memory.Config{Type: unical.ProviderCalDAV})})
	token := adminTokenFrom(t, srv.Stdout.String())
	env := map[string]string{"UNICAL_ADMIN_TOKEN": token}
	must := func(args ...string) string {
		t.Helper()
		out, errOut, err := runCommand(t, env, append(args, "--server", srv.URL)...)
		if err != nil {
			t.Fatalf("unicald %v --server: %v\n%s", args, err, errOut)
		}
		return out
	}

	// Offline, the data folder is locked: one line naming --server.
	_, _, err := runCommand(t, nil, "apps", "list", "--data", dir)
	if err == nil || !strings.Contains(err.Error(), "--server") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("offline apps list while serving: %v; want one line naming --server", err)
	}

	var created struct {
		ApplicationID string `json:"applicationId"`
		APIKey        string `json:"apiKey"`
	}
	if err := json.Unmarshal([]byte(must("apps", "create", "--name", "shop", "--json")), &created); err != nil || created.ApplicationID == "" {
		t.Fatalf("apps create --server: %+v %v", created, err)
	}
	if status, body := request(t, "GET", srv.URL+"/v1/endUserAccounts", created.APIKey, nil); status != http.StatusOK {
		t.Fatalf("the new application's key on /v1 = %d %s", status, body)
	}
	secretFile := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secretFile, []byte("s3cret-client-over-http\n"), 0o600)
	out := must("apps", "update", "--id", created.ApplicationID, "--name", "Shop", "--redirect-url", "https://shop.example.com/cb",
		"--provider", "provider_a", "--client-id", "cid", "--client-secret-file", secretFile)
	for _, want := range []string{`"name":"Shop"`, "https://shop.example.com/cb", `"clientId":"cid"`, `"clientSecretSet":true`} {
		if !strings.Contains(out, want) {
			t.Errorf("apps update --server printed %s; want %s", out, want)
		}
	}
	if strings.Contains(out, "s3cret-client") {
		t.Errorf("apps update --server printed the client secret")
	}
	// --redirect-url replaces the list, as offline.
	out = must("apps", "update", "--id", created.ApplicationID, "--redirect-url", "https://shop.example.com/other")
	if strings.Contains(out, "https://shop.example.com/cb") || !strings.Contains(out, "https://shop.example.com/other") {
		t.Errorf("second apps update --server printed %s", out)
	}

	var key struct {
		KeyID  string `json:"keyId"`
		APIKey string `json:"apiKey"`
	}
	json.Unmarshal([]byte(must("keys", "create", "--app", created.ApplicationID)), &key)
	if status, _ := request(t, "GET", srv.URL+"/v1/endUserAccounts", key.APIKey, nil); status != http.StatusOK {
		t.Fatalf("keys create --server made a key that /v1 answers %d", status)
	}
	listed := must("keys", "list", "--app", created.ApplicationID)
	if !strings.Contains(listed, key.KeyID) || strings.Contains(listed, key.APIKey) {
		t.Errorf("keys list --server = %s; want the id and no secret", listed)
	}
	must("keys", "revoke", "--app", created.ApplicationID, "--key", key.KeyID)
	if status, _ := request(t, "GET", srv.URL+"/v1/endUserAccounts", key.APIKey, nil); status != http.StatusUnauthorized {
		t.Errorf("a key revoked with --server answers %d, want 401", status)
	}

	// A refused call says what the server said; a wrong token is refused.
	if _, _, err := runCommand(t, env, "keys", "revoke", "--app", created.ApplicationID, "--key", "key_unknown", "--server", srv.URL); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("revoking an unknown key: %v, want the 404", err)
	}
	if _, _, err := runCommand(t, map[string]string{"UNICAL_ADMIN_TOKEN": admin.NewAdminToken()}, "apps", "list", "--server", srv.URL); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong token: %v, want the 401", err)
	}
	if _, _, err := runCommand(t, nil, "apps", "list", "--server", srv.URL); err == nil || !strings.Contains(err.Error(), "UNICAL_ADMIN_TOKEN") {
		t.Errorf("no token: %v, want a word about UNICAL_ADMIN_TOKEN", err)
	}
	must("apps", "delete", "--id", created.ApplicationID)
	if status, _ := request(t, "GET", srv.URL+"/v1/endUserAccounts", created.APIKey, nil); status != http.StatusUnauthorized {
		t.Errorf("a deleted application's key answers %d, want 401", status)
	}
	if strings.Contains(srv.Stderr.String(), token) {
		t.Error("the admin token appears in the server's logs")
	}
	srv.stop()

	// Stopped, the same commands work offline; a restart prints no token.
	if out, errOut, err := runCommand(t, nil, "apps", "list", "--data", dir); err != nil || !strings.Contains(out, "default") {
		t.Errorf("offline apps list after stop: %v %s %s", err, out, errOut)
	}
	srv = MustRunMain(t, dir, []unical.Provider{memory.New(memory.Config{Type: unical.ProviderCalDAV})})
	if strings.Contains(srv.Stdout.String(), "adminToken") {
		t.Error("a restart printed a new admin token")
	}
	if _, _, err := runCommand(t, env, "apps", "list", "--server", srv.URL); err != nil {
		t.Errorf("the first token after a restart: %v", err)
	}
	db, _ := os.ReadFile(filepath.Join(dir, "unicald.db"))
	if bytes.Contains(db, []byte(token)) {
		t.Error("the admin token is stored in plaintext")
	}
}

func TestAdminTokenFromEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	token := strings.Repeat("t0k3n", 8)
	srv := mustRunMainEnv(t, dir, []unical.Provider{}, map[string]string{"UNICAL_ADMIN_TOKEN": token})
	if strings.Contains(srv.Stdout.String(), "adminToken") {
		t.Errorf("with UNICAL_ADMIN_TOKEN a token was printed:\n%s", srv.Stdout.String())
	}
	if _, errOut, err := runCommand(t, map[string]string{"UNICAL_ADMIN_TOKEN": token}, "apps", "list", "--server", srv.URL); err != nil {
		t.Errorf("apps list with the environment's token: %v %s", err, errOut)
	}
	srv.stop()
	// A short token is refused at start, naming the variable.
	m := &Main{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(k string) string {
		return map[string]string{"UNICAL_ADMIN_TOKEN": "short"}[k]
	}, Providers: []unical.Provider{}}
	err := m.Run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--data", dir})
	if err == nil || !strings.Contains(err.Error(), "UNICAL_ADMIN_TOKEN") {
		t.Errorf("serve with a short UNICAL_ADMIN_TOKEN: %v", err)
	}
}
