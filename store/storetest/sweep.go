package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/sweep"
)

// mustFinish queues a message of appID's own endpoint due at lastDue,
// claims it and records one attempt that leaves it with status and keeps
// the attempt until attemptExpires.
func mustFinish(tb testing.TB, s unical.Store, appID string, status outbox.Status, lastDue, attemptExpires time.Time) (*outbox.Message, *outbox.Attempt) {
	tb.Helper()
	claimed := mustClaimOne(tb, s, newMessage(appID, "", lastDue), lastDue)
	a := fullAttempt(claimed, 1, lastDue, attemptExpires)
	claimed.Status, claimed.Attempts = status, 1
	mustOK(tb, "RecordDeliveries()", recordAttempt(tb, s, claimed, a))
	return claimed, a
}

// wantSwept fails tb unless Sweep(req) removes what want counts.
func wantSwept(tb testing.TB, s unical.Store, req sweep.Request, want sweep.Result) {
	tb.Helper()
	got, err := s.Sweep(tb.Context(), req)
	mustOK(tb, "Sweep()", err)
	if d := diff(want, got); d != "" {
		tb.Errorf("Sweep(%+v) mismatch (-want +got):\n%s", req, d)
	}
}

var sweepTests = []testCase{
	{"RemovesExpiredKeepsRest", func(t *testing.T, s unical.Store) {
		ctx := t.Context()
		now := base
		week := 7 * 24 * time.Hour
		// Finished messages, oldest first, so that each claim takes only
		// its own message. Every attempt expires after the last one is
		// recorded, so that only the sweep can remove them.
		oldDelivered, _ := mustFinish(t, s, "app_A", outbox.Delivered, now.Add(-9*24*time.Hour), now)
		oldFailed, _ := mustFinish(t, s, "app_B", outbox.Failed, now.Add(-8*24*time.Hour), now.Add(-30*time.Minute))
		newDelivered, newAttempt := mustFinish(t, s, "app_A", outbox.Delivered, now.Add(-week+time.Second), now.Add(time.Hour))
		newFailed, _ := mustFinish(t, s, "app_B", outbox.Failed, now.Add(-time.Hour), now.Add(time.Hour))
		// A pending message older than every retention stays.
		pending := newMessage("app_A", "", now.Add(-30*24*time.Hour))
		mustEnqueue(t, s, pending)
		oldFlow, newFlow := fullFlow(newID("flow"), "app_A", now), fullFlow(newID("flow"), "app_A", now.Add(time.Microsecond))
		mustOK(t, "CreateFlow(old)", s.CreateFlow(ctx, oldFlow, 0))
		mustOK(t, "CreateFlow(new)", s.CreateFlow(ctx, newFlow, 0))
		mustOK(t, "PutBlob(old)", s.PutBlob(ctx, "app_A", "old", []byte("old"), now))
		mustOK(t, "PutBlob(new)", s.PutBlob(ctx, "app_A", "new", []byte("new"), now.Add(time.Microsecond)))

		wantSwept(t, s, sweep.Request{Now: now, DeliveredBefore: now.Add(-week), FailedBefore: now.Add(-week)},
			sweep.Result{Flows: 1, Blobs: 1, Attempts: 2, DeliveredMessages: 1, FailedMessages: 1})

		// Asked as of an earlier time, removed records are gone rather
		// than hidden by their expiry.
		early := now.Add(-2 * time.Hour)
		_, err := s.ConsumeFlow(ctx, oldFlow.ID, early)
		wantCode(t, "ConsumeFlow(swept)", err, unical.CodeNotFound)
		_, err = s.GetBlob(ctx, "app_A", "old", early)
		wantCode(t, "GetBlob(swept)", err, unical.CodeNotFound)
		for _, m := range []*outbox.Message{oldDelivered, oldFailed} {
			_, err := s.GetMessage(ctx, m.ApplicationID, m.ID)
			wantCode(t, "GetMessage(swept "+string(m.Status)+")", err, unical.CodeNotFound)
		}
		attempts, err := s.ListAttempts(ctx, "app_A", "", early, "", 0)
		mustOK(t, "ListAttempts()", err)
		if d := diff([]string{newAttempt.ID}, ids(attempts, attemptID)); d != "" {
			t.Errorf("ListAttempts() after Sweep mismatch (-want +got):\n%s", d)
		}

		// What is kept is all there.
		for _, m := range []*outbox.Message{newDelivered, newFailed, pending} {
			if _, err := s.GetMessage(ctx, m.ApplicationID, m.ID); err != nil {
				t.Errorf("GetMessage(kept %s): %v", m.ID, err)
			}
		}
		if _, err := s.GetBlob(ctx, "app_A", "new", now); err != nil {
			t.Errorf("GetBlob(kept): %v", err)
		}
		if _, err := s.ConsumeFlow(ctx, newFlow.ID, now); err != nil {
			t.Errorf("ConsumeFlow(kept): %v", err)
		}
		claimed, err := s.ClaimMessages(ctx, "worker", now, time.Minute, 10)
		mustOK(t, "ClaimMessages()", err)
		if d := diff([]string{pending.ID}, ids(claimed, messageID)); d != "" {
			t.Errorf("ClaimMessages() after Sweep mismatch (-want +got):\n%s", d)
		}
		wantSwept(t, s, sweep.Request{Now: now, DeliveredBefore: now.Add(-week), FailedBefore: now.Add(-week)}, sweep.Result{})
	}},
	{"Boundaries", func(t *testing.T, s unical.Store) {
		// A message whose last attempt was due exactly at the cutoff is
		// not before it and stays; one a microsecond earlier goes.
		cutoff := base.Add(-time.Hour)
		gone, _ := mustFinish(t, s, "app_A", outbox.Delivered, cutoff.Add(-time.Microsecond), base.Add(time.Hour))
		kept, _ := mustFinish(t, s, "app_A", outbox.Delivered, cutoff, base.Add(time.Hour))
		wantSwept(t, s, sweep.Request{Now: base, DeliveredBefore: cutoff}, sweep.Result{DeliveredMessages: 1})
		_, err := s.GetMessage(t.Context(), "app_A", gone.ID)
		wantCode(t, "GetMessage(before the cutoff)", err, unical.CodeNotFound)
		if _, err := s.GetMessage(t.Context(), "app_A", kept.ID); err != nil {
			t.Errorf("GetMessage(at the cutoff): %v", err)
		}
	}},
	{"ZeroCutoffKeeps", func(t *testing.T, s unical.Store) {
		d, _ := mustFinish(t, s, "app_A", outbox.Delivered, base.Add(-400*24*time.Hour), base.Add(time.Hour))
		f, _ := mustFinish(t, s, "app_A", outbox.Failed, base.Add(-300*24*time.Hour), base.Add(time.Hour))
		wantSwept(t, s, sweep.Request{Now: base}, sweep.Result{})
		for _, m := range []*outbox.Message{d, f} {
			if _, err := s.GetMessage(t.Context(), "app_A", m.ID); err != nil {
				t.Errorf("GetMessage(%s, no cutoff): %v", m.Status, err)
			}
		}
	}},
	{"RetriedMessageStays", func(t *testing.T, s unical.Store) {
		// A failed message sent again is pending: no failed-message
		// retention applies to it any more.
		f, _ := mustFinish(t, s, "app_A", outbox.Failed, base.Add(-60*24*time.Hour), base.Add(time.Hour))
		_, err := s.RetryMessage(t.Context(), "app_A", f.ID, base)
		mustOK(t, "RetryMessage()", err)
		wantSwept(t, s, sweep.Request{Now: base, FailedBefore: base.Add(time.Hour), DeliveredBefore: base.Add(time.Hour)}, sweep.Result{})
		got, err := s.GetMessage(t.Context(), "app_A", f.ID)
		mustOK(t, "GetMessage(retried)", err)
		if got.Status != outbox.Pending {
			t.Errorf("GetMessage(retried).Status = %s, want pending", got.Status)
		}
	}},
	{"Limit", func(t *testing.T, s unical.Store) {
		for range 3 {
			mustOK(t, "CreateFlow()", s.CreateFlow(t.Context(), fullFlow(newID("flow"), "app_A", base), 0))
			mustOK(t, "PutBlob()", s.PutBlob(t.Context(), "app_A", newID("blob"), []byte("x"), base))
		}
		total := 0
		for i, want := range []int{4, 2, 0} {
			got, err := s.Sweep(t.Context(), sweep.Request{Now: base, Limit: 4})
			mustOK(t, "Sweep()", err)
			if got.Total() != want {
				t.Errorf("Sweep(limit 4) call %d removed %d (%+v), want %d", i+1, got.Total(), got, want)
			}
			total += got.Total()
		}
		if total != 6 {
			t.Errorf("Sweep() removed %d in all, want 6", total)
		}
	}},
}

