package googletest_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/unical/unical/internal/testkit/googletest"
)

func oauthConfig(srv *googletest.Server, scopes ...string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     testClientID,
		ClientSecret: testClientSecret,
		RedirectURL:  testRedirect,
		Scopes:       scopes,
		Endpoint:     srv.Endpoint(),
	}
}

// authorize follows the authorization endpoint's redirect and returns the
// query of the redirect back to the client.
func authorize(tb testing.TB, authURL string) (int, url.Values, string) {
	tb.Helper()
	r := call(tb, "GET", authURL, "", nil)
	if r.status != http.StatusFound {
		return r.status, nil, string(r.raw)
	}
	loc, err := url.Parse(r.header.Get("Location"))
	if err != nil {
		tb.Fatalf("bad Location: %v", err)
	}
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != testRedirect {
		tb.Fatalf("redirected to %s, want %s", got, testRedirect)
	}
	return r.status, loc.Query(), ""
}

func retrieveErrorCode(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode + ": " + re.ErrorDescription
	}
	return ""
}

func TestOAuth_CodePKCEAndRefresh(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	ctx := t.Context()
	cfg := oauthConfig(f.srv, "https://www.googleapis.com/auth/calendar", "openid", "email")
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL("state-123", oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("login_hint", bobEmail), oauth2.SetAuthURLParam("prompt", "consent"))

	_, q, page := authorize(t, authURL)
	if q == nil {
		t.Fatalf("no redirect: %s", page)
	}
	if q.Get("state") != "state-123" || q.Get("code") == "" {
		t.Fatalf("redirect query = %v, want code and state", q)
	}

	t.Run("ErrWrongVerifier", func(t *testing.T) {
		_, q, _ := authorize(t, authURL)
		_, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier()))
		if got := retrieveErrorCode(err); !strings.HasPrefix(got, "invalid_grant") {
			t.Fatalf("Exchange(wrong verifier) error = %v, want invalid_grant", err)
		}
	})
	t.Run("ErrMissingVerifier", func(t *testing.T) {
		_, q, _ := authorize(t, authURL)
		_, err := cfg.Exchange(ctx, q.Get("code"))
		if got := retrieveErrorCode(err); !strings.HasPrefix(got, "invalid_grant") {
			t.Fatalf("Exchange(no verifier) error = %v, want invalid_grant", err)
		}
	})

	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("Exchange() error = %v", err)
	}
	if tok.RefreshToken == "" || tok.AccessToken == "" || tok.TokenType != "Bearer" {
		t.Fatalf("token = %+v, want access and refresh token of type Bearer", tok)
	}
	if got, want := tok.Extra("expires_in"), float64(3599); got != want {
		t.Errorf("expires_in = %v, want %v", got, want)
	}
	wantScope := "https://www.googleapis.com/auth/calendar openid https://www.googleapis.com/auth/userinfo.email"
	if got := tok.Extra("scope"); got != wantScope {
		t.Errorf("scope = %q, want %q", got, wantScope)
	}
	if idt, _ := tok.Extra("id_token").(string); strings.Count(idt, ".") != 2 {
		t.Errorf("id_token = %q, want a JWT", idt)
	}

	t.Run("ErrCodeReused", func(t *testing.T) {
		_, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
		if got := retrieveErrorCode(err); !strings.HasPrefix(got, "invalid_grant") {
			t.Fatalf("second Exchange() error = %v, want invalid_grant", err)
		}
	})

	// The code's first token was revoked by the replay (RFC 6749 §4.1.2),
	// so continue with the refresh token of a fresh grant.
	rt := f.srv.IssueRefreshToken(testClientID, bobEmail, "https://www.googleapis.com/auth/calendar", "openid", "email")
	ts := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: rt, Expiry: time.Unix(1, 0)})
	fresh, err := ts.Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if fresh.RefreshToken != rt {
		t.Errorf("refresh token changed: Google does not rotate refresh tokens")
	}

	ui := call(t, "GET", f.srv.UserinfoURL(), fresh.AccessToken, nil)
	want := map[string]any{"sub": ui.body["sub"], "email": bobEmail, "email_verified": true}
	if diff := cmp.Diff(want, ui.body); diff != "" || ui.status != http.StatusOK || ui.body["sub"] == "" {
		t.Errorf("userinfo mismatch (-want +got):\n%s (status %d)", diff, ui.status)
	}

	// The access token expires with the clock.
	api := f.srv.APIBaseURL() + "/users/me/calendarList"
	if r := call(t, "GET", api, fresh.AccessToken, nil); r.status != http.StatusOK {
		t.Fatalf("calendarList with fresh token: %d %s", r.status, r.raw)
	}
	f.clock.Advance(time.Hour)
	r := call(t, "GET", api, fresh.AccessToken, nil)
	if code, reason := errorReason(t, r); code != 401 || reason != "authError" {
		t.Fatalf("expired token: %d %s, want 401 authError", code, reason)
	}
	if r.header.Get("WWW-Authenticate") == "" {
		t.Errorf("401 without WWW-Authenticate")
	}

	f.srv.RevokeRefreshToken(rt)
	_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: rt, Expiry: time.Unix(1, 0)}).Token()
	if got, want := retrieveErrorCode(err), "invalid_grant: Token has been expired or revoked."; got != want {
		t.Fatalf("refresh after revoke = %q, want %q", got, want)
	}
}

