package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/apitest"
)

func authorizePath(ts *testServer, redirect, state string) string {
	return ts.URL + "/v1/oauth/authorize/" + ts.AppID + "/provider_a?" + url.Values{
		"redirectUrl": {redirect}, "state": {state}, "prompt": {"consent"}, "loginHint": {googleUser},
	}.Encode()
}

func TestOAuthFlow(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)

	// The browser is sent to the provider with PKCE and our own state.
	toProvider := apitest.Follow(t, authorizePath(ts, ts.Redirect, "app-state=="))
	q := toProvider.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_id") != "client-1" ||
		q.Get("login_hint") != googleUser || q.Get("prompt") != "consent" || q.Get("redirect_uri") != ts.URL+"/v1/oauth/callback" {
		t.Fatalf("provider authorization URL = %s", toProvider)
	}
	if q.Get("state") == "app-state==" {
		t.Fatal("the caller's state was sent to the provider instead of ours")
	}
	// The provider approves and sends the browser to our callback ...
	callback := apitest.Follow(t, toProvider.String())
	// ... which creates the account and returns to the application.
	back := apitest.Follow(t, callback.String())
	if got := back.Scheme + "://" + back.Host + back.Path; got != ts.Redirect {
		t.Fatalf("redirected to %s, want %s", got, ts.Redirect)
	}
	if back.Query().Get("state") != "app-state==" {
		t.Errorf("state = %q, want the caller's unchanged", back.Query().Get("state"))
	}
	var acct unical.Account
	ts.must(t, "GET", "/v1/endUserAccounts/"+back.Query().Get("endUserAccountId"), nil).Into(t, &acct)
	want := unical.Account{ID: acct.ID, CreatedAt: acct.CreatedAt, UpdatedAt: acct.UpdatedAt, Email: googleUser, AuthorizedScopes: []string{"calendar"},
		ProviderAccountID: acct.ProviderAccountID, ProviderID: "provider_a", ApplicationID: ts.AppID, Status: unical.AccountStatusActive, ProviderType: unical.ProviderGoogle}
	if diff := cmp.Diff(want, acct); diff != "" || acct.ProviderAccountID == nil || *acct.ProviderAccountID != "uid-"+googleUser {
		t.Errorf("account from the OAuth flow mismatch (-want +got):\n%s", diff)
	}

	t.Run("ErrReplayedState", func(t *testing.T) {
		r := ts.doKey(t, "", "GET", strings.TrimPrefix(callback.String(), ts.URL), nil)
		if r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" {
			t.Errorf("replayed callback = %d (Location %q), want 400 without a redirect", r.Status, r.Header.Get("Location"))
		}
	})
}

