package google

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
)

const (
	testClientID = "client-123.apps.googleusercontent.com"
	testSecret   = "secret-456"
	testRedirect = "https://unical.test/v1/oauth/callback/google"
	alice        = "alice@example.com"
	bob          = "bob@example.com"
)

// fixture is a fake Google with one client and two users, and a Provider
// pointed at it that records its backoff waits instead of sleeping.
type fixture struct {
	srv      *googletest.Server
	p        *Provider
	settings unical.ProviderSettings

	mu     sync.Mutex
	waits  []time.Duration
	stored []unical.Token
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, googletest.Options{}, nil)
}

// newFixtureWith is newFixture with options for the fake and a transport
// for the provider's HTTP client (nil: the default).
func newFixtureWith(t *testing.T, opts googletest.Options, rt http.RoundTripper) *fixture {
	t.Helper()
	srv := googletest.NewServer(t, opts)
	srv.AddClient(googletest.Client{ID: testClientID, Secret: testSecret, RedirectURIs: []string{testRedirect}})
	srv.AddUser(googletest.User{Email: alice, Name: "Alice", TimeZone: "Europe/Paris"})
	srv.AddUser(googletest.User{Email: bob, TimeZone: "America/New_York"})
	f := &fixture{srv: srv}
	cfg := Config{BaseBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second, MaxRetries: 3}
	if rt != nil {
		cfg.HTTPClient = &http.Client{Transport: rt}
	}
	f.p = newProvider(t, cfg)
	f.p.sleep = func(ctx context.Context, d time.Duration) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.waits = append(f.waits, d)
		return ctx.Err()
	}
	f.p.jitter = func(d time.Duration) time.Duration { return 0 }
	f.settings = unical.ProviderSettings{
		ClientID:     testClientID,
		ClientSecret: testSecret,
		AuthURL:      srv.AuthURL(),
		TokenURL:     srv.TokenURL(),
		UserInfoURL:  srv.UserinfoURL(),
		APIBaseURL:   srv.APIBaseURL(),
	}
	return f
}

// session returns a session for email backed by a fresh refresh token and
// no access token, so the first call refreshes.
func (f *fixture) session(t *testing.T, email string) *unical.Session {
	t.Helper()
	rt := f.srv.IssueRefreshToken(testClientID, email)
	return &unical.Session{
		AccountID: "acc-" + email,
		Email:     email,
		Settings:  f.settings,
		Token:     unical.Token{RefreshToken: rt},
		OnTokenRefresh: func(ctx context.Context, tok unical.Token) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.stored = append(f.stored, tok)
			return nil
		},
	}
}

func (f *fixture) recordedWaits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

func (f *fixture) storedTokens() []unical.Token {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]unical.Token(nil), f.stored...)
}

// recorder is a transport that records the requests it forwards and can
// meddle with them through before, which runs ahead of each request and
// may answer it instead (a non-nil response or error).
type recorder struct {
	mu     sync.Mutex
	reqs   []*http.Request
	before func(r *http.Request) (*http.Response, error)
}

func (rc *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, r)
	before := rc.before
	rc.mu.Unlock()
	if before != nil {
		if resp, err := before(r); resp != nil || err != nil {
			return resp, err
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// requests returns the recorded requests whose method matches (empty: any)
// and whose path contains part.
func (rc *recorder) requests(method, part string) []*http.Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []*http.Request
	for _, r := range rc.reqs {
		if (method == "" || r.Method == method) && strings.Contains(r.URL.Path, part) {
			out = append(out, r)
		}
	}
	return out
}
