package graphtest_test

import (
	"context"
	"crypto/sha256"
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

	"github.com/unical/unical/internal/testkit/graphtest"
)

func oauthConfig(srv *graphtest.Server) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     "app",
		ClientSecret: "s3cret",
		Endpoint:     srv.Endpoint(),
		RedirectURL:  "http://127.0.0.1/callback",
		Scopes:       []string{"offline_access", "User.Read", "Calendars.ReadWrite"},
	}
}

// authorize sends the browser leg and returns the redirect's query.
func authorize(tb testing.TB, srv *graphtest.Server, authURL string) (int, url.Values) {
	tb.Helper()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodGet, authURL, nil)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return resp.StatusCode, nil
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		tb.Fatal(err)
	}
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != "http://127.0.0.1/callback" {
		tb.Fatalf("redirected to %s, want the redirect_uri", got)
	}
	return resp.StatusCode, loc.Query()
}

func oauthContext(tb testing.TB, srv *graphtest.Server) context.Context {
	return context.WithValue(tb.Context(), oauth2.HTTPClient, srv.Client())
}

func TestOAuth_CodeFlow(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	conf := oauthConfig(f.srv)
	verifier := oauth2.GenerateVerifier()
	status, q := authorize(t, f.srv, conf.AuthCodeURL("st8", oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("login_hint", "ada@contoso.test"), oauth2.SetAuthURLParam("prompt", "select_account")))
	if status != http.StatusFound || q.Get("code") == "" || q.Get("state") != "st8" {
		t.Fatalf("authorize: status %d, query %v; want 302 with code and state", status, q)
	}
	ctx := oauthContext(t, f.srv)
	tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	if tok.RefreshToken == "" || tok.TokenType != "Bearer" || tok.Expiry.IsZero() {
		t.Fatalf("token = %+v, want a Bearer token with expiry and refresh token", tok)
	}
	me := doWith(t, f.srv, tok.AccessToken, http.MethodGet, "/v1.0/me", nil)
	mustStatus(t, me, http.StatusOK)
	got := map[string]any{"id": me.body["id"], "mail": me.body["mail"], "userPrincipalName": me.body["userPrincipalName"], "displayName": me.body["displayName"]}
	want := map[string]any{"id": f.user, "mail": "ada@contoso.test", "userPrincipalName": "ada@contoso.test", "displayName": "Ada Lovelace"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /me mismatch (-want +got):\n%s", diff)
	}

	// The code is single-use.
	_, err = conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if code, aadsts := retrieveError(t, err); code != "invalid_grant" || aadsts != 54005 {
		t.Errorf("second Exchange: error %q AADSTS%d, want invalid_grant AADSTS54005", code, aadsts)
	}

	// Refreshing rotates the refresh token.
	next, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if next.RefreshToken == "" || next.RefreshToken == tok.RefreshToken || next.AccessToken == tok.AccessToken {
		t.Errorf("refresh returned refresh token %q (old %q); want a new one", next.RefreshToken, tok.RefreshToken)
	}
	mustStatus(t, doWith(t, f.srv, next.AccessToken, http.MethodGet, "/v1.0/me", nil), http.StatusOK)
}

// retrieveError returns the OAuth error and first AADSTS code of err.
func retrieveError(tb testing.TB, err error) (string, int) {
	tb.Helper()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		tb.Fatalf("error %v is not a *oauth2.RetrieveError", err)
	}
	var body struct {
		ErrorCodes []int `json:"error_codes"`
	}
	if err := json.Unmarshal(re.Body, &body); err != nil || len(body.ErrorCodes) == 0 {
		tb.Fatalf("token error body %s has no error_codes", re.Body)
	}
	return re.ErrorCode, body.ErrorCodes[0]
}

