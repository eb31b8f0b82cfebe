package adminapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/openapitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/requestlog"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// server is unicald's handler pair (/admin/v1 beside /v1) on loopback,
// each side checked against its OpenAPI document, with its logs kept.
type server struct {
	url    string
	client *unical.Client
	store  *bolt.Store
	dbPath string
	token  string
	logs   *apitest.LogBuffer
	caldav *memory.Provider
	// adaCalendar is ada@example.com's calendar.
	adaCalendar string
	// receiver gets the application webhooks; it answers with answer.
	receiver *apitest.Receiver
	answer   func() int
}

// startServer starts the server with a CalDAV memory provider (user
// ada@example.com, password "pw"), runs the webhook engine with one
// attempt per message, and sets a new admin token.
func startServer(t *testing.T, configure func(*apitest.Config)) *server {
	t.Helper()
	s := &server{dbPath: filepath.Join(t.TempDir(), "unical.db"), logs: &apitest.LogBuffer{}}
	store, err := bolt.Open(bolt.Config{Path: s.dbPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s.store = store
	s.caldav = memory.New(memory.Config{Type: unical.ProviderCalDAV})
	s.adaCalendar = s.caldav.AddUser("ada@example.com", "", "pw")
	s.caldav.AddUser("bob@example.com", "", "pw")
	var answerMu sync.Mutex
	status := http.StatusNoContent
	s.answer = func() int { answerMu.Lock(); defer answerMu.Unlock(); return status }
	s.receiver = apitest.NewReceiverAnswering(t, func(int) int { return s.answer() })
	logger := slog.New(slog.NewJSONHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var h http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	s.url = ts.URL
	cfg := apitest.Config{
		Config:   unical.Config{Store: store, Providers: []unical.Provider{s.caldav}, MasterKey: seal.NewKey(), PublicURL: ts.URL, Logger: logger, AllowPrivateTargets: true},
		Settings: engine.Settings{Sender: s.receiver.Sender(), RetrySchedule: []time.Duration{0}, RetryJitter: -1},
	}
	if configure != nil {
		configure(&cfg)
	}
	s.client, err = unical.New(cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.client.Close() })
	go engine.Run(t.Context(), s.client, cfg.Settings)
	root := http.NewServeMux()
	// One request log, as unicald wires it: /v1 writes, the admin API reads.
	requests := requestlog.New(requestlog.Config{})
	svc, err := admin.New(admin.Config{Client: s.client, RequestLog: requests})
	if err != nil {
		t.Fatal(err)
	}
	root.Handle(adminapi.Prefix, openapitest.HandlerFor(t, adminapi.OpenAPIDocument, adminapi.NewHandler(adminapi.Config{Service: svc, Logger: logger})))
	root.Handle("/", openapitest.Handler(t, httpapi.NewHandler(httpapi.Config{Client: s.client, Logger: logger, RequestLog: requests})))
	h = root
	s.token = admin.NewAdminToken()
	if err := admin.Of(s.client).SetAdminToken(t.Context(), s.token); err != nil {
		t.Fatal(err)
	}
	return s
}

// setFailing makes the receiver answer 500 (true) or 204 (false).
func (s *server) setAnswer(t *testing.T, status int) {
	s.answer = func() int { return status }
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) into(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// errorBody is the one error shape.
type errorBody struct {
	Error struct {
		Code    string   `json:"code"`
		Message string   `json:"message"`
		Field   string   `json:"field"`
		Allowed []string `json:"allowed"`
	} `json:"error"`
}

// send sends a request with the given headers; a non-nil body that is not
// a string is JSON-encoded.
func (s *server) send(t *testing.T, method, path string, headers map[string]string, body any) *response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

// admin sends a request with the admin token.
func (s *server) admin(t *testing.T, method, path string, body any) *response {
	t.Helper()
	return s.send(t, method, path, map[string]string{"Authorization": "Bearer " + s.token}, body)
}

// must sends an admin request that must answer 200 and decodes it into v.
func (s *server) must(t *testing.T, method, path string, body, v any) {
	t.Helper()
	r := s.admin(t, method, path, body)
	if r.status != http.StatusOK {
		t.Fatalf("%s %s = %d, want 200\n%s", method, path, r.status, r.body)
	}
	if v != nil {
		r.into(t, v)
	}
}

// wantError checks an error answer's status, code and field.
func wantError(t *testing.T, r *response, status int, code, field string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d\n%s", r.status, status, r.body)
	}
	var e errorBody
	r.into(t, &e)
	if e.Error.Code != code || e.Error.Field != field {
		t.Errorf("error = %s (field %q), want %s (field %q): %s", e.Error.Code, e.Error.Field, code, field, e.Error.Message)
	}
}

// v1 sends a /v1 request with an application API key.
func (s *server) v1(t *testing.T, key, method, path string, body any) *response {
	t.Helper()
	return s.send(t, method, path, map[string]string{"x-api-key": key}, body)
}

type created struct {
	Application admin.ApplicationView `json:"application"`
	APIKey      string                `json:"apiKey"`
}

// createApp creates an application through the admin API.
func (s *server) createApp(t *testing.T, name string) created {
	t.Helper()
	var c created
	s.must(t, "POST", "/admin/v1/applications", map[string]string{"name": name}, &c)
	return c
}

// connect connects a CalDAV account through /v1.
func (s *server) connect(t *testing.T, key, email string) string {
	t.Helper()
	r := s.v1(t, key, "POST", "/v1/endUserAccounts", map[string]any{"providerType": "PROVIDER_C", "email": email, "password": "pw"})
	if r.status != http.StatusOK {
		t.Fatalf("connect %s = %d\n%s", email, r.status, r.body)
	}
	var acct unical.Account
	r.into(t, &acct)
	return acct.ID
}

// applications lists the applications' ids and names.
func (s *server) applications(t *testing.T) []string {
	t.Helper()
	var list struct {
		Data []admin.ApplicationView `json:"data"`
	}
	s.must(t, "GET", "/admin/v1/applications", nil, &list)
	var out []string
	for _, a := range list.Data {
		out = append(out, a.ID+" "+a.Name)
	}
	return out
}

func TestAuthentication(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "one")
	// A scoped token of the application, with every scope.
	issue := s.v1(t, app.APIKey, "POST", "/v1/tokens", map[string]any{"endUserAccountIds": []string{s.connect(t, app.APIKey, "ada@example.com")},
		"scopes": []string{"freebusy.read", "events.read", "events.write"}, "ttlSeconds": 600})
	var scoped struct{ Token string }
	if issue.status != http.StatusCreated {
		t.Fatalf("POST /v1/tokens = %d\n%s", issue.status, issue.body)
	}
	issue.into(t, &scoped)
	before := s.applications(t)
	body := map[string]string{"name": "sneaky"}
	for _, tc := range []struct {
		name    string
		headers map[string]string
	}{
		{"no token", nil},
		{"wrong token", map[string]string{"Authorization": "Bearer " + admin.NewAdminToken()}},
		{"basic scheme", map[string]string{"Authorization": "Basic " + s.token}},
		{"application key as x-api-key", map[string]string{"x-api-key": app.APIKey}},
		{"application key as bearer", map[string]string{"Authorization": "Bearer " + app.APIKey}},
		{"scoped token", map[string]string{"Authorization": "Bearer " + scoped.Token}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.send(t, "POST", "/admin/v1/applications", tc.headers, body)
			wantError(t, r, http.StatusUnauthorized, "unauthorized", "Authorization")
			if got := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want Bearer", got)
			}
		})
	}
	if d := cmp.Diff(before, s.applications(t)); d != "" {
		t.Errorf("refused requests changed the applications (-before +after):\n%s", d)
	}
	// The admin token is not an application key.
	wantError(t, s.v1(t, s.token, "GET", "/v1/endUserAccounts", nil), http.StatusUnauthorized, "unauthorized", "x-api-key")
	// The document is public, like /v1's.
	if r := s.send(t, "GET", "/admin/v1/openapi.json", nil, nil); r.status != http.StatusOK || !bytes.Equal(r.body, adminapi.OpenAPIDocument) {
		t.Errorf("GET /admin/v1/openapi.json = %d, %d bytes", r.status, len(r.body))
	}
	// Unknown paths and methods answer the error body.
	wantError(t, s.admin(t, "GET", "/admin/v1/nothing", nil), http.StatusNotFound, "not_found", "")
	r := s.admin(t, "PATCH", "/admin/v1/applications", nil)
	wantError(t, r, http.StatusMethodNotAllowed, "method_not_allowed", "")
	if got := r.header.Get("Allow"); got != "GET, POST" {
		t.Errorf("Allow = %q, want GET, POST", got)
	}
}

