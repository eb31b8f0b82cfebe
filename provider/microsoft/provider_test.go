package microsoft

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/graphtest"
	"github.com/unical/unical/provider/providertest"
)

const testRedirect = "http://127.0.0.1/callback"

type fixture struct {
	srv      *graphtest.Server
	userID   string
	settings unical.ProviderSettings
	p        *Provider
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, graphtest.Options{})
}

// newFixtureWith is newFixture with the fake's options.
func newFixtureWith(t *testing.T, opts graphtest.Options) *fixture {
	t.Helper()
	srv := graphtest.NewServer(t, opts)
	uid := srv.AddUser(graphtest.User{UserPrincipalName: "ada@contoso.test", DisplayName: "Ada Lovelace", TimeZone: "W. Europe Standard Time"})
	srv.AddClient(graphtest.Client{ID: "app", Secret: "s3cret", RedirectURIs: []string{testRedirect}, RequirePKCE: true})
	p, err := New(Config{HTTPClient: srv.Client(), MaxRetryWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{
		srv:    srv,
		userID: uid,
		settings: unical.ProviderSettings{
			ClientID: "app", ClientSecret: "s3cret",
			AuthURL: srv.AuthURL(), TokenURL: srv.TokenURL(), APIBaseURL: srv.GraphBaseURL(),
		},
		p: p,
	}
}

// session returns a session with only a refresh token, so the first call
// refreshes, and records the tokens handed to OnTokenRefresh.
func (f *fixture) session(t *testing.T) (*unical.Session, *[]unical.Token) {
	var mu sync.Mutex
	var got []unical.Token
	s := &unical.Session{
		AccountID: "acc", Email: "ada@contoso.test", ProviderAccountID: f.userID, Settings: f.settings,
		Token: unical.Token{RefreshToken: f.srv.IssueRefreshToken("app", f.userID)},
		OnTokenRefresh: func(ctx context.Context, tok unical.Token) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, tok)
			return nil
		},
	}
	return s, &got
}

func TestProviderType(t *testing.T) {
	t.Parallel()
	p, _ := New(Config{})
	if p.Type() != unical.ProviderMicrosoft || ProviderType != unical.ProviderMicrosoft {
		t.Errorf("Type() = %q", p.Type())
	}
}

func TestOAuthFlow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	verifier := oauth2.GenerateVerifier()
	u, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{
		RedirectURI: testRedirect, State: "st4te", CodeChallenge: oauth2.S256ChallengeFromVerifier(verifier),
		Prompt: "select_account", LoginHint: "ada@contoso.test",
	})
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := url.Parse(u)
	q := parsed.Query()
	for k, want := range map[string]string{
		"client_id": "app", "response_type": "code", "redirect_uri": testRedirect, "state": "st4te",
		"code_challenge_method": "S256", "prompt": "select_account", "login_hint": "ada@contoso.test",
		// openid and profile bring the ID token's tid and preferred_username.
		"scope": "offline_access User.Read Calendars.ReadWrite openid profile",
	} {
		if got := q.Get(k); got != want {
			t.Errorf("authorize %s = %q, want %q", k, got, want)
		}
	}

	// The user signs in; the fake redirects to the callback with a code.
	code := f.signIn(t, u, "st4te")

	conn, err := f.p.Exchange(t.Context(), f.settings, &unical.CodeExchange{Code: code, RedirectURI: testRedirect, CodeVerifier: verifier})
	if err != nil {
		t.Fatal(err)
	}
	if conn.Email != "ada@contoso.test" || conn.ProviderAccountID != f.userID || conn.Token.RefreshToken == "" || conn.Token.AccessToken == "" {
		t.Errorf("connection = %+v", conn)
	}
	// The account is bound to the object id and the ID token's tenant;
	// the user principal name (from /me and the ID token) is its verified
	// name.
	ident := struct {
		ID, Tenant string
		Names      []string
	}{conn.ProviderAccountID, conn.TenantID, conn.VerifiedNames}
	if diff := cmp.Diff(struct {
		ID, Tenant string
		Names      []string
	}{f.userID, graphtest.DefaultTenant, []string{"ada@contoso.test", "ada@contoso.test"}}, ident); diff != "" {
		t.Errorf("identity of the connection mismatch (-want +got):\n%s", diff)
	}
	// A code is single-use.
	_, err = f.p.Exchange(t.Context(), f.settings, &unical.CodeExchange{Code: code, RedirectURI: testRedirect, CodeVerifier: verifier})
	if unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("second Exchange: %v; want CodeUnauthorized", err)
	}

	if _, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{RedirectURI: testRedirect, CodeChallenge: "x", Prompt: "login"}); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("bad prompt: %v", err)
	}
}

// TestExchangeWithoutClientID refuses an application whose Microsoft
// settings have no client id as Google's Exchange does: CodeInvalid
// without a field, and no request sent, so the code is not spent.
func TestExchangeWithoutClientID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	verifier := oauth2.GenerateVerifier()
	u, err := f.p.AuthCodeURL(f.settings, &unical.AuthCodeRequest{RedirectURI: testRedirect, State: "st", CodeChallenge: oauth2.S256ChallengeFromVerifier(verifier)})
	if err != nil {
		t.Fatal(err)
	}
	code := f.signIn(t, u, "st")

	before := f.srv.RequestCount("/")
	noClient := f.settings
	noClient.ClientID, noClient.ClientSecret = "", ""
	_, err = f.p.Exchange(t.Context(), noClient, &unical.CodeExchange{Code: code, RedirectURI: testRedirect, CodeVerifier: verifier})
	var e *unical.Error
	if !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != "" {
		t.Fatalf("Exchange without a client id: %v; want CodeInvalid without a field", err)
	}
	if n := f.srv.RequestCount("/") - before; n != 0 {
		t.Errorf("%d requests sent without a client id; want none", n)
	}
	if _, err := f.p.Exchange(t.Context(), f.settings, &unical.CodeExchange{Code: code, RedirectURI: testRedirect, CodeVerifier: verifier}); err != nil {
		t.Errorf("the code after the refused exchange: %v; want it unspent", err)
	}
}

