package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
)

// probe is an answer of /healthz or /readyz.
type probe struct {
	Status int
	Body   map[string]any
}

// getProbe sends GET path without an API key.
func getProbe(t *testing.T, url string) probe {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	p := probe{Status: resp.StatusCode}
	if err := json.Unmarshal(b, &p.Body); err != nil {
		t.Fatalf("GET %s: body %q is not a JSON object: %v", url, b, err)
	}
	return p
}

// readyWhen polls /readyz until it answers want (5 s at most), since the
// engine starts on its own goroutine.
func readyWhen(t *testing.T, url string, want int) probe {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := getProbe(t, url+"/readyz")
		if p.Status == want || time.Now().After(deadline) {
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func checks(store, engine string) map[string]any {
	return map[string]any{"store": store, "webhookEngine": engine}
}

// TestHealthAndReadiness checks the probes over the whole stack: healthz
// always answers, readyz only while the store reads and the engine runs,
// and says which part is not ready. Neither wants an API key.
func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	st := apitest.Start(t, nil, func(cfg *apitest.Config) { cfg.Sender = rcv.Sender() })

	if p := getProbe(t, st.URL+"/readyz"); p.Status != http.StatusServiceUnavailable ||
		!cmp.Equal(p.Body, map[string]any{"status": "not_ready", "checks": checks("ok", "not_running")}) {
		t.Errorf("readyz before the engine runs = %d %v, want 503 naming the engine", p.Status, p.Body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, st.Client, st.Engine) }()
	t.Cleanup(func() { cancel(); <-done })

	if diff := cmp.Diff(probe{http.StatusOK, map[string]any{"status": "ready", "checks": checks("ok", "ok")}}, readyWhen(t, st.URL, http.StatusOK)); diff != "" {
		t.Errorf("readyz with the engine running (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(probe{http.StatusOK, map[string]any{"status": "ok"}}, getProbe(t, st.URL+"/healthz")); diff != "" {
		t.Errorf("healthz (-want +got):\n%s", diff)
	}

	// The store stops answering: not ready, naming the store; alive all
	// the same (a restart is not what mends a store).
	if err := st.Store.Close(); err != nil {
		t.Fatal(err)
	}
	p := readyWhen(t, st.URL, http.StatusServiceUnavailable)
	if diff := cmp.Diff(probe{http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks("error", "ok")}}, p); diff != "" {
		t.Errorf("readyz with the store closed (-want +got):\n%s", diff)
	}
	if p := getProbe(t, st.URL+"/healthz"); p.Status != http.StatusOK {
		t.Errorf("healthz with the store closed = %d, want 200", p.Status)
	}

	// The engine stops: not ready, naming both.
	cancel()
	<-done
	done <- nil // for Cleanup
	p = getProbe(t, st.URL+"/readyz")
	if diff := cmp.Diff(probe{http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks("error", "not_running")}}, p); diff != "" {
		t.Errorf("readyz with the engine stopped (-want +got):\n%s", diff)
	}
}

// TestMetricsEndpoint_Absent checks that /metrics is not served unless
// the program hands a handler (the test stack hands none).
func TestMetricsEndpoint_Absent(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics = %d, want 404", resp.StatusCode)
	}
}
