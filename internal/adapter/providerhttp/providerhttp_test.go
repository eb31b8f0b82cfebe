package providerhttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/providerhttp"
	"github.com/unical/unical/internal/retry"
)

// tokens hands out "old" until forced, then "new", and records the calls.
type tokens struct {
	mu     sync.Mutex
	forced int
}

func (t *tokens) Token(_ context.Context, force bool) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if force {
		t.forced++
	}
	if t.forced > 0 {
		return "new", nil
	}
	return "old", nil
}

// server answers each request with the next status of statuses (the last
// one repeats) and records the Authorization headers it got.
func server(t *testing.T, statuses ...int) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := min(len(auth), len(statuses)-1)
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(statuses[n])
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auth...)
	}
}

func caller(srv *httptest.Server, tok *tokens, waits *[]time.Duration) providerhttp.Caller {
	return providerhttp.Caller{
		Client: srv.Client(), Tokens: tok, Refresh401: true, MaxBody: 1 << 20,
		Policy: retry.Policy{MaxRetries: 2, Backoff: retry.Backoff{Base: 300 * time.Millisecond, Max: time.Second, Jitter: func(d time.Duration) time.Duration { return d }},
			Sleep: func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }},
		Classify: func(r *providerhttp.Response) retry.Outcome {
			switch {
			case r.StatusCode < 300:
				return retry.Outcome{}
			case r.StatusCode == http.StatusServiceUnavailable:
				return retry.Outcome{Err: unical.Errorf(unical.CodeUnavailable, "down"), Retry: true}
			}
			return retry.Outcome{Err: unical.Errorf(unical.CodeAccountExpired, "refused")}
		},
		SendFailed: func(err error, _ bool) retry.Outcome { return retry.Outcome{Err: err} },
		TimedOut:   "timed out",
	}
}

// A 401 refreshes the token once and repeats the request at once, without
// a wait; a second 401 is the provider's answer.
func TestCaller_RefreshOnce(t *testing.T) {
	for _, tt := range []struct {
		name     string
		statuses []int
		wantAuth []string
		wantCode unical.Code
	}{
		{"refreshed token accepted", []int{401, 200}, []string{"Bearer old", "Bearer new"}, ""},
		{"refreshed token refused too", []int{401, 401}, []string{"Bearer old", "Bearer new"}, unical.CodeAccountExpired},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, auth := server(t, tt.statuses...)
			tok := &tokens{}
			var waits []time.Duration
			_, err := caller(srv, tok, &waits).Do(t.Context(), providerhttp.Request{Method: "GET", URL: srv.URL})
			if got := unical.ErrorCode(err); got != tt.wantCode {
				t.Errorf("Do() = %v, want code %q", err, tt.wantCode)
			}
			if diff := cmp.Diff(tt.wantAuth, auth()); diff != "" {
				t.Errorf("Authorization sent (-want +got):\n%s", diff)
			}
			if tok.forced != 1 || len(waits) != 0 {
				t.Errorf("forced refreshes = %d, waits = %v; want 1 and none", tok.forced, waits)
			}
		})
	}
}

// A transient failure is retried under the policy; given up on, its error
// carries the next wait, rounded up to seconds, as RetryAfter.
func TestCaller_RetriesThenHandsOnTheWait(t *testing.T) {
	srv, auth := server(t, 503)
	var waits []time.Duration
	_, err := caller(srv, &tokens{}, &waits).Do(t.Context(), providerhttp.Request{Method: "GET", URL: srv.URL})
	var e *unical.Error
	ok := errors.As(err, &e)
	if !ok || e.Code != unical.CodeUnavailable || e.RetryAfter != time.Second {
		t.Fatalf("Do() = %#v, want CodeUnavailable with RetryAfter 1s", err)
	}
	if diff := cmp.Diff([]time.Duration{300 * time.Millisecond, 600 * time.Millisecond}, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if n := len(auth()); n != 3 {
		t.Errorf("requests = %d, want 3 (two retries)", n)
	}
}
