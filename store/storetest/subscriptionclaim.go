package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
)

// subscriptionClaimTests cover ClaimDueSubscriptions, with which replicas
// share change polling.
var subscriptionClaimTests = []testCase{
	{"DueOnlyEarliestFirst", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		late := createDueSubscription(t, s, "app_A", acct.ID, base.Add(-10*time.Second))
		early := createDueSubscription(t, s, "app_A", acct.ID, base.Add(-150*time.Second))
		exact := createDueSubscription(t, s, "app_A", acct.ID, base)
		future := createDueSubscription(t, s, "app_A", acct.ID, base.Add(time.Second))
		got, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 10)
		mustOK(t, "ClaimDueSubscriptions()", err)
		// Each moves on by whole minutes to the first time after now,
		// keeping its phase.
		early.NextCheckAt = base.Add(30 * time.Second)
		exact.NextCheckAt = base.Add(time.Minute)
		late.NextCheckAt = base.Add(50 * time.Second)
		if d := diff([]*unical.SubscriptionRecord{early, late, exact}, got); d != "" {
			t.Errorf("ClaimDueSubscriptions() mismatch (-want +got):\n%s", d)
		}
		for _, want := range []*unical.SubscriptionRecord{early, late, exact, future} {
			stored, err := s.GetSubscription(t.Context(), "app_A", want.ID)
			mustOK(t, "GetSubscription()", err)
			if d := diff(want, stored); d != "" {
				t.Errorf("GetSubscription(%s) after claim mismatch (-want +got):\n%s", want.ID, d)
			}
		}
		again, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 10)
		mustOK(t, "ClaimDueSubscriptions(again)", err)
		if len(again) != 0 {
			t.Errorf("ClaimDueSubscriptions(again) = %v, want none: the first claim holds them until their next check", ids(again, subscriptionID))
		}
		later, err := s.ClaimDueSubscriptions(t.Context(), base.Add(35*time.Second), time.Minute, 10)
		mustOK(t, "ClaimDueSubscriptions(35 s later)", err)
		if d := diff([]string{future.ID, early.ID}, ids(later, subscriptionID)); d != "" {
			t.Errorf("ClaimDueSubscriptions(35 s later) mismatch (-want +got):\n%s", d)
		}
	}},
	{"Max", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		var want []string
		for i := range 5 {
			want = append(want, createDueSubscription(t, s, "app_A", acct.ID, base.Add(time.Duration(i-10)*time.Second)).ID)
		}
		first, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 2)
		mustOK(t, "ClaimDueSubscriptions(max 2)", err)
		rest, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 10)
		mustOK(t, "ClaimDueSubscriptions(max 10)", err)
		if d := diff(want[:2], ids(first, subscriptionID)); d != "" {
			t.Errorf("ClaimDueSubscriptions(max 2) mismatch (-want +got):\n%s", d)
		}
		if d := diff(want[2:], ids(rest, subscriptionID)); d != "" {
			t.Errorf("ClaimDueSubscriptions(rest) mismatch (-want +got):\n%s", d)
		}
		none, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 0)
		mustOK(t, "ClaimDueSubscriptions(max 0)", err)
		if len(none) != 0 {
			t.Errorf("ClaimDueSubscriptions(max 0) = %v, want none", ids(none, subscriptionID))
		}
	}},
	{"NeverCheckedSpreads", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		const n = 20
		for range n {
			createDueSubscription(t, s, "app_A", acct.ID, time.Time{})
		}
		got, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, n)
		mustOK(t, "ClaimDueSubscriptions()", err)
		if len(got) != n {
			t.Fatalf("ClaimDueSubscriptions() claimed %d, want all %d never-checked subscriptions", len(got), n)
		}
		distinct := map[time.Time]bool{}
		for _, sub := range got {
			if !sub.NextCheckAt.After(base) || sub.NextCheckAt.After(base.Add(time.Minute)) {
				t.Errorf("subscription %s: NextCheckAt = %v, want in (%v, %v]", sub.ID, sub.NextCheckAt, base, base.Add(time.Minute))
			}
			distinct[sub.NextCheckAt] = true
		}
		if len(distinct) < n/2 {
			t.Errorf("%d never-checked subscriptions got %d distinct NextCheckAt, want them spread over the interval", n, len(distinct))
		}
	}},
	{"EveryApplication", func(t *testing.T, s unical.Store) {
		a := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		b := mustCreateAccount(t, s, "app_B", unical.ProviderGoogle, "ada@example.com")
		subA := createDueSubscription(t, s, "app_A", a.ID, base.Add(-2*time.Second))
		subB := createDueSubscription(t, s, "app_B", b.ID, base.Add(-time.Second))
		got, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 10)
		mustOK(t, "ClaimDueSubscriptions()", err)
		if d := diff([]string{subA.ID, subB.ID}, ids(got, subscriptionID)); d != "" {
			t.Errorf("ClaimDueSubscriptions() mismatch (-want +got):\n%s", d)
		}
	}},
	{"FollowsUpdatesAndDeletes", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		deleted := createDueSubscription(t, s, "app_A", acct.ID, base.Add(-time.Second))
		postponed := createDueSubscription(t, s, "app_A", acct.ID, base.Add(-time.Second))
		brought := createDueSubscription(t, s, "app_A", acct.ID, base.Add(time.Hour))
		mustOK(t, "DeleteSubscription()", s.DeleteSubscription(t.Context(), "app_A", deleted.ID))
		_, err := s.UpdateSubscription(t.Context(), "app_A", postponed.ID, func(r *unical.SubscriptionRecord) error {
			r.NextCheckAt = base.Add(time.Hour)
			return nil
		})
		mustOK(t, "UpdateSubscription(postpone)", err)
		_, err = s.UpdateSubscription(t.Context(), "app_A", brought.ID, func(r *unical.SubscriptionRecord) error {
			r.NextCheckAt = base.Add(-time.Hour)
			return nil
		})
		mustOK(t, "UpdateSubscription(bring forward)", err)
		got, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 10)
		mustOK(t, "ClaimDueSubscriptions()", err)
		if d := diff([]string{brought.ID}, ids(got, subscriptionID)); d != "" {
			t.Errorf("ClaimDueSubscriptions() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Concurrent", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		const n, claimers = 30, 6
		for i := range n {
			createDueSubscription(t, s, "app_A", acct.ID, base.Add(-time.Duration(i)*time.Second))
		}
		var mu sync.Mutex
		counts := map[string]int{}
		var wg sync.WaitGroup
		for range claimers {
			wg.Go(func() {
				for range n {
					got, err := s.ClaimDueSubscriptions(t.Context(), base, time.Minute, 3)
					if err != nil {
						t.Errorf("ClaimDueSubscriptions(): %v", err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, sub := range got {
						counts[sub.ID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(counts) != n {
			t.Errorf("%d concurrent claimers claimed %d distinct subscriptions, want all %d", claimers, len(counts), n)
		}
		for id, c := range counts {
			if c != 1 {
				t.Errorf("subscription %s claimed %d times, want once", id, c)
			}
		}
	}},
	{"ErrInvalid", func(t *testing.T, s unical.Store) {
		for _, interval := range []time.Duration{0, -time.Second} {
			_, err := s.ClaimDueSubscriptions(t.Context(), base, interval, 10)
			wantCode(t, "ClaimDueSubscriptions(interval "+interval.String()+")", err, unical.CodeInvalid)
		}
	}},
}

// createDueSubscription stores a full subscription whose next check is
// due at due.
func createDueSubscription(tb testing.TB, s unical.Store, appID, accountID string, due time.Time) *unical.SubscriptionRecord {
	tb.Helper()
	rec := fullSubscription(newID("sub"), appID, accountID)
	rec.NextCheckAt = due
	mustOK(tb, "CreateSubscription()", s.CreateSubscription(tb.Context(), rec))
	return rec
}
