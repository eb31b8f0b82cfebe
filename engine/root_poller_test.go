package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

// claimAll takes every due message out of the queue and returns their
// event types in due order, checking each payload names subID.
func (env *engineEnv) claimAll(tb testing.TB, subID string) []string {
	tb.Helper()
	msgs, err := env.Store.ClaimMessages(context.Background(), "test", time.Now().Add(time.Second), time.Hour, 1000)
	if err != nil {
		tb.Fatal(err)
	}
	types := []string{}
	for _, m := range msgs {
		var p unical.MessagePayload
		if err := json.Unmarshal(m.Payload, &p); err != nil {
			tb.Fatal(err)
		}
		if m.SubscriptionID != subID || p.SubscriptionID != subID || p.EventType != m.EventType || p.Timestamp == "" {
			tb.Errorf("message %s = %s for %s, want one for %s", m.ID, m.Payload, m.SubscriptionID, subID)
		}
		m.Status = outbox.Delivered
		if err := env.Store.UpdateMessage(context.Background(), m); err != nil {
			tb.Fatal(err)
		}
		types = append(types, m.EventType)
	}
	return types
}

func (env *engineEnv) mustCreateEvent(tb testing.TB, accountID, calendarID, title string) *unical.Event {
	tb.Helper()
	ev, err := env.App.CreateEvent(context.Background(), accountID, calendarID, &unical.EventParams{
		Title: unical.Some(title),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-05T12:00:00Z", TimeZone: "UTC"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-01-05T13:00:00Z", TimeZone: "UTC"}),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ev
}

// TestClient_PollChanges runs polling passes by hand against a PROVIDER_C
// account, which has no push, and checks the messages each one queues.
func TestClient_PollChanges(t *testing.T) {
	t.Parallel()
	env := mustNewEngineEnv(t, nil)
	ctx := context.Background()
	env.mustCreateEvent(t, env.DavAccountID, env.DavCalendarID, "Before the subscription")
	subID, _ := env.mustSubscribe2(t, env.DavAccountID, env.DavCalendarID)
	poll := func(step string, want ...string) {
		t.Helper()
		if err := engine.PollChanges(ctx, env.Client, env.Engine); err != nil {
			t.Fatalf("%s: PollChanges() = %v", step, err)
		}
		if want == nil {
			want = []string{}
		}
		if d := cmp.Diff(want, env.claimAll(t, subID)); d != "" {
			t.Errorf("%s: messages mismatch (-want +got):\n%s", step, d)
		}
	}
	poll("nothing changed since the subscription")
	ev := env.mustCreateEvent(t, env.DavAccountID, env.DavCalendarID, "Lunch")
	poll("one event created", unical.EventTypeCalendarEventChanged)
	poll("no further change")
	env.mustCreateEvent(t, env.DavAccountID, env.DavCalendarID, "Tea")
	if _, err := env.App.UpdateEvent(ctx, env.DavAccountID, env.DavCalendarID, ev.ID, &unical.EventParams{Title: unical.Some("Long lunch")}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.App.DeleteEvent(ctx, env.DavAccountID, env.DavCalendarID, ev.ID); err != nil {
		t.Fatal(err)
	}
	poll("a burst of three changes, coalesced", unical.EventTypeCalendarEventChanged)
	env.Dav.ExpireSyncCursors()
	poll("expired cursor", unical.EventTypeCalendarEventUnknown)
	poll("fresh cursor, no change")
	sub, err := env.Store.GetSubscription(ctx, env.App.ID(), subID)
	if err != nil || sub.Cursor == "" {
		t.Errorf("subscription cursor = %q, %v; want one kept", sub.Cursor, err)
	}
}

// TestClient_Run_PollingEndToEnd has the running engine detect a change on
// a PROVIDER_C calendar and deliver it, signed, to a loopback receiver.
func TestClient_Run_PollingEndToEnd(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.ChangePollInterval = 20 * time.Millisecond
	})
	created, err := subscriptions.Create(context.Background(), env.App, env.DavAccountID, &subscriptions.CreateParams{CalendarID: env.DavCalendarID, WebhookURL: rcv.URL + "/dav"})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(created.EndpointSecret)
	env.run(t)
	start := time.Now()
	env.mustCreateEvent(t, env.DavAccountID, env.DavCalendarID, "Standup")
	got := rcv.WaitFor(t, 1)
	var p unical.MessagePayload
	if err := json.Unmarshal(got[0].Body, &p); err != nil {
		t.Fatal(err)
	}
	if !got[0].Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != created.WebhookSubscriptionID || p.CalendarID != env.DavCalendarID {
		t.Errorf("delivery = %s verified=%v", got[0].Body, got[0].Verified)
	}
	if d := got[0].At.Sub(start); d > 5*time.Second {
		t.Errorf("change took %v to arrive", d)
	}
	time.Sleep(100 * time.Millisecond) // five more polls
	if n := len(rcv.Deliveries()); n != 1 {
		t.Errorf("receiver got %d messages for one change, want 1", n)
	}
}
