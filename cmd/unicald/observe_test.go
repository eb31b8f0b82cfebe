package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/subscriptions"
)

// startServe runs `unicald serve` in-process with m and args (after
// --addr and --data), and stops it in Cleanup.
func startServe(tb testing.TB, m *Main, dataDir string, args ...string) *running {
	tb.Helper()
	ready := make(chan string, 1)
	r := &running{Stdout: &apitest.LogBuffer{}, Stderr: &apitest.LogBuffer{}}
	m.Stdout, m.Stderr, m.Ready = r.Stdout, r.Stderr, ready
	if m.Getenv == nil {
		m.Getenv = func(string) string { return "" }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- m.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dataDir}, args...))
	}()
	select {
	case addr := <-ready:
		r.URL = "http://" + addr
	case err := <-done:
		cancel()
		tb.Fatalf("unicald serve: %v\n%s", err, r.Stderr.String())
	case <-time.After(20 * time.Second):
		cancel()
		tb.Fatal("unicald serve did not start in 20 s")
	}
	stopped := false
	r.stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				tb.Errorf("unicald serve: %v", err)
			}
		}
	}
	tb.Cleanup(r.stop)
	return r
}

// scrapeMetrics reads url (a /metrics address) with the Prometheus text
// parser.
func scrapeMetrics(tb testing.TB, url string) map[string]*dto.MetricFamily {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s = %d", url, resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		tb.Fatalf("parse %s: %v", url, err)
	}
	return families
}