func TestOAuthFlow_Errors(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	accounts := func() int { return len(ts.must(t, "GET", "/v1/endUserAccounts", nil).Object(t)["data"].([]any)) }

	tests := []struct {
		name      string
		path      string
		wantField string
	}{
		{"ErrUnregisteredRedirect", strings.TrimPrefix(authorizePath(ts, "https://evil.example.com/steal", "s"), ts.URL), "redirectUrl"},
		{"ErrMissingRedirect", "/v1/oauth/authorize/" + ts.AppID + "/provider_a", "redirectUrl"},
		{"ErrBadPrompt", "/v1/oauth/authorize/" + ts.AppID + "/provider_a?prompt=always&redirectUrl=" + url.QueryEscape(ts.Redirect), "prompt"},
		{"ErrForgedState", "/v1/oauth/callback?code=abc&state=forged", "state"},
		{"ErrNoState", "/v1/oauth/callback?code=abc", "state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.doKey(t, "", "GET", tc.path, nil)
			if r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" {
				t.Fatalf("GET %s = %d (Location %q), want 400 without a redirect", tc.path, r.Status, r.Header.Get("Location"))
			}
			if f := r.Object(t)["error"].(map[string]any)["field"]; f != tc.wantField {
				t.Errorf("field = %v, want %s", f, tc.wantField)
			}
		})
	}
	t.Run("ErrUnknownApp", func(t *testing.T) {
		r := ts.doKey(t, "", "GET", "/v1/oauth/authorize/app_nope/provider_a?redirectUrl="+url.QueryEscape(ts.Redirect), nil)
		if r.Status != http.StatusNotFound {
			t.Errorf("unknown app = %d, want 404", r.Status)
		}
	})
	t.Run("ErrCallbackWithoutCode", func(t *testing.T) {
		toProvider := apitest.Follow(t, authorizePath(ts, ts.Redirect, "s1"))
		back := apitest.Follow(t, ts.URL+"/v1/oauth/callback?state="+url.QueryEscape(toProvider.Query().Get("state")))
		if back.Query().Get("error") != "invalid_request" || back.Query().Get("endUserAccountId") != "" || back.Query().Get("state") != "s1" {
			t.Errorf("callback without code redirected to %s, want error=invalid_request and the state", back)
		}
	})
	t.Run("ErrDenied", func(t *testing.T) {
		toProvider := apitest.Follow(t, authorizePath(ts, ts.Redirect, "s2"))
		back := apitest.Follow(t, ts.URL+"/v1/oauth/callback?error=access_denied&state="+url.QueryEscape(toProvider.Query().Get("state")))
		if back.Query().Get("error") != "access_denied" || back.Query().Get("endUserAccountId") != "" {
			t.Errorf("denied consent redirected to %s, want error=access_denied", back)
		}
	})
	if n := accounts(); n != 0 {
		t.Errorf("accounts after failed flows = %d, want 0", n)
	}
}

// TestOAuthFlow_LoginHint signs in as ada@example.com with several login
// hints: the hint is compared without regard to case, and any other
// account comes back as error=login_hint_mismatch with nothing created or
// changed.
func TestOAuthFlow_LoginHint(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	signIn := func(hint, state string) url.Values {
		t.Helper()
		path := ts.URL + "/v1/oauth/authorize/" + ts.AppID + "/provider_a?" + url.Values{
			"redirectUrl": {ts.Redirect}, "state": {state}, "loginHint": {hint},
		}.Encode()
		callback := apitest.Follow(t, apitest.Follow(t, path).String())
		back := apitest.Follow(t, callback.String())
		if got := back.Scheme + "://" + back.Host + back.Path; got != ts.Redirect {
			t.Fatalf("redirected to %s, want %s", got, ts.Redirect)
		}
		q := back.Query()
		q.Del("error_description")
		if id := q.Get("endUserAccountId"); id != "" {
			q.Set("endUserAccountId", "set")
		}
		return q
	}
	accounts := func() []unical.Account {
		var list struct{ Data []unical.Account }
		ts.must(t, "GET", "/v1/endUserAccounts", nil).Into(t, &list)
		return list.Data
	}
	mismatch := url.Values{"error": {"login_hint_mismatch"}, "state": {"s1"}}
	if d := cmp.Diff(mismatch, signIn("someone-else@example.com", "s1")); d != "" {
		t.Errorf("sign-in with another account's hint (-want +got):\n%s", d)
	}
	if got := accounts(); len(got) != 0 {
		t.Errorf("accounts after a mismatch = %+v, want none", got)
	}
	if d := cmp.Diff(url.Values{"endUserAccountId": {"set"}, "state": {"s2"}}, signIn(strings.ToUpper(googleUser), "s2")); d != "" {
		t.Errorf("sign-in with the hint in capitals (-want +got):\n%s", d)
	}
	connected := accounts()
	if d := cmp.Diff(mismatch, signIn("someone-else@example.com", "s1")); d != "" {
		t.Errorf("second sign-in with another account's hint (-want +got):\n%s", d)
	}
	if d := cmp.Diff(connected, accounts()); d != "" {
		t.Errorf("accounts changed by a mismatched sign-in (-before +after):\n%s", d)
	}
}

// flowRecorder is the store with the used-flow records the callback
// writes kept aside, as an operator would find them in the store.
type flowRecorder struct {
	unical.Store
	mu    sync.Mutex
	flows []unical.OAuthFlow
}