// signIn follows the fake's sign-in page at the authorize URL u and
// returns the code it redirects to the callback with, checking that the
// redirect goes to testRedirect with state.
func (f *fixture) signIn(t *testing.T, u, state string) string {
	t.Helper()
	hc := *f.srv.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), testRedirect) || loc.Query().Get("state") != state {
		t.Fatalf("authorize answered %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc.Query().Get("code")
}

func TestConnect(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	conn, err := f.p.Connect(t.Context(), f.settings, unical.ConnectParams{RefreshToken: f.srv.IssueRefreshToken("app", f.userID)})
	if err != nil {
		t.Fatal(err)
	}
	if conn.Email != "ada@contoso.test" || conn.ProviderAccountID != f.userID || conn.Token.AccessToken == "" {
		t.Errorf("connection = %+v", conn)
	}
	if _, err := f.p.Connect(t.Context(), f.settings, unical.ConnectParams{Password: "pw"}); unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("password: %v", err)
	}
	if _, err := f.p.Connect(t.Context(), f.settings, unical.ConnectParams{RefreshToken: "bogus"}); unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("bogus refresh token: %v", err)
	}
	bad := f.settings
	bad.ClientSecret = "wrong"
	if _, err := f.p.Connect(t.Context(), bad, unical.ConnectParams{RefreshToken: f.srv.IssueRefreshToken("app", f.userID)}); unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("wrong client secret: %v", err)
	}
}

func TestTokenRefreshAndExpiry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, refreshed := f.session(t)
	cals, err := f.p.ListCalendars(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(cals) != 1 || !cals[0].IsPrimary || cals[0].ReadOnly || cals[0].IsShared {
		t.Errorf("calendars = %+v", cals)
	}
	if len(*refreshed) != 1 || (*refreshed)[0].AccessToken == "" || (*refreshed)[0].RefreshToken == "" {
		t.Fatalf("OnTokenRefresh got %+v; want one token", *refreshed)
	}
	// A stored access token that Graph refuses is refreshed once.
	s.Token = (*refreshed)[0]
	f.srv.ExpireAccessTokens(f.userID)
	if _, err := f.p.ListCalendars(t.Context(), s); err != nil {
		t.Fatalf("after access token expiry: %v", err)
	}
	if len(*refreshed) != 2 {
		t.Errorf("OnTokenRefresh called %d times; want 2", len(*refreshed))
	}
	// A revoked grant is CodeAccountExpired.
	s.Token = unical.Token{RefreshToken: (*refreshed)[1].RefreshToken}
	f.srv.RevokeRefreshTokens(f.userID)
	if _, err := f.p.ListCalendars(t.Context(), s); unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Errorf("revoked: %v; want CodeAccountExpired", err)
	}
}

func TestThrottling(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	f.srv.Throttle("/v1.0/me/calendars", 2, 0)
	if _, err := f.p.ListCalendars(t.Context(), s); err != nil {
		t.Fatalf("two 429s then success: %v", err)
	}
	f.srv.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Status: 503, Count: 2})
	if _, err := f.p.ListCalendars(t.Context(), s); err != nil {
		t.Fatalf("two 503s then success: %v", err)
	}
	f.srv.Throttle("/v1.0/me/calendars", 10, time.Hour)
	_, err := f.p.ListCalendars(t.Context(), s)
	var e *unical.Error
	if !asError(err, &e) || e.Code != unical.CodeRateLimited || e.RetryAfter != time.Hour {
		t.Errorf("long Retry-After: %#v; want CodeRateLimited with RetryAfter 1h", err)
	}
	f2 := newFixture(t)
	s2, _ := f2.session(t)
	f2.srv.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Status: 504, Count: 10})
	if _, err := f2.p.ListCalendars(t.Context(), s2); unical.ErrorCode(err) != unical.CodeUnavailable {
		t.Errorf("504s: %v; want CodeUnavailable", err)
	}
}

func TestConformance(t *testing.T) {
	providertest.Run(t, func(t *testing.T) *providertest.Harness {
		f := newFixture(t)
		s, _ := f.session(t)
		return &providertest.Harness{
			Provider: f.p,
			Session:  s,
			NewCalendar: func(t *testing.T) string {
				cal, err := f.p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some("Test " + t.Name())})
				if err != nil {
					t.Fatal(err)
				}
				return cal.ID
			},
			ExpireSyncCursors: func(t *testing.T) { f.srv.ExpireDeltaTokens(f.userID) },
			OAuth: &providertest.OAuthHarness{
				FailTokenEndpoint: func(t *testing.T, n, status int) {
					u, _ := url.Parse(f.srv.TokenURL())
					f.srv.InjectFault(graphtest.Fault{PathPrefix: u.Path, Count: n, Status: status})
				},
				RevokeGrant: func(*testing.T) { f.srv.RevokeRefreshTokens(f.userID) },
				Attempts:    1 + 3,
				Rotates:     true,
			},
			Lacks: map[string]string{"hexColor": "Graph stores one of its calendarColor presets: a hexColor reads back as the nearest preset's colour"},
		}
	})
}