func TestOAuth_RefreshErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       graphtest.Options
		prepare    func(f *fixture, rt string) string // returns the token to redeem
		wantCode   string
		wantAADSTS int
	}{
		{"ErrRevoked", graphtest.Options{}, func(f *fixture, rt string) string {
			f.srv.RevokeRefreshTokens(f.user)
			return rt
		}, "invalid_grant", 50173},
		{"ErrInactive", graphtest.Options{}, func(f *fixture, rt string) string {
			f.clock.Advance(91 * 24 * time.Hour)
			return rt
		}, "invalid_grant", 700082},
		{"ErrUnknown", graphtest.Options{}, func(*fixture, string) string { return "not-a-token" }, "invalid_grant", 9002313},
		{"ErrRotatedWhenStrict", graphtest.Options{RevokeRotatedRefreshTokens: true}, func(f *fixture, rt string) string {
			conf := oauthConfig(f.srv)
			if _, err := conf.TokenSource(oauthContext(t, f.srv), &oauth2.Token{RefreshToken: rt}).Token(); err != nil {
				t.Fatal(err)
			}
			return rt
		}, "invalid_grant", 50173},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, tc.opts)
			rt := tc.prepare(f, f.srv.IssueRefreshToken("app", f.user))
			_, err := oauthConfig(f.srv).TokenSource(oauthContext(t, f.srv), &oauth2.Token{RefreshToken: rt}).Token()
			code, aadsts := retrieveError(t, err)
			if code != tc.wantCode || aadsts != tc.wantAADSTS {
				t.Errorf("refresh error = %s AADSTS%d, want %s AADSTS%d", code, aadsts, tc.wantCode, tc.wantAADSTS)
			}
		})
	}
	t.Run("OldTokenStillValid", func(t *testing.T) {
		t.Parallel()
		f := mustSetup(t, graphtest.Options{})
		rt := f.srv.IssueRefreshToken("app", f.user)
		ctx := oauthContext(t, f.srv)
		for range 2 {
			if _, err := oauthConfig(f.srv).TokenSource(ctx, &oauth2.Token{RefreshToken: rt}).Token(); err != nil {
				t.Fatalf("refresh with the same token: %v", err)
			}
		}
	})
}

// tokenPost posts a form to the token endpoint and returns the status and
// decoded body.
func tokenPost(tb testing.TB, srv *graphtest.Server, form url.Values) (int, map[string]any) {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodPost, srv.TokenURL(), strings.NewReader(form.Encode()))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, body
}

