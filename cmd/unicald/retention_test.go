package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
)

// TestServe_MaxPendingFlowsIgnored checks that serve still takes
// --max-pending-flows (and parses the retention flags) but caps nothing:
// sign-ins in progress are not stored, so a second one started while the
// first is pending is redirected too.
func TestServe_MaxPendingFlowsIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	providers := []unical.Provider{memory.New(memory.Config{Type: unical.ProviderGoogle})}
	admin := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, Providers: providers}
		if err := m.Run(t.Context(), append(args, "--data", dir)); err != nil {
			t.Fatalf("unicald %v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	var created struct {
		ApplicationID string `json:"applicationId"`
	}
	if err := json.Unmarshal([]byte(admin("apps", "create", "--name", "shop", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	admin("apps", "update", "--id", created.ApplicationID, "--redirect-url", "https://shop.example.com/cb",
		"--provider", "provider_a", "--client-id", "cid", "--client-secret-file", secretFile, "--auth-url", "https://auth.example.com/authorize")

	ready := make(chan string, 1)
	errOut := &apitest.LogBuffer{}
	m := &Main{Stdout: &apitest.LogBuffer{}, Stderr: errOut, Getenv: func(string) string { return "" }, Providers: providers, Ready: ready}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- m.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", dir, "--public-url", "https://cal.example.com",
			"--max-pending-flows", "1", "--sweep-interval", "1m", "--delivered-retention", "24h", "--failed-retention", "-1s", "--delivery-log-ttl", "48h"})
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve: %v\n%s", err, errOut.String())
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatal("serve did not start in 20 s")
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	target := "http://" + addr + "/v1/oauth/authorize/" + created.ApplicationID + "/provider_a?" +
		url.Values{"redirectUrl": {"https://shop.example.com/cb"}}.Encode()
	var got []int
	for range 2 {
		resp, err := client.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if want := []int{http.StatusFound, http.StatusFound}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("two authorize calls with --max-pending-flows 1 = %v, want %v", got, want)
	}
}
