package caldav

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://user:secret@example.com/cal/")
	tests := []struct {
		name       string
		status     int
		header     http.Header
		connecting bool
		want       unical.Code
		wantRetry  time.Duration
	}{
		{"ok", http.StatusMultiStatus, nil, false, "", 0},
		{"wrong password while connecting", http.StatusUnauthorized, nil, true, unical.CodeUnauthorized, 0},
		{"password revoked later", http.StatusUnauthorized, nil, false, unical.CodeAccountExpired, 0},
		{"not found", http.StatusNotFound, nil, false, unical.CodeNotFound, 0},
		{"stale etag", http.StatusPreconditionFailed, nil, false, unical.CodePrecondition, 0},
		{"throttled", http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}}, false, unical.CodeRateLimited, 7 * time.Second},
		{"down", http.StatusServiceUnavailable, http.Header{"Retry-After": {"x"}}, false, unical.CodeUnavailable, 0},
		{"server bug", http.StatusInternalServerError, nil, false, unical.CodeUpstream, 0},
		{"forbidden", http.StatusForbidden, nil, false, unical.CodeUpstream, 0},
	}
	for _, tt := range tests {
		c := &conn{connecting: tt.connecting}
		err := c.classify(&response{URL: u, StatusCode: tt.status, Header: tt.header}, "test")
		if got := unical.ErrorCode(err); got != tt.want {
			t.Errorf("%s: code = %q, want %q (%v)", tt.name, got, tt.want, err)
		}
		if e := (*unical.Error)(nil); errors.As(err, &e) {
			if e.RetryAfter != tt.wantRetry {
				t.Errorf("%s: RetryAfter = %v, want %v", tt.name, e.RetryAfter, tt.wantRetry)
			}
			if e.Err != nil && strings.Contains(e.Err.Error(), "secret") {
				t.Errorf("%s: cause leaks the URL password: %v", tt.name, e.Err)
			}
		}
	}
}

// TestClassify_RetryAfter checks that both forms of Retry-After (RFC 9110
// §10.2.3), read by internal/retry, reach the error.
func TestClassify_RetryAfter(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://example.com/cal/")
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat), 90 * time.Second},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		err := (&conn{}).classify(&response{URL: u, StatusCode: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {tt.value}}}, "test")
		var e *unical.Error
		if !errors.As(err, &e) {
			t.Fatalf("classify = %v, want an *unical.Error", err)
		}
		// An HTTP date has whole seconds and the clock moves on: allow 2 s.
		if d := e.RetryAfter - tt.want; d > 0 || d < -2*time.Second {
			t.Errorf("Retry-After %q: RetryAfter = %v, want %v", tt.value, e.RetryAfter, tt.want)
		}
	}
}
