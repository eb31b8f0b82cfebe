package storetest

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

var subscriptionTests = []testCase{
	{"CreateGet/OK", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		id := newID("sub")
		want := fullSubscription(id, "app_A", acct.ID)
		checkFull(t, want)
		mustOK(t, "CreateSubscription()", s.CreateSubscription(t.Context(), fullSubscription(id, "app_A", acct.ID)))
		got, err := s.GetSubscription(t.Context(), "app_A", id)
		mustOK(t, "GetSubscription()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetSubscription() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Create/ErrNotFoundAccount", func(t *testing.T, s unical.Store) {
		sub := fullSubscription(newID("sub"), "app_A", newID("acc"))
		wantCode(t, "CreateSubscription(unknown account)", s.CreateSubscription(t.Context(), sub), unical.CodeNotFound)
		_, err := s.GetSubscription(t.Context(), "app_A", sub.ID)
		wantCode(t, "GetSubscription(refused)", err, unical.CodeNotFound)
	}},
	{"Create/ErrForeignAccount", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := fullSubscription(newID("sub"), "app_B", acct.ID)
		wantCode(t, "CreateSubscription(other app's account)", s.CreateSubscription(t.Context(), sub), unical.CodeNotFound)
		subs, err := s.ListAllSubscriptions(t.Context(), "", 0)
		mustOK(t, "ListAllSubscriptions()", err)
		if len(subs) != 0 {
			t.Errorf("ListAllSubscriptions() = %v, want none", ids(subs, subscriptionID))
		}
	}},
	{"Create/ErrConflict", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		dup := fullSubscription(sub.ID, "app_A", acct.ID)
		dup.URL = "https://other.example/"
		wantCode(t, "CreateSubscription(same id)", s.CreateSubscription(t.Context(), dup), unical.CodeConflict)
		got, err := s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription()", err)
		if d := diff(sub, got); d != "" {
			t.Errorf("GetSubscription() after conflict mismatch (-want +got):\n%s", d)
		}
	}},
	{"Get/ErrNotFound", func(t *testing.T, s unical.Store) {
		_, err := s.GetSubscription(t.Context(), "app_A", newID("sub"))
		wantCode(t, "GetSubscription(unknown)", err, unical.CodeNotFound)
	}},
	{"Get/ErrForeignApp", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		_, err := s.GetSubscription(t.Context(), "app_B", sub.ID)
		wantCode(t, "GetSubscription(other app)", err, unical.CodeNotFound)
	}},
	{"Update/OK", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		want := fullSubscription(sub.ID, "app_A", acct.ID)
		renewed := base.Add(30 * 24 * time.Hour)
		want.Expiration = &renewed
		want.UpdatedAt = base.Add(time.Hour)
		want.Watch = &unical.Watch{ID: "channel-2", Expiration: renewed, Token: "token-2"}
		want.Cursor = "sync-cursor-2"
		want.ReconciledAt = base.Add(2 * time.Hour)
		want.RateLimit = 3
		want.NextCheckAt = base.Add(time.Minute)
		want.NextSendAt = base.Add(2 * time.Minute)
		got, err := s.UpdateSubscription(t.Context(), "app_A", sub.ID, func(r *unical.SubscriptionRecord) error {
			if d := diff(sub, r); d != "" {
				t.Errorf("UpdateSubscription() fn got mismatch (-want +got):\n%s", d)
			}
			r.Expiration = &renewed
			r.UpdatedAt = want.UpdatedAt
			r.Watch = &unical.Watch{ID: "channel-2", Expiration: renewed, Token: "token-2"}
			r.Cursor = "sync-cursor-2"
			r.ReconciledAt = want.ReconciledAt
			r.RateLimit = 3
			r.NextCheckAt, r.NextSendAt = want.NextCheckAt, want.NextSendAt
			return nil
		})
		mustOK(t, "UpdateSubscription()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("UpdateSubscription() mismatch (-want +got):\n%s", d)
		}
		got, err = s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetSubscription() after update mismatch (-want +got):\n%s", d)
		}
		_, err = s.UpdateSubscription(t.Context(), "app_A", sub.ID, func(r *unical.SubscriptionRecord) error {
			r.Watch, r.Expiration = nil, nil
			return nil
		})
		mustOK(t, "UpdateSubscription(clear watch)", err)
		got, err = s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription()", err)
		if got.Watch != nil || got.Expiration != nil {
			t.Errorf("GetSubscription() after clearing = Watch %v, Expiration %v; want nil, nil", got.Watch, got.Expiration)
		}
	}},
	{"Update/Concurrent", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		const n = 16
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				_, err := s.UpdateSubscription(t.Context(), "app_A", sub.ID, func(r *unical.SubscriptionRecord) error {
					r.RateLimit++
					return nil
				})
				if err != nil {
					t.Errorf("UpdateSubscription(): %v", err)
				}
			})
		}
		wg.Wait()
		got, err := s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription()", err)
		if want := sub.RateLimit + n; got.RateLimit != want {
			t.Errorf("RateLimit after %d concurrent increments = %d, want %d: an update was lost", n, got.RateLimit, want)
		}
	}},
	{"Update/FnErrorAborts", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		errStop := errors.New("stop")
		_, err := s.UpdateSubscription(t.Context(), "app_A", sub.ID, func(r *unical.SubscriptionRecord) error {
			r.Cursor = "lost"
			return errStop
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("UpdateSubscription() error = %v, want the error of fn", err)
		}
		got, err := s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription()", err)
		if d := diff(sub, got); d != "" {
			t.Errorf("GetSubscription() after aborted update mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/ErrForeignApp", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		_, err := s.UpdateSubscription(t.Context(), "app_B", sub.ID, func(r *unical.SubscriptionRecord) error {
			t.Error("UpdateSubscription(other app) called fn")
			r.Cursor = "stolen"
			return nil
		})
		wantCode(t, "UpdateSubscription(other app)", err, unical.CodeNotFound)
		_, err = s.UpdateSubscription(t.Context(), "app_A", newID("sub"), func(r *unical.SubscriptionRecord) error {
			t.Error("UpdateSubscription(unknown) called fn")
			return nil
		})
		wantCode(t, "UpdateSubscription(unknown)", err, unical.CodeNotFound)
		got, err := s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription()", err)
		if d := diff(sub, got); d != "" {
			t.Errorf("GetSubscription() after foreign update mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/ErrInvalidMove", func(t *testing.T, s unical.Store) {
		acct := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		other := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "grace@example.com")
		sub := mustCreateSubscription(t, s, "app_A", acct.ID)
		for _, tc := range []struct {
			name string
			fn   func(*unical.SubscriptionRecord)
		}{
			{"id", func(r *unical.SubscriptionRecord) { r.ID = newID("sub") }},
			{"application", func(r *unical.SubscriptionRecord) { r.ApplicationID = "app_B" }},
			{"account", func(r *unical.SubscriptionRecord) { r.EndUserAccountID = other.ID }},
		} {
			_, err := s.UpdateSubscription(t.Context(), "app_A", sub.ID, func(r *unical.SubscriptionRecord) error {
				tc.fn(r)
				return nil
			})
			wantCode(t, "UpdateSubscription(change "+tc.name+")", err, unical.CodeInvalid)
		}
		got, err := s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription()", err)
		if d := diff(sub, got); d != "" {
			t.Errorf("GetSubscription() after refused updates mismatch (-want +got):\n%s", d)
		}
	}},
	{"List/Paging", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		grace := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "grace@example.com")
		eve := mustCreateAccount(t, s, "app_B", unical.ProviderGoogle, "eve@example.com")
		var ofAda, ofApp []*unical.SubscriptionRecord
		for i := range 7 {
			acct := ada
			if i%3 == 1 {
				acct = grace
			}
			sub := mustCreateSubscription(t, s, "app_A", acct.ID)
			if acct == ada {
				ofAda = append(ofAda, sub)
			}
			ofApp = append(ofApp, sub)
			mustCreateSubscription(t, s, "app_B", eve.ID)
		}
		sortSubs(ofAda)
		sortSubs(ofApp)
		for _, tc := range []struct {
			name      string
			accountID string
			want      []*unical.SubscriptionRecord
		}{
			{"account", ada.ID, ofAda},
			{"application", "", ofApp},
		} {
			all, err := s.ListSubscriptions(t.Context(), "app_A", tc.accountID, "", 0)
			mustOK(t, "ListSubscriptions()", err)
			if d := diff(tc.want, all); d != "" {
				t.Errorf("ListSubscriptions(%s, no limit) mismatch (-want +got):\n%s", tc.name, d)
			}
			got := pageSubscriptions(t, func(after string) ([]*unical.SubscriptionRecord, error) {
				return s.ListSubscriptions(t.Context(), "app_A", tc.accountID, after, 2)
			}, 2)
			if d := diff(tc.want, got); d != "" {
				t.Errorf("ListSubscriptions(%s) pages mismatch (-want +got):\n%s", tc.name, d)
			}
		}
	}},
	{"List/ErrForeignApp", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		mustCreateSubscription(t, s, "app_A", ada.ID)
		for _, accountID := range []string{ada.ID, ""} {
			subs, err := s.ListSubscriptions(t.Context(), "app_B", accountID, "", 0)
			mustOK(t, "ListSubscriptions(other app)", err)
			if len(subs) != 0 {
				t.Errorf("ListSubscriptions(app_B, %q) = %v, want none", accountID, ids(subs, subscriptionID))
			}
		}
	}},
	{"ListAll/Paging", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		eve := mustCreateAccount(t, s, "app_B", unical.ProviderGoogle, "eve@example.com")
		var want []*unical.SubscriptionRecord
		for range 4 {
			want = append(want, mustCreateSubscription(t, s, "app_A", ada.ID), mustCreateSubscription(t, s, "app_B", eve.ID))
		}
		sortSubs(want)
		all, err := s.ListAllSubscriptions(t.Context(), "", 0)
		mustOK(t, "ListAllSubscriptions()", err)
		if d := diff(want, all); d != "" {
			t.Errorf("ListAllSubscriptions(no limit) mismatch (-want +got):\n%s", d)
		}
		got := pageSubscriptions(t, func(after string) ([]*unical.SubscriptionRecord, error) {
			return s.ListAllSubscriptions(t.Context(), after, 3)
		}, 3)
		if d := diff(want, got); d != "" {
			t.Errorf("ListAllSubscriptions() pages mismatch (-want +got):\n%s", d)
		}
	}},
	{"Delete/OK", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", ada.ID)
		other := mustCreateSubscription(t, s, "app_A", ada.ID)
		pending := newMessage("app_A", sub.ID, base)
		claimed := newMessage("app_A", sub.ID, base)
		delivered := newMessage("app_A", sub.ID, base)
		failed := newMessage("app_A", sub.ID, base)
		otherMsg := newMessage("app_A", other.ID, base.Add(time.Second))
		appMsg := newMessage("app_A", "", base.Add(2*time.Second))
		mustEnqueue(t, s, claimed, delivered, failed)
		// Claim the three, finish two, keep the third claimed.
		msgs, err := s.ClaimMessages(t.Context(), "worker", base, time.Minute, 3)
		mustOK(t, "ClaimMessages()", err)
		for _, m := range msgs {
			switch m.ID {
			case delivered.ID:
				m.Status = outbox.Delivered
			case failed.ID:
				m.Status = outbox.Failed
			default:
				continue
			}
			mustOK(t, "UpdateMessage()", s.UpdateMessage(t.Context(), m))
		}
		mustEnqueue(t, s, pending, otherMsg, appMsg)

		mustOK(t, "DeleteSubscription()", s.DeleteSubscription(t.Context(), "app_A", sub.ID))
		_, err = s.GetSubscription(t.Context(), "app_A", sub.ID)
		wantCode(t, "GetSubscription(deleted)", err, unical.CodeNotFound)
		wantCode(t, "DeleteSubscription(deleted)", s.DeleteSubscription(t.Context(), "app_A", sub.ID), unical.CodeNotFound)
		for _, m := range []*outbox.Message{pending, claimed} {
			_, err = s.GetMessage(t.Context(), "app_A", m.ID)
			wantCode(t, "GetMessage(pending, of deleted subscription)", err, unical.CodeNotFound)
		}
		for _, m := range []*outbox.Message{delivered, failed, otherMsg, appMsg} {
			_, err = s.GetMessage(t.Context(), "app_A", m.ID)
			mustOK(t, "GetMessage(kept)", err)
		}
		msgs, err = s.ClaimMessages(t.Context(), "worker-2", base.Add(time.Hour), time.Minute, 10)
		mustOK(t, "ClaimMessages()", err)
		if d := diff([]string{otherMsg.ID, appMsg.ID}, ids(msgs, messageID)); d != "" {
			t.Errorf("ClaimMessages() after delete mismatch (-want +got):\n%s", d)
		}
		subs, err := s.ListSubscriptions(t.Context(), "app_A", "", "", 0)
		mustOK(t, "ListSubscriptions()", err)
		if d := diff([]*unical.SubscriptionRecord{other}, subs); d != "" {
			t.Errorf("ListSubscriptions() after delete mismatch (-want +got):\n%s", d)
		}
	}},
	{"Delete/ErrNotFound", func(t *testing.T, s unical.Store) {
		wantCode(t, "DeleteSubscription(unknown)", s.DeleteSubscription(t.Context(), "app_A", newID("sub")), unical.CodeNotFound)
	}},
	{"Delete/ErrForeignApp", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", ada.ID)
		msg := newMessage("app_A", sub.ID, base)
		mustEnqueue(t, s, msg)
		wantCode(t, "DeleteSubscription(other app)", s.DeleteSubscription(t.Context(), "app_B", sub.ID), unical.CodeNotFound)
		_, err := s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription() after foreign delete", err)
		_, err = s.GetMessage(t.Context(), "app_A", msg.ID)
		mustOK(t, "GetMessage() after foreign delete", err)
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		id := newID("sub")
		fresh := func() *unical.SubscriptionRecord { return fullSubscription(id, "app_A", ada.ID) }
		sub := fresh()
		mustOK(t, "CreateSubscription()", s.CreateSubscription(t.Context(), sub))
		mutateSubscription(sub)
		got, err := s.GetSubscription(t.Context(), "app_A", id)
		mustOK(t, "GetSubscription()", err)
		mutateSubscription(got)
		list, err := s.ListSubscriptions(t.Context(), "app_A", ada.ID, "", 0)
		mustOK(t, "ListSubscriptions()", err)
		mutateSubscription(list[0])
		list, err = s.ListAllSubscriptions(t.Context(), "", 0)
		mustOK(t, "ListAllSubscriptions()", err)
		mutateSubscription(list[0])
		var inFn *unical.SubscriptionRecord
		got, err = s.UpdateSubscription(t.Context(), "app_A", id, func(r *unical.SubscriptionRecord) error {
			inFn = r
			return nil
		})
		mustOK(t, "UpdateSubscription()", err)
		mutateSubscription(inFn)
		mutateSubscription(got)
		got, err = s.GetSubscription(t.Context(), "app_A", id)
		mustOK(t, "GetSubscription()", err)
		if d := diff(fresh(), got); d != "" {
			t.Errorf("GetSubscription() after changing copies mismatch (-want +got):\n%s", d)
		}
	}},
}

