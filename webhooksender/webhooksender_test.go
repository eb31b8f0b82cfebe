package webhooksender_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical/engine"
	"github.com/unical/unical/webhooksender"
)

// trust returns TLS settings that trust srv's certificate.
func trust(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool}
}

func TestClient_Send(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Method != http.MethodPost || r.Header.Get("Webhook-Id") != "msg_1" || r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", r.URL.Query().Get("after"))
		w.WriteHeader(http.StatusTooManyRequests)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		// A receiver that never answers. Returning once the sender gives
		// up would answer 200 OK, and the sender's transport takes an
		// answer that races with its own close of the connection as the
		// answer (a few runs in 300 under -race): aborting drops the
		// connection without one.
		<-r.Context().Done()
		panic(http.ErrAbortHandler)
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	header := map[string][]string{"webhook-id": {"msg_1"}, "Content-Type": {"application/json"}}

	t.Run("OK", func(t *testing.T) {
		t.Parallel()
		c := webhooksender.New(webhooksender.Config{AllowPrivate: true, TLSConfig: trust(srv)})
		resp, err := c.Send(t.Context(), srv.URL+"/ok", header, []byte(`{}`))
		if err != nil || resp != (engine.Response{StatusCode: http.StatusNoContent}) {
			t.Fatalf("Send() = %+v, %v; want 204 without Retry-After", resp, err)
		}
	})
	t.Run("RedirectNotFollowed", func(t *testing.T) {
		t.Parallel()
		before := hits.Load()
		c := webhooksender.New(webhooksender.Config{AllowPrivate: true, TLSConfig: trust(srv)})
		resp, err := c.Send(t.Context(), srv.URL+"/redirect", header, []byte(`{}`))
		if err != nil || resp.StatusCode != http.StatusTemporaryRedirect {
			t.Fatalf("Send() = %+v, %v; want 307", resp, err)
		}
		if hits.Load() != before {
			t.Error("the redirect target was requested")
		}
	})
	t.Run("RetryAfter", func(t *testing.T) {
		t.Parallel()
		c := webhooksender.New(webhooksender.Config{AllowPrivate: true, TLSConfig: trust(srv)})
		// An HTTP date has whole seconds, so one an hour ahead reads as a
		// little under an hour; the test allows a minute for a slow run.
		date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		for _, tc := range []struct {
			name, after string
			min, max    time.Duration
		}{
			{"Seconds", "120", 2 * time.Minute, 2 * time.Minute},
			{"HTTPDate", date, 58 * time.Minute, time.Hour},
			{"Unreadable", "soon", 0, 0},
		} {
			resp, err := c.Send(t.Context(), srv.URL+"/busy?after="+url.QueryEscape(tc.after), header, nil)
			if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.RetryAfter < tc.min || resp.RetryAfter > tc.max {
				t.Errorf("%s: Send() = %+v, %v; want 429 with RetryAfter in [%v, %v]", tc.name, resp, err, tc.min, tc.max)
			}
		}
	})
	t.Run("ErrTimeout", func(t *testing.T) {
		t.Parallel()
		c := webhooksender.New(webhooksender.Config{AllowPrivate: true, TLSConfig: trust(srv), Timeout: 100 * time.Millisecond})
		start := time.Now()
		if _, err := c.Send(t.Context(), srv.URL+"/slow", header, nil); err == nil {
			t.Fatal("Send() to a slow receiver = nil error, want a timeout")
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Send() took %v; the timeout did not apply", d)
		}
	})
	t.Run("ErrUntrustedCertificate", func(t *testing.T) {
		t.Parallel()
		c := webhooksender.New(webhooksender.Config{AllowPrivate: true})
		if _, err := c.Send(t.Context(), srv.URL+"/ok", header, nil); err == nil {
			t.Fatal("Send() to a self-signed server = nil error, want a certificate error")
		}
	})
	for _, target := range []struct{ name, url string }{
		{"ErrLoopbackIP", srv.URL},
		{"ErrLoopbackName", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)},
		{"ErrUnspecified", strings.Replace(srv.URL, "127.0.0.1", "0.0.0.0", 1)},
		{"ErrMappedLoopback", strings.Replace(srv.URL, "127.0.0.1", "[::ffff:127.0.0.1]", 1)},
	} {
		t.Run(target.name, func(t *testing.T) {
			t.Parallel()
			before := hits.Load()
			c := webhooksender.New(webhooksender.Config{TLSConfig: trust(srv)})
			_, err := c.Send(t.Context(), target.url+"/ok", header, nil)
			if !errors.Is(err, webhooksender.ErrForbiddenAddress) {
				t.Fatalf("Send(%s) error = %v, want ErrForbiddenAddress", target.url, err)
			}
			if hits.Load() != before {
				t.Error("the receiver was reached")
			}
		})
	}
}

// TestClient_Send_SSLCertFile runs a child test process with SSL_CERT_FILE
// naming the test server's certificate: the system roots are loaded once
// per process, so only a fresh process shows that the variable is honoured.
func TestClient_Send_SSLCertFile(t *testing.T) {
	t.Parallel()
	if os.Getenv("DELIVER_CHILD_URL") != "" {
		t.Skip("running as the child")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	bundle := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(bundle, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSSLCertFileChild$", "-test.v")
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+bundle, "SSL_CERT_DIR=", "DELIVER_CHILD_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSSLCertFileChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestSSLCertFileChild is the child half of TestClient_Send_SSLCertFile.
func TestSSLCertFileChild(t *testing.T) {
	url := os.Getenv("DELIVER_CHILD_URL")
	if url == "" {
		t.Skip("only run by TestClient_Send_SSLCertFile")
	}
	c := webhooksender.New(webhooksender.Config{AllowPrivate: true})
	resp, err := c.Send(t.Context(), url, nil, []byte(`{}`))
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("Send() with SSL_CERT_FILE = %+v, %v; want 202", resp, err)
	}
}

// The Client is what engine.Config.Sender takes.
var _ engine.Sender = (*webhooksender.Client)(nil)

// TestForbiddenHost checks the registration-time policy an outside program
// applies to a webhook URL's host.
func TestForbiddenHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"api.localhost.", true},
		{"127.0.0.1", true},
		{"10.1.2.3", true},
		{"192.168.0.10", true},
		{"169.254.169.254", true},
		{"::1", true},
		{"[::ffff:10.0.0.1]", true},
		{"fe80::1%eth0", true},
		{"0.0.0.0", true},
		{"93.184.216.34", false},
		{"2606:4700::6810:85e5", false},
		{"hooks.example.com", false}, // judged when resolved
	}
	for _, tt := range tests {
		if got := webhooksender.ForbiddenHost(tt.host); got != tt.want {
			t.Errorf("ForbiddenHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
	if !webhooksender.ForbiddenAddress(netip.MustParseAddr("::ffff:127.0.0.1")) {
		t.Error("ForbiddenAddress(::ffff:127.0.0.1) = false, want true (IPv4-mapped loopback)")
	}
	if webhooksender.ForbiddenAddress(netip.MustParseAddr("8.8.8.8")) {
		t.Error("ForbiddenAddress(8.8.8.8) = true, want false")
	}
}
