package metrics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/metrics"
	"github.com/unical/unical/observe"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/storestats"
	"github.com/unical/unical/subscriptions"
)

var _ httpapi.RequestObserver = (*metrics.Metrics)(nil)

// retrying is the in-memory provider with one retry in every
// ListCalendars, as a provider that met a 429 and tried again reports it.
type retrying struct{ *memory.Provider }

func (p retrying) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	observe.NoteRetry(ctx)
	return p.Provider.ListCalendars(ctx, s)
}

const (
	googleUser   = "ada@example.com"
	googleToken  = "refresh-token-needle"
	outlookUser  = "grace@example.com"
	outlookToken = "refresh-grace-needle"
)

// stack is the server with metrics: a Client with m as its Observer, its
// engine running, and httpapi measured by m serving /metrics.
type stack struct {
	URL     string
	Client  *unical.Client
	Store   *bolt.Store
	APIKey  string
	AppID   string
	Outlook *memory.WatchProvider
}

func startStack(t *testing.T, m *metrics.Metrics, rcv *apitest.Receiver) *stack {
	t.Helper()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	google.AddUser(googleUser, googleToken, "")
	outlook := memory.NewWatcher(memory.Config{Type: unical.ProviderMicrosoft})
	outlook.AddUser(outlookUser, outlookToken, "")

	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	client, err := unical.New(unical.Config{
		Store: store, Providers: []unical.Provider{retrying{google}, outlook}, MasterKey: seal.NewKey(), PublicURL: srv.URL,
		Observer: m, AllowPrivateTargets: true, Subscriptions: &subscriptions.Hooks{ChangePollInterval: 100 * time.Millisecond},
	})
	settings := engine.Settings{Sender: rcv.Sender(), ChangePollInterval: 100 * time.Millisecond, OutboxPollInterval: 50 * time.Millisecond}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	m.WatchStore(func(ctx context.Context) (*storestats.Stats, error) { return storestats.Of(ctx, client.Store()) })
	// With a deadline, as unicald serves: routeMux then routes a copy of
	// the request, whose route the metrics must still see.
	h = httpapi.NewHandler(httpapi.Config{Client: client, Requests: m, Metrics: m.Handler(), RequestTimeout: httpapi.DefaultRequestTimeout})
	created, err := admin.Of(client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("metrics")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, client, settings) }()
	t.Cleanup(func() { cancel(); <-done })
	return &stack{URL: srv.URL, Client: client, Store: store, APIKey: created.APIKey, AppID: created.ApplicationID, Outlook: outlook}
}

// do sends an API request and returns the status and body.
func (st *stack) do(t *testing.T, method, path string, header http.Header, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, st.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("x-api-key", st.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (st *stack) must(t *testing.T, method, path string, body any, into any) {
	t.Helper()
	status, b := st.do(t, method, path, nil, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s = %d %s", method, path, status, b)
	}
	if into != nil {
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatal(err)
		}
	}
}

// scrape reads /metrics with the Prometheus text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return families
}

