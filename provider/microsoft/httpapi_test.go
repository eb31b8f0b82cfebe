package microsoft_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/graphtest"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/provider/microsoft"
	"github.com/unical/unical/store/bolt"
)

// These tests run the whole stack for PROVIDER_B accounts: httpapi over a
// unical.Client over a bolt store, with the Microsoft provider pointed at
// internal/graphtest. Every request goes over real HTTP.

const (
	adaEmail    = "ada@contoso.test"
	appRedirect = "https://app.example.com/connected"
)

// stack is a running unical server with one application whose PROVIDER_B
// settings point at a fake Graph.
type stack struct {
	URL    string
	Graph  *graphtest.Server
	UserID string // Ada's Graph user id
	AppID  string
	APIKey string
}

// MustStartStack starts graphtest and the unical server and creates an
// application registered at the fake identity platform.
func MustStartStack(tb testing.TB) *stack {
	tb.Helper()
	st := &stack{}
	st.Graph = graphtest.NewServer(tb, graphtest.Options{AllowHTTPNotificationURLs: true})
	st.UserID = st.Graph.AddUser(graphtest.User{UserPrincipalName: adaEmail, DisplayName: "Ada Lovelace", TimeZone: "W. Europe Standard Time"})

	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	tb.Cleanup(srv.Close)
	st.URL = srv.URL
	st.Graph.AddClient(graphtest.Client{ID: "unical-app", Secret: "s3cret", RedirectURIs: []string{srv.URL + unical.OAuthCallbackPath}, RequirePKCE: true})

	store, err := bolt.Open(filepath.Join(tb.TempDir(), "unical.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	p, err := microsoft.New(microsoft.Config{HTTPClient: st.Graph.Client(), MaxRetryWait: 50 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{p}, MasterKey: seal.NewKey(), PublicURL: srv.URL, AllowPrivateTargets: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	h = httpapi.NewHandler(client, httpapi.Options{})

	created, err := client.CreateApplication(tb.Context(), &unical.ApplicationParams{
		Name:         unical.Some("outlook app"),
		RedirectURLs: unical.Some([]string{appRedirect}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderMicrosoft: {
				ClientID: "unical-app", ClientSecret: "s3cret",
				AuthURL: st.Graph.AuthURL(), TokenURL: st.Graph.TokenURL(), APIBaseURL: st.Graph.GraphBaseURL(),
			},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	st.AppID, st.APIKey = created.ApplicationID, created.APIKey
	return st
}

// response is an answer of the unical server.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Into decodes the body into v.
func (r *response) Into(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("decode %T: %v\n%s", v, err, r.Body)
	}
}

// apiError is the error body.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
}

// do sends a request with the application's API key; body is
// JSON-encoded.
func (st *stack) do(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, st.URL+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("x-api-key", st.APIKey)
	resp, err := http.DefaultClient.Do(req)
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
func (st *stack) must(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	r := st.do(tb, method, path, body)
	if r.Status != http.StatusOK {
		tb.Fatalf("%s %s = %d, want 200\n%s", method, path, r.Status, r.Body)
	}
	return r
}

// wantError fails unless r is an error answer with status, code and
// (when not empty) field.
func wantError(tb testing.TB, what string, r *response, status int, code, field string) {
	tb.Helper()
	var e apiError
	_ = json.Unmarshal(r.Body, &e)
	if r.Status != status || e.Error.Code != code || (field != "" && e.Error.Field != field) {
		tb.Errorf("%s = %d %s (field %q); want %d %s (field %q)\n%s", what, r.Status, e.Error.Code, e.Error.Field, status, code, field, r.Body)
	}
}

// MustConnect posts a refresh token the fake issued for Ada and returns
// the account id.
func (st *stack) MustConnect(tb testing.TB) string {
	tb.Helper()
	var acct unical.Account
	st.must(tb, "POST", "/v1/endUserAccounts", map[string]any{
		"email": adaEmail, "providerType": "PROVIDER_B", "refreshToken": st.Graph.IssueRefreshToken("unical-app", st.UserID),
	}).Into(tb, &acct)
	if acct.Status != unical.AccountStatusActive || acct.ProviderType != unical.ProviderMicrosoft {
		tb.Fatalf("account = %+v", acct)
	}
	return acct.ID
}

// eventList is the list envelope.
type eventList struct {
	Data          []*unical.Event `json:"data"`
	NextPageToken string          `json:"nextPageToken"`
	NextSyncToken string          `json:"nextSyncToken"`
}

// listAll walks every page of an event listing.
func (st *stack) listAll(tb testing.TB, path string) ([]*unical.Event, string) {
	tb.Helper()
	var all []*unical.Event
	token := ""
	for range 50 {
		p := path
		if token != "" {
			sep := "?"
			if strings.Contains(p, "?") {
				sep = "&"
			}
			p += sep + "pageToken=" + url.QueryEscape(token)
		}
		var page eventList
		st.must(tb, "GET", p, nil).Into(tb, &page)
		all = append(all, page.Data...)
		if page.NextPageToken == "" {
			return all, page.NextSyncToken
		}
		token = page.NextPageToken
	}
	tb.Fatalf("%s did not end in 50 pages", path)
	return nil, ""
}

func esc(s string) string { return url.PathEscape(s) }

func TestOAuthFlowThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartStack(t)
	start := st.URL + "/v1/oauth/authorize/" + st.AppID + "/provider_b?" + url.Values{
		"redirectUrl": {appRedirect}, "state": {"app-state=="}, "prompt": {"select_account"}, "loginHint": {adaEmail},
	}.Encode()

	// A browser: it follows every redirect (to the fake's authorize page,
	// which signs Ada in and consents, then to our callback) and stops at
	// the application's redirect URL.
	var hops []string
	browser := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		hops = append(hops, req.URL.Scheme+"://"+req.URL.Host+req.URL.Path)
		if strings.HasPrefix(req.URL.String(), appRedirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := browser.Get(start)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantHops := []string{st.Graph.AuthURL(), st.URL + unical.OAuthCallbackPath, appRedirect}
	if strings.Join(hops, " ") != strings.Join(wantHops, " ") {
		t.Fatalf("redirects %v; want %v", hops, wantHops)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if back.Query().Get("state") != "app-state==" || back.Query().Get("endUserAccountId") == "" {
		t.Fatalf("back at the application with %s", back)
	}

	var acct unical.Account
	st.must(t, "GET", "/v1/endUserAccounts/"+back.Query().Get("endUserAccountId"), nil).Into(t, &acct)
	if acct.Email != adaEmail || acct.ProviderType != unical.ProviderMicrosoft || acct.ProviderID != "provider_b" ||
		acct.Status != unical.AccountStatusActive || acct.ProviderAccountID == nil || *acct.ProviderAccountID != st.UserID {
		t.Errorf("account from the OAuth flow = %+v", acct)
	}
	var cred unical.Credentials
	st.must(t, "GET", "/v1/endUserAccounts/"+acct.ID+"/credentials", nil).Into(t, &cred)
	if cred.AccessToken == "" || cred.RefreshToken == "" {
		t.Errorf("credentials = %+v", cred)
	}
	// The account works at once.
	st.must(t, "GET", "/v1/calendars/"+acct.ID, nil)
}
