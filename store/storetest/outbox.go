package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

var outboxTests = []testCase{
	{"EnqueueGet/OK", func(t *testing.T, s unical.Store) {
		msg := fullMessage("app_A", "sub_1", base)
		checkFull(t, msg)
		want := *msg
		want.Payload = slices.Clone(msg.Payload)
		mustEnqueue(t, s, msg)
		got, err := s.GetMessage(t.Context(), "app_A", msg.ID)
		mustOK(t, "GetMessage()", err)
		if d := diff(&want, got); d != "" {
			t.Errorf("GetMessage() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Enqueue/ErrConflict", func(t *testing.T, s unical.Store) {
		old := newMessage("app_A", "", base)
		mustEnqueue(t, s, old)
		fresh := newMessage("app_A", "", base)
		dup := newMessage("app_A", "", base)
		dup.ID = old.ID
		wantCode(t, "EnqueueMessages(taken id)", s.EnqueueMessages(t.Context(), []*outbox.Message{fresh, dup}), unical.CodeConflict)
		_, err := s.GetMessage(t.Context(), "app_A", fresh.ID)
		wantCode(t, "GetMessage(rest of a refused batch)", err, unical.CodeNotFound)
		got, err := s.GetMessage(t.Context(), "app_A", old.ID)
		mustOK(t, "GetMessage()", err)
		if d := diff(old, got); d != "" {
			t.Errorf("GetMessage() after conflict mismatch (-want +got):\n%s", d)
		}
	}},
	{"EnqueueCoalesced", func(t *testing.T, s unical.Store) {
		ctx := t.Context()
		coalesce := func(msg *outbox.Message, want bool) {
			t.Helper()
			queued, err := s.EnqueueCoalesced(ctx, msg)
			mustOK(t, "EnqueueCoalesced()", err)
			if queued != want {
				t.Errorf("EnqueueCoalesced(%s of %s) = %v, want %v", msg.EventType, msg.SubscriptionID, queued, want)
			}
			_, err = s.GetMessage(ctx, msg.ApplicationID, msg.ID)
			if want {
				mustOK(t, "GetMessage(queued)", err)
			} else {
				wantCode(t, "GetMessage(coalesced)", err, unical.CodeNotFound)
			}
		}
		first := newMessage("app_A", "sub_1", base)
		coalesce(first, true)
		coalesce(newMessage("app_A", "sub_1", base), false)
		coalesce(newMessage("app_A", "sub_2", base), true)
		unknown := newMessage("app_A", "sub_1", base)
		unknown.EventType = unical.EventTypeCalendarEventUnknown
		coalesce(unknown, true)
		// Once the first is claimed it no longer stands for new changes.
		claimed, err := s.ClaimMessages(ctx, "worker", base, time.Hour, 100)
		mustOK(t, "ClaimMessages()", err)
		if len(claimed) != 3 {
			t.Fatalf("ClaimMessages() claimed %d messages, want 3", len(claimed))
		}
		coalesce(newMessage("app_A", "sub_1", base), true)
	}},
	{"Get/ErrNotFound", func(t *testing.T, s unical.Store) {
		_, err := s.GetMessage(t.Context(), "app_A", newID("msg"))
		wantCode(t, "GetMessage(unknown)", err, unical.CodeNotFound)
	}},
	{"Get/ErrForeignApp", func(t *testing.T, s unical.Store) {
		msg := newMessage("app_A", "", base)
		mustEnqueue(t, s, msg)
		_, err := s.GetMessage(t.Context(), "app_B", msg.ID)
		wantCode(t, "GetMessage(other app)", err, unical.CodeNotFound)
	}},
	{"Claim/DueOnly", func(t *testing.T, s unical.Store) {
		m1, m2, m3 := newMessage("app_A", "", base), newMessage("app_A", "", base.Add(time.Minute)), newMessage("app_A", "", base.Add(2*time.Minute))
		mustEnqueue(t, s, m3, m1, m2)
		got, err := s.ClaimMessages(t.Context(), "worker", base.Add(-time.Second), time.Hour, 10)
		mustOK(t, "ClaimMessages()", err)
		if len(got) != 0 {
			t.Errorf("ClaimMessages(before anything is due) = %v, want none", ids(got, messageID))
		}
		got, err = s.ClaimMessages(t.Context(), "worker", base.Add(time.Minute), time.Hour, 10)
		mustOK(t, "ClaimMessages()", err)
		if d := diff([]string{m1.ID, m2.ID}, ids(got, messageID)); d != "" {
			t.Errorf("ClaimMessages() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Claim/OldestDueFirst", func(t *testing.T, s unical.Store) {
		var msgs []*outbox.Message
		for i := range 5 {
			msgs = append(msgs, newMessage("app_A", "", base.Add(-time.Duration(i)*time.Minute)))
		}
		mustEnqueue(t, s, msgs...) // newest due first, ids in the other order
		var got []string
		for range 3 {
			claimed, err := s.ClaimMessages(t.Context(), "worker", base, time.Hour, 2)
			mustOK(t, "ClaimMessages()", err)
			if len(claimed) > 2 {
				t.Fatalf("ClaimMessages(max 2) = %d messages", len(claimed))
			}
			got = append(got, ids(claimed, messageID)...)
		}
		want := []string{msgs[4].ID, msgs[3].ID, msgs[2].ID, msgs[1].ID, msgs[0].ID}
		if d := diff(want, got); d != "" {
			t.Errorf("ClaimMessages() order mismatch (-want +got):\n%s", d)
		}
	}},
	{"Claim/SetsLease", func(t *testing.T, s unical.Store) {
		msg := newMessage("app_A", "sub_1", base)
		mustEnqueue(t, s, msg)
		now := base.Add(time.Minute)
		got, err := s.ClaimMessages(t.Context(), "worker-1", now, 30*time.Second, 1)
		mustOK(t, "ClaimMessages()", err)
		want := *msg
		want.LeaseOwner = "worker-1"
		want.LeaseExpiry = now.Add(30 * time.Second)
		if d := diff([]*outbox.Message{&want}, got); d != "" {
			t.Fatalf("ClaimMessages() mismatch (-want +got):\n%s", d)
		}
		stored, err := s.GetMessage(t.Context(), "app_A", msg.ID)
		mustOK(t, "GetMessage()", err)
		if d := diff(&want, stored); d != "" {
			t.Errorf("GetMessage() after claim mismatch (-want +got):\n%s", d)
		}
	}},
	{"Claim/LeaseHeld", func(t *testing.T, s unical.Store) {
		msg := newMessage("app_A", "", base)
		mustEnqueue(t, s, msg)
		_, err := s.ClaimMessages(t.Context(), "worker-1", base, time.Minute, 1)
		mustOK(t, "ClaimMessages()", err)
		for _, owner := range []string{"worker-2", "worker-1"} {
			got, err := s.ClaimMessages(t.Context(), owner, base.Add(59*time.Second), time.Minute, 10)
			mustOK(t, "ClaimMessages()", err)
			if len(got) != 0 {
				t.Errorf("ClaimMessages(%s, lease held) = %v, want none", owner, ids(got, messageID))
			}
		}
	}},
	{"Claim/LeaseExpired", func(t *testing.T, s unical.Store) {
		// worker-1 claims and "crashes"; when its lease ends, worker-2 gets
		// the message and worker-1 can no longer write it.
		msg := newMessage("app_A", "", base)
		mustEnqueue(t, s, msg)
		first, err := s.ClaimMessages(t.Context(), "worker-1", base, time.Minute, 1)
		mustOK(t, "ClaimMessages()", err)
		later := base.Add(time.Minute)
		second, err := s.ClaimMessages(t.Context(), "worker-2", later, time.Minute, 1)
		mustOK(t, "ClaimMessages(after the lease)", err)
		if d := diff([]string{msg.ID}, ids(second, messageID)); d != "" {
			t.Fatalf("ClaimMessages(after the lease) mismatch (-want +got):\n%s", d)
		}
		if second[0].LeaseOwner != "worker-2" || !second[0].LeaseExpiry.Equal(later.Add(time.Minute)) {
			t.Errorf("lease after take-over = %q until %v, want worker-2 until %v", second[0].LeaseOwner, second[0].LeaseExpiry, later.Add(time.Minute))
		}
		first[0].Status = outbox.Delivered
		wantCode(t, "UpdateMessage(lease taken over)", s.UpdateMessage(t.Context(), first[0]), unical.CodeConflict)
		second[0].Status = outbox.Delivered
		second[0].Attempts = 1
		mustOK(t, "UpdateMessage(new owner)", s.UpdateMessage(t.Context(), second[0]))
	}},
	{"Claim/AllApplications", func(t *testing.T, s unical.Store) {
		a, b := newMessage("app_A", "", base), newMessage("app_B", "sub_1", base.Add(time.Second))
		mustEnqueue(t, s, a)
		mustEnqueue(t, s, b)
		got, err := s.ClaimMessages(t.Context(), "worker", base.Add(time.Minute), time.Minute, 10)
		mustOK(t, "ClaimMessages()", err)
		if d := diff([]string{a.ID, b.ID}, ids(got, messageID)); d != "" {
			t.Errorf("ClaimMessages() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Claim/Concurrent", func(t *testing.T, s unical.Store) {
		const n, workers, batch = 120, 8, 3
		var msgs []*outbox.Message
		for i := range n {
			msgs = append(msgs, newMessage("app_A", "", base.Add(time.Duration(i%7)*time.Second)))
		}
		mustEnqueue(t, s, msgs...)
		var (
			mu      sync.Mutex
			claimed = map[string]string{}
			wg      sync.WaitGroup
		)
		for w := range workers {
			owner := "worker-" + string(rune('a'+w))
			wg.Go(func() {
				// Bounded, so that a Store that hands out claimed messages
				// again fails instead of looping forever.
				for range n {
					got, err := s.ClaimMessages(t.Context(), owner, base.Add(time.Minute), time.Hour, batch)
					if err != nil {
						t.Errorf("ClaimMessages(%s): %v", owner, err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, m := range got {
						if prev, ok := claimed[m.ID]; ok {
							mu.Unlock()
							t.Errorf("message %s claimed by %s and %s", m.ID, prev, owner)
							return
						}
						claimed[m.ID] = owner
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(claimed) != n {
			t.Errorf("%d workers claimed %d distinct messages, want %d", workers, len(claimed), n)
		}
	}},
	{"Update/Delivered", func(t *testing.T, s unical.Store) {
		for _, status := range []outbox.Status{outbox.Delivered, outbox.Failed} {
			msg := newMessage("app_A", "sub_1", base)
			mustEnqueue(t, s, msg)
			got, err := s.ClaimMessages(t.Context(), "worker", base, time.Minute, 10)
			mustOK(t, "ClaimMessages()", err)
			if d := diff([]string{msg.ID}, ids(got, messageID)); d != "" {
				t.Fatalf("ClaimMessages() mismatch (-want +got):\n%s", d)
			}
			got[0].Status = status
			got[0].Attempts = 3
			got[0].LastError = "last: " + string(status)
			mustOK(t, "UpdateMessage()", s.UpdateMessage(t.Context(), got[0]))
			want := *msg
			want.Status, want.Attempts, want.LastError = status, 3, "last: "+string(status)
			stored, err := s.GetMessage(t.Context(), "app_A", msg.ID)
			mustOK(t, "GetMessage()", err)
			if d := diff(&want, stored); d != "" {
				t.Errorf("GetMessage() after UpdateMessage(%s) mismatch (-want +got):\n%s", status, d)
			}
			again, err := s.ClaimMessages(t.Context(), "worker-2", base.Add(24*time.Hour), time.Minute, 10)
			mustOK(t, "ClaimMessages()", err)
			if len(again) != 0 {
				t.Errorf("ClaimMessages() after %s = %v, want none", status, ids(again, messageID))
			}
		}
	}},
	{"Update/Retry", func(t *testing.T, s unical.Store) {
		msg := newMessage("app_A", "", base)
		mustEnqueue(t, s, msg)
		got, err := s.ClaimMessages(t.Context(), "worker-1", base, time.Hour, 1)
		mustOK(t, "ClaimMessages()", err)
		retry := base.Add(time.Minute)
		got[0].Attempts = 1
		got[0].NextAttemptAt = retry
		got[0].LastError = "HTTP 500"
		mustOK(t, "UpdateMessage(retry)", s.UpdateMessage(t.Context(), got[0]))
		early, err := s.ClaimMessages(t.Context(), "worker-2", retry.Add(-time.Second), time.Hour, 1)
		mustOK(t, "ClaimMessages(before retry)", err)
		if len(early) != 0 {
			t.Errorf("ClaimMessages(before retry) = %v, want none", ids(early, messageID))
		}
		// The first lease would run for another 59 minutes, but the update
		// released it.
		again, err := s.ClaimMessages(t.Context(), "worker-2", retry, time.Hour, 1)
		mustOK(t, "ClaimMessages(at retry)", err)
		want := *msg
		want.Attempts, want.NextAttemptAt, want.LastError = 1, retry, "HTTP 500"
		want.LeaseOwner, want.LeaseExpiry = "worker-2", retry.Add(time.Hour)
		if d := diff([]*outbox.Message{&want}, again); d != "" {
			t.Errorf("ClaimMessages(at retry) mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/ErrConflictNotOwner", func(t *testing.T, s unical.Store) {
		msg, free := newMessage("app_A", "", base), newMessage("app_A", "", base.Add(time.Hour))
		mustEnqueue(t, s, msg, free)
		got, err := s.ClaimMessages(t.Context(), "worker-1", base, time.Minute, 10)
		mustOK(t, "ClaimMessages()", err)
		stolen := *got[0]
		stolen.LeaseOwner = "worker-2"
		stolen.Status = outbox.Delivered
		wantCode(t, "UpdateMessage(not the owner)", s.UpdateMessage(t.Context(), &stolen), unical.CodeConflict)
		free.Status = outbox.Delivered
		wantCode(t, "UpdateMessage(never claimed)", s.UpdateMessage(t.Context(), free), unical.CodeConflict)
		got[0].Status = outbox.Delivered
		mustOK(t, "UpdateMessage(owner)", s.UpdateMessage(t.Context(), got[0]))
		wantCode(t, "UpdateMessage(twice)", s.UpdateMessage(t.Context(), got[0]), unical.CodeConflict)
	}},
	{"Update/ErrConflictReclaimed", func(t *testing.T, s unical.Store) {
		// The same owner claims again after its lease ran out: the first
		// claim is stale even though the owner's name is the same.
		msg := newMessage("app_A", "", base)
		mustEnqueue(t, s, msg)
		first, err := s.ClaimMessages(t.Context(), "worker-1", base, time.Minute, 1)
		mustOK(t, "ClaimMessages()", err)
		second, err := s.ClaimMessages(t.Context(), "worker-1", base.Add(time.Minute), time.Minute, 1)
		mustOK(t, "ClaimMessages(again)", err)
		if len(second) != 1 {
			t.Fatalf("ClaimMessages(again) = %d messages, want 1", len(second))
		}
		first[0].Status = outbox.Delivered
		wantCode(t, "UpdateMessage(stale claim)", s.UpdateMessage(t.Context(), first[0]), unical.CodeConflict)
		second[0].Status = outbox.Delivered
		mustOK(t, "UpdateMessage(current claim)", s.UpdateMessage(t.Context(), second[0]))
	}},
	{"Update/ExpiredLeaseNotReclaimed", func(t *testing.T, s unical.Store) {
		msg := newMessage("app_A", "", base)
		mustEnqueue(t, s, msg)
		got, err := s.ClaimMessages(t.Context(), "worker-1", base, time.Minute, 1)
		mustOK(t, "ClaimMessages()", err)
		got[0].Status = outbox.Delivered
		mustOK(t, "UpdateMessage(expired, not claimed again)", s.UpdateMessage(t.Context(), got[0]))
	}},
	{"Update/ErrNotFound", func(t *testing.T, s unical.Store) {
		unknown := newMessage("app_A", "", base)
		unknown.LeaseOwner, unknown.LeaseExpiry = "worker", base.Add(time.Minute)
		wantCode(t, "UpdateMessage(unknown)", s.UpdateMessage(t.Context(), unknown), unical.CodeNotFound)
		msg := newMessage("app_A", "", base)
		mustEnqueue(t, s, msg)
		got, err := s.ClaimMessages(t.Context(), "worker", base, time.Minute, 1)
		mustOK(t, "ClaimMessages()", err)
		foreign := *got[0]
		foreign.ApplicationID = "app_B"
		foreign.Status = outbox.Delivered
		wantCode(t, "UpdateMessage(other app)", s.UpdateMessage(t.Context(), &foreign), unical.CodeNotFound)
		stored, err := s.GetMessage(t.Context(), "app_A", msg.ID)
		mustOK(t, "GetMessage()", err)
		if stored.Status != outbox.Pending {
			t.Errorf("status after foreign update = %q, want %q", stored.Status, outbox.Pending)
		}
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		msg := newMessage("app_A", "", base)
		want := *msg
		want.Payload = slices.Clone(msg.Payload)
		mustEnqueue(t, s, msg)
		msg.Payload[0] = 'X'
		got, err := s.GetMessage(t.Context(), "app_A", msg.ID)
		mustOK(t, "GetMessage()", err)
		got.Payload[0] = 'X'
		claimed, err := s.ClaimMessages(t.Context(), "worker", base, time.Minute, 1)
		mustOK(t, "ClaimMessages()", err)
		claimed[0].Payload[0] = 'X'
		got, err = s.GetMessage(t.Context(), "app_A", msg.ID)
		mustOK(t, "GetMessage()", err)
		want.LeaseOwner, want.LeaseExpiry = "worker", base.Add(time.Minute)
		if d := diff(&want, got); d != "" {
			t.Errorf("GetMessage() after changing copies mismatch (-want +got):\n%s", d)
		}
	}},
}