// value returns the value of the series of family name with exactly the
// given labels (a counter, a gauge, or a histogram's count), and whether
// there is one.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := families[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetrics drives the server through requests, provider calls (one of
// them retried), a poll that finds a change, its delivery and two push
// notifications, then reads /metrics as Prometheus would and checks that
// each counter moved, and that no label value names an id, an email or a
// secret.
func TestMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	rcv := apitest.NewReceiver(t)
	st := startStack(t, m, rcv)

	var google, outlook unical.Account
	st.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": googleUser, "providerType": "PROVIDER_A", "refreshToken": googleToken}, &google)
	st.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": outlookUser, "providerType": "PROVIDER_B", "refreshToken": outlookToken}, &outlook)
	for range 3 {
		st.must(t, "GET", "/v1/endUserAccounts/"+google.ID, nil, nil)
	}
	if status, _ := st.do(t, "GET", "/v1/endUserAccounts/eua_missing", nil, nil); status != http.StatusNotFound {
		t.Fatalf("GET a missing account = %d, want 404", status)
	}
	if status, _ := st.do(t, "GET", "/no/such/"+google.ID, nil, nil); status != http.StatusNotFound {
		t.Fatalf("GET an unrouted path = %d, want 404", status)
	}
	if status, _ := st.do(t, "BREW", "/v1/endUserAccounts", nil, nil); status != http.StatusMethodNotAllowed {
		t.Fatalf("BREW = %d, want 405", status)
	}
	st.must(t, "GET", "/v1/calendars/"+google.ID, nil, nil) // ListCalendars, retried once
	calendar := "primary/" + googleUser
	if status, _ := st.do(t, "GET", "/v1/calendars/"+google.ID+"/nope", nil, nil); status != http.StatusNotFound {
		t.Fatalf("GET a missing calendar = %d, want 404", status)
	}

	// A subscription polled (Google has no push here): an event created
	// through the API is found by a poll and delivered.
	var sub subscriptions.Created
	st.must(t, "POST", "/v1/calendarSubscriptions/"+google.ID, map[string]any{"calendarId": calendar, "webhookUrl": rcv.URL + "/hook"}, &sub)
	rcv.SetSecret(sub.EndpointSecret)
	time.Sleep(300 * time.Millisecond) // a poll takes the subscription's first cursor
	st.must(t, "POST", "/v1/events/"+google.ID+"/"+url.PathEscape(calendar), map[string]any{
		"title": "Review",
		"start": map[string]any{"dateTime": "2026-12-01T10:00:00Z", "timeZone": "UTC"},
		"end":   map[string]any{"dateTime": "2026-12-01T11:00:00Z", "timeZone": "UTC"},
	}, nil)
	if got := rcv.WaitFor(t, 1); !got[0].Verified {
		t.Fatalf("the delivery does not verify: %s", got[0].Body)
	}

	// A subscription with push: a forged notification is ignored, one
	// with the watch's token is not.
	var pushed subscriptions.Created
	st.must(t, "POST", "/v1/calendarSubscriptions/"+outlook.ID, map[string]any{"calendarId": "primary/" + outlookUser, "webhookUrl": rcv.URL + "/push"}, &pushed)
	watches := st.Outlook.Watches()
	if len(watches) != 1 {
		t.Fatalf("%d watches, want 1", len(watches))
	}
	notify := "/v1/notifications/provider_b/" + st.AppID + "/" + pushed.WebhookSubscriptionID
	forged := watches[0]
	forged.Token = "forged-token-needle"
	for _, w := range []*memory.ActiveWatch{&forged, &watches[0]} {
		if status, b := st.do(t, "POST", notify, memory.NotificationHeader(w, "exists"), nil); status >= 300 {
			t.Fatalf("POST notification = %d %s", status, b)
		}
	}

	families := scrape(t, st.URL)
	at := func(name string, labels map[string]string) float64 {
		t.Helper()
		v, ok := value(families, name, labels)
		if !ok {
			t.Errorf("no series %s%v", name, labels)
		}
		return v
	}
	atLeast := []struct {
		name   string
		labels map[string]string
		min    float64
	}{
		{"unical_http_requests_total", map[string]string{"route": "/v1/endUserAccounts/{id}", "method": "GET", "status": "200"}, 3},
		{"unical_http_requests_total", map[string]string{"route": "/v1/endUserAccounts/{id}", "method": "GET", "status": "404"}, 1},
		{"unical_http_requests_total", map[string]string{"route": "/", "method": "GET", "status": "404"}, 1},
		{"unical_http_requests_total", map[string]string{"route": "/", "method": "OTHER", "status": "405"}, 1},
		{"unical_http_requests_total", map[string]string{"route": "/v1/endUserAccounts", "method": "POST", "status": "200"}, 2},
		{"unical_http_request_duration_seconds", map[string]string{"route": "/v1/endUserAccounts/{id}", "method": "GET"}, 4},
		{"unical_provider_calls_total", map[string]string{"provider": "provider_a", "operation": "Connect", "outcome": "ok"}, 1},
		{"unical_provider_calls_total", map[string]string{"provider": "provider_a", "operation": "ListCalendars", "outcome": "ok"}, 1},
		{"unical_provider_calls_total", map[string]string{"provider": "provider_a", "operation": "GetCalendar", "outcome": "error"}, 1},
		{"unical_provider_calls_total", map[string]string{"provider": "provider_a", "operation": "CreateEvent", "outcome": "ok"}, 1},
		{"unical_provider_calls_total", map[string]string{"provider": "provider_a", "operation": "ListEvents", "outcome": "ok"}, 2},
		{"unical_provider_calls_total", map[string]string{"provider": "provider_b", "operation": "Watch", "outcome": "ok"}, 1},
		{"unical_provider_call_duration_seconds", map[string]string{"provider": "provider_a", "operation": "ListCalendars"}, 1},
		{"unical_provider_retries_total", map[string]string{"provider": "provider_a", "operation": "ListCalendars"}, 1},
		{"unical_webhook_deliveries_total", map[string]string{"outcome": "delivered"}, 1},
		{"unical_webhook_attempt_duration_seconds", nil, 1},
		{"unical_poll_cycles_total", nil, 2},
		{"unical_poll_subscriptions_total", nil, 2},
		{"unical_poll_cycle_duration_seconds", nil, 2},
		{"unical_push_notifications_total", map[string]string{"provider": "provider_b"}, 2},
		{"unical_push_notifications_ignored_total", map[string]string{"provider": "provider_b"}, 1},
		{"unical_accounts", map[string]string{"provider": "provider_a", "status": "active"}, 1},
		{"unical_accounts", map[string]string{"provider": "provider_b", "status": "active"}, 1},
	}
	for _, c := range atLeast {
		if v := at(c.name, c.labels); v < c.min {
			t.Errorf("%s%v = %v, want at least %v", c.name, c.labels, v, c.min)
		}
	}
	exactly := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"unical_push_notifications_ignored_total", map[string]string{"provider": "provider_b"}, 1},
		{"unical_webhook_endpoints_disabled_total", nil, 0},
		{"unical_accounts", map[string]string{"provider": "provider_c", "status": "active"}, 0},
		{"unical_accounts", map[string]string{"provider": "provider_a", "status": "expired"}, 0},
	}
	for _, c := range exactly {
		if v := at(c.name, c.labels); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
	for _, name := range []string{"unical_outbox_pending_messages", "unical_outbox_oldest_pending_age_seconds", "unical_poll_lag_seconds"} {
		if _, ok := value(families, name, nil); !ok {
			t.Errorf("no series %s", name)
		}
	}

	// No label value holds anything a request or the store carried.
	needles := []string{google.ID, outlook.ID, st.AppID, sub.WebhookSubscriptionID, pushed.WebhookSubscriptionID,
		googleUser, outlookUser, googleToken, outlookToken, st.APIKey, sub.EndpointSecret, "forged-token-needle",
		"eua_", "app_", "sub_", "msg_", "@", "primary", "nope", "/no/such"}
	for name, f := range families {
		for _, series := range f.GetMetric() {
			for _, l := range series.GetLabel() {
				for _, needle := range needles {
					if strings.Contains(l.GetValue(), needle) {
						t.Errorf("%s has label %s=%q, which contains %q", name, l.GetName(), l.GetValue(), needle)
					}
				}
			}
		}
	}
}

