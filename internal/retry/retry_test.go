package retry_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/retry"
)

func TestAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"120", 2 * time.Minute, true},
		{" 3 ", 3 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"Sun, 22 Nov 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Sun, 22 Nov 2026 11:00:00 GMT", 0, true},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Retry-After", tc.header)
		}
		got, ok := retry.After(h, now)
		if diff := cmp.Diff([]any{tc.want, tc.wantOK}, []any{got, ok}); diff != "" {
			t.Errorf("After(%q) mismatch (-want +got):\n%s", tc.header, diff)
		}
	}
}

func TestBackoff_Wait(t *testing.T) {
	t.Parallel()
	top := retry.Backoff{Base: 100 * time.Millisecond, Max: time.Second, Jitter: func(d time.Duration) time.Duration { return d - 1 }}
	bottom := top
	bottom.Jitter = func(time.Duration) time.Duration { return 0 }
	var gotTop, gotBottom []time.Duration
	for n := range 6 {
		gotTop = append(gotTop, top.Wait(n))
		gotBottom = append(gotBottom, bottom.Wait(n))
	}
	ms := time.Millisecond
	// The wait doubles up to Max, and jitter moves it within its upper half.
	if diff := cmp.Diff([]time.Duration{100*ms - 1, 200*ms - 1, 400*ms - 1, 800*ms - 1, time.Second - 1, time.Second - 1}, gotTop); diff != "" {
		t.Errorf("waits with the most jitter mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms}, gotBottom); diff != "" {
		t.Errorf("waits with no jitter mismatch (-want +got):\n%s", diff)
	}
	if w := (retry.Backoff{Base: time.Second, Max: time.Minute}).Wait(100); w < 30*time.Second || w > time.Minute {
		t.Errorf("Wait(100) = %v, want within [30s, 1m]: large n must not overflow", w)
	}
}
