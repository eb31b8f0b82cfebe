package apitest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/openapitest"
	"github.com/unical/unical/webhooksender"
)

// Delivery is one webhook request a Receiver got.
type Delivery struct {
	ID       string
	At       time.Time
	Body     []byte
	Header   http.Header
	Verified bool
}

// Payload decodes the delivery's body.
func (d Delivery) Payload(tb testing.TB) unical.MessagePayload {
	tb.Helper()
	var p unical.MessagePayload
	if err := json.Unmarshal(d.Body, &p); err != nil {
		tb.Fatalf("webhook body %s: %v", d.Body, err)
	}
	return p
}

// Receiver is a webhook receiver on loopback HTTPS that verifies every
// request with the Standard Webhooks reference library, as the spec's
// receiver does: a request that does not verify is answered 400. A
// verified body that the OpenAPI document's webhooks section does not
// describe fails the test (openapitest.CheckWebhook).
type Receiver struct {
	URL string
	srv *httptest.Server
	tb  testing.TB

	answer func(n int) int // status for the n-th request (0-based)

	mu      sync.Mutex
	secret  string
	got     []Delivery
	arrived chan struct{}
}

// NewReceiver starts a receiver that answers 204 to every verified
// request; it stops in Cleanup.
func NewReceiver(tb testing.TB) *Receiver {
	tb.Helper()
	return NewReceiverAnswering(tb, nil)
}

// NewReceiverAnswering starts a receiver that answers answer(n) to the
// n-th request (0-based, counting every request) when it verifies, for
// tests of retries; nil answers 204.
func NewReceiverAnswering(tb testing.TB, answer func(n int) int) *Receiver {
	tb.Helper()
	r := &Receiver{tb: tb, answer: answer, arrived: make(chan struct{}, 1000)}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	tb.Cleanup(r.srv.Close)
	r.URL = r.srv.URL
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	d := Delivery{ID: req.Header.Get("webhook-id"), At: time.Now(), Body: body, Header: req.Header.Clone()}
	if wh, err := standardwebhooks.NewWebhook(r.secret); err == nil {
		d.Verified = wh.Verify(body, req.Header) == nil
	}
	if d.Verified {
		// Every message unical sends must be one the OpenAPI document's
		// webhooks section describes.
		if err := openapitest.CheckWebhook(body); err != nil {
			r.tb.Errorf("webhook %s: %v\n%s", d.ID, err, body)
		}
	}
	n := len(r.got)
	r.got = append(r.got, d)
	r.mu.Unlock()
	status := http.StatusNoContent
	if r.answer != nil {
		status = r.answer(n)
	}
	if !d.Verified {
		status = http.StatusBadRequest // as the spec's receiver does
	}
	w.WriteHeader(status)
	select {
	case r.arrived <- struct{}{}:
	default:
	}
}

// SetSecret sets the endpoint secret the receiver verifies with.
func (r *Receiver) SetSecret(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = secret
}

// Deliveries returns what arrived so far.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// WaitFor waits until n requests arrived (20 s at most) and returns them.
func (r *Receiver) WaitFor(tb testing.TB, n int) []Delivery {
	tb.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if got := r.Deliveries(); len(got) >= n {
			return got
		}
		select {
		case <-r.arrived:
		case <-deadline:
			tb.Fatalf("the receiver got %d webhook requests, want %d", len(r.Deliveries()), n)
		}
	}
}

// Sender returns the delivery client of unicald, trusting the receiver's
// certificate and allowed to reach loopback.
func (r *Receiver) Sender() engine.Sender {
	pool := x509.NewCertPool()
	pool.AddCert(r.srv.Certificate())
	return webhooksender.New(webhooksender.Config{AllowPrivate: true, TLSConfig: &tls.Config{RootCAs: pool}, Timeout: 5 * time.Second})
}

// Tampered re-sends a delivery with a changed body to the receiver and
// reports whether the receiver refused it, as it must. The attempt is
// recorded like any other request, so count deliveries before calling it.
func (r *Receiver) Tampered(tb testing.TB, d Delivery) bool {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodPost, r.URL, bytes.NewReader(append(append([]byte(nil), d.Body...), ' ')))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header = d.Header.Clone()
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusBadRequest
}
