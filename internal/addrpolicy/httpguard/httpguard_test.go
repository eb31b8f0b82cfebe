package httpguard_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/unical/unical/internal/addrpolicy"
	"github.com/unical/unical/internal/addrpolicy/httpguard"
)

// TestTransport dials a loopback server: refused by default before any
// byte reaches it, reached when private targets are allowed.
func TestTransport(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	for _, host := range []string{"127.0.0.1", "localhost"} {
		c := &http.Client{Transport: httpguard.Transport(false)}
		_, err := c.Get(strings.Replace(srv.URL, "127.0.0.1", host, 1))
		if !errors.Is(err, addrpolicy.ErrForbidden) {
			t.Errorf("GET via %s with the policy: error = %v, want ErrForbidden", host, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server was reached %d times through the policy", n)
	}
	c := &http.Client{Transport: httpguard.Transport(true)}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET with private targets allowed: %v", err)
	}
	resp.Body.Close()
	if n := hits.Load(); n != 1 {
		t.Errorf("server hits = %d, want 1", n)
	}
}
