package oauthflow_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/oauthflow"
	"github.com/unical/unical/internal/retry"
)

// answer is one scripted token endpoint answer.
type answer struct {
	status     int
	body       string
	retryAfter string
}

var (
	ok         = answer{200, `{"access_token":"at-2","token_type":"Bearer","expires_in":3600,"scope":"a b"}`, ""}
	okRotated  = answer{200, `{"access_token":"at-2","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-2"}`, ""}
	throttled  = answer{429, `{"error":"temporarily_unavailable"}`, "2"}
	down       = answer{503, `{"error":"server_error"}`, ""}
	tempUnav   = answer{400, `{"error":"temporarily_unavailable"}`, ""}
	badGrant   = answer{400, `{"error":"invalid_grant","error_description":"AADSTS50173: revoked"}`, ""}
	noConsent  = answer{400, `{"error":"interaction_required"}`, ""}
	badClient  = answer{401, `{"error":"invalid_client"}`, ""}
	badRequest = answer{400, `{"error":"invalid_request"}`, ""}
	notJSON    = answer{200, `<html>`, ""}
)

// tokenServer answers token requests from a script and counts them; past
// the script's end it answers ok.
type tokenServer struct {
	*httptest.Server
	mu     sync.Mutex
	script []answer
	count  int
}

func newTokenServer(t *testing.T, script ...answer) *tokenServer {
	ts := &tokenServer{script: script}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		a := ok
		if ts.count < len(ts.script) {
			a = ts.script[ts.count]
		}
		ts.count++
		ts.mu.Unlock()
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) requests() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.count
}

var now = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// newFlow returns a flow against url that records its waits.
func newFlow(url string, waits *[]time.Duration) *oauthflow.Flow {
	return &oauthflow.Flow{
		Config: &oauth2.Config{ClientID: "c", ClientSecret: "s", Endpoint: oauth2.Endpoint{TokenURL: url, AuthStyle: oauth2.AuthStyleInParams}},
		Now:    func() time.Time { return now },
		Retry: retry.Policy{
			MaxRetries: 3,
			Backoff:    retry.Backoff{Base: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: func(time.Duration) time.Duration { return 0 }},
			Sleep: func(ctx context.Context, d time.Duration) error {
				*waits = append(*waits, d)
				return nil
			},
		},
		Name:   "Test",
		Errors: oauthflow.Errors{Revoked: []string{"interaction_required"}, Client: map[string]unical.Code{"invalid_client": unical.CodeUnauthorized}},
	}
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		script     []answer
		rejected   unical.Code
		want       unical.Code // "" for success
		wantRT     string
		requests   int
		waits      []time.Duration
		retryAfter time.Duration
	}{
		{name: "ok keeps the refresh token", script: []answer{ok}, wantRT: "rt-1", requests: 1},
		{name: "rotated refresh token", script: []answer{okRotated}, wantRT: "rt-2", requests: 1},
		{name: "429 then ok", script: []answer{throttled, ok}, wantRT: "rt-1", requests: 2, waits: []time.Duration{2 * time.Second}},
		{name: "503 then ok", script: []answer{down, down, ok}, wantRT: "rt-1", requests: 3, waits: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}},
		{name: "temporarily_unavailable then ok", script: []answer{tempUnav, ok}, wantRT: "rt-1", requests: 2, waits: []time.Duration{50 * time.Millisecond}},
		{name: "429 throughout is 503, not expired", script: []answer{throttled, throttled, throttled, throttled}, want: unical.CodeUnavailable, requests: 4,
			waits: []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second}, retryAfter: 2 * time.Second},
		{name: "5xx throughout is 503", script: []answer{down, down, down, down}, want: unical.CodeUnavailable, requests: 4,
			waits: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}, retryAfter: time.Second},
		{name: "invalid_grant expires", script: []answer{badGrant}, want: unical.CodeAccountExpired, requests: 1},
		{name: "revoked consent expires", script: []answer{noConsent}, want: unical.CodeAccountExpired, requests: 1},
		{name: "invalid_grant while connecting", script: []answer{badGrant}, rejected: unical.CodeUnauthorized, want: unical.CodeUnauthorized, requests: 1},
		{name: "provider's client code", script: []answer{badClient}, want: unical.CodeUnauthorized, requests: 1},
		{name: "other 400", script: []answer{badRequest}, want: unical.CodeUpstream, requests: 1},
		{name: "unreadable answer", script: []answer{notJSON}, want: unical.CodeUpstream, requests: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTokenServer(t, tc.script...)
			var waits []time.Duration
			rejected := tc.rejected
			if rejected == "" {
				rejected = unical.CodeAccountExpired
			}
			tok, err := newFlow(ts.URL, &waits).Refresh(t.Context(), "rt-1", rejected)
			if got := unical.ErrorCode(err); err != nil && got != tc.want || err == nil && tc.want != "" {
				t.Fatalf("error = %v, want code %q", err, tc.want)
			}
			if err == nil {
				want := unical.Token{AccessToken: "at-2", RefreshToken: tc.wantRT, Expiry: now.Add(time.Hour)}
				if tc.script[len(tc.script)-1].body == ok.body {
					want.Scopes = []string{"a", "b"}
				}
				if diff := cmp.Diff(want, tok); diff != "" {
					t.Errorf("token (-want +got):\n%s", diff)
				}
			} else {
				var e *unical.Error
				if errors.As(err, &e) && e.RetryAfter != tc.retryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.retryAfter)
				}
			}
			if got := ts.requests(); got != tc.requests {
				t.Errorf("token requests = %d, want %d", got, tc.requests)
			}
			if diff := cmp.Diff(tc.waits, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefreshUnreachable(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t)
	url := ts.URL
	ts.Close() // nothing listens there any more
	var waits []time.Duration
	_, err := newFlow(url, &waits).Refresh(t.Context(), "rt-1", unical.CodeAccountExpired)
	if unical.ErrorCode(err) != unical.CodeUnavailable || len(waits) != 3 {
		t.Errorf("unreachable token endpoint: %v after %d waits; want CodeUnavailable after 3", err, len(waits))
	}
}

