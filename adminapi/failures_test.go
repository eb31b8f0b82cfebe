package adminapi_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/openapitest"
)

// TestAuthentication_FailureLimit sends ten wrong operator tokens from
// one client address, unicald's limit: past it every wrong token of that
// address is answered 429 with Retry-After, but the right token still
// works (only failures are throttled, so an anonymous caller behind the
// operator's proxy cannot lock the operator out), and another address is
// served as before.
func TestAuthentication_FailureLimit(t *testing.T) {
	s := startServer(t, nil)
	failures := httpapi.NewFailureLimiter(httpapi.LimiterConfig{Rate: httpapi.DefaultFailureLimit, TrustForwardedFor: true})
	h := openapitest.HandlerFor(t, adminapi.OpenAPIDocument, adminapi.NewHandler(adminapi.Config{Service: admin.Of(s.client), Failures: failures}))
	type answer struct {
		Status     int
		Code       string
		RetryAfter string
	}
	send := func(from, token string) answer {
		req := httptest.NewRequest("GET", "/admin/v1/applications", nil)
		req.Header.Set("X-Forwarded-For", from)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		a := answer{Status: w.Code, RetryAfter: lockoutWait(w.Header().Get("Retry-After"))}
		if w.Code != http.StatusOK {
			var e errorBody
			(&response{body: w.Body.Bytes()}).into(t, &e)
			a.Code = e.Error.Code
		}
		return a
	}
	wrong := admin.NewAdminToken()
	refused := answer{Status: http.StatusUnauthorized, Code: "unauthorized"}
	limited := answer{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: "1-60"}
	var got, want []answer
	for i := 0; i < 10; i++ {
		got, want = append(got, send("203.0.113.7", wrong)), append(want, refused)
	}
	got = append(got, send("203.0.113.7", wrong), send("203.0.113.7", ""), send("203.0.113.7", s.token),
		send("203.0.113.7", wrong), send("198.51.100.9", s.token), send("198.51.100.9", wrong))
	want = append(want, limited, limited, answer{Status: http.StatusOK}, limited, answer{Status: http.StatusOK}, refused)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answers (-want +got):\n%s", d)
	}
}

// lockoutWait reads a lockout's Retry-After: "1-60" for the whole seconds
// a one-minute lockout can have left (a second may pass on a loaded
// machine between the failure and the answer), else the header as sent.
func lockoutWait(h string) string {
	if n, err := strconv.Atoi(h); err == nil && n >= 1 && n <= 60 {
		return "1-60"
	}
	return h
}
