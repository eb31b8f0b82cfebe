package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/unical/unical"
)

// TestTenancy checks that two applications see only their own accounts and
// subscriptions, and that the other's ids answer 404.
func TestTenancy(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	idsA := ts.mustConnect(t)
	acctA := idsA[unical.ProviderGoogle]
	subA := ts.must(t, "POST", "/v1/calendarSubscriptions/"+acctA, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": "https://hooks.example.com/a"}).Object(t)["webhookSubscriptionId"].(string)

	_, keyB := ts.mustCreateApp(t, "second app", "")
	var acctB unical.Account
	r := ts.doKey(t, keyB, "POST", "/v1/endUserAccounts", map[string]any{"email": davUser, "providerType": "PROVIDER_C", "password": davPassword})
	r.Into(t, &acctB)
	if acctB.ID == idsA[unical.ProviderCalDAV] {
		t.Fatal("the same user in two applications got one account")
	}

	var listB unical.Page[unical.Account]
	ts.doKey(t, keyB, "GET", "/v1/endUserAccounts", nil).Into(t, &listB)
	if len(listB.Data) != 1 || listB.Data[0].ID != acctB.ID {
		t.Errorf("app B lists %+v, want only its own account", listB.Data)
	}
	for _, req := range []struct{ method, path string }{
		{"GET", "/v1/endUserAccounts/" + acctA},
		{"GET", "/v1/endUserAccounts/" + acctA + "/credentials"},
		{"DELETE", "/v1/endUserAccounts/" + acctA},
		{"GET", "/v1/calendars/" + acctA},
		{"GET", "/v1/events/" + acctA + "/" + esc("primary/"+googleUser)},
		{"GET", "/v1/calendarSubscriptions/" + acctA},
		{"POST", "/v1/basicAuth/connect/" + ts.AppID + "/provider_c"},
	} {
		var body any
		if req.method == "POST" {
			body = map[string]any{"email": davUser, "password": davPassword}
		}
		if r := ts.doKey(t, keyB, req.method, req.path, body); r.Status != http.StatusNotFound {
			t.Errorf("app B %s %s = %d, want 404", req.method, req.path, r.Status)
		}
	}
	if r := ts.doKey(t, keyB, "DELETE", "/v1/calendarSubscriptions/"+acctB.ID, map[string]any{"subscriptionId": subA}); r.Status != http.StatusNotFound {
		t.Errorf("app B deleting app A's subscription = %d, want 404", r.Status)
	}
	// App A still has everything.
	if r := ts.do(t, "GET", "/v1/endUserAccounts/"+acctA, nil); r.Status != http.StatusOK {
		t.Errorf("app A's account after app B's attempts = %d", r.Status)
	}
	if data := ts.must(t, "GET", "/v1/calendarSubscriptions/"+acctA, nil).Object(t)["data"].([]any); len(data) != 1 {
		t.Errorf("app A's subscriptions = %d, want 1", len(data))
	}
}

// TestAccountExpiry follows an account from ACTIVE to EXPIRED when the
// provider revokes its grant, and back when it is re-posted.
func TestAccountExpiry(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	ts.Providers[unical.ProviderGoogle].Revoke(googleUser)

	r := ts.do(t, "GET", "/v1/calendars/"+acct, nil)
	if r.Status != http.StatusConflict || r.Object(t)["error"].(map[string]any)["code"] != "account_expired" {
		t.Fatalf("calendars of a revoked account = %d %s, want 409 account_expired", r.Status, r.Body)
	}
	var got unical.Account
	ts.must(t, "GET", "/v1/endUserAccounts/"+acct, nil).Into(t, &got)
	if got.Status != unical.AccountStatusExpired {
		t.Fatalf("status = %s, want EXPIRED", got.Status)
	}
	if data := ts.must(t, "GET", "/v1/endUserAccounts?statusFilter=expired", nil).Object(t)["data"].([]any); len(data) != 1 {
		t.Errorf("statusFilter=expired lists %d accounts, want 1", len(data))
	}

	ts.Providers[unical.ProviderGoogle].Restore(googleUser, "refresh-ada-2")
	ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": googleUser, "providerType": "PROVIDER_A", "refreshToken": "refresh-ada-2"}).Into(t, &got)
	if got.ID != acct || got.Status != unical.AccountStatusActive {
		t.Fatalf("re-posted account = %s %s, want %s ACTIVE", got.ID, got.Status, acct)
	}
	ts.must(t, "GET", "/v1/calendars/"+acct, nil)
	if creds := ts.must(t, "GET", "/v1/endUserAccounts/"+acct+"/credentials", nil).Object(t); creds["refreshToken"] != "refresh-ada-2" {
		t.Errorf("refresh token after reconnect = %v", creds["refreshToken"])
	}
}
