package httpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/series"
)

// stack starts the server with an in-memory Google provider holding one
// user and creates an application; it returns the stack and the App.
func stack(t *testing.T) (*apitest.Stack, *unical.App) {
	t.Helper()
	p := memory.New(memory.Config{Type: unical.ProviderGoogle})
	p.AddUser("ada@example.com", "refresh-ada", "")
	st := apitest.Start(t, []unical.Provider{p}, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	app, err := st.Client.App(t.Context(), st.AppID)
	if err != nil {
		t.Fatal(err)
	}
	return st, app
}

func newClient(t *testing.T, base, key string, cfg httpclient.Config) *httpclient.Client {
	t.Helper()
	cfg.BaseURL, cfg.APIKey = base, key
	c, err := httpclient.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// errorView is what a caller sees of an error: everything but the
// wrapped cause, which stays in the process that had it.
func errorView(t *testing.T, err error) unical.Error {
	t.Helper()
	var e *unical.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *unical.Error", err, err)
	}
	v := *e
	v.Err = nil
	return v
}

// TestErrorsMatchApp checks that the client's errors are the App's, to the
// message: the server's error body carries them whole.
func TestErrorsMatchApp(t *testing.T) {
	t.Parallel()
	st, app := stack(t)
	c := newClient(t, st.URL, st.APIKey, httpclient.Config{})
	ctx := t.Context()
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(api unical.API) error{
		"bad provider type": func(api unical.API) error {
			_, err := api.CreateAccount(ctx, &unical.AccountCreateParams{Email: "x@example.com", ProviderType: "PROVIDER_Z"})
			return err
		},
		"bad statusFilter": func(api unical.API) error {
			_, err := api.ListAccounts(ctx, &unical.AccountListParams{StatusFilter: "paused"})
			return err
		},
		"unknown account": func(api unical.API) error { _, err := api.GetAccount(ctx, "acc_nope"); return err },
		"bad hexColor": func(api unical.API) error {
			_, err := api.CreateCalendar(ctx, acct.ID, &unical.CalendarParams{Name: unical.Some("x"), HexColor: unical.Some("red")})
			return err
		},
		"unknown orderBy": func(api unical.API) error {
			_, err := api.ListEvents(ctx, acct.ID, "primary/ada@example.com", &unical.EventListParams{
				Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC),
				ExpandRecurrences: true, OrderBy: "title"})
			return err
		},
	}
	for name, call := range calls {
		want, got := call(app), call(c)
		if want == nil {
			t.Fatalf("%s: the App accepted it", name)
		}
		if diff := cmp.Diff(errorView(t, want), errorView(t, got)); diff != "" {
			t.Errorf("%s: client error differs from the App's (-app +client):\n%s", name, diff)
		}
	}
}

