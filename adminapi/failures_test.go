package adminapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/openapitest"
)

// TestAuthentication_FailureLimit sends wrong operator tokens from one
// client address: past the limit every request of that address, the
// right token included, is answered 429 with Retry-After and its token is
// not checked, while another address is served as before.
func TestAuthentication_FailureLimit(t *testing.T) {
	s := startServer(t, nil)
	failures := httpapi.NewFailureLimiter(httpapi.RateLimit{PerSecond: 1.0 / 60, Burst: 3}, true)
	h := openapitest.HandlerFor(t, adminapi.OpenAPIDocument, adminapi.NewHandler(admin.Of(s.client), adminapi.Options{Failures: failures}))
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
		a := answer{Status: w.Code, RetryAfter: w.Header().Get("Retry-After")}
		if w.Code != http.StatusOK {
			var e errorBody
			(&response{body: w.Body.Bytes()}).into(t, &e)
			a.Code = e.Error.Code
		}
		return a
	}
	wrong := admin.NewAdminToken()
	refused := answer{Status: http.StatusUnauthorized, Code: "unauthorized"}
	limited := answer{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: "60"}
	got := []answer{
		send("203.0.113.7", wrong), send("203.0.113.7", ""), send("203.0.113.7", wrong),
		send("203.0.113.7", wrong), send("203.0.113.7", s.token),
		send("198.51.100.9", s.token), send("198.51.100.9", wrong),
	}
	want := []answer{refused, refused, refused, limited, limited, {Status: http.StatusOK}, refused}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answers (-want +got):\n%s", d)
	}
}