func TestOAuth_RawTokenResponse(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	rt := f.srv.IssueRefreshToken(testClientID, aliceEmail)

	tests := []struct {
		name      string
		form      url.Values
		basic     bool
		wantCode  int
		wantError string
	}{
		{name: "OK", form: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {testClientID}, "client_secret": {testClientSecret}}, wantCode: 200},
		{name: "OKBasicAuth", form: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}, basic: true, wantCode: 200},
		{name: "ErrUnknownRefreshToken", form: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"nope"}, "client_id": {testClientID}, "client_secret": {testClientSecret}}, wantCode: 400, wantError: "invalid_grant"},
		{name: "ErrBadSecret", form: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {testClientID}, "client_secret": {"wrong"}}, wantCode: 401, wantError: "invalid_client"},
		{name: "ErrUnknownClient", form: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"other"}, "client_secret": {"x"}}, wantCode: 401, wantError: "invalid_client"},
		{name: "ErrGrantType", form: url.Values{"grant_type": {"password"}, "client_id": {testClientID}, "client_secret": {testClientSecret}}, wantCode: 400, wantError: "unsupported_grant_type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), "POST", f.srv.TokenURL(), strings.NewReader(tc.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.basic {
				req.SetBasicAuth(url.QueryEscape(testClientID), url.QueryEscape(testClientSecret))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			if err := jsonDecode(resp.Body, &body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantCode {
				t.Fatalf("status = %d, want %d (%v)", resp.StatusCode, tc.wantCode, body)
			}
			if tc.wantError != "" {
				if body["error"] != tc.wantError || body["error_description"] == nil {
					t.Fatalf("body = %v, want {error: %s, error_description: …}", body, tc.wantError)
				}
				return
			}
			var keys []string
			for k := range body {
				keys = append(keys, k)
			}
			// A refresh response has no refresh_token; Google keeps the old one.
			wantKeys := []string{"access_token", "expires_in", "id_token", "scope", "token_type"}
			if diff := cmp.Diff(wantKeys, sortStrings(keys)); diff != "" {
				t.Errorf("token response keys mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOAuth_AuthorizeErrors(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	base := url.Values{
		"client_id": {testClientID}, "redirect_uri": {testRedirect}, "response_type": {"code"},
		"scope": {"https://www.googleapis.com/auth/calendar"}, "state": {"s1"},
	}
	with := func(k, v string) string {
		q := url.Values{}
		for kk, vv := range base {
			q[kk] = vv
		}
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		return f.srv.AuthURL() + "?" + q.Encode()
	}
	tests := []struct {
		name     string
		url      string
		wantCode int
		wantPage string // error shown to the user, no redirect
	}{
		{name: "ErrUnknownClient", url: with("client_id", "nope"), wantCode: 401, wantPage: "invalid_client"},
		{name: "ErrRedirectMismatch", url: with("redirect_uri", testRedirect+"/"), wantCode: 400, wantPage: "redirect_uri_mismatch"},
		{name: "ErrResponseType", url: with("response_type", "token"), wantCode: 400, wantPage: "invalid_request"},
		{name: "ErrNoScope", url: with("scope", ""), wantCode: 400, wantPage: "invalid_request"},
		{name: "ErrUnknownScope", url: with("scope", "https://www.googleapis.com/auth/drive"), wantCode: 400, wantPage: "invalid_scope"},
		{name: "ErrChallengeMethod", url: with("code_challenge_method", "S512"), wantCode: 400, wantPage: "invalid_request"},
		{name: "ErrPrompt", url: with("prompt", "always"), wantCode: 400, wantPage: "invalid_request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, q, page := authorize(t, tc.url)
			if status != tc.wantCode || q != nil || !strings.Contains(page, "Error "+itoa(tc.wantCode)+": "+tc.wantPage) {
				t.Fatalf("got %d %v %q, want error page %d %s", status, q, page, tc.wantCode, tc.wantPage)
			}
		})
	}

	t.Run("ConsentRequiredWithPromptNone", func(t *testing.T) {
		_, q, _ := authorize(t, with("prompt", "none"))
		if q.Get("error") != "consent_required" || q.Get("state") != "s1" {
			t.Fatalf("redirect query = %v, want error=consent_required&state=s1", q)
		}
	})
	t.Run("AccessDenied", func(t *testing.T) {
		f.srv.SetConsent(googletest.Consent{Deny: true})
		defer f.srv.SetConsent(googletest.Consent{})
		_, q, _ := authorize(t, with("state", "s2"))
		want := url.Values{"error": {"access_denied"}, "state": {"s2"}}
		if diff := cmp.Diff(want, q); diff != "" {
			t.Fatalf("redirect query mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestOAuth_ConsentVariants(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	ctx := t.Context()
	cfg := oauthConfig(f.srv, "https://www.googleapis.com/auth/calendar", "email")
	exchange := func(t *testing.T, opts ...oauth2.AuthCodeOption) *oauth2.Token {
		t.Helper()
		_, q, page := authorize(t, cfg.AuthCodeURL("s", opts...))
		if q == nil {
			t.Fatalf("no redirect: %s", page)
		}
		tok, err := cfg.Exchange(ctx, q.Get("code"))
		if err != nil {
			t.Fatalf("Exchange() error = %v", err)
		}
		return tok
	}
	// Only the first offline consent yields a refresh token; prompt=consent
	// forces another.
	if tok := exchange(t, oauth2.AccessTypeOffline); tok.RefreshToken == "" {
		t.Fatalf("first offline consent: no refresh token")
	}
	if tok := exchange(t, oauth2.AccessTypeOffline); tok.RefreshToken != "" {
		t.Fatalf("second consent without prompt=consent returned a refresh token")
	}
	if tok := exchange(t, oauth2.AccessTypeOffline, oauth2.ApprovalForce); tok.RefreshToken == "" {
		t.Fatalf("prompt=consent: no refresh token")
	}
	if tok := exchange(t); tok.RefreshToken != "" {
		t.Fatalf("online access returned a refresh token")
	}

	t.Run("GranularConsent", func(t *testing.T) {
		f.srv.SetConsent(googletest.Consent{GrantedScopes: []string{"email"}})
		defer f.srv.SetConsent(googletest.Consent{})
		tok := exchange(t)
		if got, want := tok.Extra("scope"), "https://www.googleapis.com/auth/userinfo.email"; got != want {
			t.Fatalf("scope = %v, want %v", got, want)
		}
		r := call(t, "GET", f.srv.APIBaseURL()+"/users/me/calendarList", tok.AccessToken, nil)
		if code, reason := errorReason(t, r); code != 403 || reason != "insufficientPermissions" {
			t.Fatalf("calendarList without calendar scope: %d %s", code, reason)
		}
	})
}

func TestAPI_Authentication(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	api := f.srv.APIBaseURL() + "/users/me/calendarList"
	tests := []struct {
		name       string
		token      string
		wantReason string
	}{
		{name: "ErrNoCredentials", token: "", wantReason: "required"},
		{name: "ErrUnknownToken", token: "ya29.bogus", wantReason: "authError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, "GET", api, tc.token, nil)
			code, reason := errorReason(t, r)
			if code != 401 || reason != tc.wantReason {
				t.Fatalf("got %d %s, want 401 %s", code, reason, tc.wantReason)
			}
			if e := r.body["error"].(map[string]any); e["status"] != nil {
				t.Errorf("error.status = %v; the errors guide's bodies have no status member", e["status"])
			}
		})
	}
	t.Run("ErrRevokedAccess", func(t *testing.T) {
		tok := f.srv.IssueAccessToken(testClientID, bobEmail)
		f.srv.RevokeAccess(testClientID, bobEmail)
		if code, reason := errorReason(t, call(t, "GET", api, tok, nil)); code != 401 || reason != "authError" {
			t.Fatalf("got %d %s, want 401 authError", code, reason)
		}
	})
}

// Google keeps at most 100 refresh tokens per account and client; the
// 101st silently invalidates the oldest ("Refresh token expiration").
func TestOAuth_RefreshTokenCap(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	refresh := func(rt string) (int, map[string]any) {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {testClientID}, "client_secret": {testClientSecret}}
		resp, err := http.PostForm(f.srv.TokenURL(), form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := jsonDecode(resp.Body, &body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	var tokens []string
	for range 100 {
		tokens = append(tokens, f.srv.IssueRefreshToken(testClientID, aliceEmail))
	}
	other := f.srv.IssueRefreshToken(testClientID, bobEmail)
	if code, body := refresh(tokens[0]); code != 200 {
		t.Fatalf("100th token alive: oldest refresh got %d %v", code, body)
	}
	tokens = append(tokens, f.srv.IssueRefreshToken(testClientID, aliceEmail))
	if code, body := refresh(tokens[0]); code != 400 || body["error"] != "invalid_grant" {
		t.Errorf("after the 101st: oldest refresh got %d %v, want 400 invalid_grant", code, body)
	}
	for _, rt := range []string{tokens[1], tokens[100], other} {
		if code, body := refresh(rt); code != 200 {
			t.Errorf("refresh %s… got %d %v, want 200", rt[:12], code, body)
		}
	}
}

// TestOAuth_RefreshTokenUnusedLifetime: a refresh token Google has not
// seen redeemed for six months answers invalid_grant; each redemption
// starts the six months again.
func TestOAuth_RefreshTokenUnusedLifetime(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	cfg := oauthConfig(f.srv)
	rt := f.srv.IssueRefreshToken(testClientID, bobEmail)
	refresh := func() string {
		_, err := cfg.TokenSource(t.Context(), &oauth2.Token{RefreshToken: rt, Expiry: time.Unix(1, 0)}).Token()
		if code := retrieveErrorCode(err); code != "" || err == nil {
			return code
		}
		return err.Error()
	}
	var got []string
	f.clock.Advance(googletest.DefaultRefreshTokenUnusedLifetime - time.Hour)
	got = append(got, refresh()) // used just in time
	f.clock.Advance(googletest.DefaultRefreshTokenUnusedLifetime - time.Hour)
	got = append(got, refresh()) // six months counted from that use
	f.clock.Advance(googletest.DefaultRefreshTokenUnusedLifetime)
	got = append(got, refresh()) // unused for six months
	want := []string{"", "", "invalid_grant: Token has been expired or revoked."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refreshes (-want +got):\n%s", diff)
	}
}

// TestOAuth_UnverifiedEmail: an account whose address Google never
// verified may claim another account's address; Consent.Sub signs it in,
// and userinfo and the ID token say email_verified false with its own
// sub, while the verified owner of the address still says true.
func TestOAuth_UnverifiedEmail(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	sub := f.srv.AddUser(googletest.User{Email: aliceEmail, Sub: "209876543210987654321", EmailUnverified: true})
	cfg := oauthConfig(f.srv, "openid", "email")
	type identity struct {
		Sub, Email    string
		EmailVerified bool
	}
	signIn := func(c googletest.Consent) (userinfo, idToken identity) {
		t.Helper()
		f.srv.SetConsent(c)
		_, q, page := authorize(t, cfg.AuthCodeURL("s"))
		if q == nil {
			t.Fatalf("no redirect: %s", page)
		}
		tok, err := cfg.Exchange(t.Context(), q.Get("code"))
		if err != nil {
			t.Fatalf("Exchange() error = %v", err)
		}
		r := call(t, "GET", f.srv.UserinfoURL(), tok.AccessToken, nil)
		userinfo = identity{Sub: r.body["sub"].(string), Email: r.body["email"].(string), EmailVerified: r.body["email_verified"].(bool)}
		parts := strings.Split(tok.Extra("id_token").(string), ".")
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		if err != nil {
			t.Fatal(err)
		}
		var claims struct {
			Sub           string `json:"sub"`
			Email         string `json:"email"`
			EmailVerified bool   `json:"email_verified"`
		}
		if err := json.Unmarshal(payload, &claims); err != nil {
			t.Fatal(err)
		}
		return userinfo, identity(claims)
	}
	for _, tc := range []struct {
		name    string
		consent googletest.Consent
		want    identity
	}{
		{"Unverified", googletest.Consent{Sub: sub}, identity{Sub: sub, Email: aliceEmail}},
		// The owner's sub is its own (checked below): want.Sub is empty.
		{"VerifiedOwner", googletest.Consent{Email: aliceEmail}, identity{Email: aliceEmail, EmailVerified: true}},
	} {
		userinfo, idToken := signIn(tc.consent)
		if tc.want.Sub == "" {
			if userinfo.Sub == sub || userinfo.Sub == "" || idToken.Sub != userinfo.Sub {
				t.Errorf("%s: sub %q (ID token %q), want the owner's own", tc.name, userinfo.Sub, idToken.Sub)
			}
			userinfo.Sub, idToken.Sub = "", ""
		}
		if diff := cmp.Diff(tc.want, userinfo); diff != "" {
			t.Errorf("%s: userinfo mismatch (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.want, idToken); diff != "" {
			t.Errorf("%s: ID token mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}
