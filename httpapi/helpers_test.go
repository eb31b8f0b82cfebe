package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/memprovider"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/store/bolt"
)

// testServer is the whole stack on real HTTP: httpapi over a Client over a
// bolt store, with in-memory providers for all three provider types.
type testServer struct {
	URL       string
	Client    *unical.Client
	DBPath    string
	Providers map[unical.ProviderType]*memprovider.Provider
	AppID     string
	APIKey    string
	// Redirect is the application's registered OAuth redirect URL.
	Redirect string
}

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
func MustNewServerWith(tb testing.TB, wrap func(*memprovider.Provider) unical.Provider) *testServer {
	tb.Helper()
	ts := &testServer{DBPath: filepath.Join(tb.TempDir(), "unical.db"), Providers: map[unical.ProviderType]*memprovider.Provider{}}
	store, err := bolt.Open(ts.DBPath, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	var providers []unical.Provider
	for _, t := range unical.ProviderTypes {
		p := memprovider.New(t)
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

	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	tb.Cleanup(srv.Close)
	ts.URL = srv.URL
	ts.Client, err = unical.New(unical.Config{Store: store, Providers: providers, MasterKey: seal.NewKey(), PublicURL: srv.URL})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ts.Client.Close() })
	h = httpapi.NewHandler(ts.Client, httpapi.Options{})

	auth := httptest.NewServer(ts.Providers[unical.ProviderGoogle].AuthHandler(googleUser))
	tb.Cleanup(auth.Close)
	ts.Redirect = "https://app.example.com/connected"
	ts.AppID, ts.APIKey = ts.mustCreateApp(tb, "test app", auth.URL)
	return ts
}

func (ts *testServer) mustCreateApp(tb testing.TB, name, authURL string) (id, key string) {
	tb.Helper()
	ctx := tb.Context()
	created, err := ts.Client.CreateApplication(ctx, &unical.ApplicationParams{
		Name:         unical.Some(name),
		RedirectURLs: unical.Some([]string{ts.Redirect}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderGoogle: {ClientID: "client-1", ClientSecret: "client-secret-1", AuthURL: authURL},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return created.ApplicationID, created.APIKey
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r *response) JSON(tb testing.TB) any {
	tb.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		tb.Fatalf("body is not JSON: %v\n%s", err, r.Body)
	}
	return v
}

// Object decodes the body as a JSON object.
func (r *response) Object(tb testing.TB) map[string]any {
	tb.Helper()
	m, ok := r.JSON(tb).(map[string]any)
	if !ok {
		tb.Fatalf("body is not a JSON object: %s", r.Body)
	}
	return m
}

// Into decodes the body into v.
func (r *response) Into(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("decode %T: %v\n%s", v, err, r.Body)
	}
}

// do sends a request with the server's API key; body is JSON-encoded
// unless it is a string, which is sent as it is.
func (ts *testServer) do(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	return ts.doKey(tb, ts.APIKey, method, path, body)
}

func (ts *testServer) doKey(tb testing.TB, key, method, path string, body any) *response {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, ts.URL+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return &response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// must sends a request and fails unless it answers 200.
func (ts *testServer) must(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	r := ts.do(tb, method, path, body)
	if r.Status != http.StatusOK {
		tb.Fatalf("%s %s = %d, want 200\n%s", method, path, r.Status, r.Body)
	}
	return r
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
