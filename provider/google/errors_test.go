package google

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
)

const listPath = "/calendar/v3/users/me/calendarList"

func TestErrorTranslation(t *testing.T) {
	tests := []struct {
		name   string
		faults []googletest.Fault
		// want is the code of ListCalendars; "" means success.
		want           unical.Code
		wantRequests   int
		wantWaits      []time.Duration
		wantRetryAfter time.Duration
	}{
		{
			name:         "429 retried then succeeds",
			faults:       []googletest.Fault{{Status: 429, Times: 2}},
			wantRequests: 3,
			wantWaits:    []time.Duration{50 * time.Millisecond, 100 * time.Millisecond},
		},
		{
			name:         "403 rateLimitExceeded retried",
			faults:       []googletest.Fault{{Status: 403, Reason: "rateLimitExceeded", Times: 1}},
			wantRequests: 2,
			wantWaits:    []time.Duration{50 * time.Millisecond},
		},
		{
			name:         "403 userRateLimitExceeded retried",
			faults:       []googletest.Fault{{Status: 403, Reason: "userRateLimitExceeded", Times: 1}},
			wantRequests: 2,
			wantWaits:    []time.Duration{50 * time.Millisecond},
		},
		{
			name:         "403 quotaExceeded retried",
			faults:       []googletest.Fault{{Status: 403, Reason: "quotaExceeded", Times: 1}},
			wantRequests: 2,
			wantWaits:    []time.Duration{50 * time.Millisecond},
		},
		{
			name:           "429 until the budget is spent",
			faults:         []googletest.Fault{{Status: 429, Times: 10}},
			want:           unical.CodeRateLimited,
			wantRequests:   4,
			wantWaits:      []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond},
			wantRetryAfter: time.Second,
		},
		{
			name:           "500 until the budget is spent",
			faults:         []googletest.Fault{{Status: 500, Times: 10}},
			want:           unical.CodeUnavailable,
			wantRequests:   4,
			wantWaits:      []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond},
			wantRetryAfter: time.Second,
		},
		{
			name:         "503 Retry-After honoured",
			faults:       []googletest.Fault{{Status: 503, RetryAfter: "1", Times: 1}},
			wantRequests: 2,
			wantWaits:    []time.Duration{time.Second},
		},
		{
			name:           "Retry-After beyond MaxBackoff is not waited for",
			faults:         []googletest.Fault{{Status: 429, RetryAfter: "120", Times: 1}},
			want:           unical.CodeRateLimited,
			wantRequests:   1,
			wantRetryAfter: 2 * time.Minute,
		},
		{
			name:         "401 refreshes once and retries",
			faults:       []googletest.Fault{{Status: 401, PathPrefix: listPath, Times: 1}},
			wantRequests: 2,
		},
		{
			name:         "401 twice expires the account",
			faults:       []googletest.Fault{{Status: 401, PathPrefix: listPath, Times: 2}},
			want:         unical.CodeAccountExpired,
			wantRequests: 2,
		},
		{
			name:         "403 insufficientPermissions expires the account",
			faults:       []googletest.Fault{{Status: 403, Reason: "insufficientPermissions", Times: 1}},
			want:         unical.CodeAccountExpired,
			wantRequests: 1,
		},
		{
			name:         "403 dailyLimitExceeded is not retried",
			faults:       []googletest.Fault{{Status: 403, Reason: "dailyLimitExceeded", Times: 1}},
			want:         unical.CodeRateLimited,
			wantRequests: 1,
		},
		{
			name:         "403 forbidden",
			faults:       []googletest.Fault{{Status: 403, Reason: "forbidden", Times: 1}},
			want:         unical.CodeConflict,
			wantRequests: 1,
		},
		{
			name:         "400",
			faults:       []googletest.Fault{{Status: 400, Reason: "invalid", Times: 1}},
			want:         unical.CodeInvalid,
			wantRequests: 1,
		},
		{
			name:         "404",
			faults:       []googletest.Fault{{Status: 404, Reason: "notFound", Times: 1}},
			want:         unical.CodeNotFound,
			wantRequests: 1,
		},
		{
			name:         "409",
			faults:       []googletest.Fault{{Status: 409, Reason: "duplicate", Times: 1}},
			want:         unical.CodeConflict,
			wantRequests: 1,
		},
		{
			name:         "410 fullSyncRequired",
			faults:       []googletest.Fault{{Status: 410, Reason: "fullSyncRequired", Times: 1}},
			want:         unical.CodeGone,
			wantRequests: 1,
		},
		{
			name:         "410 updatedMinTooLongAgo",
			faults:       []googletest.Fault{{Status: 410, Reason: "updatedMinTooLongAgo", Times: 1}},
			want:         unical.CodeGone,
			wantRequests: 1,
		},
		{
			name:         "410 deleted",
			faults:       []googletest.Fault{{Status: 410, Reason: "deleted", Times: 1}},
			want:         unical.CodeNotFound,
			wantRequests: 1,
		},
		{
			name:         "412",
			faults:       []googletest.Fault{{Status: 412, Reason: "conditionNotMet", Times: 1}},
			want:         unical.CodePrecondition,
			wantRequests: 1,
		},
		{
			name:         "413",
			faults:       []googletest.Fault{{Status: 413, Reason: "uploadTooLarge", Times: 1}},
			want:         unical.CodeTooLarge,
			wantRequests: 1,
		},
		{
			name:         "418 is an upstream error",
			faults:       []googletest.Fault{{Status: 418, Reason: "teapot", Times: 1}},
			want:         unical.CodeUpstream,
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.session(t, alice)
			// Refresh first so that token requests stay out of the counts.
			tok, err := f.p.RefreshToken(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			s.Token = tok
			for _, ft := range tt.faults {
				if ft.PathPrefix == "" {
					ft.PathPrefix = listPath
				}
				f.srv.InjectFault(ft)
			}
			cals, err := f.p.ListCalendars(context.Background(), s)
			if got := unical.ErrorCode(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
			if err == nil && len(cals) != 1 {
				t.Errorf("calendars = %d, want 1", len(cals))
			}
			if err != nil {
				var e *unical.Error
				errors.As(err, &e)
				if e.RetryAfter != tt.wantRetryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tt.wantRetryAfter)
				}
				if e.Message == "" || e.Err == nil {
					t.Errorf("error lacks a message or cause: %#v", e)
				}
			}
			if got := f.srv.RequestCount("", listPath); got != tt.wantRequests {
				t.Errorf("requests = %d, want %d", got, tt.wantRequests)
			}
			if diff := cmp.Diff(tt.wantWaits, f.recordedWaits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryStopsWithContext(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, alice)
	ctx, cancel := context.WithCancel(context.Background())
	f.p.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}
	f.srv.InjectFault(googletest.Fault{PathPrefix: listPath, Status: 503, Times: 5})
	_, err := f.p.ListCalendars(ctx, s)
	if unical.ErrorCode(err) != unical.CodeUnavailable {
		t.Errorf("err = %v, want %s", err, unical.CodeUnavailable)
	}
	if got := f.srv.RequestCount("", listPath); got != 1 {
		t.Errorf("requests = %d, want 1", got)
	}
}

