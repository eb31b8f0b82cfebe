package googletest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/googletest"
)

func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fault      googletest.Fault
		wantStatus int
		wantDomain string
		wantReason string
		wantMsg    string
	}{
		{"RateLimit429", googletest.Fault{Status: 429, RetryAfter: "3"}, 429, "usageLimits", "rateLimitExceeded", "Rate Limit Exceeded"},
		{"RateLimit403", googletest.Fault{Status: 403}, 403, "usageLimits", "rateLimitExceeded", "Rate Limit Exceeded"},
		{"UserRateLimit403", googletest.Fault{Status: 403, Reason: "userRateLimitExceeded"}, 403, "usageLimits", "userRateLimitExceeded", "User Rate Limit Exceeded"},
		{"QuotaExceeded403", googletest.Fault{Status: 403, Reason: "quotaExceeded"}, 403, "usageLimits", "quotaExceeded", "Calendar usage limits exceeded."},
		{"BackendError500", googletest.Fault{Status: 500}, 500, "global", "backendError", "Backend Error"},
		{"Unavailable503", googletest.Fault{Status: 503, RetryAfter: "1"}, 503, "global", "backendError", "Backend Error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := MustNewFixture(t, googletest.Options{})
			listURL := f.srv.APIBaseURL() + "/users/me/calendarList"
			fault := tc.fault
			fault.Times, fault.PathPrefix = 2, "/calendar/v3/users/me/calendarList"
			f.srv.InjectFault(fault)
			for i := range 2 {
				r := call(t, "GET", listURL, f.token, nil)
				want := map[string]any{"error": map[string]any{
					"errors":  []any{map[string]any{"domain": tc.wantDomain, "reason": tc.wantReason, "message": tc.wantMsg}},
					"code":    float64(tc.wantStatus),
					"message": tc.wantMsg,
				}}
				if diff := cmp.Diff(want, r.body); diff != "" || r.status != tc.wantStatus {
					t.Fatalf("attempt %d: status %d, body mismatch (-want +got):\n%s", i, r.status, diff)
				}
				if got := r.header.Get("Retry-After"); got != tc.fault.RetryAfter {
					t.Errorf("Retry-After = %q, want %q", got, tc.fault.RetryAfter)
				}
			}
			if r := call(t, "GET", listURL, f.token, nil); r.status != 200 {
				t.Fatalf("after the fault: %d %s", r.status, r.raw)
			}
			if got := f.srv.RequestCount("GET", "/calendar/v3/users/me/calendarList"); got != 3 {
				t.Errorf("RequestCount = %d, want 3", got)
			}
		})
	}
}

func TestFaults_MatchingAndDelay(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	api := f.srv.APIBaseURL()
	f.srv.InjectFault(googletest.Fault{Method: "POST", PathPrefix: "/calendar/v3/calendars/", Times: 1, Status: 500})
	f.srv.InjectFault(googletest.Fault{PathPrefix: "/calendar/v3/users/", Times: 1, Delay: 20 * time.Millisecond})

	// GET on the faulted prefix is untouched by the POST fault.
	if r := call(t, "GET", eventsURL(f, "primary", nil), f.token, nil); r.status != 200 {
		t.Fatalf("GET events: %d %s", r.status, r.raw)
	}
	if r := call(t, "POST", eventsURL(f, "primary", nil), f.token, timed("x", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z")); r.status != 500 {
		t.Fatalf("POST events: %d, want 500", r.status)
	}
	// A delay-only fault still answers normally.
	if r := call(t, "GET", api+"/users/me/calendarList", f.token, nil); r.status != 200 {
		t.Fatalf("delayed request: %d %s", r.status, r.raw)
	}

	t.Run("TokenEndpoint", func(t *testing.T) {
		f.srv.InjectFault(googletest.Fault{PathPrefix: "/token", Times: 1, Status: 503})
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {f.srv.IssueRefreshToken(testClientID, aliceEmail)}, "client_id": {testClientID}, "client_secret": {testClientSecret}}
		req, _ := http.NewRequestWithContext(t.Context(), "POST", f.srv.TokenURL(), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		_ = jsonDecode(resp.Body, &body)
		resp.Body.Close()
		if resp.StatusCode != 503 || body["error"] != "temporarily_unavailable" {
			t.Fatalf("token fault: %d %v", resp.StatusCode, body)
		}
		if got := f.srv.RequestCount("POST", "/token"); got != 1 {
			t.Errorf("RequestCount(/token) = %d, want 1", got)
		}
	})
}
