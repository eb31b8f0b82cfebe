package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/retry"
	"github.com/unical/unical/internal/retrynote"
)

func TestPolicyDo(t *testing.T) {
	t.Parallel()
	errBusy, errFinal := errors.New("busy"), errors.New("final")
	busy := retry.Outcome{Err: errBusy, Retry: true}
	tests := []struct {
		name      string
		outcomes  []retry.Outcome
		wantErr   error
		wantWait  time.Duration
		wantTries int
		wantWaits []time.Duration
	}{
		{"success", []retry.Outcome{{}}, nil, 0, 1, nil},
		{"transient then success", []retry.Outcome{busy, busy, {}}, nil, 0, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}},
		{"final failure is not retried", []retry.Outcome{{Err: errFinal}}, errFinal, 0, 1, nil},
		{"Retry-After is waited", []retry.Outcome{{Err: errBusy, Retry: true, RetryAfter: 3 * time.Second}, {}}, nil, 0, 2, []time.Duration{3 * time.Second}},
		{"Retry-After beyond the cap ends at once", []retry.Outcome{{Err: errBusy, Retry: true, RetryAfter: time.Minute}}, errBusy, time.Minute, 1, nil},
		{"retries spent", []retry.Outcome{busy, busy, busy}, errBusy, 400 * time.Millisecond, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var waits []time.Duration
			counted := 0 // retries the call's counter was told of
			ctx := retrynote.With(t.Context(), func() { counted++ })
			p := retry.Policy{
				MaxRetries:    2,
				Backoff:       retry.Backoff{Base: 100 * time.Millisecond, Max: 10 * time.Second, Jitter: func(d time.Duration) time.Duration { return d }},
				MaxRetryAfter: 10 * time.Second,
				Sleep: func(ctx context.Context, d time.Duration) error {
					waits = append(waits, d)
					if counted != len(waits) {
						t.Errorf("wait %d began with %d retries counted", len(waits), counted)
					}
					return nil
				},
			}
			tries := 0
			res := p.Do(ctx, func(n int) retry.Outcome {
				tries++
				return tc.outcomes[n]
			})
			if !errors.Is(res.Err, tc.wantErr) || res.Wait != tc.wantWait || tries != tc.wantTries || res.Interrupted {
				t.Errorf("Do = %+v after %d tries, want err %v, wait %v after %d", res, tries, tc.wantErr, tc.wantWait, tc.wantTries)
			}
			if diff := cmp.Diff(tc.wantWaits, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if counted != len(tc.wantWaits) {
				t.Errorf("%d retries counted, want %d", counted, len(tc.wantWaits))
			}
		})
	}
}

func TestPolicyDoInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	errBusy := errors.New("busy")
	res := retry.Policy{MaxRetries: 5, Backoff: retry.Backoff{Base: time.Hour, Max: time.Hour}}.Do(ctx, func(int) retry.Outcome {
		return retry.Outcome{Err: errBusy, Retry: true}
	})
	if !res.Interrupted || !errors.Is(res.Err, context.Canceled) || !errors.Is(res.Last, errBusy) {
		t.Errorf("Do with an ended context = %+v", res)
	}
}