// TestMetrics_OutboxGauges checks the outbox gauges against messages
// waiting in the store: how many, and how old the oldest is.
func TestMetrics_OutboxGauges(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client, err := unical.New(unical.Config{Store: store, MasterKey: seal.NewKey(), Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	m.WatchStore(func(ctx context.Context) (*storestats.Stats, error) { return storestats.Of(ctx, client.Store()) })
	srv := httptest.NewServer(httpapi.NewHandler(httpapi.Config{Client: client, Metrics: m.Handler()}))
	t.Cleanup(srv.Close)

	created := time.Now().Add(-time.Hour)
	var msgs []*outbox.Message
	for i, id := range []string{"msg_0001", "msg_0002", "msg_0003"} {
		msgs = append(msgs, &outbox.Message{ID: id, ApplicationID: "app_x", EventType: unical.EventTypeAccountCreated,
			Payload: []byte(`{}`), CreatedAt: created.Add(time.Duration(i) * time.Minute), Status: outbox.Pending,
			NextAttemptAt: time.Now().Add(time.Duration(3-i) * time.Hour)})
	}
	if err := store.EnqueueMessages(t.Context(), msgs); err != nil {
		t.Fatal(err)
	}
	families := scrape(t, srv.URL)
	pending, _ := value(families, "unical_outbox_pending_messages", nil)
	age, _ := value(families, "unical_outbox_oldest_pending_age_seconds", nil)
	if diff := cmp.Diff(3.0, pending); diff != "" {
		t.Errorf("pending messages (-want +got):\n%s", diff)
	}
	if age < time.Hour.Seconds() || age > (2*time.Hour).Seconds() {
		t.Errorf("oldest pending age = %v s, want that of the message created an hour ago", age)
	}
}

// TestMetrics_RequestCounts checks that RequestCounts sums the requests
// unical_http_requests_total counts by status, over routes and methods,
// as the dashboard's overview shows them.
func TestMetrics_RequestCounts(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	if got := m.RequestCounts(); len(got) != 0 {
		t.Errorf("RequestCounts() before any request = %v, want none", got)
	}
	list := m.ObserveRoute("/v1/endUserAccounts", "GET")
	get := m.ObserveRoute("/v1/endUserAccounts/{id}", "GET")
	del := m.ObserveRoute("/v1/endUserAccounts/{id}", "DELETE")
	for _, r := range []struct {
		observe func(int, time.Duration)
		status  int
	}{{list, 200}, {list, 200}, {get, 200}, {get, 404}, {del, 404}, {del, 500}} {
		r.observe(r.status, time.Millisecond)
	}
	want := map[string]float64{"200": 3, "404": 2, "500": 1}
	if diff := cmp.Diff(want, m.RequestCounts()); diff != "" {
		t.Errorf("RequestCounts() mismatch (-want +got):\n%s", diff)
	}
}
