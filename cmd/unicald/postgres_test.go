package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/provider/memory"
)

// envOf returns a Getenv that knows only vars.
func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// runOnce runs one unicald command that is expected to end by itself (an
// admin command, or serve failing at start) and returns its error and
// stderr. A serve that starts listening is stopped and reported as nil.
func runOnce(t *testing.T, env map[string]string, args ...string) (error, string) {
	t.Helper()
	var stderr bytes.Buffer
	ready := make(chan string, 1)
	m := &Main{Stdout: io.Discard, Stderr: &stderr, Getenv: envOf(env), Ready: ready,
		Providers: []unical.Provider{memory.New(memory.Config{Type: unical.ProviderGoogle})}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, args) }()
	select {
	case <-ready:
		cancel()
		<-done
		return nil, stderr.String()
	case err := <-done:
		return err, stderr.String()
	}
}

// TestStoreFlag_StartErrors: a PostgreSQL store without UNICAL_MASTER_KEY,
// an unreachable database and a URL that is not postgres:// stop every
// command before it does anything, with an error that names the cause and
// never the URL's password.
func TestStoreFlag_StartErrors(t *testing.T) {
	t.Parallel()
	const password = "pw-Th4t-Must-Not-Leak"
	unreachable := "postgres://unical:" + password + "@127.0.0.1:1/unical?sslmode=disable"
	key := seal.NewKey().String()
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		want     []string
		wantCode int
	}{
		{"serve without a master key", nil,
			[]string{"serve", "--addr", "127.0.0.1:0", "--store", unreachable},
			[]string{"UNICAL_MASTER_KEY", "--store"}, 1},
		{"apps without a master key, URL from the environment", map[string]string{"UNICAL_STORE_URL": unreachable},
			[]string{"apps", "list"},
			[]string{"UNICAL_MASTER_KEY"}, 1},
		{"serve with an unreachable database", map[string]string{"UNICAL_MASTER_KEY": key},
			[]string{"serve", "--addr", "127.0.0.1:0", "--store", unreachable},
			[]string{"--store", "127.0.0.1:1", "unavailable"}, 1},
		{"keys with an unreachable database from the environment", map[string]string{"UNICAL_MASTER_KEY": key, "UNICAL_STORE_URL": unreachable},
			[]string{"keys", "create", "--app", "app_1"},
			[]string{"--store", "127.0.0.1:1"}, 1},
		{"not a postgres URL", map[string]string{"UNICAL_MASTER_KEY": key},
			[]string{"serve", "--addr", "127.0.0.1:0", "--store", "mysql://root:" + password + "@127.0.0.1/db"},
			[]string{"--store", "postgres://"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dataDir := t.TempDir()
			err, stderr := runOnce(t, tc.env, append(tc.args, "--data", dataDir)...)
			if err == nil {
				t.Fatalf("%v: started; want a start-up error", tc.args)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error = %q; want it to contain %q", err, want)
				}
			}
			if strings.Contains(err.Error()+stderr, password) {
				t.Errorf("the password is in the error or the log: %v\n%s", err, stderr)
			}
			if got := exitCode(err); got != tc.wantCode {
				t.Errorf("exit code = %d, want %d", got, tc.wantCode)
			}
			if entries, _ := os.ReadDir(dataDir); len(entries) > 0 {
				t.Errorf("the data folder got %d files; with --store it must stay unused", len(entries))
			}
		})
	}
}

// TestServe_PostgresStore runs the admin commands and serve on one
// PostgreSQL database, then stops the database under the running server:
// /readyz and the API answer 503 (the API with store_unavailable) while it
// is down, and both work again once it is back, without a restart.
func TestServe_PostgresStore(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	// The cluster trusts loopback, so the password is not checked; it is
	// there to show that no log line carries it.
	const password = "Log-Must-Not-Show-9d2e"
	storeURL := strings.Replace(c.NewDatabase(t), "//unical@", "//unical:"+password+"@", 1)
	if !strings.Contains(storeURL, password) {
		t.Fatalf("no password in %s", storeURL)
	}
	env := map[string]string{"UNICAL_MASTER_KEY": seal.NewKey().String()}
	dataDir := t.TempDir()

	var out bytes.Buffer
	admin := &Main{Stdout: &out, Stderr: io.Discard, Getenv: envOf(env), Providers: []unical.Provider{}}
	if err := admin.Run(t.Context(), []string{"apps", "create", "--name", "on-postgres", "--store", storeURL, "--data", dataDir}); err != nil {
		t.Fatalf("apps create --store: %v", err)
	}
	key := apiKeyFrom(t, out.String())

	m := &Main{Getenv: envOf(env), Providers: []unical.Provider{memory.New(memory.Config{Type: unical.ProviderGoogle})}}
	srv := startServe(t, m, dataDir, "--store", storeURL)
	if strings.Contains(srv.Stdout.String(), "apiKey") {
		t.Errorf("serve made a default application although apps create made one:\n%s", srv.Stdout.String())
	}
	if entries, _ := os.ReadDir(dataDir); len(entries) > 0 {
		t.Errorf("the data folder got %d files; with --store it must stay unused", len(entries))
	}
	wantUp := func(when string) {
		t.Helper()
		if code, body := request(t, "GET", srv.URL+"/readyz", "", nil); code != http.StatusOK {
			t.Errorf("%s: /readyz = %d %s, want 200", when, code, body)
		}
		if code, body := request(t, "GET", srv.URL+"/v1/endUserAccounts", key, nil); code != http.StatusOK {
			t.Errorf("%s: GET /v1/endUserAccounts = %d %s, want 200", when, code, body)
		}
	}
	wantUp("database up")

	if err := c.StopServer(); err != nil {
		t.Fatal(err)
	}
	if code, body := request(t, "GET", srv.URL+"/readyz", "", nil); code != http.StatusServiceUnavailable || !strings.Contains(string(body), `"store":"error"`) {
		t.Errorf("database down: /readyz = %d %s, want 503 naming the store", code, body)
	}
	code, body := request(t, "GET", srv.URL+"/v1/endUserAccounts", key, nil)
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(body, &e)
	if code != http.StatusServiceUnavailable || e.Error.Code != "store_unavailable" {
		t.Errorf("database down: GET /v1/endUserAccounts = %d %s, want 503 store_unavailable", code, body)
	}

	if err := c.StartServer(); err != nil {
		t.Fatal(err)
	}
	wantUp("database back")
	srv.stop()
	if strings.Contains(srv.Stderr.String(), password) {
		t.Errorf("the log shows the store URL's password:\n%s", srv.Stderr.String())
	}
	if !strings.Contains(srv.Stderr.String(), `"store":"postgres://unical:xxxxx@`) {
		t.Errorf("the log does not name the store with its password masked:\n%.3000s", srv.Stderr.String())
	}
}
