package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/memory"
)

// failingProvider answers GetCalendar with the error named by the
// calendar id, to drive every row of the error table through HTTP.
type failingProvider struct {
	*memory.Provider
}

var providerErrors = map[string]error{
	"internal":     errors.New("db: password=hunter2 at 10.0.0.7"),
	"rate-limited": &unical.Error{Code: unical.CodeRateLimited, Message: "Slow down.", RetryAfter: 2500 * time.Millisecond},
	"unavailable":  &unical.Error{Code: unical.CodeUnavailable, Message: "The provider is down."},
	"upstream":     unical.WrapError(unical.CodeUpstream, errors.New("502 from upstream, token=abc"), "The provider failed."),
	"precondition": unical.Errorf(unical.CodePrecondition, "The event changed."),
	"conflict":     unical.Errorf(unical.CodeConflict, "Conflict."),
	"unsupported":  unical.Errorf(unical.CodeNotImplemented, "Not supported."),
	"panic":        nil,
}

func (p failingProvider) GetCalendar(ctx context.Context, s *unical.Session, id string) (*unical.Calendar, error) {
	if id == "panic" {
		panic("secret panic detail")
	}
	if err, ok := providerErrors[id]; ok {
		return nil, err
	}
	return p.Provider.GetCalendar(ctx, s, id)
}

// TestErrorTable checks the status, code and headers of each error code,
// and that internal details never reach the body.
func TestErrorTable(t *testing.T) {
	t.Parallel()
	ts := MustNewServerWith(t, func(p *memory.Provider) unical.Provider { return failingProvider{p} })
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	tests := []struct {
		calendar       string
		wantStatus     int
		wantCode       string
		wantRetryAfter string
	}{
		{"internal", 500, "internal", ""},
		{"panic", 500, "internal", ""},
		{"rate-limited", 429, "rate_limited", "3"},
		{"unavailable", 503, "provider_unavailable", ""},
		{"upstream", 502, "provider_error", ""},
		{"precondition", 412, "precondition_failed", ""},
		{"conflict", 409, "conflict", ""},
		{"unsupported", 501, "not_implemented", ""},
	}
	for _, tc := range tests {
		t.Run(tc.calendar, func(t *testing.T) {
			t.Parallel()
			r := ts.do(t, "GET", "/v1/calendars/"+acct+"/"+tc.calendar, nil)
			code := r.Object(t)["error"].(map[string]any)["code"]
			got := []any{r.Status, code, r.Header.Get("Retry-After")}
			if diff := cmp.Diff([]any{tc.wantStatus, tc.wantCode, tc.wantRetryAfter}, got); diff != "" {
				t.Errorf("status, code, Retry-After mismatch (-want +got):\n%s", diff)
			}
			for _, secret := range []string{"hunter2", "10.0.0.7", "token=abc", "secret panic"} {
				if strings.Contains(string(r.Body), secret) {
					t.Errorf("the error body leaks %q: %s", secret, r.Body)
				}
			}
		})
	}
	r := ts.do(t, "PATCH", "/v1/calendars/"+acct, nil)
	if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, POST" || r.Object(t)["error"].(map[string]any)["code"] != "method_not_allowed" {
		t.Errorf("PATCH = %d Allow %q %s, want 405 method_not_allowed with Allow: GET, POST", r.Status, r.Header.Get("Allow"), r.Body)
	}
}