var flowCapTests = []testCase{
	{"Cap/ErrRateLimited", func(t *testing.T, s unical.Store) {
		ctx := t.Context()
		for i := range 3 {
			f := fullFlow(newID("flow"), "app_A", base.Add(time.Duration(10+i)*time.Minute))
			mustOK(t, "CreateFlow(under the cap)", s.CreateFlow(ctx, f, 3))
		}
		refused := fullFlow(newID("flow"), "app_A", base.Add(15*time.Minute))
		err := s.CreateFlow(ctx, refused, 3)
		wantCode(t, "CreateFlow(at the cap)", err, unical.CodeRateLimited)
		var ue *unical.Error
		if errors.As(err, &ue) && ue.RetryAfter != 10*time.Minute {
			t.Errorf("CreateFlow(at the cap).RetryAfter = %s, want 10m0s (until the first flow expires)", ue.RetryAfter)
		}
		_, err = s.ConsumeFlow(ctx, refused.ID, base)
		wantCode(t, "ConsumeFlow(refused)", err, unical.CodeNotFound)
		// The cap is per application, and 0 means none.
		mustOK(t, "CreateFlow(other app)", s.CreateFlow(ctx, fullFlow(newID("flow"), "app_B", base.Add(time.Minute)), 3))
		mustOK(t, "CreateFlow(no cap)", s.CreateFlow(ctx, fullFlow(newID("flow"), "app_A", base.Add(time.Minute)), 0))
	}},
	{"Cap/FreedByExpiryAndConsume", func(t *testing.T, s unical.Store) {
		ctx := t.Context()
		first := fullFlow(newID("flow"), "app_A", base.Add(10*time.Minute))
		second := fullFlow(newID("flow"), "app_A", base.Add(20*time.Minute))
		mustOK(t, "CreateFlow(first)", s.CreateFlow(ctx, first, 2))
		mustOK(t, "CreateFlow(second)", s.CreateFlow(ctx, second, 2))
		wantCode(t, "CreateFlow(at the cap)", s.CreateFlow(ctx, fullFlow(newID("flow"), "app_A", base.Add(30*time.Minute)), 2), unical.CodeRateLimited)
		// At the first flow's expiry it no longer counts.
		later := fullFlow(newID("flow"), "app_A", base.Add(40*time.Minute))
		later.CreatedAt = first.ExpiresAt
		mustOK(t, "CreateFlow(after an expiry)", s.CreateFlow(ctx, later, 2))
		// A consumed flow no longer counts either.
		_, err := s.ConsumeFlow(ctx, second.ID, base)
		mustOK(t, "ConsumeFlow()", err)
		again := fullFlow(newID("flow"), "app_A", base.Add(40*time.Minute))
		again.CreatedAt = first.ExpiresAt
		mustOK(t, "CreateFlow(after a consume)", s.CreateFlow(ctx, again, 2))
	}},
}
