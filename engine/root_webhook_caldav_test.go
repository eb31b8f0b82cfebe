package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// TestClient_Run_CalDAVPolling is the end-to-end check of polling against
// a real CalDAV server (Radicale, started on loopback): an event created,
// updated and deleted through the API each reaches the subscriber as one
// verified calendar.event.changed, and nothing arrives after the
// subscription is deleted.
func TestClient_Run_CalDAVPolling(t *testing.T) {
	t.Parallel()
	// The Client wants an email address for an account, so the server's
	// user is one.
	const email = "unical@example.com"
	dav := davtest.StartUser(t, davtest.Radicale, email)
	calPath := dav.NewCalendar(t, "Webhooks")
	calID := strings.TrimSuffix(calPath, "/")
	calID = calID[strings.LastIndexByte(calID, '/')+1:]

	rcv := apitest.NewReceiver(t)
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	davProvider, err := caldav.New(caldav.Config{AllowPrivateTargets: true})
	if err != nil {
		t.Fatal(err)
	}
	client, err := unical.New(unical.Config{
		Store: store, Providers: []unical.Provider{davProvider}, MasterKey: seal.NewKey(),
		AllowPrivateTargets: true, Subscriptions: &subscriptions.Hooks{ChangePollInterval: 100 * time.Millisecond},
	})
	settings := engine.Settings{Sender: rcv.Sender(), ChangePollInterval: 100 * time.Millisecond, OutboxPollInterval: 50 * time.Millisecond}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	ctx := context.Background()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{
		Name:      unical.Some("caldav webhooks"),
		Providers: map[unical.ProviderType]unical.ProviderSettings{unical.ProviderCalDAV: {ServerURL: dav.URL}},
	})
	if err != nil {
		t.Fatal(err)
	}
	app, _ := client.App(ctx, created.ApplicationID)
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: email, ProviderType: unical.ProviderCalDAV, Password: unical.Some(dav.Password)})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := subscriptions.Create(ctx, app, acct.ID, &subscriptions.CreateParams{CalendarID: calID, WebhookURL: rcv.URL + "/dav"})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(sub.EndpointSecret)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- engine.Run(runCtx, client, settings) }()
	t.Cleanup(func() { cancel(); <-done })

	expect := func(step string, n int) {
		t.Helper()
		got := rcv.WaitFor(t, n)
		time.Sleep(300 * time.Millisecond) // a few more polls: the change must not be reported twice
		if now := rcv.Deliveries(); len(now) != n {
			t.Fatalf("%s: %d messages, want %d", step, len(now), n)
		}
		var p unical.MessagePayload
		if err := json.Unmarshal(got[n-1].Body, &p); err != nil {
			t.Fatal(err)
		}
		if !got[n-1].Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != sub.WebhookSubscriptionID || p.CalendarID != calID {
			t.Errorf("%s: got %s verified=%v", step, got[n-1].Body, got[n-1].Verified)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rcv.Deliveries()); n != 0 {
		t.Fatalf("%d messages before any change, want none", n)
	}
	ev, err := app.CreateEvent(ctx, acct.ID, calID, &unical.EventParams{
		Title: unical.Some("Review"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-12-01T10:00:00Z", TimeZone: "UTC"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-12-01T11:00:00Z", TimeZone: "UTC"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	expect("create", 1)
	if _, err := app.UpdateEvent(ctx, acct.ID, calID, ev.ID, &unical.EventParams{Title: unical.Some("Review, moved")}); err != nil {
		t.Fatal(err)
	}
	expect("update", 2)
	if _, err := app.DeleteEvent(ctx, acct.ID, calID, ev.ID); err != nil {
		t.Fatal(err)
	}
	expect("delete", 3)
	if _, err := subscriptions.Delete(ctx, app, acct.ID, &subscriptions.DeleteParams{SubscriptionID: sub.WebhookSubscriptionID}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.CreateEvent(ctx, acct.ID, calID, &unical.EventParams{
		Title: unical.Some("After the delete"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-12-02T10:00:00Z", TimeZone: "UTC"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-12-02T11:00:00Z", TimeZone: "UTC"}),
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(rcv.Deliveries()); n != 3 {
		t.Errorf("%d messages after the subscription was deleted, want still 3", n)
	}
}
