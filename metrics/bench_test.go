package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/metrics"
	"github.com/unical/unical/store/bolt"
)

// BenchmarkRequestMetrics is the cost of measuring a request: GET
// /healthz (no store, no JSON worth the name) served in-process with and
// without a RequestObserver; the difference is the middleware's.
func BenchmarkRequestMetrics(b *testing.B) {
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(b.TempDir(), "unical.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	client, err := unical.New(unical.Config{Store: store, MasterKey: seal.NewKey()})
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, h http.Handler) {
		req := httptest.NewRequest("GET", "/healthz", nil)
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		}
	}
	b.Run("Plain", func(b *testing.B) { run(b, httpapi.NewHandler(httpapi.Config{Client: client})) })
	b.Run("Measured", func(b *testing.B) {
		run(b, httpapi.NewHandler(httpapi.Config{Client: client, Requests: metrics.New()}))
	})
}