func TestApplications(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "Calendar app")
	if app.Application.Name != "Calendar app" || !strings.HasPrefix(app.APIKey, "uk_") {
		t.Fatalf("created %+v", app)
	}
	// The first key works on /v1.
	if r := s.v1(t, app.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK {
		t.Fatalf("the new key on /v1 = %d\n%s", r.status, r.body)
	}
	id := app.Application.ID
	path := "/admin/v1/applications/" + id

	wantError(t, s.admin(t, "POST", "/admin/v1/applications", map[string]string{"name": " "}), http.StatusBadRequest, "invalid_request", "name")
	wantError(t, s.admin(t, "POST", "/admin/v1/applications", map[string]any{"name": "x", "color": 1}), http.StatusBadRequest, "invalid_request", "color")
	wantError(t, s.admin(t, "POST", "/admin/v1/applications", "{"), http.StatusBadRequest, "invalid_request", "")
	if got := s.applications(t); len(got) != 1 {
		t.Fatalf("after refused creates: %v, want the one application", got)
	}

	var renamed admin.ApplicationView
	s.must(t, "PUT", path, map[string]string{"name": "Renamed"}, &renamed)
	if renamed.Name != "Renamed" {
		t.Errorf("renamed to %q", renamed.Name)
	}
	wantError(t, s.admin(t, "PUT", path, map[string]string{"name": ""}), http.StatusBadRequest, "invalid_request", "name")
	wantError(t, s.admin(t, "PUT", "/admin/v1/applications/app_unknown", map[string]string{"name": "x"}), http.StatusNotFound, "not_found", "")
	wantError(t, s.admin(t, "GET", "/admin/v1/applications/app_unknown", nil), http.StatusNotFound, "not_found", "")
	var got admin.ApplicationView
	s.must(t, "GET", path, nil, &got)
	if got.Name != "Renamed" || len(got.Providers) != 3 || got.Webhook == nil {
		t.Errorf("GET = %+v", got)
	}

	// Deleting refuses while an account exists, and changes nothing.
	s.connect(t, app.APIKey, "ada@example.com")
	wantError(t, s.admin(t, "DELETE", path, nil), http.StatusConflict, "conflict", "cascade")
	wantError(t, s.admin(t, "DELETE", path+"?cascade=yes", nil), http.StatusBadRequest, "invalid_request", "cascade")
	if r := s.v1(t, app.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK || !strings.Contains(string(r.body), "ada@example.com") {
		t.Fatalf("after refused delete /v1 = %d\n%s", r.status, r.body)
	}
	var deleted admin.ApplicationDeleted
	s.must(t, "DELETE", path+"?cascade=true", nil, &deleted)
	if d := cmp.Diff(admin.ApplicationDeleted{ApplicationID: id, AccountsDeleted: 1}, deleted); d != "" {
		t.Errorf("delete answer (-want +got):\n%s", d)
	}
	wantError(t, s.admin(t, "GET", path, nil), http.StatusNotFound, "not_found", "")
	wantError(t, s.v1(t, app.APIKey, "GET", "/v1/endUserAccounts", nil), http.StatusUnauthorized, "unauthorized", "x-api-key")
	wantError(t, s.admin(t, "DELETE", path, nil), http.StatusNotFound, "not_found", "")
	// An application without accounts goes without cascade.
	other := s.createApp(t, "empty")
	s.must(t, "DELETE", "/admin/v1/applications/"+other.Application.ID, nil, &deleted)
	if got := s.applications(t); len(got) != 0 {
		t.Errorf("applications left: %v", got)
	}
}

func TestAPIKeys(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "keys")
	keys := "/admin/v1/applications/" + app.Application.ID + "/keys"
	var made struct {
		Key    admin.APIKeyView `json:"key"`
		APIKey string           `json:"apiKey"`
	}
	s.must(t, "POST", keys, nil, &made)
	if !strings.HasPrefix(made.APIKey, made.Key.Prefix) || made.Key.LastUsedAt != nil {
		t.Fatalf("created key %+v with %q", made.Key, made.APIKey)
	}
	if r := s.v1(t, made.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK {
		t.Fatalf("the new key on /v1 = %d", r.status)
	}
	r := s.admin(t, "GET", keys, nil)
	if r.status != http.StatusOK {
		t.Fatalf("list = %d", r.status)
	}
	if strings.Contains(string(r.body), made.APIKey) || strings.Contains(string(r.body), app.APIKey) {
		t.Errorf("the key list holds a secret: %s", r.body)
	}
	var list struct {
		Data []admin.APIKeyView `json:"data"`
	}
	r.into(t, &list)
	if len(list.Data) != 2 || list.Data[1].ID != made.Key.ID || list.Data[1].LastUsedAt == nil {
		t.Fatalf("list = %s, want two keys, the new one used", r.body)
	}

	// Revoking stops the key at once, and leaves the other.
	s.must(t, "DELETE", keys+"/"+made.Key.ID, nil, nil)
	wantError(t, s.v1(t, made.APIKey, "GET", "/v1/endUserAccounts", nil), http.StatusUnauthorized, "unauthorized", "x-api-key")
	if r := s.v1(t, app.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK {
		t.Errorf("the other key = %d", r.status)
	}
	wantError(t, s.admin(t, "DELETE", keys+"/"+made.Key.ID, nil), http.StatusNotFound, "not_found", "")
	wantError(t, s.admin(t, "POST", "/admin/v1/applications/app_unknown/keys", nil), http.StatusNotFound, "not_found", "")
	wantError(t, s.admin(t, "GET", "/admin/v1/applications/app_unknown/keys", nil), http.StatusNotFound, "not_found", "")
	// Another application's key id is unknown here.
	other := s.createApp(t, "other")
	var otherKeys struct {
		Data []admin.APIKeyView `json:"data"`
	}
	s.must(t, "GET", "/admin/v1/applications/"+other.Application.ID+"/keys", nil, &otherKeys)
	wantError(t, s.admin(t, "DELETE", keys+"/"+otherKeys.Data[0].ID, nil), http.StatusNotFound, "not_found", "")
	if r := s.v1(t, other.APIKey, "GET", "/v1/endUserAccounts", nil); r.status != http.StatusOK {
		t.Errorf("the other application's key after a foreign revoke = %d", r.status)
	}
}

func TestRedirectURLs(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "redirects")
	path := "/admin/v1/applications/" + app.Application.ID + "/redirectUrls"
	type urls struct {
		Data []string `json:"data"`
	}
	var got urls
	s.must(t, "GET", path, nil, &got)
	if len(got.Data) != 0 {
		t.Fatalf("new application has %v", got.Data)
	}
	s.must(t, "POST", path, map[string]string{"url": "https://app.example/done"}, nil)
	s.must(t, "POST", path, map[string]string{"url": "http://localhost:3000/cb"}, nil)
	s.must(t, "POST", path, map[string]string{"url": "https://app.example/done"}, &got)
	want := []string{"https://app.example/done", "http://localhost:3000/cb"}
	if d := cmp.Diff(want, got.Data); d != "" {
		t.Errorf("after adds (-want +got):\n%s", d)
	}
	for _, bad := range []string{"", "not a url", "/relative", "https://app.example/x#frag", "ftp://app.example/", "https://app.example/" + strings.Repeat("a", 2100)} {
		wantError(t, s.admin(t, "POST", path, map[string]string{"url": bad}), http.StatusBadRequest, "invalid_request", "url")
	}
	wantError(t, s.admin(t, "POST", path, map[string]any{"url": 5}), http.StatusBadRequest, "invalid_request", "url")
	wantError(t, s.admin(t, "DELETE", path+"?url="+url.QueryEscape("https://other.example/"), nil), http.StatusNotFound, "not_found", "url")
	wantError(t, s.admin(t, "DELETE", path, nil), http.StatusBadRequest, "invalid_request", "url")
	// Strict input, as on /v1: a misspelt parameter or key is refused.
	wantError(t, s.admin(t, "DELETE", path+"?URL="+url.QueryEscape("https://app.example/done"), nil), http.StatusBadRequest, "invalid_request", "URL")
	wantError(t, s.admin(t, "GET", path+"?limit=1", nil), http.StatusBadRequest, "invalid_request", "limit")
	wantError(t, s.admin(t, "POST", path, `{"URL":"https://app.example/other"}`), http.StatusBadRequest, "invalid_request", "URL")
	wantError(t, s.admin(t, "POST", path, `{"url":"https://app.example/a","url":"https://app.example/b"}`), http.StatusBadRequest, "invalid_request", "url")
	s.must(t, "GET", path, nil, &got)
	if d := cmp.Diff(want, got.Data); d != "" {
		t.Errorf("after refused changes (-want +got):\n%s", d)
	}
	s.must(t, "DELETE", path+"?url="+url.QueryEscape("http://localhost:3000/cb"), nil, &got)
	if d := cmp.Diff(want[:1], got.Data); d != "" {
		t.Errorf("after remove (-want +got):\n%s", d)
	}
	wantError(t, s.admin(t, "GET", "/admin/v1/applications/app_unknown/redirectUrls", nil), http.StatusNotFound, "not_found", "")
	wantError(t, s.admin(t, "POST", "/admin/v1/applications/app_unknown/redirectUrls", map[string]string{"url": "https://app.example/"}), http.StatusNotFound, "not_found", "")
}

func TestProviderSettings(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "providers")
	base := "/admin/v1/applications/" + app.Application.ID + "/providers"
	const secret = "client-secret-7f3b9a0c1d2e"
	settings := map[string]any{
		"clientId": "1234.apps.example", "clientSecret": secret, "scopes": []string{"openid", "email"},
		"authUrl": "https://auth.example/authorize", "tokenUrl": "https://auth.example/token",
		"apiBaseUrl": "https://api.example/", "tenant": "contoso.onmicrosoft.com",
	}
	r := s.admin(t, "PUT", base+"/provider_b", settings)
	if r.status != http.StatusOK {
		t.Fatalf("PUT = %d\n%s", r.status, r.body)
	}
	if strings.Contains(string(r.body), secret) {
		t.Fatalf("the answer holds the client secret: %s", r.body)
	}
	want := admin.ProviderSettingsView{
		Provider: unical.ProviderMicrosoft, DisplayName: "Microsoft Outlook", Settings: admin.Shipped[1].Settings,
		Configured: true, ClientID: "1234.apps.example", ClientSecretSet: true,
		Scopes: []string{"openid", "email"}, AuthURL: "https://auth.example/authorize", TokenURL: "https://auth.example/token",
		APIBaseURL: "https://api.example/", Tenant: "contoso.onmicrosoft.com",
		CallbackURL: s.url + unical.OAuthCallbackPath,
	}
	var got admin.ProviderSettingsView
	r.into(t, &got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("PUT answer (-want +got):\n%s", d)
	}
	for _, path := range []string{base + "/provider_b", base, "/admin/v1/applications/" + app.Application.ID, "/admin/v1/applications"} {
		r := s.admin(t, "GET", path, nil)
		if r.status != http.StatusOK || strings.Contains(string(r.body), secret) {
			t.Errorf("GET %s = %d, holding the secret: %v", path, r.status, strings.Contains(string(r.body), secret))
		}
	}
	// The stored secret is the one the providers get.
	if a, err := admin.Of(s.client).GetApplication(t.Context(), app.Application.ID); err != nil || a.Providers[unical.ProviderMicrosoft].ClientSecret != "" {
		t.Errorf("GetApplication: %v, client secret in the record", err)
	}

	// Without clientSecret the secret stays; with null it goes.
	delete(settings, "clientSecret")
	settings["clientId"] = "5678"
	s.must(t, "PUT", base+"/provider_b", settings, &got)
	if !got.ClientSecretSet || got.ClientID != "5678" {
		t.Errorf("PUT without clientSecret = %+v, want the secret kept", got)
	}
	settings["clientSecret"] = nil
	s.must(t, "PUT", base+"/provider_b", settings, &got)
	if got.ClientSecretSet {
		t.Errorf("PUT with clientSecret null kept the secret")
	}

	// Bad input names the field and changes nothing.
	s.must(t, "PUT", base+"/provider_b", map[string]any{"clientId": "keep", "clientSecret": secret}, nil)
	var before admin.ProviderSettingsView
	s.must(t, "GET", base+"/provider_b", nil, &before)
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"tokenUrl": "not a url"}, "tokenUrl"},
		{map[string]any{"authUrl": "/relative"}, "authUrl"},
		{map[string]any{"serverUrl": "https://user:pw@dav.example/"}, "serverUrl"},
		{map[string]any{"userInfoUrl": "ftp://x.example/"}, "userInfoUrl"},
		{map[string]any{"apiBaseUrl": "https://x.example/#f"}, "apiBaseUrl"},
		{map[string]any{"clientId": "two words"}, "clientId"},
		{map[string]any{"clientSecret": ""}, "clientSecret"},
		{map[string]any{"scopes": []string{"a b"}}, "scopes"},
		{map[string]any{"tenant": "bad/tenant"}, "tenant"},
		{map[string]any{"clientSecretSet": true}, "clientSecretSet"},
		{map[string]any{"clientId": 5}, "clientId"},
	} {
		wantError(t, s.admin(t, "PUT", base+"/provider_b", tc.body), http.StatusBadRequest, "invalid_request", tc.field)
	}
	var after admin.ProviderSettingsView
	s.must(t, "GET", base+"/provider_b", nil, &after)
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("refused PUTs changed the settings (-before +after):\n%s", d)
	}
	wantError(t, s.admin(t, "GET", base+"/provider_x", nil), http.StatusBadRequest, "invalid_request", "provider")
	// VIRTUAL calendars live in the store: there is nothing to configure.
	wantError(t, s.admin(t, "PUT", base+"/virtual", map[string]any{"clientId": "x"}), http.StatusBadRequest, "invalid_request", "provider")
	wantError(t, s.admin(t, "PUT", base+"/PROVIDER_B", map[string]any{}), http.StatusBadRequest, "invalid_request", "provider")
	wantError(t, s.admin(t, "PUT", "/admin/v1/applications/app_unknown/providers/provider_b", map[string]any{}), http.StatusNotFound, "not_found", "")

	// Removing clears settings and secret.
	s.must(t, "DELETE", base+"/provider_b", nil, &got)
	if got.Configured || got.ClientSecretSet || got.ClientID != "" {
		t.Errorf("after DELETE: %+v", got)
	}
}