func TestRefreshSession(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, okRotated)
	var waits []time.Duration
	var stored []unical.Token
	s := &unical.Session{OnTokenRefresh: func(ctx context.Context, tok unical.Token) error {
		stored = append(stored, tok)
		return nil
	}}
	current := unical.Token{AccessToken: "at-1", RefreshToken: "rt-1", Scopes: []string{"x"}}
	tok, err := newFlow(ts.URL, &waits).RefreshSession(t.Context(), s, current)
	if err != nil {
		t.Fatal(err)
	}
	want := unical.Token{AccessToken: "at-2", RefreshToken: "rt-2", Expiry: now.Add(time.Hour), Scopes: []string{"x"}}
	if diff := cmp.Diff([]unical.Token{want, want}, []unical.Token{tok, stored[0]}); diff != "" || len(stored) != 1 {
		t.Errorf("returned and stored tokens (-want +got):\n%s", diff)
	}

	// A token that cannot be stored is not handed out.
	s.OnTokenRefresh = func(context.Context, unical.Token) error { return unical.Errorf(unical.CodeInternal, "store down") }
	if _, err := newFlow(ts.URL, &waits).RefreshSession(t.Context(), s, current); unical.ErrorCode(err) != unical.CodeInternal {
		t.Errorf("failing OnTokenRefresh: %v", err)
	}
	// No refresh token: expired without asking.
	if _, err := newFlow(ts.URL, &waits).RefreshSession(t.Context(), s, unical.Token{AccessToken: "at"}); unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Errorf("no refresh token: %v", err)
	}
}

func TestExchange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script []answer
		want   unical.Code
	}{
		{"ok", []answer{okRotated}, ""},
		{"refused code", []answer{badGrant}, unical.CodeUnauthorized},
		{"outage is not retried", []answer{down, ok}, unical.CodeUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTokenServer(t, tc.script...)
			var waits []time.Duration
			tok, err := newFlow(ts.URL, &waits).Exchange(t.Context(), "code", "verifier")
			if unical.ErrorCode(err) != tc.want && !(err == nil && tc.want == "") {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if err == nil && (tok.RefreshToken != "rt-2" || !tok.Expiry.Equal(now.Add(time.Hour))) {
				t.Errorf("token = %+v", tok)
			}
			if ts.requests() != 1 || len(waits) != 0 {
				t.Errorf("%d requests, %d waits; an exchange is tried once", ts.requests(), len(waits))
			}
		})
	}
}

// TestRefreshReason checks that a refused grant carries the reason the
// provider's classifier finds in the code and error_description, and
// "unknown" when it finds none or the provider has no classifier.
func TestRefreshReason(t *testing.T) {
	t.Parallel()
	classify := func(code, description string) unical.StatusReason {
		if strings.HasPrefix(description, "AADSTS50173:") {
			return unical.StatusReasonRefreshTokenRevoked
		}
		if code == "interaction_required" {
			return unical.StatusReasonPolicy
		}
		return ""
	}
	tests := []struct {
		name       string
		answer     answer
		classifier func(code, description string) unical.StatusReason
		want       unical.StatusReason
	}{
		{"description names the cause", badGrant, classify, unical.StatusReasonRefreshTokenRevoked},
		{"code names the cause", noConsent, classify, unical.StatusReasonPolicy},
		{"classifier finds nothing", answer{400, `{"error":"invalid_grant"}`, ""}, classify, unical.StatusReasonUnknown},
		{"no classifier", badGrant, nil, unical.StatusReasonUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTokenServer(t, tc.answer)
			var waits []time.Duration
			f := newFlow(ts.URL, &waits)
			f.Errors.Reason = tc.classifier
			_, err := f.Refresh(t.Context(), "rt-1", unical.CodeAccountExpired)
			if unical.ErrorCode(err) != unical.CodeAccountExpired {
				t.Fatalf("error = %v, want account_expired", err)
			}
			if got := unical.ErrorReason(err); got != tc.want {
				t.Errorf("reason = %q, want %q", got, tc.want)
			}
		})
	}
}
