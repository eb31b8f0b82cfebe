package webhookreceiver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/subscriptions"
	"github.com/unical/unical/webhookreceiver"
	"github.com/unical/unical/webhooksender"
)

// TestHandler_EngineDeliveries has unical's own engine deliver account and
// calendar messages, over loopback HTTPS, to a Handler with the two
// endpoint secrets unical handed out (the application's and a
// subscription's), and checks each verifies and decodes to the expected
// typed event.
func TestHandler_EngineDeliveries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Now()

	var (
		handler atomic.Pointer[webhookreceiver.Handler]
		mu      sync.Mutex
		got     []*webhookreceiver.Message
		refused []error
		arrived = make(chan struct{}, 100)
	)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	google, dav := memory.New(memory.Config{Type: unical.ProviderGoogle}), memory.New(memory.Config{Type: unical.ProviderCalDAV})
	google.AddUser("ada@example.com", "refresh-ada", "")
	davCalendarID := dav.AddUser("alan@example.com", "", "app-password")
	st := apitest.Start(t, []unical.Provider{google, dav}, func(cfg *apitest.Config) {
		cfg.AllowPrivateTargets = true
		cfg.Sender = webhooksender.New(webhooksender.Config{AllowPrivate: true, TLSConfig: &tls.Config{RootCAs: pool}, Timeout: 5 * time.Second})
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = 20 * time.Millisecond
		cfg.RetryJitter = -1
	})
	appID, _ := st.CreateApp(t, &admin.ApplicationParams{})
	_, appSecret, err := admin.Of(st.Client).UpdateApplication(ctx, appID, &admin.ApplicationParams{WebhookURL: unical.Some(srv.URL + "/unical/account")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := st.Client.App(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	ada, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		t.Fatal(err)
	}
	alan, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "alan@example.com", ProviderType: unical.ProviderCalDAV, Password: unical.Some("app-password")})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := subscriptions.Create(ctx, app, alan.ID, &subscriptions.CreateParams{CalendarID: davCalendarID, WebhookURL: srv.URL + "/unical/calendar"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := webhookreceiver.NewVerifier(webhookreceiver.Config{Secrets: []string{appSecret, sub.EndpointSecret}})
	if err != nil {
		t.Fatal(err)
	}
	handler.Store(&webhookreceiver.Handler{
		Verifier: v,
		Receive: func(ctx context.Context, msg *webhookreceiver.Message) error {
			mu.Lock()
			got = append(got, msg)
			mu.Unlock()
			arrived <- struct{}{}
			return nil
		},
		OnError: func(r *http.Request, status int, err error) {
			mu.Lock()
			refused = append(refused, err)
			mu.Unlock()
			arrived <- struct{}{}
		},
	})

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- engine.Run(runCtx, st.Client, st.Engine) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v", err)
		}
	})

	// What the deleted account looked like, as the API shows it.
	adaBefore, err := app.GetAccount(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.CreateEvent(ctx, alan.ID, davCalendarID, &unical.EventParams{
		Title: unical.Some("Standup"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-05T09:00:00Z", TimeZone: "UTC"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-01-05T09:15:00Z", TimeZone: "UTC"}),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DeleteAccount(ctx, ada.ID); err != nil {
		t.Fatal(err)
	}
	alanNow, err := app.GetAccount(ctx, alan.ID)
	if err != nil {
		t.Fatal(err)
	}

	want := []*webhookreceiver.Message{
		{Event: &webhookreceiver.AccountEvent{Type: unical.EventTypeAccountCreated, EndUserAccountID: ada.ID, Account: *adaBefore}},
		{Event: &webhookreceiver.AccountEvent{Type: unical.EventTypeAccountCreated, EndUserAccountID: alan.ID, Account: *alanNow}},
		{Event: &webhookreceiver.AccountEvent{Type: unical.EventTypeAccountDeleted, EndUserAccountID: ada.ID, Account: *adaBefore}},
		{Event: &webhookreceiver.CalendarEvent{Type: unical.EventTypeCalendarEventChanged, SubscriptionID: sub.WebhookSubscriptionID, EndUserAccountID: alan.ID, CalendarID: davCalendarID}},
	}
	deadline := time.After(20 * time.Second)
	for {
		mu.Lock()
		n := len(got) + len(refused)
		mu.Unlock()
		if n >= len(want) {
			break
		}
		select {
		case <-arrived:
		case <-deadline:
			t.Fatalf("got %d deliveries in 20s, want %d", n, len(want))
		}
	}
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if len(refused) > 0 {
		t.Errorf("the Handler refused deliveries of unical's engine: %v", refused)
	}
	key := func(m *webhookreceiver.Message) string {
		switch e := m.Event.(type) {
		case *webhookreceiver.AccountEvent:
			return e.Type + " " + e.EndUserAccountID
		case *webhookreceiver.CalendarEvent:
			return e.Type + " " + e.CalendarID
		}
		return m.Event.EventType()
	}
	sortByKey := func(ms []*webhookreceiver.Message) {
		sort.Slice(ms, func(i, j int) bool { return key(ms[i]) < key(ms[j]) })
	}
	sortByKey(want)
	sortByKey(got)
	// Ids and times are unical's to choose; they are checked below.
	opts := cmp.Options{
		cmpopts.IgnoreFields(webhookreceiver.Message{}, "ID", "Timestamp", "Body"),
		cmpopts.IgnoreFields(webhookreceiver.AccountEvent{}, "Timestamp"),
		cmpopts.IgnoreFields(webhookreceiver.CalendarEvent{}, "Timestamp"),
		// A message carries times with milliseconds, the API's precision.
		cmpopts.EquateApproxTime(time.Millisecond),
	}
	if d := cmp.Diff(want, got, opts); d != "" {
		t.Errorf("delivered messages mismatch (-want +got):\n%s", d)
	}
	ids := map[string]bool{}
	for _, m := range got {
		if m.ID == "" || ids[m.ID] {
			t.Errorf("message %s: webhook-id %q is empty or repeated", key(m), m.ID)
		}
		ids[m.ID] = true
		var changed time.Time
		switch e := m.Event.(type) {
		case *webhookreceiver.AccountEvent:
			changed = e.Timestamp
		case *webhookreceiver.CalendarEvent:
			changed = e.Timestamp
		}
		// webhook-timestamp is whole seconds, the payload's milliseconds.
		if m.Timestamp.Before(start.Truncate(time.Second)) || m.Timestamp.After(end) ||
			changed.Before(start.Truncate(time.Millisecond)) || changed.After(m.Timestamp.Add(time.Second)) {
			t.Errorf("message %s: sent at %v, changed at %v; want both within the test (%v to %v), the change first", key(m), m.Timestamp, changed, start, end)
		}
	}
}
