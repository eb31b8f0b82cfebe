package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// TestAccountReads_SeeEveryChange reads the same account URIs before and
// after each kind of change: a reused answer must never show old data.
func TestAccountReads_SeeEveryChange(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	ids := ts.mustConnect(t)
	acct := "/v1/endUserAccounts/" + ids[unical.ProviderGoogle]
	listIDs := func() []string {
		t.Helper()
		var page unical.Page[unical.Account]
		ts.must(t, "GET", "/v1/endUserAccounts?limit=10", nil).Into(t, &page)
		var out []string
		for _, a := range page.Data {
			out = append(out, a.ID)
		}
		return out
	}
	status := func() unical.AccountStatus {
		t.Helper()
		var a unical.Account
		ts.must(t, "GET", acct, nil).Into(t, &a)
		return a.Status
	}

	// Read twice, so that the second read can come from a cache.
	listIDs()
	before := listIDs()
	status()
	if got := status(); got != unical.AccountStatusActive {
		t.Fatalf("status = %s, want ACTIVE", got)
	}

	// A change made behind the API, straight in the Store.
	_, err := ts.Store.UpdateAccount(t.Context(), ts.AppID, ids[unical.ProviderGoogle], func(rec *unical.AccountRecord) error {
		rec.Status = unical.AccountStatusExpired
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := status(); got != unical.AccountStatusExpired {
		t.Errorf("status after the Store changed it = %s, want EXPIRED", got)
	}

	// A new account shows in the list.
	ts.Providers[unical.ProviderGoogle].AddUser("new@example.com", "refresh-new", "")
	var created unical.Account
	ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "new@example.com", "providerType": "PROVIDER_A", "refreshToken": "refresh-new"}).Into(t, &created)
	if d := cmp.Diff(len(before)+1, len(listIDs())); d != "" {
		t.Errorf("accounts listed after a create (-want +got):\n%s", d)
	}

	// A deleted account is gone from both reads.
	ts.must(t, "DELETE", acct, nil)
	if r := ts.do(t, "GET", acct, nil); r.Status != http.StatusNotFound {
		t.Errorf("GET of the deleted account = %d, want 404", r.Status)
	}
	for _, id := range listIDs() {
		if id == ids[unical.ProviderGoogle] {
			t.Errorf("the list still holds the deleted account %s", id)
		}
	}
}

// TestAccountReads_KeyCheckedEveryTime: an answer another caller's read
// made reusable is still refused to a key of another application and to a
// revoked key.
func TestAccountReads_KeyCheckedEveryTime(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := "/v1/endUserAccounts/" + ts.mustConnect(t)[unical.ProviderGoogle]
	ts.must(t, "GET", acct, nil)
	ts.must(t, "GET", "/v1/endUserAccounts", nil)

	_, keyB := ts.mustCreateApp(t, "second app", "")
	if r := ts.doKey(t, keyB, "GET", acct, nil); r.Status != http.StatusNotFound {
		t.Errorf("another application's GET %s = %d, want 404", acct, r.Status)
	}
	var listB unical.Page[unical.Account]
	ts.doKey(t, keyB, "GET", "/v1/endUserAccounts", nil).Into(t, &listB)
	if len(listB.Data) != 0 {
		t.Errorf("another application lists %d accounts, want 0", len(listB.Data))
	}

	created, err := admin.Of(ts.Client).CreateAPIKey(t.Context(), ts.AppID, "")
	if err != nil {
		t.Fatal(err)
	}
	keyID, key := created.Key.ID, created.APIKey
	if r := ts.doKey(t, key, "GET", acct, nil); r.Status != http.StatusOK {
		t.Fatalf("GET with the new key = %d, want 200", r.Status)
	}
	if err := admin.Of(ts.Client).RevokeAPIKey(t.Context(), ts.AppID, keyID); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{acct, "/v1/endUserAccounts"} {
		if r := ts.doKey(t, key, "GET", path, nil); r.Status != http.StatusUnauthorized {
			t.Errorf("GET %s with the revoked key = %d, want 401", path, r.Status)
		}
	}
}
