package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/metrics"
	"github.com/unical/unical/requestlog"
)

// benchEvents is how many events the benchmarked listing returns.
const benchEvents = 20

// BenchmarkEventList compares GET /v1/events/{account}/{calendar} through
// the whole stack (API key check, bolt reads, credential unsealing, the
// in-memory provider, token sealing, JSON) with a bare net/http handler
// that encodes the same JSON. Both are served over loopback HTTP in the
// same process; BENCHMARKS.md reports the ratio.
func BenchmarkEventList(b *testing.B) {
	ts := MustNewServer(b)
	acct := ts.mustConnect(b)[unical.ProviderGoogle]
	base := "/v1/events/" + acct + "/" + esc("primary/"+googleUser)
	for i := range benchEvents {
		ts.must(b, "POST", base, map[string]any{
			"title": fmt.Sprintf("Event %d", i), "description": "A meeting", "location": "Room 1",
			"start": map[string]any{"dateTime": "2026-01-05T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-01-05T10:00:00Z"},
			"attendees": []any{map[string]any{"email": "bob@example.com", "responseStatus": "accepted"}},
		})
	}
	var page unical.SyncPage[*unical.Event]
	ts.must(b, "GET", base, nil).Into(b, &page)
	if len(page.Data) != benchEvents {
		b.Fatalf("listing has %d events, want %d", len(page.Data), benchEvents)
	}
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(page)
	}))
	b.Cleanup(bare.Close)

	run := func(b *testing.B, url, key string) {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("x-api-key", key)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	}
	b.Run("Bare", func(b *testing.B) { run(b, bare.URL+base, "") })
	b.Run("Full", func(b *testing.B) { run(b, ts.URL+base, ts.APIKey) })
}

// discardWriter is a ResponseWriter that keeps only the status, so that
// BenchmarkAccounts measures the handler and not a recorder.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }

// BenchmarkAccounts runs the handler of GET /v1/endUserAccounts/{id} and of
// a 50-account GET /v1/endUserAccounts in process, without a network, to
// profile what the full stack adds per request (scripts/bench-http.sh
// measures the same routes over HTTP against a bare server):
//
//	go test -run XXX -bench BenchmarkAccounts -cpuprofile cpu.out ./httpapi/
func BenchmarkAccounts(b *testing.B) {
	ts := MustNewServer(b)
	const accounts = 50
	var first string
	for i := range accounts {
		email := fmt.Sprintf("user%03d@example.com", i)
		token := fmt.Sprintf("refresh-%03d", i)
		ts.Providers[unical.ProviderGoogle].AddUser(email, token, "")
		var acct unical.Account
		ts.must(b, "POST", "/v1/endUserAccounts", map[string]any{"email": email, "providerType": "PROVIDER_A", "refreshToken": token}).Into(b, &acct)
		if first == "" {
			first = acct.ID
		}
	}
	plain := httpapi.Config{Client: ts.Client, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	// served is what unicald serve mounts: request metrics, the request
	// log, both rate limits (raised so that the loop is never refused)
	// and the deadline.
	served := plain
	served.Requests = metrics.New()
	served.RequestLog = requestlog.New(requestlog.Config{})
	served.KeyRateLimit = httpapi.RateLimit{PerSecond: 1e9}
	served.IPRateLimit = httpapi.RateLimit{PerSecond: 1e9}
	served.RequestTimeout = httpapi.DefaultRequestTimeout
	var h http.Handler
	run := func(b *testing.B, target string) {
		req := httptest.NewRequest("GET", target, nil)
		req.Header.Set("x-api-key", ts.APIKey)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := processCPU()
		for b.Loop() {
			w := &discardWriter{header: http.Header{}}
			h.ServeHTTP(w, req)
			if w.status != 200 {
				b.Fatalf("status %d", w.status)
			}
		}
		// CPU per request (garbage collection included) is steadier than
		// ns/op on a shared machine.
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	}
	for _, mode := range []struct {
		name string
		opts httpapi.Config
	}{{"", plain}, {"Served", served}} {
		h = httpapi.NewHandler(mode.opts)
		b.Run("Get"+mode.name, func(b *testing.B) { run(b, "/v1/endUserAccounts/"+first) })
		b.Run("List50"+mode.name, func(b *testing.B) { run(b, "/v1/endUserAccounts?limit=50") })
	}
	// Bare repeats the served answers' headers and bytes, as the bare
	// server of scripts/bench-http.sh does: GetServed/GetBare is the
	// in-process share of the full stack's cost over net/http's own.
	for _, route := range []struct{ name, target string }{
		{"Get", "/v1/endUserAccounts/" + first}, {"List50", "/v1/endUserAccounts?limit=50"},
	} {
		h = bareHandler(b, httpapi.NewHandler(served), route.target, ts.APIKey)
		b.Run(route.name+"Bare", func(b *testing.B) { run(b, route.target) })
	}
}

// bareHandler captures full's answer to a GET of target and returns a
// handler that writes the same headers and body, as benchhttp bare does.
func bareHandler(b *testing.B, full http.Handler, target, key string) http.Handler {
	req := httptest.NewRequest("GET", target, nil)
	req.Header.Set("x-api-key", key)
	rec := httptest.NewRecorder()
	full.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("GET %s: status %d", target, rec.Code)
	}
	header, body := rec.Header().Clone(), rec.Body.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for name, values := range header {
			w.Header()[name] = values
		}
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
}
