package httpapi_test

import (
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
)

// testServer is the whole stack on real HTTP (internal/testkit/apitest: httpapi
// over a Client over a bolt store) with in-memory providers for all three
// provider types.
type testServer struct {
	*apitest.Stack
	Providers map[unical.ProviderType]*memory.Provider
	// Redirect is the application's registered OAuth redirect URL.
	Redirect string
}

// response is an answer of the server.
type response = apitest.Response

// Test users of the in-memory providers.
const (
	googleUser   = "ada@example.com"
	googleToken  = "refresh-ada"
	outlookUser  = "grace@example.com"
	outlookToken = "refresh-grace"
	davUser      = "alan@example.com"
	davPassword  = "app-specific-1"
)

// MustNewServer starts the stack and creates one application.
func MustNewServer(tb testing.TB) *testServer {
	tb.Helper()
	return MustNewServerWith(tb, nil)
}

// MustNewServerWith is MustNewServer with the Google provider wrapped by
// wrap, for injecting failures the in-memory provider cannot produce.
func MustNewServerWith(tb testing.TB, wrap func(*memory.Provider) unical.Provider) *testServer {
	tb.Helper()
	return newTestServer(tb, httpapi.Config{}, wrap)
}

// newTestServer is MustNewServerWith with the handler built from opts.
func newTestServer(tb testing.TB, opts httpapi.Config, wrap func(*memory.Provider) unical.Provider) *testServer {
	tb.Helper()
	return newTestServerConfig(tb, opts, wrap, nil)
}

// newTestServerConfig is newTestServer with configure changing the
// Client's Config first (apitest.Start).
func newTestServerConfig(tb testing.TB, opts httpapi.Config, wrap func(*memory.Provider) unical.Provider, configure func(*apitest.Config)) *testServer {
	tb.Helper()
	ts := &testServer{Providers: map[unical.ProviderType]*memory.Provider{}}
	var providers []unical.Provider
	for _, t := range unical.ProviderTypes {
		if t == unical.ProviderVirtual {
			continue // the stack adds the real one (provider/virtual)
		}
		p := memory.New(memory.Config{Type: t})
		ts.Providers[t] = p
		if wrap != nil && t == unical.ProviderGoogle {
			providers = append(providers, wrap(p))
			continue
		}
		providers = append(providers, p)
	}
	ts.Providers[unical.ProviderGoogle].AddUser(googleUser, googleToken, "")
	ts.Providers[unical.ProviderMicrosoft].AddUser(outlookUser, outlookToken, "")
	ts.Providers[unical.ProviderCalDAV].AddUser(davUser, "", davPassword)
	// The production address policy unless configure says otherwise: the
	// memory providers need no URL, and webhook URLs on private addresses
	// are refused.
	ts.Stack = apitest.StartWithOptions(tb, providers, func(cfg *apitest.Config) {
		cfg.AllowPrivateTargets = false
		if configure != nil {
			configure(cfg)
		}
	}, opts)

	auth := httptest.NewServer(ts.Providers[unical.ProviderGoogle].AuthHandler(googleUser))
	tb.Cleanup(auth.Close)
	ts.Redirect = "https://app.example.com/connected"
	ts.mustCreateApp(tb, "test app", auth.URL)
	return ts
}

func (ts *testServer) mustCreateApp(tb testing.TB, name, authURL string) (id, key string) {
	tb.Helper()
	return ts.CreateApp(tb, &admin.ApplicationParams{
		Name:         unical.Some(name),
		RedirectURLs: unical.Some([]string{ts.Redirect}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderGoogle: {ClientID: "client-1", ClientSecret: "client-secret-1", AuthURL: authURL},
		},
	})
}

// do sends a request with the server's API key.
func (ts *testServer) do(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	return ts.Do(tb, method, path, body)
}

func (ts *testServer) doKey(tb testing.TB, key, method, path string, body any) *response {
	tb.Helper()
	return ts.DoKey(tb, key, method, path, body)
}

// must sends a request and fails unless it answers 200.
func (ts *testServer) must(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	return ts.Must(tb, method, path, body)
}

// keys returns the sorted keys of a JSON object.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s ...string) []string {
	sort.Strings(s)
	return s
}

// mustConnect creates the accounts of the three test users and returns
// their ids by provider type.
func (ts *testServer) mustConnect(tb testing.TB) map[unical.ProviderType]string {
	tb.Helper()
	ids := map[unical.ProviderType]string{}
	for t, body := range map[unical.ProviderType]map[string]any{
		unical.ProviderGoogle:    {"email": googleUser, "providerType": "PROVIDER_A", "refreshToken": googleToken, "externalId": "user-1"},
		unical.ProviderMicrosoft: {"email": outlookUser, "providerType": "PROVIDER_B", "refreshToken": outlookToken},
		unical.ProviderCalDAV:    {"email": davUser, "providerType": "PROVIDER_C", "password": davPassword},
	} {
		var acct unical.Account
		ts.must(tb, "POST", "/v1/endUserAccounts", body).Into(tb, &acct)
		ids[t] = acct.ID
	}
	return ids
}
