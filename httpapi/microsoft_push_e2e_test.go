package httpapi_test

import (
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/graphtest"
	"github.com/unical/unical/provider/microsoft"
	"github.com/unical/unical/subscriptions"
)

// TestPushVerifiedThroughHTTPAPI follows create, update and delete of an
// event through our API to Graph, Graph's change notifications to our
// notification path, and the engine's calendar.event.changed messages to a
// loopback HTTPS receiver that verifies each with the Standard Webhooks
// reference library. Polling is off, so only notifications cause messages.
func TestPushVerifiedThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	graph, rcv, st, acct := startGraphPush(t)
	var cals unical.SyncPage[unical.Calendar]
	st.Must(t, "GET", "/v1/calendars/"+acct.ID, nil).Into(t, &cals)
	calID := cals.Data[0].ID
	var sub subscriptions.Created
	st.Must(t, "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": calID, "webhookUrl": rcv.URL + "/hook"}).Into(t, &sub)
	rcv.SetSecret(sub.EndpointSecret)
	if subs := graph.Subscriptions(); len(subs) != 1 {
		t.Fatalf("Graph subscriptions = %+v, want one", subs)
	}

	// Each change waits for its message before the next, so bursts cannot
	// be coalesced across steps.
	seen := 0
	expect := func(step string) {
		t.Helper()
		got := rcv.WaitFor(t, seen+1)
		seen = len(got)
		last := got[seen-1]
		if p := last.Payload(t); !last.Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != sub.WebhookSubscriptionID || p.CalendarID != calID {
			t.Errorf("%s: delivered %s (verified %v), want a verified calendar.event.changed for %s", step, last.Body, last.Verified, sub.WebhookSubscriptionID)
		}
	}
	base := "/v1/events/" + acct.ID + "/" + esc(calID)
	var ev unical.Event
	st.Must(t, "POST", base, map[string]any{"title": "pushed", "start": map[string]any{"dateTime": "2026-05-06T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-05-06T10:00:00Z"}}).Into(t, &ev)
	expect("create")
	st.Must(t, "PUT", base+"/"+esc(ev.ID), map[string]any{"title": "pushed again"})
	expect("update")
	st.Must(t, "DELETE", base+"/"+esc(ev.ID), nil)
	expect("delete")

	st.Must(t, "DELETE", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"subscriptionId": sub.WebhookSubscriptionID})
	st.Must(t, "POST", base, map[string]any{"title": "after", "start": map[string]any{"dateTime": "2026-05-07T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-05-07T10:00:00Z"}})
	time.Sleep(300 * time.Millisecond)
	got := rcv.Deliveries()
	if len(got) != seen {
		t.Errorf("%d messages after the subscription was deleted, want still %d", len(got), seen)
	}
	for _, d := range got {
		if !d.Verified {
			t.Errorf("delivery %s did not verify", d.ID)
		}
	}
	if !rcv.Tampered(t, got[0]) {
		t.Error("the receiver accepted a tampered message")
	}
}

// startGraphPush starts the Graph fake, a webhook receiver and a stack
// with the engine running and polling off, and connects Ada's account.
func startGraphPush(t *testing.T) (*graphtest.Server, *apitest.Receiver, *apitest.Stack, unical.Account) {
	t.Helper()
	graph := graphtest.NewServer(t, graphtest.Options{AllowHTTPNotificationURLs: true})
	userID := graph.AddUser(graphtest.User{UserPrincipalName: adaEmail, DisplayName: "Ada Lovelace", TimeZone: "W. Europe Standard Time"})
	p, err := microsoft.New(microsoft.Config{HTTPClient: graph.Client(), MaxRetryWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rcv := apitest.NewReceiver(t)
	st := apitest.Start(t, []unical.Provider{p}, func(cfg *apitest.Config) {
		cfg.Sender, cfg.AllowPrivateTargets = rcv.Sender(), true
		cfg.OutboxPollInterval, cfg.ChangePollInterval, cfg.RetryJitter = 20*time.Millisecond, -1, -1
	})
	graph.AddClient(graphtest.Client{ID: "unical-app", Secret: "s3cret", RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}, RequirePKCE: true})
	st.CreateApp(t, &admin.ApplicationParams{Providers: map[unical.ProviderType]unical.ProviderSettings{
		unical.ProviderMicrosoft: {ClientID: "unical-app", ClientSecret: "s3cret", AuthURL: graph.AuthURL(), TokenURL: graph.TokenURL(), APIBaseURL: graph.GraphBaseURL()},
	}})
	go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{
		"email": adaEmail, "providerType": "PROVIDER_B", "refreshToken": graph.IssueRefreshToken("unical-app", userID),
	}).Into(t, &acct)
	return graph, rcv, st, acct
}

// TestPushPrimary subscribes to the calendar alias primary: Graph is
// asked for the default calendar's events (me/calendar/events), and an
// event written through primary is delivered for it.
func TestPushPrimary(t *testing.T) {
	t.Parallel()
	graph, rcv, st, acct := startGraphPush(t)
	var sub subscriptions.Created
	st.Must(t, "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": "primary", "webhookUrl": rcv.URL + "/hook"}).Into(t, &sub)
	rcv.SetSecret(sub.EndpointSecret)
	if subs := graph.Subscriptions(); len(subs) != 1 || subs[0].Resource != "me/calendar/events" {
		t.Fatalf("Graph subscriptions = %+v, want one to me/calendar/events", subs)
	}
	st.Must(t, "POST", "/v1/events/"+acct.ID+"/primary", map[string]any{"title": "pushed", "start": map[string]any{"dateTime": "2026-05-06T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-05-06T10:00:00Z"}})
	got := rcv.WaitFor(t, 1)
	if p := got[0].Payload(t); !got[0].Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != sub.WebhookSubscriptionID {
		t.Errorf("delivered %s (verified %v), want a verified calendar.event.changed for %s", got[0].Body, got[0].Verified, sub.WebhookSubscriptionID)
	}
}
