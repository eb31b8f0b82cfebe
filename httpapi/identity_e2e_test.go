package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// signInVia walks the browser leg of OAuth for provider ("provider_a",
// "provider_b") with query q and returns the query the application's
// redirect URL was given, without error_description.
func signInVia(tb testing.TB, base, appID, provider string, q url.Values) url.Values {
	tb.Helper()
	got := followSignIn(tb, base+"/v1/oauth/authorize/"+appID+"/"+provider+"?"+q.Encode(), nil)
	got.Del("error_description")
	return got
}

// followSignIn is a browser sent to start: it follows every redirect,
// showing each URL to seen (when not nil), and stops at the application
// (host app.example.com), whose query it returns.
func followSignIn(tb testing.TB, start string, seen func(*url.URL)) url.Values {
	tb.Helper()
	var final *url.URL
	browser := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if r.URL.Host == "app.example.com" {
			final = r.URL
			return http.ErrUseLastResponse
		}
		if seen != nil {
			seen(r.URL)
		}
		return nil
	}}
	resp, err := browser.Get(start)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	if final == nil {
		tb.Fatalf("the sign-in ended at %s (%d), not at the application", resp.Request.URL, resp.StatusCode)
	}
	return final.Query()
}

// accountState is what a takeover would change: the account as the API
// shows it and its credentials.
type accountState struct {
	Account     unical.Account
	Credentials unical.Credentials
	Accounts    int
}

func readAccountState(tb testing.TB, do func(method, path string) []byte, id string) accountState {
	tb.Helper()
	var s accountState
	var list struct{ Data []unical.Account }
	for path, v := range map[string]any{"/v1/endUserAccounts/" + id: &s.Account, "/v1/endUserAccounts/" + id + "/credentials": &s.Credentials, "/v1/endUserAccounts": &list} {
		if err := json.Unmarshal(do("GET", path), v); err != nil {
			tb.Fatalf("GET %s: %v", path, err)
		}
	}
	s.Accounts = len(list.Data)
	return s
}

