package dashboard_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/dashboard"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/requestlog"
	"github.com/unical/unical/store/bolt"
)

const adminToken = "uat_dashboard-test-token-0123456789abcdefgh"

// fixture is a dashboard over a real Client on a bbolt store, served by
// httptest, with a controllable clock.
type fixture struct {
	client *unical.Client
	// engine are the engine settings configure chose.
	engine engine.Settings
	srv    *httptest.Server
	logs   *apitest.LogBuffer
	key    []byte
	// requests is the request log the Requests page shows.
	requests *requestlog.Log
	mu       sync.Mutex
	now      time.Time
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

func newFixture(t *testing.T, publicURL string, providers ...unical.Provider) *fixture {
	t.Helper()
	return newFixtureWith(t, publicURL, nil, providers...)
}

// newFixtureWith is newFixture with configure changing the Client's
// Config first.
func newFixtureWith(t *testing.T, publicURL string, configure func(*apitest.Config), providers ...unical.Provider) *fixture {
	t.Helper()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg := apitest.Config{Config: unical.Config{Store: store, MasterKey: [32]byte{1, 2, 3}, PublicURL: publicURL, Providers: providers}}
	if configure != nil {
		configure(&cfg)
	}
	client, err := unical.New(cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Of(client).SetAdminToken(t.Context(), adminToken); err != nil {
		t.Fatal(err)
	}
	f := &fixture{client: client, engine: cfg.Settings, logs: &apitest.LogBuffer{}, key: bytes.Repeat([]byte{7}, 32), now: time.Now()}
	f.requests = requestlog.New(requestlog.Config{Now: f.clock})
	f.srv = httptest.NewServer(f.handler(t, f.key, publicURL))
	t.Cleanup(f.srv.Close)
	return f
}

// handler is a dashboard over f's Client with the session key key, as a
// replica would run it.
func (f *fixture) handler(t *testing.T, key []byte, publicURL string) http.Handler {
	t.Helper()
	svc, err := admin.New(admin.Config{Client: f.client, RequestLog: f.requests})
	if err != nil {
		t.Fatal(err)
	}
	h, err := dashboard.New(dashboard.Config{
		Admin: svc, SessionKey: key, PublicURL: publicURL, SessionTTL: time.Hour,
		Logger: slog.New(slog.NewTextHandler(f.logs, nil)), Now: f.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// browser is an HTTP client with a cookie jar that does not follow
// redirects, so that tests see them.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (f *fixture) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: f.srv.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status   int
	body     string
	location string
	header   http.Header
}

func (b *browser) get(path string) page {
	b.t.Helper()
	resp, err := b.c.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, resp)
}

func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	resp, err := b.c.PostForm(b.base+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	return read(b.t, resp)
}

func read(t *testing.T, resp *http.Response) page {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: resp.StatusCode, body: string(body), location: resp.Header.Get("Location"), header: resp.Header}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of the first form on p.
func csrf(t *testing.T, p page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf field on the page:\n%s", p.body)
	}
	return m[1]
}

// login logs b in and returns the CSRF token of its session.
func (b *browser) login(token string) page {
	b.t.Helper()
	form := b.get("/dashboard/login")
	return b.post("/dashboard/login", url.Values{"csrf": {csrf(b.t, form)}, "token": {token}})
}

func (b *browser) mustLogin() string {
	b.t.Helper()
	if p := b.login(adminToken); p.status != http.StatusSeeOther || p.location != "/dashboard/overview" {
		b.t.Fatalf("login = %d to %q, want 303 to /dashboard/overview:\n%s", p.status, p.location, p.body)
	}
	return csrf(b.t, b.get("/dashboard/apps"))
}

func appNames(t *testing.T, c *unical.Client) []string {
	t.Helper()
	apps, err := admin.Of(c).ListApplicationViews(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range apps {
		names = append(names, a.Name)
	}
	return names
}

// TestLogin checks the login: a wrong token, an API key and a login form
// without its CSRF token are refused with the reason, and the right token
// sets a session cookie that is HttpOnly, SameSite=Strict, scoped to the
// dashboard, expiring, and Secure exactly when the public URL is https.
func TestLogin(t *testing.T) {
	for _, tt := range []struct {
		publicURL  string
		wantSecure bool
	}{{"http://127.0.0.1:8080", false}, {"https://cal.example.com", true}, {"", false}} {
		t.Run(tt.publicURL, func(t *testing.T) {
			f := newFixture(t, tt.publicURL)
			b := f.browser(t)
			if p := b.get("/dashboard/apps"); p.status != http.StatusSeeOther || p.location != "/dashboard/login" {
				t.Errorf("apps without a session = %d to %q, want 303 to the login page", p.status, p.location)
			}
			for _, c := range []struct {
				name, token string
				status      int
				want        string
			}{
				{"wrong token", "uat_wrong-token-0123456789abcdefghijkl", http.StatusUnauthorized, "The admin token is wrong."},
				{"empty", "", http.StatusUnauthorized, "operator token"},
				{"API key", "uk_abc_def", http.StatusUnauthorized, "application API key"},
			} {
				p := b.login(c.token)
				if p.status != c.status || !strings.Contains(p.body, c.want) {
					t.Errorf("%s: login = %d, want %d with %q:\n%s", c.name, p.status, c.status, c.want, p.body)
				}
			}
			if p := b.post("/dashboard/login", url.Values{"token": {adminToken}}); p.status != http.StatusForbidden {
				t.Errorf("login without the form's CSRF token = %d, want 403", p.status)
			}
			if p := b.get("/dashboard/apps"); p.status != http.StatusSeeOther {
				t.Errorf("refused logins left a session: apps = %d", p.status)
			}

			form := b.get("/dashboard/login")
			resp, err := b.c.PostForm(b.base+"/dashboard/login", url.Values{"csrf": {csrf(t, form)}, "token": {adminToken}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var session *http.Cookie
			for _, c := range resp.Cookies() {
				if c.Name == "unical_dashboard" {
					session = c
				}
			}
			if session == nil {
				t.Fatalf("login set no session cookie: %v", resp.Header["Set-Cookie"])
			}
			got := struct {
				HttpOnly, Secure bool
				SameSite         http.SameSite
				Path             string
				MaxAge           int
			}{session.HttpOnly, session.Secure, session.SameSite, session.Path, session.MaxAge}
			want := got
			want.HttpOnly, want.Secure, want.SameSite, want.Path, want.MaxAge = true, tt.wantSecure, http.SameSiteStrictMode, "/dashboard/", 3600
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("session cookie (-want +got):\n%s", diff)
			}
			if strings.Contains(f.logs.String(), adminToken) || strings.Contains(session.Value, adminToken) {
				t.Error("the admin token is in the logs or the cookie")
			}
		})
	}
}

// TestSession checks the stateless session: another replica with the
// same key accepts it, one with another key does not, a tampered cookie
// is refused, and the session ends when it expires, when the admin token
// changes, and when the operator logs out.
func TestSession(t *testing.T) {
	f := newFixture(t, "")
	b := f.browser(t)
	csrfToken := b.mustLogin()
	u, _ := url.Parse(f.srv.URL + "/dashboard/")
	cookie := b.c.Jar.Cookies(u)[0]
	if cookie.Name != "unical_dashboard" {
		t.Fatalf("cookie %s, want unical_dashboard", cookie.Name)
	}
	status := func(h http.Handler, value string) int {
		req := httptest.NewRequest("GET", "/dashboard/apps", nil)
		req.AddCookie(&http.Cookie{Name: "unical_dashboard", Value: value})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	replica := f.handler(t, f.key, "")
	other := f.handler(t, bytes.Repeat([]byte{8}, 32), "")
	tampered := []byte(cookie.Value)
	tampered[3] ^= 1
	got := map[string]int{
		"replica":   status(replica, cookie.Value),
		"other key": status(other, cookie.Value),
		"tampered":  status(replica, string(tampered)),
		"truncated": status(replica, cookie.Value[:len(cookie.Value)-4]),
		"garbage":   status(replica, "garbage.value"),
	}
	want := map[string]int{"replica": 200, "other key": 303, "tampered": 303, "truncated": 303, "garbage": 303}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET apps with the session cookie (-want +got):\n%s", diff)
	}

	f.advance(59 * time.Minute)
	if p := b.get("/dashboard/apps"); p.status != http.StatusOK {
		t.Errorf("apps before the session expires = %d, want 200", p.status)
	}
	f.advance(2 * time.Minute)
	if got := status(replica, cookie.Value); got != http.StatusSeeOther {
		t.Errorf("apps after the session expired = %d, want 303 to login", got)
	}

	// A new admin token ends the sessions made with the old one.
	b3 := f.browser(t)
	b3.mustLogin()
	if err := admin.Of(f.client).SetAdminToken(t.Context(), adminToken+"-new"); err != nil {
		t.Fatal(err)
	}
	if p := b3.get("/dashboard/apps"); p.status != http.StatusSeeOther {
		t.Errorf("apps after the admin token changed = %d, want 303 to login", p.status)
	}
	if err := admin.Of(f.client).SetAdminToken(t.Context(), adminToken); err != nil {
		t.Fatal(err)
	}

	b2 := f.browser(t)
	csrf2 := b2.mustLogin()
	if csrf2 == csrfToken {
		t.Error("two sessions have the same CSRF token")
	}
	kept := b2.c.Jar.Cookies(u)[0].Value
	if p := b2.post("/dashboard/logout", url.Values{"csrf": {csrf2}}); p.status != http.StatusSeeOther || p.location != "/dashboard/login" {
		t.Errorf("logout = %d to %q", p.status, p.location)
	}
	if p := b2.get("/dashboard/apps"); p.status != http.StatusSeeOther {
		t.Errorf("apps after logout = %d, want 303 to login", p.status)
	}
	// A copy of the cookie kept from before the logout is refused too, on
	// every replica: the logout is recorded in the Store.
	if got := map[string]int{"this replica": status(f.srv.Config.Handler, kept), "another replica": status(replica, kept)}; !cmp.Equal(got, map[string]int{"this replica": 303, "another replica": 303}) {
		t.Errorf("apps with a copy of the logged-out cookie = %v, want 303 to login on both", got)
	}
}

// TestLogin_FailureLimit fails the login ten times with unicald's limit
// of ten failures per address: the next wrong token is answered 429 with
// Retry-After and sets no session, but the right token still logs in
// (only failures are throttled).
func TestLogin_FailureLimit(t *testing.T) {
	f := newFixture(t, "")
	h, err := dashboard.New(dashboard.Config{
		Admin: admin.Of(f.client), SessionKey: f.key, Now: f.clock,
		Failures: httpapi.NewFailureLimiter(httpapi.LimiterConfig{Rate: httpapi.DefaultFailureLimit, TrustForwardedFor: false}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	b := f.browser(t)
	b.base = srv.URL
	var got, want [][]any
	login := func(token string) {
		p := b.login(token)
		wait := p.header.Get("Retry-After")
		// A one-minute lockout has 1 to 60 whole seconds left: a second
		// may pass on a loaded machine before the answer.
		if n, err := strconv.Atoi(wait); err == nil && n >= 1 && n <= 60 {
			wait = "1-60"
		}
		got = append(got, []any{p.status, wait, p.location})
	}
	for i := 0; i < 10; i++ {
		login(fmt.Sprintf("wrong-%d", i))
		want = append(want, []any{http.StatusUnauthorized, "", ""})
	}
	login("wrong-10")
	want = append(want, []any{http.StatusTooManyRequests, "1-60", ""})
	if p := b.get("/dashboard/apps"); p.status != http.StatusSeeOther {
		t.Errorf("apps after a refused login = %d, want 303 to login", p.status)
	}
	login(adminToken)
	want = append(want, []any{http.StatusSeeOther, "", "/dashboard/overview"})
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("logins (-want +got):\n%s", d)
	}
	if p := b.get("/dashboard/apps"); p.status != http.StatusOK {
		t.Errorf("apps after the right token during the lockout = %d, want 200", p.status)
	}
}

// TestForms checks that a form without its session's CSRF token (missing,
// wrong, or another session's) or without a session is refused with 403
// and changes nothing, and that bad input is answered with the status of
// its error and a message naming the field, changing nothing either.
func TestForms(t *testing.T) {
	f := newFixture(t, "")
	b := f.browser(t)
	token := b.mustLogin()
	other := f.browser(t).mustLogin()
	if p := b.post("/dashboard/apps", url.Values{"csrf": {token}, "name": {"first"}}); p.status != http.StatusOK {
		t.Fatalf("create application = %d:\n%s", p.status, p.body)
	}
	for _, c := range []struct {
		name string
		b    *browser
		form url.Values
	}{
		{"missing", b, url.Values{"name": {"forged"}}},
		{"wrong", b, url.Values{"name": {"forged"}, "csrf": {"AAAA"}}},
		{"another session's", b, url.Values{"name": {"forged"}, "csrf": {other}}},
		{"no session", f.browser(t), url.Values{"name": {"forged"}, "csrf": {token}}},
	} {
		if p := c.b.post("/dashboard/apps", c.form); p.status != http.StatusForbidden {
			t.Errorf("%s CSRF token: create = %d, want 403", c.name, p.status)
		}
	}
	if diff := cmp.Diff([]string{"first"}, appNames(t, f.client)); diff != "" {
		t.Errorf("applications after refused forms (-want +got):\n%s", diff)
	}

	apps, _ := admin.Of(f.client).ListApplicationViews(t.Context())
	app := "/dashboard/apps/" + apps[0].ID
	for _, c := range []struct {
		name, path string
		form       url.Values
		status     int
		want       string
	}{
		{"empty name", "/dashboard/apps", url.Values{"name": {" "}}, 400, "name"},
		{"empty rename", app + "/rename", url.Values{"name": {""}}, 400, "name"},
		{"malformed redirect URL", app + "/redirects", url.Values{"url": {"not a url"}}, 400, "url"},
		{"bad provider URL", app + "/providers/provider_a", url.Values{"clientId": {"id"}, "tokenUrl": {"ftp//x"}}, 400, "tokenUrl"},
		{"unknown provider", app + "/providers/provider_z", url.Values{"clientId": {"id"}}, 404, "provider_z"},
		{"unknown key", app + "/keys/key_nope/revoke", nil, 404, ""},
		{"unknown account", app + "/accounts/acct_nope/delete", nil, 404, ""},
		{"unknown message", app + "/webhooks/resend", url.Values{"message": {"msg_nope"}}, 404, ""},
		{"http webhook", app + "/webhooks/url", url.Values{"url": {"http://example.com/hook"}}, 400, "url"},
		{"unknown application", "/dashboard/apps/app_nope/keys", nil, 404, "app_nope"},
	} {
		form := url.Values{"csrf": {token}}
		for k, v := range c.form {
			form[k] = v
		}
		p := b.post(c.path, form)
		if p.status != c.status || !strings.Contains(p.body, `class="error"`) || !strings.Contains(p.body, c.want) {
			t.Errorf("%s: = %d, want %d with an error naming %q:\n%s", c.name, p.status, c.status, c.want, p.body)
		}
	}
	view, err := admin.Of(f.client).GetApplicationView(t.Context(), apps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if view.Name != "first" || len(view.RedirectURLs) != 0 || view.Webhook.URL != "" || view.Providers[0].Configured {
		t.Errorf("refused input changed the application: %+v", view)
	}
}

// TestSecretsShownOnce checks that a new API key, a webhook secret and a
// client secret are in no page after the one that shows a new secret, nor
// in the logs.
func TestSecretsShownOnce(t *testing.T) {
	f := newFixture(t, "https://cal.example.com")
	b := f.browser(t)
	token := b.mustLogin()
	created := b.post("/dashboard/apps", url.Values{"csrf": {token}, "name": {"secrets"}})
	apiKey := regexp.MustCompile(`value="(uk_[^"]+)"`).FindStringSubmatch(created.body)
	if apiKey == nil {
		t.Fatalf("the created page shows no API key:\n%s", created.body)
	}
	apps, _ := admin.Of(f.client).ListApplicationViews(t.Context())
	app := "/dashboard/apps/" + apps[0].ID
	newKey := regexp.MustCompile(`value="(uk_[^"]+)"`).FindStringSubmatch(b.post(app+"/keys", url.Values{"csrf": {token}}).body)
	if newKey == nil {
		t.Fatal("the key page shows no new key")
	}
	const clientSecret = "GOCSPX-client-secret-needle"
	if p := b.post(app+"/providers/provider_a", url.Values{"csrf": {token}, "clientId": {"cid"}, "clientSecret": {clientSecret}}); p.status != http.StatusSeeOther {
		t.Fatalf("save provider = %d:\n%s", p.status, p.body)
	}
	// A non-private https URL: the Client refuses private targets.
	hook := b.post(app+"/webhooks/url", url.Values{"csrf": {token}, "url": {"https://hooks.example.com/unical"}})
	whsec := regexp.MustCompile(`value="(whsec_[^"]+)"`).FindStringSubmatch(hook.body)
	if whsec == nil {
		t.Fatalf("the webhooks page shows no new secret:\n%s", hook.body)
	}
	rotated := regexp.MustCompile(`value="(whsec_[^"]+)"`).FindStringSubmatch(b.post(app+"/webhooks/rotate", url.Values{"csrf": {token}}).body)
	if rotated == nil || rotated[1] == whsec[1] {
		t.Fatalf("rotate showed %v, want a new secret", rotated)
	}

	secrets := []string{adminToken, apiKey[1], newKey[1], clientSecret, whsec[1], rotated[1]}
	var pages []string
	for _, path := range []string{"/dashboard/apps", app, app + "/keys", app + "/redirects", app + "/providers", app + "/accounts", app + "/webhooks"} {
		p := b.get(path)
		if p.status != http.StatusOK {
			t.Errorf("GET %s = %d", path, p.status)
		}
		if cc := p.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("GET %s: Cache-Control %q, want no-store", path, cc)
		}
		pages = append(pages, p.body)
	}
	if !strings.Contains(pages[4], "A client secret is set") || !strings.Contains(pages[4], "https://cal.example.com/v1/oauth/callback") {
		t.Errorf("the providers page does not say the secret is set and show the callback URL:\n%s", pages[4])
	}
	for i, s := range secrets {
		for j, p := range pages {
			if strings.Contains(p, s) {
				t.Errorf("secret %d is on page %d after the page that showed it", i, j)
			}
		}
		if strings.Contains(f.logs.String(), s) {
			t.Errorf("secret %d is in the logs", i)
		}
	}
}

// TestSetupChecklist checks that the Set-up page lists exactly what OAuth
// still lacks, and the check action's verdict on the Providers page.
func TestSetupChecklist(t *testing.T) {
	f := newFixture(t, "")
	b := f.browser(t)
	token := b.mustLogin()
	b.post("/dashboard/apps", url.Values{"csrf": {token}, "name": {"setup"}})
	apps, _ := admin.Of(f.client).ListApplicationViews(t.Context())
	app := "/dashboard/apps/" + apps[0].ID
	missing := regexp.MustCompile(`Missing: ([^<]+)</strong>`)
	steps := func() []string {
		var out []string
		for _, m := range missing.FindAllStringSubmatch(b.get(app).body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	if diff := cmp.Diff([]string{"Public URL", "An OAuth provider", "A redirect URL"}, steps()); diff != "" {
		t.Errorf("missing steps of a new application (-want +got):\n%s", diff)
	}
	b.post(app+"/providers/provider_b", url.Values{"csrf": {token}, "clientId": {"cid"}, "clientSecret": {"s"}})
	b.post(app+"/redirects", url.Values{"csrf": {token}, "url": {"https://app.example.com/done"}})
	if diff := cmp.Diff([]string{"Public URL"}, steps()); diff != "" {
		t.Errorf("missing steps with a provider and a redirect URL (-want +got):\n%s", diff)
	}
	check := b.post(app+"/providers/provider_b/check", url.Values{"csrf": {token}})
	if check.status != http.StatusOK || !strings.Contains(check.body, `id="check-result"`) || !strings.Contains(check.body, "publicUrl") {
		t.Errorf("check = %d, want a result naming publicUrl:\n%s", check.status, check.body)
	}
}

// TestAccounts checks the Accounts page: it lists each account with its
// status and the reason an expired one expired, its search and status
// filter keep the matching ones, and its delete form deletes one.
func TestAccounts(t *testing.T) {
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	google.AddUser("ada@example.com", "refresh-ada", "")
	google.AddUser("bob@example.com", "refresh-bob", "")
	dav := memory.New(memory.Config{Type: unical.ProviderCalDAV})
	dav.AddUser("cy@example.com", "", "app-password")
	f := newFixture(t, "", google, dav)
	created, err := admin.Of(f.client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("accounts")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := f.client.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, who := range []string{"ada", "bob"} {
		acct, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: who + "@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-" + who)})
		if err != nil {
			t.Fatal(err)
		}
		ids[who] = acct.ID
	}
	// A CalDAV account shows its server.
	if _, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "cy@example.com", ProviderType: unical.ProviderCalDAV,
		Password: unical.Some("app-password"), ServerURL: unical.Some("https://dav.example.org/")}); err != nil {
		t.Fatal(err)
	}
	// Bob withdraws access; the next call for him finds out. (The memory
	// provider gives no reason, so the reason is "unknown".)
	google.Revoke("bob@example.com")
	if _, err := app.ListCalendars(t.Context(), ids["bob"], nil); unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Fatalf("calendars of a revoked account: %v, want account_expired", err)
	}

	b := f.browser(t)
	token := b.mustLogin()
	row := regexp.MustCompile(`<tr><td>([^<]+)</td><td>[^<]+</td><td>([^<]*)</td><td><span class="status [A-Z]+">([A-Z]+)</span></td><td>([^<]*)</td>`)
	rows := func(query string) []string {
		t.Helper()
		p := b.get("/dashboard/apps/" + created.ApplicationID + "/accounts" + query)
		if p.status != http.StatusOK {
			t.Fatalf("accounts%s = %d:\n%s", query, p.status, p.body)
		}
		var out []string
		for _, m := range row.FindAllStringSubmatch(p.body, -1) {
			out = append(out, strings.Join(m[1:], " "))
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"", []string{"ada@example.com  ACTIVE ", "bob@example.com  EXPIRED unknown", "cy@example.com https://dav.example.org/ ACTIVE "}},
		{"?status=expired", []string{"bob@example.com  EXPIRED unknown"}},
		{"?q=ADA", []string{"ada@example.com  ACTIVE "}},
		{"?q=nobody", nil},
	} {
		if diff := cmp.Diff(c.want, rows(c.query)); diff != "" {
			t.Errorf("accounts%s (-want +got):\n%s", c.query, diff)
		}
	}
	if p := b.get("/dashboard/apps/" + created.ApplicationID + "/accounts?status=gone"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "statusFilter") {
		t.Errorf("accounts with a bad status = %d, want 400 naming statusFilter", p.status)
	}

	p := b.post("/dashboard/apps/"+created.ApplicationID+"/accounts/"+ids["bob"]+"/delete", url.Values{"csrf": {token}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("delete account = %d:\n%s", p.status, p.body)
	}
	if diff := cmp.Diff([]string{"ada@example.com  ACTIVE ", "cy@example.com https://dav.example.org/ ACTIVE "}, rows("")); diff != "" {
		t.Errorf("accounts after deleting bob (-want +got):\n%s", diff)
	}
	if _, err := app.GetAccount(t.Context(), ids["bob"]); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetAccount of the deleted account: %v, want not_found", err)
	}
}
