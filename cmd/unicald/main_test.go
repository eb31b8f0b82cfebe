package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
)

// running is a unicald serve started in-process.
type running struct {
	URL    string
	Stdout *apitest.LogBuffer
	Stderr *apitest.LogBuffer
	stop   func()
}

// MustRunMain runs `unicald serve` on a free loopback port over dataDir
// with the given providers, and stops it in Cleanup (or when stop is called).
func MustRunMain(tb testing.TB, dataDir string, providers []unical.Provider) *running {
	tb.Helper()
	return mustRunMainEnv(tb, dataDir, providers, nil)
}

// mustRunMainEnv is MustRunMain with an environment.
func mustRunMainEnv(tb testing.TB, dataDir string, providers []unical.Provider, env map[string]string) *running {
	tb.Helper()
	ready := make(chan string, 1)
	r := &running{Stdout: &apitest.LogBuffer{}, Stderr: &apitest.LogBuffer{}}
	m := &Main{Stdout: r.Stdout, Stderr: r.Stderr, Getenv: func(k string) string { return env[k] }, Providers: providers, Ready: ready}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dataDir}) }()
	select {
	case addr := <-ready:
		r.URL = "http://" + addr
	case err := <-done:
		cancel()
		tb.Fatalf("unicald serve: %v\n%s", err, r.Stderr.String())
	case <-time.After(20 * time.Second):
		cancel()
		tb.Fatal("unicald serve did not start in 20 s")
	}
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				tb.Errorf("unicald serve: %v", err)
			}
		})
	}
	tb.Cleanup(r.stop)
	return r
}

func request(tb testing.TB, method, url, key string, body any) (int, []byte) {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// apiKeyFrom finds the key the first start printed.
func apiKeyFrom(tb testing.TB, out string) string {
	tb.Helper()
	for _, line := range strings.Split(out, "\n") {
		if k, ok := strings.CutPrefix(strings.TrimSpace(line), "apiKey:"); ok {
			return strings.TrimSpace(k)
		}
	}
	tb.Fatalf("no apiKey in the first start's output:\n%s", out)
	return ""
}

func TestServe_FirstStartRestartAndSealedSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const refresh = "1//refresh-token-plaintext-needle"
	const password = "app-specific-password-needle"
	newProviders := func() []unical.Provider {
		g := memory.New(memory.Config{Type: unical.ProviderGoogle})
		g.AddUser("ada@example.com", refresh, "")
		c := memory.New(memory.Config{Type: unical.ProviderCalDAV})
		c.AddUser("alan@example.com", "", password)
		return []unical.Provider{g, c}
	}

	srv := MustRunMain(t, dir, newProviders())
	key := apiKeyFrom(t, srv.Stdout.String())
	if strings.Contains(srv.Stderr.String(), key) {
		t.Error("the API key appears in the logs")
	}
	status, body := request(t, "POST", srv.URL+"/v1/endUserAccounts", key, map[string]any{"email": "ada@example.com", "providerType": "PROVIDER_A", "refreshToken": refresh})
	if status != 200 {
		t.Fatalf("create account = %d %s", status, body)
	}
	var acct unical.Account
	json.Unmarshal(body, &acct)
	if status, body := request(t, "POST", srv.URL+"/v1/endUserAccounts", key, map[string]any{"email": "alan@example.com", "providerType": "PROVIDER_C", "password": password}); status != 200 {
		t.Fatalf("create CalDAV account = %d %s", status, body)
	}
	srv.stop()

	// The bolt file holds neither the refresh token nor the password.
	db, err := os.ReadFile(filepath.Join(dir, "unicald.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{refresh, password, key[strings.LastIndex(key, "_")+1:]} {
		if bytes.Contains(db, []byte(secret)) {
			t.Errorf("the bolt file contains the plaintext %q", secret)
		}
	}
	if info, err := os.Stat(filepath.Join(dir, "master.key")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("master key file: %v %v, want mode 0600", info, err)
	}

	// After a restart the account and its credentials are still there, and
	// no second default application is created.
	srv = MustRunMain(t, dir, newProviders())
	if strings.Contains(srv.Stdout.String(), "apiKey") {
		t.Error("a restart created another default application")
	}
	status, body = request(t, "GET", srv.URL+"/v1/endUserAccounts/"+acct.ID+"/credentials", key, nil)
	if status != 200 || !strings.Contains(string(body), refresh) {
		t.Fatalf("credentials after restart = %d %s", status, body)
	}
}

func TestAppsAndKeysCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, Providers: []unical.Provider{}}
		if err := m.Run(t.Context(), append(args, "--data", dir)); err != nil {
			t.Fatalf("unicald %v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	var created struct {
		ApplicationID string `json:"applicationId"`
		APIKey        string `json:"apiKey"`
	}
	if err := json.Unmarshal([]byte(run("apps", "create", "--name", "shop", "--json")), &created); err != nil || created.ApplicationID == "" || created.APIKey == "" {
		t.Fatalf("apps create --json = %+v, %v", created, err)
	}
	secretFile := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secretFile, []byte("s3cret-client\n"), 0o600)
	out := run("apps", "update", "--id", created.ApplicationID, "--redirect-url", "https://shop.example.com/cb",
		"--provider", "provider_a", "--client-id", "cid", "--client-secret-file", secretFile, "--token-url", "https://oauth.example.com/token")
	if !strings.Contains(out, "https://shop.example.com/cb") || !strings.Contains(out, `"tokenUrl":"https://oauth.example.com/token"`) || strings.Contains(out, "s3cret-client") {
		t.Errorf("apps update printed %s; want the settings without the client secret", out)
	}
	var key struct {
		KeyID  string `json:"keyId"`
		APIKey string `json:"apiKey"`
	}
	json.Unmarshal([]byte(run("keys", "create", "--app", created.ApplicationID)), &key)
	if key.KeyID == "" || !strings.HasPrefix(key.APIKey, "uk_") {
		t.Fatalf("keys create = %+v", key)
	}
	run("keys", "revoke", "--app", created.ApplicationID, "--key", key.KeyID)
	db, _ := os.ReadFile(filepath.Join(dir, "unicald.db"))
	if bytes.Contains(db, []byte("s3cret-client")) {
		t.Error("the client secret is stored in plaintext")
	}
}