// TestRateLimited checks that a 429 of the server's key limit comes back
// as CodeRateLimited with its Retry-After.
func TestRateLimited(t *testing.T) {
	t.Parallel()
	st, _ := stack(t)
	// One request per 1000 seconds: the second is refused.
	srv := httptest.NewServer(httpapi.NewHandler(httpapi.Config{Client: st.Client, KeyRateLimit: httpapi.RateLimit{PerSecond: 0.001, Burst: 1}}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, st.APIKey, httpclient.Config{})
	if _, err := c.ListAccounts(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	_, err := c.ListAccounts(t.Context(), nil)
	got := errorView(t, err)
	if got.Code != unical.CodeRateLimited || got.RetryAfter < 900*time.Second || got.RetryAfter > 1000*time.Second || got.RetryAfter%time.Second != 0 {
		t.Errorf("second request: %+v, want rate_limited with a Retry-After of about 1000 s", got)
	}
}

// TestAnswersNotFromTheAPI checks errors for answers the API does not
// write (a proxy's pages, a redirect, a broken body): each is a
// *unical.Error with a code from the status.
func TestAnswersNotFromTheAPI(t *testing.T) {
	t.Parallel()
	var elsewhere sync.Map // requests that reached the redirect target
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Store(r.Header.Get("x-api-key"), true)
	}))
	t.Cleanup(target.Close)
	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    unical.Error
		// retryAfter, when set, bounds the RetryAfter from below.
		retryAfter time.Duration
	}{
		{"proxy 502 page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html>bad gateway</html>"))
		}, unical.Error{Code: unical.CodeUpstream, Message: "The unical server answered 502 Bad Gateway."}, 0},
		{"503 with a Retry-After date", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", date)
			w.WriteHeader(http.StatusServiceUnavailable)
		}, unical.Error{Code: unical.CodeUnavailable, Message: "The unical server answered 503 Service Unavailable."}, 50 * time.Minute},
		{"unknown wire code keeps the status's", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"slow_down","message":"Slow down.","field":"x"}}`))
		}, unical.Error{Code: unical.CodeRateLimited, Message: "Slow down.", Field: "x", RetryAfter: 7 * time.Second}, 0},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/v1/endUserAccounts", http.StatusFound)
		}, unical.Error{Code: unical.CodeUpstream, Message: "The unical server answered 302 Found."}, 0},
	} {
		srv := httptest.NewServer(tc.handler)
		_, err := newClient(t, srv.URL, "uk_a_b", httpclient.Config{}).ListAccounts(t.Context(), nil)
		srv.Close()
		got := errorView(t, err)
		if tc.retryAfter > 0 {
			if got.RetryAfter < tc.retryAfter {
				t.Errorf("%s: RetryAfter %v, want at least %v", tc.name, got.RetryAfter, tc.retryAfter)
			}
			got.RetryAfter = 0
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	elsewhere.Range(func(key, _ any) bool {
		t.Errorf("the redirect was followed, with x-api-key %q", key)
		return true
	})

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data":[{"id":`))
	}))
	t.Cleanup(srv.Close)
	_, err := newClient(t, srv.URL, "uk_a_b", httpclient.Config{}).ListAccounts(t.Context(), nil)
	var syntax *json.SyntaxError
	if got := errorView(t, err); got.Code != unical.CodeUpstream || !errors.As(err, &syntax) {
		t.Errorf("truncated body: %v, want upstream wrapping the JSON error", err)
	}
}

// recorder is a RoundTripper that keeps the requests it passes on.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}

// TestSuppliedHTTPClient checks that the caller's http.Client sends the
// requests, with the key and user agent, and is itself left unchanged.
func TestSuppliedHTTPClient(t *testing.T) {
	t.Parallel()
	st, _ := stack(t)
	rec := &recorder{}
	hc := &http.Client{Transport: rec}
	c := newClient(t, st.URL+"/", st.APIKey, httpclient.Config{HTTPClient: hc, UserAgent: "shop/1.0"})
	if _, err := c.ListAccounts(t.Context(), &unical.AccountListParams{Search: "a b&c", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests through the supplied client, want 1", len(reqs))
	}
	r := reqs[0]
	got := []string{r.Method, r.URL.Path, r.URL.Query().Get("search"), r.URL.Query().Get("limit"), r.Header.Get("x-api-key"), r.Header.Get("User-Agent")}
	want := []string{"GET", "/v1/endUserAccounts", "a b&c", "5", st.APIKey, "shop/1.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if hc.CheckRedirect != nil {
		t.Error("New changed the supplied client's CheckRedirect")
	}

	// Calls that cannot be right fail before any request.
	_, err := c.GetEvent(t.Context(), "acc_1", "", "ev_1")
	if got := errorView(t, err); got.Code != unical.CodeNotFound {
		t.Errorf("empty calendar id: %+v, want not_found", got)
	}
	_, err = c.ConnectBasicAuth(t.Context(), &unical.BasicAuthConnectParams{Email: "alan@example.com", Password: "pw"})
	if got := errorView(t, err); got.Code != unical.CodeInvalid || !strings.Contains(got.Message, "ApplicationID") {
		t.Errorf("ConnectBasicAuth without an application id: %+v", got)
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("%d requests after the refused calls, want still 1", n)
	}
}

// TestContextCanceled checks that a cancelled call is CodeUnavailable
// that still answers errors.Is(err, context.Canceled).
func TestContextCanceled(t *testing.T) {
	t.Parallel()
	st, _ := stack(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := newClient(t, st.URL, st.APIKey, httpclient.Config{}).ListAccounts(ctx, nil)
	if got := errorView(t, err); got.Code != unical.CodeUnavailable || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v, want unavailable wrapping context.Canceled", err)
	}
}

// TestDeliveryLatency checks that a delivery attempt survives the wire
// with its latency, which travels as latencyMs.
func TestDeliveryLatency(t *testing.T) {
	t.Parallel()
	attempt := &outbox.Attempt{ID: "att_1", MessageID: "msg_1", SubscriptionID: "sub_1", EventType: unical.EventTypeCalendarEventChanged,
		Attempt: 2, At: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), StatusCode: 500, Latency: 1500 * time.Millisecond, Error: "500 from the receiver"}
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.EscapedPath()
		json.NewEncoder(w).Encode(unical.Page[*outbox.Attempt]{Data: []*outbox.Attempt{attempt}})
	}))
	t.Cleanup(srv.Close)
	page, err := newClient(t, srv.URL, "uk_a_b", httpclient.Config{}).ListDeliveries(t.Context(), "acc/1", "sub_1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*outbox.Attempt{attempt}, page.Data, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("attempt (-sent +received):\n%s", diff)
	}
	if want := "/v1/calendarSubscriptions/acc%2F1/sub_1/deliveries"; path != want {
		t.Errorf("path %q, want %q", path, want)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ base, key string }{
		{"cal.example.com", "uk_a_b"},
		{"ftp://cal.example.com", "uk_a_b"},
		{"https://cal.example.com?x=1", "uk_a_b"},
		{"https://cal.example.com", ""},
	} {
		if _, err := httpclient.New(httpclient.Config{BaseURL: tc.base, APIKey: tc.key}); err == nil {
			t.Errorf("New(%q, %q) accepted", tc.base, tc.key)
		}
	}
}

