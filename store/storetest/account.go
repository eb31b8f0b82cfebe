package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
)

var accountTests = []testCase{
	{"CreateGet/OK", func(t *testing.T, s unical.Store) {
		id := newID("acc")
		want := fullAccount(id, "app_A", unical.ProviderGoogle, "Ada@Example.com")
		checkFull(t, want)
		mustOK(t, "CreateAccount()", s.CreateAccount(t.Context(), fullAccount(id, "app_A", unical.ProviderGoogle, "Ada@Example.com")))
		got, err := s.GetAccount(t.Context(), "app_A", id)
		mustOK(t, "GetAccount()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetAccount() mismatch (-want +got):\n%s", d)
		}
	}},
	{"CreateGet/TimesInUTC", func(t *testing.T, s unical.Store) {
		id := newID("acc")
		rec := fullAccount(id, "app_A", unical.ProviderGoogle, "ada@example.com")
		zone := time.FixedZone("UTC+5:30", 5*3600+1800)
		rec.CreatedAt, rec.TokenExpiry = rec.CreatedAt.In(zone), rec.TokenExpiry.In(zone)
		mustOK(t, "CreateAccount()", s.CreateAccount(t.Context(), rec))
		got, err := s.GetAccount(t.Context(), "app_A", id)
		mustOK(t, "GetAccount()", err)
		if d := diff(fullAccount(id, "app_A", unical.ProviderGoogle, "ada@example.com"), got); d != "" {
			t.Errorf("GetAccount() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Create/ErrConflictEmail", func(t *testing.T, s unical.Store) {
		first := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		dup := fullAccount(newID("acc"), "app_A", unical.ProviderGoogle, "ADA@example.COM")
		wantCode(t, "CreateAccount(same email, other case)", s.CreateAccount(t.Context(), dup), unical.CodeConflict)
		_, err := s.GetAccount(t.Context(), "app_A", dup.ID)
		wantCode(t, "GetAccount(refused duplicate)", err, unical.CodeNotFound)
		got, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{})
		mustOK(t, "ListAccounts()", err)
		if d := diff([]*unical.AccountRecord{first}, got); d != "" {
			t.Errorf("ListAccounts() after conflict mismatch (-want +got):\n%s", d)
		}
	}},
	{"Create/ErrConflictID", func(t *testing.T, s unical.Store) {
		first := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		dup := fullAccount(first.ID, "app_A", unical.ProviderGoogle, "grace@example.com")
		wantCode(t, "CreateAccount(same id)", s.CreateAccount(t.Context(), dup), unical.CodeConflict)
		_, err := s.FindAccount(t.Context(), "app_A", unical.ProviderGoogle, "grace@example.com")
		wantCode(t, "FindAccount(refused duplicate)", err, unical.CodeNotFound)
	}},
	{"Create/SameEmailElsewhere", func(t *testing.T, s unical.Store) {
		a := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		b := mustCreateAccount(t, s, "app_B", unical.ProviderGoogle, "ada@example.com")
		c := mustCreateAccount(t, s, "app_A", unical.ProviderMicrosoft, "Ada@example.com")
		for _, want := range []*unical.AccountRecord{a, b, c} {
			got, err := s.FindAccount(t.Context(), want.ApplicationID, want.ProviderType, "ada@example.com")
			mustOK(t, "FindAccount()", err)
			if d := diff(want, got); d != "" {
				t.Errorf("FindAccount(%s, %s) mismatch (-want +got):\n%s", want.ApplicationID, want.ProviderType, d)
			}
		}
	}},
	{"Get/ErrNotFound", func(t *testing.T, s unical.Store) {
		_, err := s.GetAccount(t.Context(), "app_A", newID("acc"))
		wantCode(t, "GetAccount(unknown)", err, unical.CodeNotFound)
	}},
	{"Get/ErrForeignApp", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		_, err := s.GetAccount(t.Context(), "app_B", rec.ID)
		wantCode(t, "GetAccount(other app)", err, unical.CodeNotFound)
	}},
	{"Find/OK", func(t *testing.T, s unical.Store) {
		want := mustCreateAccount(t, s, "app_A", unical.ProviderCalDAV, "Ada@Example.com")
		mustCreateAccount(t, s, "app_A", unical.ProviderCalDAV, "grace@example.com")
		got, err := s.FindAccount(t.Context(), "app_A", unical.ProviderCalDAV, "aDA@exAMPLE.com")
		mustOK(t, "FindAccount()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("FindAccount() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Find/ErrNotFound", func(t *testing.T, s unical.Store) {
		mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		for _, tc := range []struct {
			name  string
			t     unical.ProviderType
			email string
		}{
			{"unknown email", unical.ProviderGoogle, "grace@example.com"},
			{"other provider type", unical.ProviderMicrosoft, "ada@example.com"},
			{"email prefix", unical.ProviderGoogle, "ada@example"},
		} {
			_, err := s.FindAccount(t.Context(), "app_A", tc.t, tc.email)
			wantCode(t, "FindAccount("+tc.name+")", err, unical.CodeNotFound)
		}
	}},
	{"Find/ErrForeignApp", func(t *testing.T, s unical.Store) {
		mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		_, err := s.FindAccount(t.Context(), "app_B", unical.ProviderGoogle, "ada@example.com")
		wantCode(t, "FindAccount(other app)", err, unical.CodeNotFound)
	}},
	{"Update/OK", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		want := fullAccount(rec.ID, "app_A", unical.ProviderGoogle, "ada@example.com")
		want.Status = unical.AccountStatusExpired
		want.StatusReason = unical.StatusReasonConsentRevoked
		want.UpdatedAt = base.Add(time.Hour)
		want.AuthorizedScopes = []string{"calendar.readonly"}
		want.ProviderAccountID = nil
		want.SealedSecrets = []byte("resealed")
		want.TokenExpiry = base.Add(2 * time.Hour)
		want.ProviderState = nil
		got, err := s.UpdateAccount(t.Context(), "app_A", rec.ID, func(r *unical.AccountRecord) error {
			if d := diff(rec, r); d != "" {
				t.Errorf("UpdateAccount() fn got mismatch (-want +got):\n%s", d)
			}
			r.Status = want.Status
			r.StatusReason = want.StatusReason
			r.UpdatedAt = want.UpdatedAt
			r.AuthorizedScopes = []string{"calendar.readonly"}
			r.ProviderAccountID = nil
			r.SealedSecrets = []byte("resealed")
			r.TokenExpiry = want.TokenExpiry
			r.ProviderState = nil
			return nil
		})
		mustOK(t, "UpdateAccount()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("UpdateAccount() mismatch (-want +got):\n%s", d)
		}
		got, err = s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("GetAccount() after update mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/Concurrent", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		const n = 16
		var wg sync.WaitGroup
		want := slices.Clone(rec.AuthorizedScopes)
		for i := range n {
			scope := fmt.Sprintf("scope-%02d", i)
			want = append(want, scope)
			wg.Go(func() {
				_, err := s.UpdateAccount(t.Context(), "app_A", rec.ID, func(r *unical.AccountRecord) error {
					r.AuthorizedScopes = append(r.AuthorizedScopes, scope)
					return nil
				})
				if err != nil {
					t.Errorf("UpdateAccount(%s): %v", scope, err)
				}
			})
		}
		wg.Wait()
		got, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		slices.Sort(want)
		slices.Sort(got.AuthorizedScopes)
		if d := diff(want, got.AuthorizedScopes); d != "" {
			t.Errorf("AuthorizedScopes after %d concurrent updates mismatch, an update was lost (-want +got):\n%s", n, d)
		}
	}},
	{"Update/FnErrorAborts", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		errStop := errors.New("stop")
		got, err := s.UpdateAccount(t.Context(), "app_A", rec.ID, func(r *unical.AccountRecord) error {
			r.Email = "grace@example.com"
			r.Status = unical.AccountStatusExpired
			return errStop
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("UpdateAccount() = %v, %v; want the error of fn", got, err)
		}
		after, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		if d := diff(rec, after); d != "" {
			t.Errorf("GetAccount() after aborted update mismatch (-want +got):\n%s", d)
		}
		_, err = s.FindAccount(t.Context(), "app_A", unical.ProviderGoogle, "grace@example.com")
		wantCode(t, "FindAccount(aborted email)", err, unical.CodeNotFound)
	}},
	{"Update/ErrNotFound", func(t *testing.T, s unical.Store) {
		_, err := s.UpdateAccount(t.Context(), "app_A", newID("acc"), func(*unical.AccountRecord) error {
			t.Error("UpdateAccount(unknown) called fn")
			return nil
		})
		wantCode(t, "UpdateAccount(unknown)", err, unical.CodeNotFound)
	}},
	{"Update/ErrForeignApp", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		_, err := s.UpdateAccount(t.Context(), "app_B", rec.ID, func(r *unical.AccountRecord) error {
			t.Error("UpdateAccount(other app) called fn")
			r.Status = unical.AccountStatusExpired
			return nil
		})
		wantCode(t, "UpdateAccount(other app)", err, unical.CodeNotFound)
		got, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		if d := diff(rec, got); d != "" {
			t.Errorf("GetAccount() after foreign update mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/ErrInvalidMove", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		for _, tc := range []struct {
			name string
			fn   func(*unical.AccountRecord)
		}{
			{"id", func(r *unical.AccountRecord) { r.ID = newID("acc") }},
			{"application", func(r *unical.AccountRecord) { r.ApplicationID = "app_B" }},
		} {
			_, err := s.UpdateAccount(t.Context(), "app_A", rec.ID, func(r *unical.AccountRecord) error {
				tc.fn(r)
				return nil
			})
			wantCode(t, "UpdateAccount(change "+tc.name+")", err, unical.CodeInvalid)
		}
		got, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		if d := diff(rec, got); d != "" {
			t.Errorf("GetAccount() after refused updates mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/EmailChange", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		_, err := s.UpdateAccount(t.Context(), "app_A", rec.ID, func(r *unical.AccountRecord) error {
			r.Email = "Ada.Lovelace@example.com"
			return nil
		})
		mustOK(t, "UpdateAccount()", err)
		got, err := s.FindAccount(t.Context(), "app_A", unical.ProviderGoogle, "ada.lovelace@example.com")
		mustOK(t, "FindAccount(new email)", err)
		if got.ID != rec.ID {
			t.Errorf("FindAccount(new email).ID = %q, want %q", got.ID, rec.ID)
		}
		_, err = s.FindAccount(t.Context(), "app_A", unical.ProviderGoogle, "ada@example.com")
		wantCode(t, "FindAccount(old email)", err, unical.CodeNotFound)
		mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
	}},
	{"Update/ErrConflictEmail", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		grace := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "grace@example.com")
		_, err := s.UpdateAccount(t.Context(), "app_A", grace.ID, func(r *unical.AccountRecord) error {
			r.Email = "ADA@example.com"
			return nil
		})
		wantCode(t, "UpdateAccount(taken email)", err, unical.CodeConflict)
		for _, want := range []*unical.AccountRecord{ada, grace} {
			got, err := s.FindAccount(t.Context(), "app_A", unical.ProviderGoogle, want.Email)
			mustOK(t, "FindAccount()", err)
			if d := diff(want, got); d != "" {
				t.Errorf("FindAccount(%s) after conflict mismatch (-want +got):\n%s", want.Email, d)
			}
		}
	}},
	{"List/Paging", func(t *testing.T, s unical.Store) {
		var want []*unical.AccountRecord
		for i := range 7 {
			want = append(want, mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, fmt.Sprintf("user%d@example.com", i)))
			if i%3 == 0 {
				mustCreateAccount(t, s, "app_B", unical.ProviderGoogle, fmt.Sprintf("user%d@example.com", i))
			}
		}
		slices.SortFunc(want, func(a, b *unical.AccountRecord) int { return strings.Compare(a.ID, b.ID) })
		all, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{})
		mustOK(t, "ListAccounts(no limit)", err)
		if d := diff(want, all); d != "" {
			t.Errorf("ListAccounts(no limit) mismatch (-want +got):\n%s", d)
		}
		var got []*unical.AccountRecord
		after := ""
		for page := 0; ; page++ {
			recs, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{After: after, Limit: 3})
			mustOK(t, "ListAccounts()", err)
			if len(recs) > 3 {
				t.Fatalf("ListAccounts(Limit: 3) returned %d accounts", len(recs))
			}
			if len(recs) == 0 || page > len(want) {
				break
			}
			got = append(got, recs...)
			after = recs[len(recs)-1].ID
		}
		if d := diff(want, got); d != "" {
			t.Errorf("ListAccounts() pages mismatch (-want +got):\n%s", d)
		}
	}},
	{"List/Search", func(t *testing.T, s unical.Store) {
		ada := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		bob := mustCreateAccount(t, s, "app_A", unical.ProviderMicrosoft, "bob@EXAMPLE.org")
		carol := fullAccount(newID("acc"), "app_A", unical.ProviderCalDAV, "carol@icloud.test")
		carol.ExternalID = "Team-Example-42"
		mustOK(t, "CreateAccount()", s.CreateAccount(t.Context(), carol))
		dave := fullAccount(newID("acc"), "app_A", unical.ProviderCalDAV, "dave@icloud.test")
		dave.ExternalID = ""
		mustOK(t, "CreateAccount()", s.CreateAccount(t.Context(), dave))
		mustCreateAccount(t, s, "app_B", unical.ProviderGoogle, "eve@example.com")
		for _, tc := range []struct {
			search string
			want   []string
		}{
			{"Example", []string{ada.ID, bob.ID, carol.ID}},
			{"BOB", []string{bob.ID}},
			{"team-example-4", []string{carol.ID}},
			{"icloud", []string{carol.ID, dave.ID}},
			{"external-" + ada.ID, []string{ada.ID}},
			{"nobody", nil},
		} {
			recs, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{Search: tc.search})
			mustOK(t, "ListAccounts()", err)
			if d := diff(tc.want, ids(recs, accountID)); d != "" {
				t.Errorf("ListAccounts(Search: %q) ids mismatch (-want +got):\n%s", tc.search, d)
			}
		}
	}},
	{"List/Status", func(t *testing.T, s unical.Store) {
		var active, expired []string
		for i := range 5 {
			rec := fullAccount(newID("acc"), "app_A", unical.ProviderGoogle, fmt.Sprintf("u%d@example.com", i))
			if i%2 == 1 {
				rec.Status = unical.AccountStatusExpired
				expired = append(expired, rec.ID)
			} else {
				active = append(active, rec.ID)
			}
			mustOK(t, "CreateAccount()", s.CreateAccount(t.Context(), rec))
		}
		for _, tc := range []struct {
			status unical.AccountStatus
			want   []string
		}{
			{unical.AccountStatusActive, active},
			{unical.AccountStatusExpired, expired},
			{"", slices.Sorted(slices.Values(append(slices.Clone(active), expired...)))},
		} {
			recs, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{Status: tc.status})
			mustOK(t, "ListAccounts()", err)
			if d := diff(tc.want, ids(recs, accountID)); d != "" {
				t.Errorf("ListAccounts(Status: %q) ids mismatch (-want +got):\n%s", tc.status, d)
			}
		}
	}},
	{"List/FilterProviderType", func(t *testing.T, s unical.Store) {
		var virtual []string
		for i, pt := range []unical.ProviderType{unical.ProviderVirtual, unical.ProviderGoogle, unical.ProviderVirtual, unical.ProviderCalDAV} {
			rec := mustCreateAccount(t, s, "app_A", pt, fmt.Sprintf("u%d@example.com", i))
			if pt == unical.ProviderVirtual {
				virtual = append(virtual, rec.ID)
			}
		}
		mustCreateAccount(t, s, "app_B", unical.ProviderVirtual, "other@example.com")
		recs, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{ProviderType: unical.ProviderVirtual})
		mustOK(t, "ListAccounts()", err)
		if d := diff(virtual, ids(recs, accountID)); d != "" {
			t.Errorf("ListAccounts(ProviderType: VIRTUAL) ids mismatch (-want +got):\n%s", d)
		}
	}},
	{"List/FilterPaging", func(t *testing.T, s unical.Store) {
		// The limit counts matching accounts, not the ones skipped.
		var want []string
		for i := range 9 {
			rec := fullAccount(newID("acc"), "app_A", unical.ProviderGoogle, fmt.Sprintf("u%d@example.com", i))
			if i%3 == 0 {
				rec.Email = fmt.Sprintf("match%d@example.com", i)
				want = append(want, rec.ID)
			}
			mustOK(t, "CreateAccount()", s.CreateAccount(t.Context(), rec))
		}
		first, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{Search: "MATCH", Limit: 2})
		mustOK(t, "ListAccounts()", err)
		rest, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{Search: "MATCH", Limit: 2, After: first[len(first)-1].ID})
		mustOK(t, "ListAccounts()", err)
		if d := diff(want, append(ids(first, accountID), ids(rest, accountID)...)); d != "" {
			t.Errorf("ListAccounts(Search, Limit: 2) pages mismatch (-want +got):\n%s", d)
		}
	}},
	{"List/ErrForeignApp", func(t *testing.T, s unical.Store) {
		mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		recs, err := s.ListAccounts(t.Context(), "app_B", unical.AccountFilter{})
		mustOK(t, "ListAccounts(other app)", err)
		if len(recs) != 0 {
			t.Errorf("ListAccounts(other app) = %v, want none", ids(recs, accountID))
		}
	}},
	{"Delete/OK", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		other := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "grace@example.com")
		sub1 := mustCreateSubscription(t, s, "app_A", rec.ID)
		sub2 := mustCreateSubscription(t, s, "app_A", rec.ID)
		kept := mustCreateSubscription(t, s, "app_A", other.ID)
		pending, keptMsg := newMessage("app_A", sub1.ID, base), newMessage("app_A", kept.ID, base)
		mustEnqueue(t, s, pending, keptMsg)

		mustOK(t, "DeleteAccount()", s.DeleteAccount(t.Context(), "app_A", rec.ID))
		_, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		wantCode(t, "GetAccount(deleted)", err, unical.CodeNotFound)
		_, err = s.FindAccount(t.Context(), "app_A", unical.ProviderGoogle, "ada@example.com")
		wantCode(t, "FindAccount(deleted)", err, unical.CodeNotFound)
		for _, sub := range []*unical.SubscriptionRecord{sub1, sub2} {
			_, err = s.GetSubscription(t.Context(), "app_A", sub.ID)
			wantCode(t, "GetSubscription(of deleted account)", err, unical.CodeNotFound)
		}
		subs, err := s.ListSubscriptions(t.Context(), "app_A", rec.ID, "", 0)
		mustOK(t, "ListSubscriptions()", err)
		if len(subs) != 0 {
			t.Errorf("ListSubscriptions(deleted account) = %v, want none", ids(subs, subscriptionID))
		}
		all, err := s.ListAllSubscriptions(t.Context(), "", 0)
		mustOK(t, "ListAllSubscriptions()", err)
		if d := diff([]string{kept.ID}, ids(all, subscriptionID)); d != "" {
			t.Errorf("ListAllSubscriptions() after delete mismatch (-want +got):\n%s", d)
		}
		_, err = s.GetMessage(t.Context(), "app_A", pending.ID)
		wantCode(t, "GetMessage(pending, of deleted account)", err, unical.CodeNotFound)
		_, err = s.GetMessage(t.Context(), "app_A", keptMsg.ID)
		mustOK(t, "GetMessage(of another account)", err)
		wantCode(t, "DeleteAccount(deleted)", s.DeleteAccount(t.Context(), "app_A", rec.ID), unical.CodeNotFound)
		mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
	}},
	{"Delete/ErrNotFound", func(t *testing.T, s unical.Store) {
		wantCode(t, "DeleteAccount(unknown)", s.DeleteAccount(t.Context(), "app_A", newID("acc")), unical.CodeNotFound)
	}},
	{"Delete/ErrForeignApp", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		sub := mustCreateSubscription(t, s, "app_A", rec.ID)
		wantCode(t, "DeleteAccount(other app)", s.DeleteAccount(t.Context(), "app_B", rec.ID), unical.CodeNotFound)
		_, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount() after foreign delete", err)
		_, err = s.GetSubscription(t.Context(), "app_A", sub.ID)
		mustOK(t, "GetSubscription() after foreign delete", err)
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		id := newID("acc")
		fresh := func() *unical.AccountRecord {
			return fullAccount(id, "app_A", unical.ProviderGoogle, "ada@example.com")
		}
		rec := fresh()
		mustOK(t, "CreateAccount()", s.CreateAccount(t.Context(), rec))
		mutateAccount(rec)
		got, err := s.GetAccount(t.Context(), "app_A", id)
		mustOK(t, "GetAccount()", err)
		mutateAccount(got)
		got, err = s.FindAccount(t.Context(), "app_A", unical.ProviderGoogle, "ada@example.com")
		mustOK(t, "FindAccount()", err)
		mutateAccount(got)
		list, err := s.ListAccounts(t.Context(), "app_A", unical.AccountFilter{})
		mustOK(t, "ListAccounts()", err)
		mutateAccount(list[0])
		var inFn *unical.AccountRecord
		got, err = s.UpdateAccount(t.Context(), "app_A", id, func(r *unical.AccountRecord) error {
			inFn = r
			return nil
		})
		mustOK(t, "UpdateAccount()", err)
		mutateAccount(inFn)
		mutateAccount(got)
		got, err = s.GetAccount(t.Context(), "app_A", id)
		mustOK(t, "GetAccount()", err)
		if d := diff(fresh(), got); d != "" {
			t.Errorf("GetAccount() after changing copies mismatch (-want +got):\n%s", d)
		}
	}},
}

// mutateAccount changes rec in place, down to its slices and pointers, but
// not its keys.
func mutateAccount(rec *unical.AccountRecord) {
	rec.AuthorizedScopes[0] = "changed"
	*rec.ProviderAccountID = "changed"
	rec.SealedSecrets[0] = 'X'
	rec.ProviderState[0] = 'X'
	rec.Status = unical.AccountStatusExpired
}
