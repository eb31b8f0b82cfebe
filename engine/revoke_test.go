package engine_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/revocation"
	"github.com/unical/unical/outbox"
)

// A revocation queued when its account was deleted is tried by the
// engine, through the Client, and written back without a delivery
// attempt and without a request to any webhook endpoint: done when the
// provider revoked, due again on the retry schedule when the failure may
// pass, failed when the schedule is spent or a retry cannot help.
func TestEngine_QueuedRevocation(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	schedule := []time.Duration{0, time.Minute, time.Hour} // three tries
	tests := []struct {
		name        string
		attempts    int // before this try
		err         error
		wantStatus  outbox.Status
		wantNext    time.Time
		wantLastErr string
	}{
		{name: "Revoked", wantStatus: outbox.Delivered, wantNext: now},
		{name: "Unavailable", err: unical.Errorf(unical.CodeUnavailable, "Google refused the revocation: HTTP 503"),
			wantStatus: outbox.Pending, wantNext: now.Add(time.Minute), wantLastErr: "Google refused the revocation: HTTP 503"},
		{name: "RateLimitedLater", attempts: 1, err: unical.Errorf(unical.CodeRateLimited, "HTTP 429"),
			wantStatus: outbox.Pending, wantNext: now.Add(time.Hour), wantLastErr: "HTTP 429"},
		{name: "ScheduleSpent", attempts: 2, err: unical.Errorf(unical.CodeUnavailable, "HTTP 503"),
			wantStatus: outbox.Failed, wantNext: now, wantLastErr: "HTTP 503"},
		{name: "Refused", err: unical.Errorf(unical.CodeUpstream, "HTTP 403"),
			wantStatus: outbox.Failed, wantNext: now, wantLastErr: "HTTP 403"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sender := &recordingSender{}
			c := newFakeClient(sender, func(cfg *engine.Settings) { cfg.RetrySchedule = schedule })
			c.now = now
			c.revoke = func(*outbox.Message) error { return tc.err }
			st := newFakeStore()
			st.add(&outbox.Message{
				ID: "msg_r", ApplicationID: "app_1", EventType: revocation.EventType, Payload: []byte("sealed"),
				Status: outbox.Pending, Attempts: tc.attempts, NextAttemptAt: now,
			})
			start(t, c, st)

			res := st.waitRecorded(t, 1)[0]
			if res.Attempt != nil {
				t.Errorf("written back with a delivery attempt %+v, want none", res.Attempt)
			}
			got := struct {
				Status   outbox.Status
				Attempts int
				Next     time.Time
				LastErr  string
			}{res.Message.Status, res.Message.Attempts, res.Message.NextAttemptAt, res.Message.LastError}
			want := got
			want.Status, want.Attempts, want.Next, want.LastErr = tc.wantStatus, tc.attempts+1, tc.wantNext, tc.wantLastErr
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("written back (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{"revoke msg_r"}, c.checks()); d != "" {
				t.Errorf("Client calls (-want +got):\n%s", d)
			}
			if reqs := sender.requests(); len(reqs) != 0 {
				t.Errorf("webhook requests %v, want none", reqs)
			}
		})
	}
}