// mutateSubscription changes sub in place, down to its pointers and
// slices, but not its keys.
func mutateSubscription(sub *unical.SubscriptionRecord) {
	*sub.Expiration = sub.Expiration.Add(time.Hour)
	sub.Watch.Token = "changed"
	sub.SealedSecret[0] = 'X'
	sub.Cursor = "changed"
}

func sortSubs(subs []*unical.SubscriptionRecord) {
	slices.SortFunc(subs, func(a, b *unical.SubscriptionRecord) int { return strings.Compare(a.ID, b.ID) })
}

// pageSubscriptions walks a subscription listing page by page, checking
// the page size, and returns everything it saw.
func pageSubscriptions(t *testing.T, list func(after string) ([]*unical.SubscriptionRecord, error), limit int) []*unical.SubscriptionRecord {
	t.Helper()
	var all []*unical.SubscriptionRecord
	after := ""
	for range 100 {
		page, err := list(after)
		mustOK(t, "list subscriptions", err)
		if len(page) > limit {
			t.Fatalf("a page with limit %d has %d subscriptions", limit, len(page))
		}
		if len(page) == 0 {
			return all
		}
		all = append(all, page...)
		after = page[len(page)-1].ID
	}
	t.Fatal("listing subscriptions never ended")
	return nil
}