func TestProviderCheckWithoutSettings(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "check")
	var check admin.ProviderCheck
	s.must(t, "POST", "/admin/v1/applications/"+app.Application.ID+"/providers/provider_a/check", nil, &check)
	var fields []string
	for _, p := range check.Problems {
		fields = append(fields, p.Field)
	}
	// This server has only a CalDAV provider.
	if d := cmp.Diff([]string{"provider", "clientId", "clientSecret", "redirectUrls"}, fields); d != "" || check.OK {
		t.Errorf("check problems (-want +got):\n%s\n%+v", d, check)
	}
	wantError(t, s.admin(t, "POST", "/admin/v1/applications/app_unknown/providers/provider_a/check", nil), http.StatusNotFound, "not_found", "")
}

func TestWebhook(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "hooks")
	path := "/admin/v1/applications/" + app.Application.ID + "/webhook"
	wantError(t, s.admin(t, "POST", path+"/rotate", nil), http.StatusConflict, "conflict", "url")
	for _, bad := range []string{"not a url", "http://plain.example/hook", "https://u:p@x.example/"} {
		wantError(t, s.admin(t, "PUT", path, map[string]string{"url": bad}), http.StatusBadRequest, "invalid_request", "url")
	}
	var view admin.WebhookView
	s.must(t, "GET", path, nil, &view)
	if view.URL != "" || view.SecretSet {
		t.Fatalf("after refused PUTs: %+v", view)
	}
	var set admin.WebhookSet
	s.must(t, "PUT", path, map[string]string{"url": s.receiver.URL + "/a"}, &set)
	if !strings.HasPrefix(set.Secret, "whsec_") || set.Webhook.URL != s.receiver.URL+"/a" || !set.Webhook.SecretSet {
		t.Fatalf("first PUT = %+v", set)
	}
	first := set.Secret
	r := s.admin(t, "GET", path, nil)
	if strings.Contains(string(r.body), first) {
		t.Errorf("GET holds the secret: %s", r.body)
	}
	set = admin.WebhookSet{}
	s.must(t, "PUT", path, map[string]string{"url": s.receiver.URL + "/b"}, &set)
	if set.Secret != "" {
		t.Errorf("a changed URL made a new secret")
	}
	s.must(t, "POST", path+"/rotate", nil, &set)
	if !strings.HasPrefix(set.Secret, "whsec_") || set.Secret == first {
		t.Errorf("rotate = %q, want a new secret", set.Secret)
	}
	s.must(t, "PUT", path, map[string]string{"url": ""}, &set)
	if set.Webhook.URL != "" || set.Webhook.SecretSet {
		t.Errorf("after removing: %+v", set.Webhook)
	}
	wantError(t, s.admin(t, "GET", "/admin/v1/applications/app_unknown/webhook", nil), http.StatusNotFound, "not_found", "")
}