// counter sums the series of a counter family whose labels include want.
func counter(families map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	sum := 0.0
	for _, m := range families[name].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if match {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// waitCounter scrapes until the counter reaches at least min (20 s at most).
func waitCounter(tb testing.TB, url, name string, labels map[string]string, min float64) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		v := counter(scrapeMetrics(tb, url), name, labels)
		if v >= min {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s%v = %v after 20 s, want at least %v", name, labels, v, min)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventICS is a one-hour event with the given uid.
func eventICS(uid, summary string) string {
	return strings.Join([]string{
		"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//unical tests//EN",
		"BEGIN:VEVENT", "UID:" + uid, "DTSTAMP:20261101T000000Z",
		"DTSTART:20261201T100000Z", "DTEND:20261201T110000Z", "SUMMARY:" + summary,
		"END:VEVENT", "END:VCALENDAR", "",
	}, "\r\n")
}

// TestServe_CalDAVPollingAndRetrySchedule runs unicald with a short poll
// interval and retry schedule against Radicale: an event put on the
// server directly (not through unical) reaches the subscriber as a signed
// calendar.event.changed, and a receiver that fails twice gets the third
// attempt, each retry at least its scheduled delay after the failure.
func TestServe_CalDAVPollingAndRetrySchedule(t *testing.T) {
	t.Parallel()
	const email = "observe@example.com"
	dav := davtest.StartUser(t, davtest.Radicale, email)
	calPath := dav.NewCalendar(t, "Observed")
	calID := strings.TrimSuffix(calPath, "/")
	calID = calID[strings.LastIndexByte(calID, '/')+1:]

	// The application with the CalDAV server is made by the admin
	// command, before serve takes the data folder.
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	// The CalDAV server is on loopback: the offline command saves its URL
	// under the same address policy as the server it will run beside.
	admin := &Main{Stdout: &out, Stderr: &errOut, Getenv: envOf(map[string]string{"UNICAL_ALLOW_PRIVATE_TARGETS": "1"})}
	if err := admin.Run(t.Context(), []string{"apps", "create", "--name", "observed", "--json", "--data", dir,
		"--provider", "provider_c", "--server-url", dav.URL}); err != nil {
		t.Fatalf("apps create: %v\n%s", err, errOut.String())
	}
	var app struct{ APIKey string }
	if err := json.Unmarshal(out.Bytes(), &app); err != nil {
		t.Fatal(err)
	}

	ok := apitest.NewReceiver(t)
	flaky := apitest.NewReceiverAnswering(t, func(n int) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	srv := startServe(t, &Main{WebhookTLS: ok.TLSConfig()}, dir,
		"--poll-interval", "1s", "--retry-schedule", "1s,2s,4s", "--retry-jitter", "0", "--allow-private-targets")
	metricsURL := srv.URL + "/metrics"

	status, body := request(t, "POST", srv.URL+"/v1/endUserAccounts", app.APIKey, map[string]any{"email": email, "providerType": "PROVIDER_C", "password": dav.Password})
	if status != http.StatusOK {
		t.Fatalf("create account = %d %s", status, body)
	}
	var acct unical.Account
	json.Unmarshal(body, &acct)
	subscribe := func(rcv *apitest.Receiver) string {
		t.Helper()
		status, body := request(t, "POST", srv.URL+"/v1/calendarSubscriptions/"+acct.ID, app.APIKey, map[string]any{"calendarId": calID, "webhookUrl": rcv.URL + "/hook"})
		if status != http.StatusOK {
			t.Fatalf("create subscription = %d %s", status, body)
		}
		var created subscriptions.Created
		json.Unmarshal(body, &created)
		rcv.SetSecret(created.EndpointSecret)
		return created.WebhookSubscriptionID
	}
	// Each subscription's first poll takes its sync cursor; only changes
	// after it are reported. The poll counter says when that happened.
	okSub := subscribe(ok)
	waitCounter(t, metricsURL, "unical_poll_subscriptions_total", nil, 1)

	dav.PutObject(t, calPath+"first.ics", eventICS("first@observe", "Put on the server"))
	got := ok.WaitFor(t, 1)
	p := got[0].Payload(t)
	if !got[0].Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != okSub || p.CalendarID != calID {
		t.Fatalf("delivery = %s verified=%v, want a signed calendar.event.changed of %s", got[0].Body, got[0].Verified, okSub)
	}

	// The flaky receiver's subscription: after its cursor is taken (two
	// more subscription polls cover a pass that saw it), one change.
	flakySub := subscribe(flaky)
	before := counter(scrapeMetrics(t, metricsURL), "unical_poll_subscriptions_total", nil)
	waitCounter(t, metricsURL, "unical_poll_subscriptions_total", nil, before+2)
	dav.PutObject(t, calPath+"second.ics", eventICS("second@observe", "Put again"))
	attempts := flaky.WaitFor(t, 3)
	for i, d := range attempts {
		if !d.Verified || d.ID != attempts[0].ID {
			t.Errorf("attempt %d: webhook-id %s verified=%v, want %s verified", i+1, d.ID, d.Verified, attempts[0].ID)
		}
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second} {
		if gap := attempts[i+1].At.Sub(attempts[i].At); gap < want {
			t.Errorf("attempt %d came %v after attempt %d, want at least %v", i+2, gap, i+1, want)
		}
	}
	if payload := attempts[0].Payload(t); payload.SubscriptionID != flakySub || payload.EventType != unical.EventTypeCalendarEventChanged {
		t.Errorf("flaky receiver got %s", attempts[0].Body)
	}

	// The delivery log numbers the attempts. The receiver has the third
	// attempt before the engine has recorded its answer, so the log is
	// read until it holds three entries (or 10 s have passed).
	waitCounter(t, metricsURL, "unical_webhook_deliveries_total", map[string]string{"outcome": "delivered"}, 2)
	var steps []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		status, body = request(t, "GET", srv.URL+"/v1/calendarSubscriptions/"+acct.ID+"/"+flakySub+"/deliveries", app.APIKey, nil)
		if status != http.StatusOK {
			t.Fatalf("deliveries = %d %s", status, body)
		}
		var log struct {
			Data []struct {
				Attempt    int `json:"attempt"`
				StatusCode int `json:"statusCode"`
			} `json:"data"`
		}
		json.Unmarshal(body, &log)
		steps = steps[:0]
		for _, a := range log.Data {
			steps = append(steps, fmt.Sprintf("%d:%d", a.Attempt, a.StatusCode))
		}
		if len(steps) >= 3 || time.Now().After(deadline) {
			break
		}
	}
	if got, want := strings.Join(steps, " "), "1:500 2:500 3:204"; got != want {
		t.Errorf("delivery log = %s, want %s", got, want)
	}

	families := scrapeMetrics(t, metricsURL)
	for _, c := range []struct {
		name   string
		labels map[string]string
		min    float64
	}{
		{"unical_webhook_deliveries_total", map[string]string{"outcome": "retrying"}, 2},
		{"unical_provider_calls_total", map[string]string{"provider": "provider_c", "operation": "ListEvents", "outcome": "ok"}, 3},
		{"unical_poll_cycles_total", nil, 2},
		{"unical_http_requests_total", map[string]string{"route": "/v1/calendarSubscriptions/{accountID}", "method": "POST", "status": "200"}, 2},
	} {
		if v := counter(families, c.name, c.labels); v < c.min {
			t.Errorf("%s%v = %v, want at least %v", c.name, c.labels, v, c.min)
		}
	}
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("readyz = %d, want 200", resp.StatusCode)
	}
}

// TestServe_MetricsAddr checks that --metrics-addr moves /metrics to its
// own listener, off the API's.
func TestServe_MetricsAddr(t *testing.T) {
	t.Parallel()
	srv := startServe(t, &Main{Providers: []unical.Provider{memory.New(memory.Config{Type: unical.ProviderGoogle})}}, t.TempDir(), "--metrics-addr", "127.0.0.1:0")
	var addr string
	for _, line := range strings.Split(srv.Stderr.String(), "\n") {
		var entry struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "serving metrics" {
			addr = entry.Addr
		}
	}
	if addr == "" {
		t.Fatalf("no \"serving metrics\" log line:\n%s", srv.Stderr.String())
	}
	if families := scrapeMetrics(t, "http://"+addr+"/metrics"); families["unical_webhook_deliveries_total"] == nil {
		t.Error("the metrics listener has no unical_webhook_deliveries_total")
	}
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /metrics on the API listener = %d, want 404 with --metrics-addr", resp.StatusCode)
	}
}

// TestServe_BadEngineSettings checks that bad --poll-interval,
// --reconcile-interval, grant check and --retry-schedule values, on the command line or in the environment,
// stop serve before it starts with an error naming the setting.
func TestServe_BadEngineSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		wantNames []string
	}{
		{"schedule not a duration", []string{"--retry-schedule", "1s,soon"}, nil, []string{"retry-schedule", `"soon"`}},
		{"schedule negative", []string{"--retry-schedule", "-1s"}, nil, []string{"retry-schedule"}},
		{"schedule empty", []string{"--retry-schedule", ""}, nil, []string{"retry-schedule"}},
		{"poll interval zero", []string{"--poll-interval", "0"}, nil, []string{"poll-interval"}},
		{"poll interval not a duration", []string{"--poll-interval", "often"}, nil, []string{"poll-interval"}},
		{"reconcile interval zero", []string{"--reconcile-interval", "0"}, nil, []string{"reconcile-interval"}},
		{"reconcile interval env", nil, map[string]string{"UNICAL_RECONCILE_INTERVAL": "often"}, []string{"UNICAL_RECONCILE_INTERVAL", "--reconcile-interval"}},
		{"grant check interval zero", []string{"--grant-check-interval", "0"}, nil, []string{"grant-check-interval"}},
		{"grant keep-alive env", nil, map[string]string{"UNICAL_GRANT_KEEP_ALIVE": "monthly"}, []string{"UNICAL_GRANT_KEEP_ALIVE", "--grant-keep-alive"}},
		{"jitter out of range", []string{"--retry-jitter", "2"}, nil, []string{"retry-jitter"}},
		{"schedule env", nil, map[string]string{"UNICAL_RETRY_SCHEDULE": "5s,,5m"}, []string{"UNICAL_RETRY_SCHEDULE", "--retry-schedule"}},
		{"poll interval env", nil, map[string]string{"UNICAL_POLL_INTERVAL": "1 minute"}, []string{"UNICAL_POLL_INTERVAL", "--poll-interval"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			m := &Main{Stdout: &bytes.Buffer{}, Stderr: &errOut, Getenv: func(k string) string { return tt.env[k] }}
			err := m.Run(t.Context(), append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, tt.args...))
			if err == nil {
				t.Fatal("serve started; want an error")
			}
			if exitCode(err) != 2 {
				t.Errorf("exit code = %d, want 2 (usage)", exitCode(err))
			}
			for _, name := range tt.wantNames {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error %q does not name %s", err, name)
				}
			}
		})
	}
}