func (r *flowRecorder) CreateFlow(ctx context.Context, f *unical.OAuthFlow, maxPending int) error {
	r.mu.Lock()
	r.flows = append(r.flows, *f)
	r.mu.Unlock()
	return r.Store.CreateFlow(ctx, f, maxPending)
}

func (r *flowRecorder) recorded() []unical.OAuthFlow {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.flows)
}

// TestOAuthCallback_ProviderErrorAndUsedFlows: the provider's error
// reaches the application only as a known code word, and a callback
// records its flow as used only when it brings a code: an error or no
// code writes nothing (and the state may come again), a code writes one
// compact record (id, application, provider, times) and spends the state.
func TestOAuthCallback_ProviderErrorAndUsedFlows(t *testing.T) {
	t.Parallel()
	rec := &flowRecorder{}
	ts := newTestServerConfig(t, httpapi.Config{}, nil, func(cfg *apitest.Config) {
		rec.Store = cfg.Store
		cfg.Store = rec
	})
	toProvider := apitest.Follow(t, authorizePath(ts, ts.Redirect, "s1"))
	state := toProvider.Query().Get("state")
	callback := func(q url.Values) url.Values {
		t.Helper()
		q.Set("state", state)
		back := apitest.Follow(t, ts.URL+"/v1/oauth/callback?"+q.Encode())
		if got := back.Scheme + "://" + back.Host + back.Path; got != ts.Redirect {
			t.Fatalf("redirected to %s, want %s", got, ts.Redirect)
		}
		got := back.Query()
		got.Del("error_description")
		return got
	}
	for _, tc := range []struct {
		name string
		send url.Values
		want url.Values
	}{
		{"Script", url.Values{"error": {`"><script>alert(1)</script>`}}, url.Values{"error": {"provider_error"}, "state": {"s1"}}},
		{"UnknownWord", url.Values{"error": {"you_have_been_hacked"}, "error_description": {"call 555"}}, url.Values{"error": {"provider_error"}, "state": {"s1"}}},
		{"RFC6749Code", url.Values{"error": {"temporarily_unavailable"}}, url.Values{"error": {"temporarily_unavailable"}, "state": {"s1"}}},
		{"OIDCCode", url.Values{"error": {"interaction_required"}}, url.Values{"error": {"interaction_required"}, "state": {"s1"}}},
		{"Denied", url.Values{"error": {"access_denied"}}, url.Values{"error": {"access_denied"}, "state": {"s1"}}},
		{"NoCode", url.Values{}, url.Values{"error": {"invalid_request"}, "state": {"s1"}}},
	} {
		if diff := cmp.Diff(tc.want, callback(tc.send)); diff != "" {
			t.Errorf("%s: redirect query mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
	if got := rec.recorded(); len(got) != 0 {
		t.Fatalf("used flows after callbacks without a code = %+v, want none", got)
	}

	// The same state, now with the provider's code, connects the account.
	code := apitest.Follow(t, toProvider.String()).Query().Get("code")
	if got := callback(url.Values{"code": {code}}); got.Get("endUserAccountId") == "" {
		t.Fatalf("callback with a code redirected with %v, want endUserAccountId", got)
	}
	got := rec.recorded()
	if len(got) != 1 {
		t.Fatalf("used flows after one callback with a code = %+v, want one", got)
	}
	want := unical.OAuthFlow{ID: got[0].ID, ApplicationID: ts.AppID, ProviderType: unical.ProviderGoogle, CreatedAt: got[0].CreatedAt, ExpiresAt: got[0].ExpiresAt}
	if diff := cmp.Diff(want, got[0]); diff != "" || len(got[0].ID) > 32 || strings.Contains(state, got[0].ID) {
		t.Errorf("used flow record (id %q) mismatch (-want +got):\n%s", got[0].ID, diff)
	}
	r := ts.doKey(t, "", "GET", "/v1/oauth/callback?"+url.Values{"state": {state}, "code": {code}}.Encode(), nil)
	if r.Status != http.StatusBadRequest {
		t.Errorf("replayed callback with a code = %d, want 400", r.Status)
	}
}