// TestNew_KeyOrToken checks that a Client authenticates one way: an API
// key and a scoped token together are refused, not one silently dropped.
func TestNew_KeyOrToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		cfg    httpclient.Config
		wantOK bool
	}{
		{"key", httpclient.Config{BaseURL: "https://cal.example.com", APIKey: "uk_a_b"}, true},
		{"token", httpclient.Config{BaseURL: "https://cal.example.com", Token: "st_a_b"}, true},
		{"both", httpclient.Config{BaseURL: "https://cal.example.com", APIKey: "uk_a_b", Token: "st_a_b"}, false},
		{"neither", httpclient.Config{BaseURL: "https://cal.example.com"}, false},
	} {
		_, err := httpclient.New(tc.cfg)
		if gotOK := err == nil; gotOK != tc.wantOK {
			t.Errorf("%s: New error %v, want accepted=%v", tc.name, err, tc.wantOK)
		}
	}
}

// TestPerCallOptions checks that the per-call options of
// unical.WriteOptions travel as the query parameters the server reads:
// NotifyAttendees on event writes, KeepGrant (revokeGrant=false) on an
// account delete. The calls fail (no such account); what matters is what
// was sent.
func TestPerCallOptions(t *testing.T) {
	t.Parallel()
	st, _ := stack(t)
	rec := &recorder{}
	c := newClient(t, st.URL+"/", st.APIKey, httpclient.Config{HTTPClient: &http.Client{Transport: rec}})
	no, yes := false, true
	quiet := unical.WriteOptions{NotifyAttendees: &no}
	loud := unical.WriteOptions{NotifyAttendees: &yes}
	ctx := t.Context()
	_, _ = c.CreateEvent(ctx, "acc_1", "cal_1", &unical.EventParams{}, quiet)
	_, _ = c.UpdateEvent(ctx, "acc_1", "cal_1", "ev_1", &unical.EventParams{}, loud)
	_, _ = c.UpdateEventWithScope(ctx, "acc_1", "cal_1", "ev_1", series.ScopeThisAndFollowing, &unical.EventParams{}, quiet)
	_, _ = c.DeleteEvent(ctx, "acc_1", "cal_1", "ev_1", quiet)
	_, _ = c.DeleteEvent(t.Context(), "acc_1", "cal_1", "ev_1")
	_, _ = c.DeleteAccount(ctx, "acc_1", unical.WriteOptions{KeepGrant: true})
	_, _ = c.DeleteAccount(t.Context(), "acc_1")
	var got []string
	for _, r := range rec.requests() {
		got = append(got, r.Method+" "+r.URL.RawQuery)
	}
	want := []string{
		"POST notifyAttendees=false", "PUT notifyAttendees=true", "PUT notifyAttendees=false&scope=thisAndFollowing",
		"DELETE notifyAttendees=false", "DELETE ", "DELETE revokeGrant=false", "DELETE ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
