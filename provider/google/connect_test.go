package google

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
)

// authorize follows the authorization URL to the fake's redirect and
// returns the callback's query.
func authorize(t *testing.T, authURL string) url.Values {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: status %d, want 302", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != testRedirect {
		t.Fatalf("redirected to %s, want %s", got, testRedirect)
	}
	return loc.Query()
}

func TestAuthCodeURL(t *testing.T) {
	f := newFixture(t)
	verifier := oauth2.GenerateVerifier()
	raw, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{
		RedirectURI: testRedirect, State: "st-1", CodeChallenge: oauth2.S256ChallengeFromVerifier(verifier),
		Prompt: "consent", LoginHint: bob,
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Scheme + "://" + u.Host + u.Path; got != f.srv.AuthURL() {
		t.Errorf("endpoint = %s, want %s", got, f.srv.AuthURL())
	}
	q := u.Query()
	want := map[string]string{
		"client_id":              testClientID,
		"redirect_uri":           testRedirect,
		"response_type":          "code",
		"access_type":            "offline",
		"scope":                  "https://www.googleapis.com/auth/calendar openid email",
		"state":                  "st-1",
		"code_challenge":         oauth2.S256ChallengeFromVerifier(verifier),
		"code_challenge_method":  "S256",
		"prompt":                 "consent",
		"login_hint":             bob,
		"include_granted_scopes": "true",
	}
	got := map[string]string{}
	for k := range q {
		got[k] = q.Get(k)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}

	// Defaults: Google's real endpoint, prompt=consent (so that a refresh
	// token comes back even when the Google account granted access
	// before), no hint.
	raw, err = f.p.AuthCodeURL(unical.ProviderSettings{ClientID: testClientID}, &unical.AuthCodeRequest{RedirectURI: testRedirect, State: "s", CodeChallenge: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(raw, DefaultAuthURL+"?") || !strings.Contains(raw, "prompt=consent&") || strings.Contains(raw, "login_hint=") {
		t.Errorf("default URL = %s", raw)
	}
	for prompt, want := range map[string]string{"select_account": "select_account consent", "none": "none", "consent select_account": "consent select_account"} {
		raw, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{RedirectURI: testRedirect, State: "s", CodeChallenge: "c", Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(raw)
		if got := u.Query().Get("prompt"); got != want {
			t.Errorf("prompt %q: sent %q, want %q", prompt, got, want)
		}
	}

	if _, err := f.p.AuthCodeURL(unical.ProviderSettings{}, &unical.AuthCodeRequest{RedirectURI: testRedirect, CodeChallenge: "c"}); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("no client id: code %q, want %q", unical.ErrorCode(err), unical.CodeInvalid)
	}
}

func TestExchange(t *testing.T) {
	f := newFixture(t)
	verifier := oauth2.GenerateVerifier()
	raw, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{
		RedirectURI: testRedirect, State: "st", CodeChallenge: oauth2.S256ChallengeFromVerifier(verifier), LoginHint: bob,
	})
	if err != nil {
		t.Fatal(err)
	}
	q := authorize(t, raw)
	if q.Get("state") != "st" || q.Get("code") == "" {
		t.Fatalf("callback query = %v", q)
	}
	conn, err := f.p.Exchange(context.Background(), f.settings, &unical.CodeExchange{Code: q.Get("code"), RedirectURI: testRedirect, CodeVerifier: verifier})
	if err != nil {
		t.Fatal(err)
	}
	if conn.Email != bob || conn.ProviderAccountID == "" || conn.Token.AccessToken == "" || conn.Token.RefreshToken == "" || conn.Token.Expiry.IsZero() {
		t.Errorf("connection = %+v", conn)
	}
	wantScopes := []string{ScopeCalendar, "openid", scopeEmailURL}
	if diff := cmp.Diff(wantScopes, conn.Scopes); diff != "" {
		t.Errorf("scopes (-want +got):\n%s", diff)
	}
	// The refresh token works.
	if _, err := f.p.Connect(context.Background(), f.settings, unical.ConnectParams{Email: bob, RefreshToken: conn.Token.RefreshToken}); err != nil {
		t.Errorf("Connect with the exchanged refresh token: %v", err)
	}
	// A code works once.
	_, err = f.p.Exchange(context.Background(), f.settings, &unical.CodeExchange{Code: q.Get("code"), RedirectURI: testRedirect, CodeVerifier: verifier})
	if unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("second exchange: %v, want %s", err, unical.CodeUnauthorized)
	}
}

func TestExchangeRefused(t *testing.T) {
	tests := []struct {
		name     string
		consent  googletest.Consent
		verifier func(real string) string
		want     unical.Code
	}{
		{name: "wrong verifier", verifier: func(string) string { return oauth2.GenerateVerifier() }, want: unical.CodeUnauthorized},
		{name: "no verifier", verifier: func(string) string { return "" }, want: unical.CodeUnauthorized},
		{name: "calendar scope unticked", consent: googletest.Consent{GrantedScopes: []string{"openid", "email"}}, want: unical.CodeUnauthorized},
		{name: "email scope unticked", consent: googletest.Consent{GrantedScopes: []string{ScopeCalendar, "openid"}}, want: unical.CodeUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.srv.SetConsent(tt.consent)
			verifier := oauth2.GenerateVerifier()
			raw, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{RedirectURI: testRedirect, State: "s", CodeChallenge: oauth2.S256ChallengeFromVerifier(verifier)})
			if err != nil {
				t.Fatal(err)
			}
			q := authorize(t, raw)
			v := verifier
			if tt.verifier != nil {
				v = tt.verifier(verifier)
			}
			_, err = f.p.Exchange(context.Background(), f.settings, &unical.CodeExchange{Code: q.Get("code"), RedirectURI: testRedirect, CodeVerifier: v})
			if got := unical.ErrorCode(err); got != tt.want {
				t.Errorf("code = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestConnect(t *testing.T) {
	f := newFixture(t)
	good := f.srv.IssueRefreshToken(testClientID, alice)
	revoked := f.srv.IssueRefreshToken(testClientID, alice)
	f.srv.RevokeRefreshToken(revoked)
	f.srv.AddClient(googletest.Client{ID: "other-client", Secret: "x"})
	foreign := f.srv.IssueRefreshToken("other-client", alice)

	tests := []struct {
		name   string
		params unical.ConnectParams
		want   unical.Code
	}{
		{name: "valid", params: unical.ConnectParams{Email: alice, RefreshToken: good}},
		{name: "valid without email", params: unical.ConnectParams{RefreshToken: good}},
		{name: "email differs in case", params: unical.ConnectParams{Email: "ALICE@example.com", RefreshToken: good}},
		{name: "revoked", params: unical.ConnectParams{Email: alice, RefreshToken: revoked}, want: unical.CodeUnauthorized},
		{name: "unknown", params: unical.ConnectParams{Email: alice, RefreshToken: "1//nope"}, want: unical.CodeUnauthorized},
		{name: "other client's token", params: unical.ConnectParams{Email: alice, RefreshToken: foreign}, want: unical.CodeUnauthorized},
		{name: "another account", params: unical.ConnectParams{Email: bob, RefreshToken: good}, want: unical.CodeUnauthorized},
		{name: "no token", params: unical.ConnectParams{Email: alice}, want: unical.CodeUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := f.p.Connect(context.Background(), f.settings, tt.params)
			if got := unical.ErrorCode(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
			if err != nil {
				return
			}
			if conn.Email != alice || conn.ProviderAccountID == "" || conn.Token.AccessToken == "" || conn.Token.RefreshToken != good {
				t.Errorf("connection = %+v", conn)
			}
		})
	}
}

func TestConnectRetriesTokenEndpoint(t *testing.T) {
	f := newFixture(t)
	rt := f.srv.IssueRefreshToken(testClientID, alice)
	f.srv.InjectFault(googletest.Fault{PathPrefix: "/token", Times: 2, Status: http.StatusServiceUnavailable})
	if _, err := f.p.Connect(context.Background(), f.settings, unical.ConnectParams{Email: alice, RefreshToken: rt}); err != nil {
		t.Fatal(err)
	}
	if got := f.srv.RequestCount(http.MethodPost, "/token"); got != 3 {
		t.Errorf("token requests = %d, want 3", got)
	}
	if diff := cmp.Diff([]time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, f.recordedWaits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestRefreshToken(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, alice)
	tok, err := f.p.RefreshToken(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" || tok.RefreshToken != s.Token.RefreshToken || tok.Expiry.IsZero() {
		t.Errorf("token = %+v", tok)
	}
	if diff := cmp.Diff([]unical.Token{tok}, f.storedTokens()); diff != "" {
		t.Errorf("OnTokenRefresh got (-want +got):\n%s", diff)
	}

	f.srv.RevokeRefreshToken(s.Token.RefreshToken)
	if _, err := f.p.RefreshToken(context.Background(), s); unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Errorf("revoked: %v, want %s", err, unical.CodeAccountExpired)
	}
}

func TestSessionTokens(t *testing.T) {
	tests := []struct {
		name string
		// prepare returns the session to use.
		prepare     func(t *testing.T, f *fixture) *unical.Session
		want        unical.Code
		wantStored  int
		wantRefresh int
	}{
		{
			name:        "no access token refreshes once",
			prepare:     func(t *testing.T, f *fixture) *unical.Session { return f.session(t, alice) },
			wantStored:  1,
			wantRefresh: 1,
		},
		{
			name: "valid access token is used as is",
			prepare: func(t *testing.T, f *fixture) *unical.Session {
				s := f.session(t, alice)
				tok, err := f.p.RefreshToken(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				s.Token = tok
				return s
			},
			wantStored:  1, // the refresh in prepare
			wantRefresh: 1,
		},
		{
			name: "expiring access token refreshes",
			prepare: func(t *testing.T, f *fixture) *unical.Session {
				s := f.session(t, alice)
				s.Token.AccessToken = f.srv.IssueAccessToken(testClientID, alice)
				s.Token.Expiry = time.Now().Add(30 * time.Second)
				return s
			},
			wantStored:  1,
			wantRefresh: 1,
		},
		{
			name: "rejected access token refreshes and retries",
			prepare: func(t *testing.T, f *fixture) *unical.Session {
				s := f.session(t, alice)
				s.Token.AccessToken = "ya29.stale"
				s.Token.Expiry = time.Now().Add(time.Hour)
				return s
			},
			wantStored:  1,
			wantRefresh: 1,
		},
		{
			name: "revoked grant expires the account",
			prepare: func(t *testing.T, f *fixture) *unical.Session {
				s := f.session(t, alice)
				f.srv.RevokeRefreshToken(s.Token.RefreshToken)
				return s
			},
			want:        unical.CodeAccountExpired,
			wantRefresh: 1,
		},
		{
			name: "revoked access during a call expires the account",
			prepare: func(t *testing.T, f *fixture) *unical.Session {
				s := f.session(t, alice)
				s.Token.AccessToken = f.srv.IssueAccessToken(testClientID, alice)
				s.Token.Expiry = time.Now().Add(time.Hour)
				f.srv.RevokeAccess(testClientID, alice)
				return s
			},
			want:        unical.CodeAccountExpired,
			wantRefresh: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := tt.prepare(t, f)
			_, err := f.p.ListCalendars(context.Background(), s)
			if got := unical.ErrorCode(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
			if got := len(f.storedTokens()); got != tt.wantStored {
				t.Errorf("OnTokenRefresh calls = %d, want %d", got, tt.wantStored)
			}
			if got := f.srv.RequestCount(http.MethodPost, "/token"); got != tt.wantRefresh {
				t.Errorf("token requests = %d, want %d", got, tt.wantRefresh)
			}
		})
	}
}

func TestOnTokenRefreshFailure(t *testing.T) {
	f := newFixture(t)
	s := f.session(t, alice)
	s.OnTokenRefresh = func(context.Context, unical.Token) error {
		return unical.Errorf(unical.CodeInternal, "store down")
	}
	_, err := f.p.ListCalendars(context.Background(), s)
	if unical.ErrorCode(err) != unical.CodeInternal {
		t.Errorf("err = %v, want %s", err, unical.CodeInternal)
	}
	if got := f.srv.RequestCount("", "/calendar/"); got != 0 {
		t.Errorf("API requests with an unsaved token = %d, want 0", got)
	}
}

// Google hands out a refresh token on the first exchange only, unless the
// user is asked for consent again (web-server guide, access_type and
// prompt). Connecting a Google account that already granted the client
// must still yield a refresh token.
func TestExchange_AgainAfterEarlierGrant(t *testing.T) {
	f := newFixture(t)
	connect := func() *unical.Connection {
		t.Helper()
		verifier := oauth2.GenerateVerifier()
		raw, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{
			RedirectURI: testRedirect, State: "s", CodeChallenge: oauth2.S256ChallengeFromVerifier(verifier),
		})
		if err != nil {
			t.Fatal(err)
		}
		q := authorize(t, raw)
		conn, err := f.p.Exchange(t.Context(), f.settings, &unical.CodeExchange{Code: q.Get("code"), RedirectURI: testRedirect, CodeVerifier: verifier})
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}
	first, second := connect(), connect()
	if first.Token.RefreshToken == "" || second.Token.RefreshToken == "" {
		t.Fatalf("refresh tokens %q then %q, want one each time", first.Token.RefreshToken, second.Token.RefreshToken)
	}
}