func TestOAuth_CodeRedemptionErrors(t *testing.T) {
	t.Parallel()
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	tests := []struct {
		name       string
		change     func(f *fixture, form url.Values)
		wantStatus int
		wantError  string
		wantAADSTS float64
	}{
		{"OK", func(*fixture, url.Values) {}, http.StatusOK, "", 0},
		{"ErrWrongVerifier", func(_ *fixture, v url.Values) { v.Set("code_verifier", "wrong-verifier-wrong-verifier-wrong-verifier") }, http.StatusBadRequest, "invalid_grant", 501481},
		{"ErrNoVerifier", func(_ *fixture, v url.Values) { v.Del("code_verifier") }, http.StatusBadRequest, "invalid_grant", 501481},
		{"ErrRedirectMismatch", func(_ *fixture, v url.Values) { v.Set("redirect_uri", "http://127.0.0.1/other") }, http.StatusBadRequest, "invalid_grant", 500112},
		{"ErrExpiredCode", func(f *fixture, _ url.Values) { f.clock.Advance(11 * time.Minute) }, http.StatusBadRequest, "invalid_grant", 70008},
		{"ErrBadSecret", func(_ *fixture, v url.Values) { v.Set("client_secret", "nope") }, http.StatusUnauthorized, "invalid_client", 7000215},
		{"ErrUnknownClient", func(_ *fixture, v url.Values) { v.Set("client_id", "other") }, http.StatusBadRequest, "unauthorized_client", 700016},
		{"ErrGrantType", func(_ *fixture, v url.Values) { v.Set("grant_type", "password") }, http.StatusBadRequest, "unsupported_grant_type", 70003},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, graphtest.Options{})
			authURL := f.srv.AuthURL() + "?" + url.Values{
				"client_id": {"app"}, "response_type": {"code"}, "redirect_uri": {"http://127.0.0.1/callback"},
				"scope": {"offline_access Calendars.ReadWrite"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"},
			}.Encode()
			_, q := authorize(t, f.srv, authURL)
			form := url.Values{
				"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {"http://127.0.0.1/callback"},
				"code_verifier": {verifier}, "client_id": {"app"}, "client_secret": {"s3cret"},
			}
			tc.change(f, form)
			status, body := tokenPost(t, f.srv, form)
			got := map[string]any{"status": status, "error": body["error"]}
			want := map[string]any{"status": tc.wantStatus, "error": nilIfEmpty(tc.wantError)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("token response mismatch (-want +got):\n%s\nbody %v", diff, body)
			}
			if tc.wantError == "" {
				if body["access_token"] == "" || body["refresh_token"] == nil || body["expires_in"] != float64(3600) {
					t.Errorf("token body = %v, want access_token, refresh_token, expires_in 3600", body)
				}
				return
			}
			codes, _ := body["error_codes"].([]any)
			desc, _ := body["error_description"].(string)
			if len(codes) != 1 || codes[0] != tc.wantAADSTS || !strings.HasPrefix(desc, "AADSTS") || !strings.Contains(desc, "\r\nTrace ID: ") {
				t.Errorf("error body = %v, want error_codes [%v] and an AADSTS description with trace ID", body, tc.wantAADSTS)
			}
		})
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func TestOAuth_AuthorizeErrors(t *testing.T) {
	t.Parallel()
	base := url.Values{
		"client_id": {"app"}, "response_type": {"code"}, "redirect_uri": {"http://127.0.0.1/callback"},
		"scope": {"offline_access Calendars.ReadWrite"}, "state": {"xyz"},
	}
	tests := []struct {
		name       string
		change     func(f *fixture, v url.Values)
		wantStatus int
		wantError  string // error= in the redirect
	}{
		{"ErrAccessDenied", func(f *fixture, _ url.Values) {
			f.srv.SetAuthorizeError("access_denied", "the user canceled the authentication")
		}, http.StatusFound, "access_denied"},
		{"ErrNoScope", func(_ *fixture, v url.Values) { v.Del("scope") }, http.StatusFound, "invalid_request"},
		{"ErrResponseType", func(_ *fixture, v url.Values) { v.Set("response_type", "token") }, http.StatusFound, "unsupported_response_type"},
		{"ErrChallengeMethod", func(_ *fixture, v url.Values) { v.Set("code_challenge", "abc"); v.Set("code_challenge_method", "S512") }, http.StatusFound, "invalid_request"},
		{"ErrPrompt", func(_ *fixture, v url.Values) { v.Set("prompt", "always") }, http.StatusFound, "invalid_request"},
		{"ErrUnknownClientIsAPage", func(_ *fixture, v url.Values) { v.Set("client_id", "other") }, http.StatusBadRequest, ""},
		{"ErrUnregisteredRedirectIsAPage", func(_ *fixture, v url.Values) { v.Set("redirect_uri", "http://127.0.0.1/evil") }, http.StatusBadRequest, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, graphtest.Options{})
			v := url.Values{}
			for k, vals := range base {
				v[k] = append([]string(nil), vals...)
			}
			tc.change(f, v)
			status, q := authorize(t, f.srv, f.srv.AuthURL()+"?"+v.Encode())
			got := map[string]any{"status": status, "error": q.Get("error"), "state": q.Get("state"), "hasDescription": q.Get("error_description") != "", "code": q.Get("code")}
			want := map[string]any{"status": tc.wantStatus, "error": tc.wantError, "state": "", "hasDescription": false, "code": ""}
			if tc.wantStatus == http.StatusFound {
				want["state"], want["hasDescription"] = "xyz", true
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("authorize mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGraph_InvalidAuthenticationToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		token func(f *fixture) string
	}{
		{"ErrExpired", func(f *fixture) string {
			f.clock.Advance(61 * time.Minute)
			return f.token
		}},
		{"ErrExpiredByTest", func(f *fixture) string {
			f.srv.ExpireAccessTokens(f.user)
			return f.token
		}},
		{"ErrUnknown", func(*fixture) string { return "garbage" }},
		{"ErrMissing", func(*fixture) string { return "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := mustSetup(t, graphtest.Options{})
			r := doWith(t, f.srv, tc.token(f), http.MethodGet, "/v1.0/me/calendars", nil)
			inner, _ := field(r.body, "error.innerError").(map[string]any)
			got := map[string]any{"status": r.status, "code": r.errorCode(), "bearer": strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer "), "request-id": inner["request-id"] != nil}
			want := map[string]any{"status": http.StatusUnauthorized, "code": "InvalidAuthenticationToken", "bearer": true, "request-id": true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("GET /me/calendars mismatch (-want +got):\n%s\nbody %s", diff, r.raw)
			}
		})
	}
	t.Run("ErrScope", func(t *testing.T) {
		t.Parallel()
		f := mustSetup(t, graphtest.Options{})
		tok := f.srv.IssueAccessToken("app", f.user, "User.Read", "Calendars.Read")
		r := doWith(t, f.srv, tok, http.MethodPost, "/v1.0/me/calendars", map[string]any{"name": "x"})
		if r.status != http.StatusForbidden || r.errorCode() != "ErrorAccessDenied" {
			t.Errorf("POST with Calendars.Read: %d %s, want 403 ErrorAccessDenied", r.status, r.errorCode())
		}
		mustStatus(t, doWith(t, f.srv, tok, http.MethodGet, "/v1.0/me/calendars", nil), http.StatusOK)
	})
}

// TestOAuth_IDToken: with openid the token answer carries an ID token
// whose tid is the user's tenant, oid the object id and sub a pairwise id
// (not the object id); preferred_username and name come with profile,
// email with email. A user of another tenant whose mail names someone
// else's address keeps its own oid, tid and preferred_username.
func TestOAuth_IDToken(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	const otherTenant = "0c3f1e2d-9a8b-4c7d-8e6f-5a4b3c2d1e0f"
	mallory := f.srv.AddUser(graphtest.User{UserPrincipalName: "mallory@fabrikam.test", Mail: "ada@contoso.test", DisplayName: "Mallory", TenantID: otherTenant})
	type claims struct {
		Aud, Iss, Oid, Tid, Sub, PreferredUsername, Name, Email string
	}
	signIn := func(userID string, scopes ...string) claims {
		t.Helper()
		f.srv.SignIn(userID)
		conf := oauthConfig(f.srv)
		conf.Scopes = append(conf.Scopes, scopes...)
		_, q := authorize(t, f.srv, conf.AuthCodeURL("st"))
		tok, err := conf.Exchange(oauthContext(t, f.srv), q.Get("code"))
		if err != nil {
			t.Fatalf("Exchange: %v", err)
		}
		raw, _ := tok.Extra("id_token").(string)
		parts := strings.Split(raw, ".")
		if len(parts) != 3 {
			return claims{}
		}
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Aud, Iss, Oid, Tid, Sub, Name, Email string
			PreferredUsername                    string `json:"preferred_username"`
		}
		if err := json.Unmarshal(payload, &c); err != nil {
			t.Fatal(err)
		}
		return claims{c.Aud, c.Iss, c.Oid, c.Tid, c.Sub, c.PreferredUsername, c.Name, c.Email}
	}
	adaFull := signIn(f.user, "openid", "profile", "email")
	malloryFull := signIn(mallory, "openid", "profile", "email")
	adaBare := signIn(f.user, "openid")
	none := signIn(f.user)
	for _, c := range []*claims{&adaFull, &malloryFull, &adaBare} {
		if c.Sub == "" || c.Sub == c.Oid {
			t.Errorf("sub %q of oid %q, want a pairwise id", c.Sub, c.Oid)
		}
		c.Sub = ""
	}
	got := []claims{adaFull, malloryFull, adaBare, none}
	want := []claims{
		{Aud: "app", Iss: "https://login.microsoftonline.com/" + graphtest.DefaultTenant + "/v2.0", Oid: f.user, Tid: graphtest.DefaultTenant, PreferredUsername: "ada@contoso.test", Name: "Ada Lovelace", Email: "ada@contoso.test"},
		{Aud: "app", Iss: "https://login.microsoftonline.com/" + otherTenant + "/v2.0", Oid: mallory, Tid: otherTenant, PreferredUsername: "mallory@fabrikam.test", Name: "Mallory", Email: "ada@contoso.test"},
		{Aud: "app", Iss: "https://login.microsoftonline.com/" + graphtest.DefaultTenant + "/v2.0", Oid: f.user, Tid: graphtest.DefaultTenant},
		{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ID token claims (ada with openid profile email, mallory the same, ada with openid, ada without) mismatch (-want +got):\n%s", diff)
	}
}
