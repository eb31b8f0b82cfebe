package caldav_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/caldav"
)

// TestRetries checks the bounded retries of requests the server turned
// away with 429 or 503.
func TestRetries(t *testing.T) {
	t.Parallel()
	const listing = `<?xml version="1.0"?><multistatus xmlns="DAV:"><response><href>/home/</href>` +
		`<propstat><prop><resourcetype><collection/></resourcetype></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`
	tests := []struct {
		name       string
		failures   int    // answers before success
		status     int    // of the failures
		retryAfter string // of the failures
		maxRetries int
		wantCalls  int64
		wantCode   unical.Code
		wantAfter  time.Duration
	}{
		{"503 twice, then success", 2, http.StatusServiceUnavailable, "", 0, 3, "", 0},
		{"429 with a short Retry-After", 1, http.StatusTooManyRequests, "0", 0, 2, "", 0},
		{"503 beyond the budget", 5, http.StatusServiceUnavailable, "", 0, 3, unical.CodeUnavailable, 0},
		{"Retry-After too long to wait", 5, http.StatusTooManyRequests, "120", 0, 1, unical.CodeRateLimited, 120 * time.Second},
		{"retries off", 5, http.StatusServiceUnavailable, "", -1, 1, unical.CodeUnavailable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n := calls.Add(1); n <= int64(tt.failures) {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					w.WriteHeader(tt.status)
					return
				}
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusMultiStatus)
				w.Write([]byte(listing))
			}))
			t.Cleanup(srv.Close)
			p := newProvider(t, caldav.Config{AllowPrivateTargets: true, MaxRetries: tt.maxRetries, BaseBackoff: time.Millisecond})
			sess := &unical.Session{Email: "a@example.com", Password: "pw",
				State: []byte(`{"principalUrl":"` + srv.URL + `/p/","homeUrl":"` + srv.URL + `/home/"}`)}
			_, err := p.ListCalendars(t.Context(), sess)
			if got := unical.ErrorCode(err); err != nil && got != tt.wantCode || err == nil && tt.wantCode != "" {
				t.Errorf("ListCalendars = %v, want code %q", err, tt.wantCode)
			}
			var ue *unical.Error
			if asError(err, &ue) && ue.RetryAfter != tt.wantAfter {
				t.Errorf("RetryAfter = %v, want %v", ue.RetryAfter, tt.wantAfter)
			}
			if n := calls.Load(); n != tt.wantCalls {
				t.Errorf("%d requests, want %d", n, tt.wantCalls)
			}
		})
	}
}
