package storetest

import (
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// fullAttempt returns an attempt of msg with every field set, kept until
// expires.
func fullAttempt(msg *outbox.Message, n int, at, expires time.Time) *outbox.Attempt {
	return &outbox.Attempt{
		ID: newID("att"), ApplicationID: msg.ApplicationID, MessageID: msg.ID, SubscriptionID: msg.SubscriptionID,
		EventType: msg.EventType, Attempt: n, At: at, StatusCode: 503, Latency: 1234567 * time.Microsecond,
		Error: "HTTP 503", ExpiresAt: expires,
	}
}

// mustClaimOne enqueues msg, claims it and returns the claim.
func mustClaimOne(tb testing.TB, s unical.Store, msg *outbox.Message, now time.Time) *outbox.Message {
	tb.Helper()
	mustEnqueue(tb, s, msg)
	got, err := s.ClaimMessages(tb.Context(), "worker", now, time.Hour, 100)
	mustOK(tb, "ClaimMessages()", err)
	for _, m := range got {
		if m.ID == msg.ID {
			return m
		}
	}
	tb.Fatalf("ClaimMessages() did not return %s", msg.ID)
	return nil
}

func attemptID(a *outbox.Attempt) string { return a.ID }

// recordAttempt is RecordDeliveries with one result, returning its error.
func recordAttempt(tb testing.TB, s unical.Store, msg *outbox.Message, a *outbox.Attempt) error {
	tb.Helper()
	errs, err := s.RecordDeliveries(tb.Context(), []outbox.Result{{Message: msg, Attempt: a}})
	if err != nil {
		return err
	}
	if len(errs) != 1 {
		tb.Fatalf("RecordDeliveries(1 result) returned %d errors", len(errs))
	}
	return errs[0]
}

var deliveryLogTests = []testCase{
	{"RecordList/OK", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		claimed := mustClaimOne(t, s, newMessage("app_A", sub.ID, base), base)
		a := fullAttempt(claimed, 1, base, base.Add(time.Hour))
		checkFull(t, a)
		want := *a
		claimed.Attempts, claimed.NextAttemptAt, claimed.LastError = 1, base.Add(time.Minute), "HTTP 503"
		mustOK(t, "RecordDeliveries()", recordAttempt(t, s, claimed, a))
		got, err := s.ListAttempts(t.Context(), "app_A", sub.ID, base, "", 0)
		mustOK(t, "ListAttempts()", err)
		if d := diff([]*outbox.Attempt{&want}, got); d != "" {
			t.Errorf("ListAttempts() mismatch (-want +got):\n%s", d)
		}
		stored, err := s.GetMessage(t.Context(), "app_A", claimed.ID)
		mustOK(t, "GetMessage()", err)
		if stored.Attempts != 1 || stored.LeaseOwner != "" || !stored.NextAttemptAt.Equal(base.Add(time.Minute)) {
			t.Errorf("message after RecordAttempt = %+v, want 1 attempt, due in a minute, no lease", stored)
		}
	}},
	{"Record/ErrConflictLeaseLost", func(t *testing.T, s unical.Store) {
		claimed := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		stale := *claimed
		stale.LeaseExpiry = stale.LeaseExpiry.Add(-time.Second)
		stale.Status = outbox.Delivered
		wantCode(t, "RecordDeliveries(stale lease)", recordAttempt(t, s, &stale, fullAttempt(claimed, 1, base, base.Add(time.Hour))), unical.CodeConflict)
		got, err := s.ListAttempts(t.Context(), "app_A", "", base, "", 0)
		mustOK(t, "ListAttempts()", err)
		if len(got) != 0 {
			t.Errorf("ListAttempts() after a refused record = %v, want none", ids(got, attemptID))
		}
	}},
	{"Record/ErrNotFoundDeletedSubscription", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		claimed := mustClaimOne(t, s, newMessage("app_A", sub.ID, base), base)
		mustOK(t, "DeleteSubscription()", s.DeleteSubscription(t.Context(), "app_A", sub.ID))
		claimed.Status = outbox.Delivered
		wantCode(t, "RecordDeliveries(deleted subscription)", recordAttempt(t, s, claimed, fullAttempt(claimed, 1, base, base.Add(time.Hour))), unical.CodeNotFound)
	}},
	{"Record/BatchPartial", func(t *testing.T, s unical.Store) {
		// One refused result leaves the others written.
		good := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		stale := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		released := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		staleCopy := *stale
		staleCopy.LeaseOwner = "someone-else"
		good.Status = outbox.Delivered
		staleCopy.Status = outbox.Delivered
		released.NextAttemptAt = base.Add(time.Hour) // a lease given back, no attempt
		goodAttempt := fullAttempt(good, 1, base, base.Add(time.Hour))
		errs, err := s.RecordDeliveries(t.Context(), []outbox.Result{
			{Message: good, Attempt: goodAttempt},
			{Message: &staleCopy, Attempt: fullAttempt(stale, 1, base, base.Add(time.Hour))},
			{Message: released},
		})
		mustOK(t, "RecordDeliveries()", err)
		if len(errs) != 3 {
			t.Fatalf("RecordDeliveries() = %d errors, want 3", len(errs))
		}
		wantCode(t, "RecordDeliveries(good)", errs[0], "")
		wantCode(t, "RecordDeliveries(stale lease)", errs[1], unical.CodeConflict)
		wantCode(t, "RecordDeliveries(lease given back)", errs[2], "")
		got, err := s.ListAttempts(t.Context(), "app_A", "", base, "", 0)
		mustOK(t, "ListAttempts()", err)
		if d := diff([]string{goodAttempt.ID}, ids(got, attemptID)); d != "" {
			t.Errorf("ListAttempts() mismatch (-want +got):\n%s", d)
		}
		for _, m := range []struct {
			id     string
			status outbox.Status
			leased bool
		}{{good.ID, outbox.Delivered, false}, {stale.ID, outbox.Pending, true}, {released.ID, outbox.Pending, false}} {
			stored, err := s.GetMessage(t.Context(), "app_A", m.id)
			mustOK(t, "GetMessage()", err)
			if stored.Status != m.status || (stored.LeaseOwner != "") != m.leased {
				t.Errorf("message %s = %s leased by %q, want %s leased=%v", m.id, stored.Status, stored.LeaseOwner, m.status, m.leased)
			}
		}
	}},
	{"List/ScopedAndPaged", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		subA, subB := mustCreateSubscription(t, s, "app_A", acct.ID), mustCreateSubscription(t, s, "app_A", acct.ID)
		var wantA []string
		for i := range 3 {
			for _, sub := range []string{subA.ID, subB.ID, ""} {
				claimed := mustClaimOne(t, s, newMessage("app_A", sub, base), base)
				a := fullAttempt(claimed, i+1, base, base.Add(time.Hour))
				claimed.Status = outbox.Delivered
				mustOK(t, "RecordDeliveries()", recordAttempt(t, s, claimed, a))
				if sub == subA.ID {
					wantA = append(wantA, a.ID)
				}
			}
		}
		first, err := s.ListAttempts(t.Context(), "app_A", subA.ID, base, "", 2)
		mustOK(t, "ListAttempts()", err)
		rest, err := s.ListAttempts(t.Context(), "app_A", subA.ID, base, first[len(first)-1].ID, 2)
		mustOK(t, "ListAttempts(after)", err)
		if d := diff(wantA, append(ids(first, attemptID), ids(rest, attemptID)...)); d != "" {
			t.Errorf("ListAttempts() pages mismatch (-want +got):\n%s", d)
		}
		own, err := s.ListAttempts(t.Context(), "app_A", "", base, "", 0)
		mustOK(t, "ListAttempts(own endpoint)", err)
		if len(own) != 3 {
			t.Errorf("ListAttempts(own endpoint) = %d attempts, want 3", len(own))
		}
		foreign, err := s.ListAttempts(t.Context(), "app_B", subA.ID, base, "", 0)
		mustOK(t, "ListAttempts(other app)", err)
		if len(foreign) != 0 {
			t.Errorf("ListAttempts(other app) = %v, want none", ids(foreign, attemptID))
		}
	}},
	{"List/Expired", func(t *testing.T, s unical.Store) {
		old := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		oldAttempt := fullAttempt(old, 1, base, base.Add(time.Hour))
		old.Status = outbox.Delivered
		mustOK(t, "RecordDeliveries()", recordAttempt(t, s, old, oldAttempt))
		got, err := s.ListAttempts(t.Context(), "app_A", "", base.Add(time.Hour), "", 0)
		mustOK(t, "ListAttempts()", err)
		if len(got) != 0 {
			t.Errorf("ListAttempts(at expiry) = %v, want none", ids(got, attemptID))
		}
		// A later attempt may prune the expired one; either way it stays
		// out of the list and the new one is in it.
		later := base.Add(2 * time.Hour)
		fresh := mustClaimOne(t, s, newMessage("app_A", "", later), later)
		freshAttempt := fullAttempt(fresh, 1, later, later.Add(time.Hour))
		fresh.Status = outbox.Delivered
		mustOK(t, "RecordDeliveries()", recordAttempt(t, s, fresh, freshAttempt))
		got, err = s.ListAttempts(t.Context(), "app_A", "", later, "", 0)
		mustOK(t, "ListAttempts()", err)
		if d := diff([]string{freshAttempt.ID}, ids(got, attemptID)); d != "" {
			t.Errorf("ListAttempts() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Retry/OK", func(t *testing.T, s unical.Store) {
		claimed := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		claimed.Status, claimed.Attempts, claimed.LastError = outbox.Failed, 8, "HTTP 500"
		mustOK(t, "UpdateMessage(failed)", s.UpdateMessage(t.Context(), claimed))
		now := base.Add(time.Hour)
		got, err := s.RetryMessage(t.Context(), "app_A", claimed.ID, now)
		mustOK(t, "RetryMessage()", err)
		if got.Status != outbox.Pending || got.Attempts != 0 || !got.NextAttemptAt.Equal(now) || got.LeaseOwner != "" {
			t.Errorf("RetryMessage() = %+v, want pending, no attempts, due now, no lease", got)
		}
		again, err := s.ClaimMessages(t.Context(), "worker-2", now, time.Minute, 10)
		mustOK(t, "ClaimMessages()", err)
		if d := diff([]string{claimed.ID}, ids(again, messageID)); d != "" {
			t.Errorf("ClaimMessages() after retry mismatch (-want +got):\n%s", d)
		}
	}},
	{"Retry/PendingBroughtForward", func(t *testing.T, s unical.Store) {
		// A message whose first attempt failed waits an hour for its next.
		claimed := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		claimed.Attempts, claimed.LastError, claimed.NextAttemptAt = 1, "HTTP 500", base.Add(time.Hour)
		mustOK(t, "UpdateMessage(pending)", s.UpdateMessage(t.Context(), claimed))
		now := base.Add(time.Minute)
		got, err := s.RetryMessage(t.Context(), "app_A", claimed.ID, now)
		mustOK(t, "RetryMessage(pending)", err)
		if got.Status != outbox.Pending || got.Attempts != 1 || !got.NextAttemptAt.Equal(now) || got.LeaseOwner != "" {
			t.Errorf("RetryMessage(pending) = %+v, want pending, its one attempt kept, due now, no lease", got)
		}
		// Claimed now, it is leased: a second retry leaves it to its
		// holder, and no other worker can claim it.
		again, err := s.ClaimMessages(t.Context(), "worker-2", now, time.Minute, 10)
		mustOK(t, "ClaimMessages()", err)
		if d := diff([]string{claimed.ID}, ids(again, messageID)); d != "" {
			t.Fatalf("ClaimMessages() after retry mismatch (-want +got):\n%s", d)
		}
		held, err := s.RetryMessage(t.Context(), "app_A", claimed.ID, now)
		mustOK(t, "RetryMessage(leased)", err)
		if held.LeaseOwner != "worker-2" || !held.LeaseExpiry.Equal(again[0].LeaseExpiry) {
			t.Errorf("RetryMessage(leased) = %+v, want the lease of worker-2 kept", held)
		}
		other, err := s.ClaimMessages(t.Context(), "worker-3", now, time.Minute, 10)
		mustOK(t, "ClaimMessages()", err)
		if len(other) != 0 {
			t.Errorf("ClaimMessages() while leased = %v, want none", ids(other, messageID))
		}
	}},
	{"Retry/ErrConflictDelivered", func(t *testing.T, s unical.Store) {
		claimed := mustClaimOne(t, s, newMessage("app_A", "", base), base)
		claimed.Status = outbox.Delivered
		mustOK(t, "UpdateMessage()", s.UpdateMessage(t.Context(), claimed))
		_, err := s.RetryMessage(t.Context(), "app_A", claimed.ID, base)
		wantCode(t, "RetryMessage(delivered)", err, unical.CodeConflict)
	}},
	{"Retry/ErrNotFound", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		claimed := mustClaimOne(t, s, newMessage("app_A", sub.ID, base), base)
		claimed.Status = outbox.Failed
		mustOK(t, "UpdateMessage(failed)", s.UpdateMessage(t.Context(), claimed))
		_, err := s.RetryMessage(t.Context(), "app_B", claimed.ID, base)
		wantCode(t, "RetryMessage(other app)", err, unical.CodeNotFound)
		_, err = s.RetryMessage(t.Context(), "app_A", newID("msg"), base)
		wantCode(t, "RetryMessage(unknown)", err, unical.CodeNotFound)
		mustOK(t, "DeleteSubscription()", s.DeleteSubscription(t.Context(), "app_A", sub.ID))
		_, err = s.RetryMessage(t.Context(), "app_A", claimed.ID, base)
		wantCode(t, "RetryMessage(deleted subscription)", err, unical.CodeNotFound)
	}},
}