func TestPostNotRetriedAfterTransportError(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, alice)
	f.p.client = &http.Client{Timeout: 50 * time.Millisecond}
	f.srv.InjectFault(googletest.Fault{Method: http.MethodPost, PathPrefix: "/calendar/v3/calendars", Delay: time.Second, Times: 1})
	_, err := f.p.CreateCalendar(context.Background(), s, &unical.CalendarParams{Name: unical.Some("Slow")})
	if unical.ErrorCode(err) != unical.CodeUnavailable {
		t.Errorf("err = %v, want %s", err, unical.CodeUnavailable)
	}
	if got := f.srv.RequestCount(http.MethodPost, "/calendar/v3/calendars"); got != 1 {
		t.Errorf("POST requests = %d, want 1 (no retry of a non-idempotent request)", got)
	}
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p := newProvider(t, Config{Now: func() time.Time { return now }})
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{"-3", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.header != "" {
			h.Set("Retry-After", tt.header)
		}
		if got := p.retryAfter(h); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	p := newProvider(t, Config{BaseBackoff: time.Second, MaxBackoff: 5 * time.Second})
	for n := range 40 {
		for range 20 {
			d := p.backoff(n)
			if d <= 0 || d > 5*time.Second {
				t.Fatalf("backoff(%d) = %v, want in (0, 5s]", n, d)
			}
		}
	}
}