// TestGoogleE2E_AnotherSubTakesNoAccount: a second Google identity
// (another sub) that claims the victim's address without Google having
// verified it (email_verified false) signs in through the application:
// the redirect says email_unverified, and the victim's account, its
// providerAccountId and tokens stay as they were; no account is made. A
// verified address bound to another sub is account_conflict.
func TestGoogleE2E_AnotherSubTakesNoAccount(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	victim := st.connect(t)
	do := func(method, path string) []byte { return st.Must(t, method, path, nil).Body }
	before := readAccountState(t, do, victim)

	attacker := st.google.AddUser(googletest.User{Email: e2eUser, Sub: "209876543210987654321", EmailUnverified: true})
	st.google.SetConsent(googletest.Consent{Sub: attacker})
	for _, q := range []url.Values{
		{"redirectUrl": {e2eBack}, "state": {"mallory"}},
		{"redirectUrl": {e2eBack}, "state": {"mallory"}, "loginHint": {e2eUser}},
	} {
		got := signInVia(t, st.URL, st.AppID, "provider_a", q)
		if diff := cmp.Diff(url.Values{"error": {"email_unverified"}, "state": {"mallory"}}, got); diff != "" {
			t.Errorf("sign-in of the unverified identity (loginHint %q) mismatch (-want +got):\n%s", q.Get("loginHint"), diff)
		}
	}
	// The API path refuses it too: a refresh token of that identity.
	tok := st.google.IssueRefreshToken(e2eClientID, attacker)
	r := st.do(t, "POST", "/v1/endUserAccounts", map[string]any{"email": e2eUser, "providerType": "PROVIDER_A", "refreshToken": tok})
	wantError(t, "POST an unverified identity's refresh token", r, http.StatusBadRequest, "invalid_request", "refreshToken")

	if diff := cmp.Diff(before, readAccountState(t, do, victim)); diff != "" {
		t.Errorf("victim's account changed by the other identity (-before +after):\n%s", diff)
	}

	// A verified address whose account was connected by another sub (a
	// Workspace address given to a new user, say) is not taken either.
	const previous = "100000000000000000001"
	if _, err := st.Store.UpdateAccount(t.Context(), st.AppID, victim, func(rec *unical.AccountRecord) error {
		rec.ProviderAccountID = unical.Some(previous).Ptr()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	held := readAccountState(t, do, victim)
	st.google.SetConsent(googletest.Consent{Email: e2eUser})
	got := signInVia(t, st.URL, st.AppID, "provider_a", url.Values{"redirectUrl": {e2eBack}, "state": {"new-owner"}, "loginHint": {e2eUser}})
	if diff := cmp.Diff(url.Values{"error": {"account_conflict"}, "state": {"new-owner"}}, got); diff != "" {
		t.Errorf("sign-in of another verified sub mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(held, readAccountState(t, do, victim)); diff != "" {
		t.Errorf("account changed by another verified sub (-before +after):\n%s", diff)
	}
}

// TestMicrosoftE2E_AnotherObjectIDTakesNoAccount: a user of another
// tenant whose administrator set its mail to the victim's address (the
// "nOAuth" case) signs in: the redirect says account_conflict, and the
// victim's account, its providerAccountId and tokens stay as they were.
// The owner still signs in. An account stored without a subject (by an
// earlier version) is refused to the other identity too and bound by its
// owner's first sign-in.
func TestMicrosoftE2E_AnotherObjectIDTakesNoAccount(t *testing.T) {
	t.Parallel()
	st := startGraphStack(t, graphtest.Options{}, nil)
	owner := url.Values{"redirectUrl": {appRedirect}, "state": {"ada"}, "loginHint": {adaEmail}}
	got := signInVia(t, st.URL, st.AppID, "provider_b", owner)
	victim := got.Get("endUserAccountId")
	if victim == "" {
		t.Fatalf("the owner's sign-in came back with %v", got)
	}
	do := func(method, path string) []byte { return st.must(t, method, path, nil).Body }
	before := readAccountState(t, do, victim)
	if p := before.Account.ProviderAccountID; p == nil || *p != st.UserID {
		t.Fatalf("providerAccountId = %v, want the object id %s", p, st.UserID)
	}

	mallory := st.Graph.AddUser(graphtest.User{UserPrincipalName: "mallory@fabrikam.test", Mail: adaEmail, TenantID: "0c3f1e2d-9a8b-4c7d-8e6f-5a4b3c2d1e0f"})
	st.Graph.SignIn(mallory)
	attack := url.Values{"redirectUrl": {appRedirect}, "state": {"mallory"}}
	conflict := url.Values{"error": {"account_conflict"}, "state": {"mallory"}}
	if diff := cmp.Diff(conflict, signInVia(t, st.URL, st.AppID, "provider_b", attack)); diff != "" {
		t.Errorf("sign-in of another object id with the victim's mail mismatch (-want +got):\n%s", diff)
	}
	tok := st.Graph.IssueRefreshToken("unical-app", mallory)
	r := st.do(t, "POST", "/v1/endUserAccounts", map[string]any{"email": adaEmail, "providerType": "PROVIDER_B", "refreshToken": tok})
	wantError(t, "POST another object id's refresh token for the victim's email", r, http.StatusConflict, "conflict", "email")
	if diff := cmp.Diff(before, readAccountState(t, do, victim)); diff != "" {
		t.Errorf("victim's account changed by the other identity (-before +after):\n%s", diff)
	}

	// The owner signs in again: the same account, new tokens.
	st.Graph.SignIn(st.UserID)
	if again := signInVia(t, st.URL, st.AppID, "provider_b", owner); again.Get("endUserAccountId") != victim {
		t.Fatalf("the owner's second sign-in came back with %v, want account %s", again, victim)
	}

	// An account as an earlier version stored it: no subject.
	ctx := t.Context()
	if _, err := st.Store.UpdateAccount(ctx, st.AppID, victim, func(rec *unical.AccountRecord) error {
		rec.ProviderAccountID, rec.ProviderTenantID = nil, ""
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	legacy := readAccountState(t, do, victim)
	st.Graph.SignIn(mallory)
	if diff := cmp.Diff(conflict, signInVia(t, st.URL, st.AppID, "provider_b", attack)); diff != "" {
		t.Errorf("other identity's sign-in to an account without subject mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(legacy, readAccountState(t, do, victim)); diff != "" {
		t.Errorf("account without subject changed by the other identity (-before +after):\n%s", diff)
	}
	st.Graph.SignIn(st.UserID)
	if again := signInVia(t, st.URL, st.AppID, "provider_b", owner); again.Get("endUserAccountId") != victim {
		t.Fatalf("the owner's sign-in to the account without subject came back with %v", again)
	}
	rec, err := st.Store.GetAccount(ctx, st.AppID, victim)
	if err != nil {
		t.Fatal(err)
	}
	bound := struct{ ID, Tenant string }{Tenant: rec.ProviderTenantID}
	if rec.ProviderAccountID != nil {
		bound.ID = *rec.ProviderAccountID
	}
	if diff := cmp.Diff(struct{ ID, Tenant string }{st.UserID, graphtest.DefaultTenant}, bound); diff != "" {
		t.Errorf("subject bound by the owner's sign-in mismatch (-want +got):\n%s", diff)
	}
}