func TestAccountsSubscriptionsAndDeliveries(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "accounts")
	base := "/admin/v1/applications/" + app.Application.ID
	var set admin.WebhookSet
	s.must(t, "PUT", base+"/webhook", map[string]string{"url": s.receiver.URL + "/hook"}, &set)
	s.receiver.SetSecret(set.Secret)
	s.setAnswer(t, http.StatusInternalServerError)
	ada := s.connect(t, app.APIKey, "ada@example.com")
	s.receiver.WaitFor(t, 1)
	bob := s.connect(t, app.APIKey, "bob@example.com")
	s.receiver.WaitFor(t, 2)

	type accounts struct {
		Data          []unical.Account `json:"data"`
		NextPageToken *string          `json:"nextPageToken"`
	}
	var list accounts
	s.must(t, "GET", base+"/accounts", nil, &list)
	if len(list.Data) != 2 || list.Data[0].ID != ada || list.Data[0].Status != unical.AccountStatusActive {
		t.Fatalf("accounts = %+v", list.Data)
	}
	s.must(t, "GET", base+"/accounts?search=BOB", nil, &list)
	if len(list.Data) != 1 || list.Data[0].ID != bob {
		t.Errorf("search bob = %+v", list.Data)
	}
	s.must(t, "GET", base+"/accounts?statusFilter=expired", nil, &list)
	if len(list.Data) != 0 {
		t.Errorf("expired = %+v", list.Data)
	}
	s.must(t, "GET", base+"/accounts?limit=1", nil, &list)
	if len(list.Data) != 1 || list.NextPageToken == nil {
		t.Errorf("limit=1 = %+v", list)
	}
	wantError(t, s.admin(t, "GET", base+"/accounts?statusFilter=sleepy", nil), http.StatusBadRequest, "invalid_request", "statusFilter")
	wantError(t, s.admin(t, "GET", base+"/accounts?limit=many", nil), http.StatusBadRequest, "invalid_request", "limit")

	// An expired account shows its status and reason.
	s.caldav.Revoke("bob@example.com")
	s.v1(t, app.APIKey, "GET", "/v1/calendars/"+url.PathEscape(bob), nil)
	var acct unical.Account
	s.must(t, "GET", base+"/accounts/"+url.PathEscape(bob), nil, &acct)
	if acct.Status != unical.AccountStatusExpired || acct.StatusReason == "" {
		t.Errorf("revoked account = %s (%s), want EXPIRED with a reason", acct.Status, acct.StatusReason)
	}
	wantError(t, s.admin(t, "GET", base+"/accounts/acct_unknown", nil), http.StatusNotFound, "not_found", "")

	// A subscription of ada's shows in the application's list.
	r := s.v1(t, app.APIKey, "POST", "/v1/calendarSubscriptions/"+url.PathEscape(ada), map[string]string{"calendarId": s.adaCalendar, "webhookUrl": s.receiver.URL + "/sub"})
	if r.status != http.StatusOK {
		t.Fatalf("subscribe = %d\n%s", r.status, r.body)
	}
	var sub subscriptions.Created
	r.into(t, &sub)
	var subs struct {
		Data []unical.Subscription `json:"data"`
	}
	s.must(t, "GET", base+"/subscriptions", nil, &subs)
	if len(subs.Data) != 1 || subs.Data[0].ID != sub.WebhookSubscriptionID || subs.Data[0].EndUserAccountID != ada {
		t.Errorf("subscriptions = %+v", subs.Data)
	}
	type deliveries struct {
		Data []outbox.Attempt `json:"data"`
	}
	var dl deliveries
	s.must(t, "GET", base+"/subscriptions/"+sub.WebhookSubscriptionID+"/deliveries", nil, &dl)
	wantError(t, s.admin(t, "GET", base+"/subscriptions/sub_unknown/deliveries", nil), http.StatusNotFound, "not_found", "")

	// The application's own endpoint failed both messages: the log shows
	// the 500s, and a resend delivers.
	var attempts deliveries
	for range 100 {
		s.must(t, "GET", base+"/webhook/deliveries", nil, &attempts)
		if len(attempts.Data) >= 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(attempts.Data) < 2 || attempts.Data[0].StatusCode != http.StatusInternalServerError {
		t.Fatalf("delivery log = %+v, want two 500s", attempts.Data)
	}
	msgID := attempts.Data[0].MessageID
	s.setAnswer(t, http.StatusNoContent)
	s.must(t, "POST", base+"/messages/"+msgID+"/resend", nil, nil)
	// The message arrives a second time, with the same webhook-id.
	sent := 0
	for range 200 {
		sent = 0
		for _, d := range s.receiver.Deliveries() {
			if d.Header.Get("webhook-id") == msgID {
				sent++
			}
		}
		if sent == 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if sent != 2 {
		t.Fatalf("message %s arrived %d times, want 2 (sent, resent)", msgID, sent)
	}
	wantError(t, s.admin(t, "POST", base+"/messages/msg_unknown/resend", nil), http.StatusNotFound, "not_found", "")
	// Once delivered, it has not failed: a second resend conflicts.
	for range 100 {
		s.must(t, "GET", base+"/webhook/deliveries", nil, &attempts)
		if slices.ContainsFunc(attempts.Data, func(a outbox.Attempt) bool {
			return a.MessageID == msgID && a.StatusCode == http.StatusNoContent
		}) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	wantError(t, s.admin(t, "POST", base+"/messages/"+msgID+"/resend", nil), http.StatusConflict, "conflict", "")

	var outbox admin.OutboxStatus
	s.must(t, "GET", "/admin/v1/outbox", nil, &outbox)
	if outbox.Pending < 0 {
		t.Errorf("outbox = %+v", outbox)
	}

	// Deleting an account takes its subscriptions.
	var deleted unical.AccountDeleted
	s.must(t, "DELETE", base+"/accounts/"+url.PathEscape(ada), nil, &deleted)
	wantError(t, s.admin(t, "GET", base+"/accounts/"+url.PathEscape(ada), nil), http.StatusNotFound, "not_found", "")
	s.must(t, "GET", base+"/subscriptions", nil, &subs)
	if len(subs.Data) != 0 {
		t.Errorf("subscriptions after deleting the account: %+v", subs.Data)
	}
	wantError(t, s.admin(t, "DELETE", base+"/accounts/"+url.PathEscape(ada), nil), http.StatusNotFound, "not_found", "")
	// Another application cannot see this one's accounts.
	other := s.createApp(t, "other")
	wantError(t, s.admin(t, "GET", "/admin/v1/applications/"+other.Application.ID+"/accounts/"+url.PathEscape(bob), nil), http.StatusNotFound, "not_found", "")
}

// TestSecretsNeverStoredOrLogged drives every operation that handles a
// secret, then searches the store file and the logs for each.
func TestSecretsNeverStoredOrLogged(t *testing.T) {
	s := startServer(t, nil)
	app := s.createApp(t, "secrets")
	base := "/admin/v1/applications/" + app.Application.ID
	var key struct {
		APIKey string `json:"apiKey"`
	}
	s.must(t, "POST", base+"/keys", nil, &key)
	const clientSecret = "gocspx-client-secret-3e1a9f"
	s.must(t, "PUT", base+"/providers/provider_a", map[string]any{"clientId": "id", "clientSecret": clientSecret}, nil)
	var set admin.WebhookSet
	s.must(t, "PUT", base+"/webhook", map[string]string{"url": s.receiver.URL + "/hook"}, &set)
	var rotated admin.WebhookSet
	s.must(t, "POST", base+"/webhook/rotate", nil, &rotated)
	s.v1(t, key.APIKey, "GET", "/v1/endUserAccounts", nil)
	// Failures are logged too.
	s.send(t, "GET", "/admin/v1/applications", map[string]string{"Authorization": "Bearer " + s.token + "x"}, nil)
	s.v1(t, key.APIKey+"x", "GET", "/v1/endUserAccounts", nil)
	s.client.Close()
	if err := s.store.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(s.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	logs := s.logs.String()
	secrets := map[string]string{
		"admin token": s.token, "first API key": app.APIKey, "second API key": key.APIKey, "client secret": clientSecret,
		"webhook secret": set.Secret, "rotated webhook secret": rotated.Secret,
	}
	for name, secret := range secrets {
		// The secret part of an API key is what must not leak; its id is public.
		needle := secret
		if strings.HasPrefix(secret, "uk_") {
			needle = secret[strings.LastIndex(secret, "_")+1:]
		}
		if len(needle) < 16 {
			t.Fatalf("%s %q too short to search for", name, needle)
		}
		if bytes.Contains(file, []byte(needle)) {
			t.Errorf("the store file holds the %s", name)
		}
		if strings.Contains(logs, needle) {
			t.Errorf("the logs hold the %s", name)
		}
	}
}
