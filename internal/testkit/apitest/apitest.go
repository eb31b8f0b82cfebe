// Package apitest builds the whole unical server for end-to-end tests:
// httpapi over a Client over a bolt store in a temporary folder, served on
// loopback HTTP, with helpers to send API requests and follow browser
// redirects. Provider packages use it to test through the /v1 surface.
package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/openapitest"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// Stack is a running server.
type Stack struct {
	// URL is the server's base URL, also the Client's PublicURL.
	URL string
	// Client is the Client behind the server.
	Client *unical.Client
	// Admin is the operator side over Client and Store.
	Admin *admin.Service
	// Store is the bolt store, in DBPath.
	Store  *bolt.Store
	DBPath string
	// AppID and APIKey are the application made by CreateApp, if any.
	AppID  string
	APIKey string
	// Engine are the engine settings configure chose, for engine.Run.
	Engine engine.Settings
}

// Config is what configure may change: the Client's Config and the
// settings of the engine a test runs (Stack.Engine).
type Config struct {
	unical.Config
	engine.Settings
}

// Start starts a server with the given providers. configure, when set, may
// change the Client's Config (Store, MasterKey and PublicURL are filled
// in already, and AllowPrivateTargets is true) and the engine's settings.
// Everything stops in Cleanup.
func Start(tb testing.TB, providers []unical.Provider, configure func(*Config)) *Stack {
	tb.Helper()
	return StartWithOptions(tb, providers, configure, httpapi.Config{})
}

// StartWithOptions is Start with the handler built from opts (rate
// limits, a request deadline, metrics).
func StartWithOptions(tb testing.TB, providers []unical.Provider, configure func(*Config), opts httpapi.Config) *Stack {
	tb.Helper()
	st := &Stack{DBPath: filepath.Join(tb.TempDir(), "unical.db")}
	store, err := bolt.Open(bolt.Config{Path: st.DBPath})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	st.Store = store
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	tb.Cleanup(srv.Close)
	st.URL = srv.URL
	// Every stack has virtual calendars, as unicald does.
	// The fakes and test servers all listen on loopback, so a stack saves
	// and uses such URLs as a development server does; a test of the
	// production address policy sets AllowPrivateTargets back to false.
	cfg := Config{Config: unical.Config{Store: store, Providers: virtual.Add(providers, virtual.Config{Store: store, PublicURL: srv.URL}), MasterKey: seal.NewKey(), PublicURL: srv.URL}}
	cfg.AllowPrivateTargets = true
	hooks := &subscriptions.Hooks{}
	cfg.Subscriptions = hooks
	if configure != nil {
		configure(&cfg)
	}
	hooks.ChangePollInterval = cfg.ChangePollInterval
	st.Engine = cfg.Settings
	st.Client, err = unical.New(cfg.Config)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Client.Close() })
	st.Admin, err = admin.New(admin.Config{Store: store, Client: st.Client})
	if err != nil {
		tb.Fatal(err)
	}
	// Every exchange is checked against the OpenAPI document httpapi
	// serves, so each end-to-end test also tests the document.
	opts.Client = st.Client
	h = openapitest.HandlerFor(tb, httpapi.OpenAPIDocumentFor(st.Client), httpapi.NewHandler(opts))
	return st
}

// CreateApp creates an application and makes it the Stack's: Do sends its
// API key from then on. A missing name is "test".
func (st *Stack) CreateApp(tb testing.TB, params *admin.ApplicationParams) (id, key string) {
	tb.Helper()
	if !params.Name.IsSet() {
		params.Name = unical.Some("test")
	}
	created, err := st.Admin.CreateApplication(tb.Context(), params)
	if err != nil {
		tb.Fatal(err)
	}
	if st.AppID == "" {
		st.AppID, st.APIKey = created.ApplicationID, created.APIKey
	}
	return created.ApplicationID, created.APIKey
}

// Response is an answer of the server.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Into decodes the body into v.
func (r *Response) Into(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("decode %T: %v\n%s", v, err, r.Body)
	}
}

// JSON decodes the body into a generic value.
func (r *Response) JSON(tb testing.TB) any {
	tb.Helper()
	var v any
	r.Into(tb, &v)
	return v
}

// Object decodes the body as a JSON object.
func (r *Response) Object(tb testing.TB) map[string]any {
	tb.Helper()
	m, ok := r.JSON(tb).(map[string]any)
	if !ok {
		tb.Fatalf("body is not a JSON object: %s", r.Body)
	}
	return m
}

// APIError is the error body of the API.
type APIError struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Field   string   `json:"field"`
	Allowed []string `json:"allowed"`
}

// Error decodes the error body.
func (r *Response) Error(tb testing.TB) APIError {
	tb.Helper()
	var body struct {
		Error APIError `json:"error"`
	}
	r.Into(tb, &body)
	return body.Error
}

// Do sends a request with the Stack's API key. A string or []byte body is
// sent as it is; anything else is JSON-encoded.
func (st *Stack) Do(tb testing.TB, method, path string, body any) *Response {
	tb.Helper()
	return st.DoKey(tb, st.APIKey, method, path, body)
}

// DoKey sends a request with the given API key ("" sends none). Redirects
// are not followed.
func (st *Stack) DoKey(tb testing.TB, key, method, path string, body any) *Response {
	tb.Helper()
	return st.send(tb, key, method, path, body, nil)
}

// DoHeader is Do with extra request headers (If-Match, a Content-Type of
// its own).
func (st *Stack) DoHeader(tb testing.TB, method, path string, body any, header http.Header) *Response {
	tb.Helper()
	return st.send(tb, st.APIKey, method, path, body, header)
}

// DoToken sends a request with a scoped token (Authorization: Bearer)
// and no API key, plus header (an Origin).
func (st *Stack) DoToken(tb testing.TB, token, method, path string, body any, header http.Header) *Response {
	tb.Helper()
	h := http.Header{"Authorization": {"Bearer " + token}}
	for k, vs := range header {
		h[k] = vs
	}
	return st.send(tb, "", method, path, body, h)
}

func (st *Stack) send(tb testing.TB, key, method, path string, body any, header http.Header) *Response {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, st.URL+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Must sends a request and fails unless it answers 200.
func (st *Stack) Must(tb testing.TB, method, path string, body any) *Response {
	tb.Helper()
	r := st.Do(tb, method, path, body)
	if r.Status != http.StatusOK {
		tb.Fatalf("%s %s = %d, want 200\n%s", method, path, r.Status, r.Body)
	}
	return r
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Follow sends a browser GET (no API key) and returns where it redirects,
// failing unless the answer is a 302.
func Follow(tb testing.TB, raw string) *url.URL {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodGet, raw, nil)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		tb.Fatalf("GET %s = %d, want 302\n%s", raw, resp.StatusCode, body)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// Preflight sends a browser's CORS preflight of a POST to path from
// origin, asking for requestHeaders, and returns the answer's status and
// its CORS headers (Access-Control-Allow-Origin, -Methods, -Headers and
// Vary) by name. It is served by a handler over the Stack's Client
// outside the OpenAPI check, which knows no OPTIONS.
func (st *Stack) Preflight(tb testing.TB, path, origin, requestHeaders string) map[string]string {
	tb.Helper()
	srv := httptest.NewServer(httpapi.NewHandler(httpapi.Config{Client: st.Client}))
	defer srv.Close()
	req, err := http.NewRequestWithContext(tb.Context(), "OPTIONS", srv.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", requestHeaders)
	resp, err := noRedirects.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	got := map[string]string{"status": resp.Status}
	for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Vary"} {
		got[h] = resp.Header.Get(h)
	}
	return got
}
