package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
)

// TestSendTestMessage checks "send a test event": a webhook.test message
// to a subscription and to the application's own endpoint goes through
// the outbox like any other, arrives signed with that endpoint's secret
// (the receiver verifies it with the Standard Webhooks library and checks
// its body against the OpenAPI document's webhooks section) and is in the
// endpoint's delivery log; an unknown subscription or an application
// without a webhook URL is refused.
func TestSendTestMessage(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) { cfg.Sender = rcv.Sender() })
	ctx := context.Background()
	if _, err := engine.SendTestMessage(ctx, env.App, "", ""); unical.ErrorCode(err) != unical.CodeInvalid || fieldOf(err) != "webhookUrl" {
		t.Errorf("SendTestMessage(no webhook URL) = %v, want CodeInvalid naming webhookUrl", err)
	}
	if _, err := engine.SendTestMessage(ctx, env.App, env.AccountID, "sub_unknown"); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("SendTestMessage(unknown subscription) = %v, want CodeNotFound", err)
	}
	subID, secret := env.mustSubscribe(t, rcv.URL+"/sub", 0)
	rcv.SetSecret(secret)
	env.run(t)

	id, err := engine.SendTestMessage(ctx, env.App, env.AccountID, subID)
	if err != nil {
		t.Fatal(err)
	}
	got := rcv.WaitFor(t, 1)
	if got[0].ID != id || !got[0].Verified {
		t.Fatalf("the receiver got %q verified %v, want %q verified", got[0].ID, got[0].Verified, id)
	}
	p := got[0].Payload(t)
	want := unical.MessagePayload{EventType: "webhook.test", Timestamp: p.Timestamp, SubscriptionID: subID, EndUserAccountID: env.AccountID, CalendarID: env.CalendarID}
	if d := cmp.Diff(want, p); d != "" || p.Timestamp == "" {
		t.Errorf("test message body mismatch (-want +got):\n%s", d)
	}
	env.waitStatus(t, id, outbox.Delivered)
	log, err := engine.ListDeliveries(ctx, env.App, env.AccountID, subID, nil)
	if err != nil || len(log.Data) != 1 || log.Data[0].MessageID != id || log.Data[0].EventType != "webhook.test" || log.Data[0].StatusCode != 204 {
		t.Fatalf("ListDeliveries() = %+v, %v; want the test message's 204", log, err)
	}

	// The application's own endpoint, through the operator's service.
	if _, _, err := admin.Of(env.Client).UpdateApplication(ctx, env.App.ID(), &admin.ApplicationParams{WebhookURL: unical.Some(rcv.URL + "/app")}); err != nil {
		t.Fatal(err)
	}
	app, err := admin.Of(env.Client).GetApplication(ctx, env.App.ID())
	if err != nil {
		t.Fatal(err)
	}
	appSecret, err := env.Client.Keys().WebhookSecret(app.ID, app.SealedWebhookSecret)
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(appSecret)
	id, err = admin.Of(env.Client).SendTestMessage(ctx, env.App.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	got = rcv.WaitFor(t, 2)
	if got[1].ID != id || !got[1].Verified {
		t.Fatalf("the application endpoint got %q verified %v, want %q verified", got[1].ID, got[1].Verified, id)
	}
	if d := cmp.Diff(unical.MessagePayload{EventType: "webhook.test", Timestamp: got[1].Payload(t).Timestamp}, got[1].Payload(t)); d != "" {
		t.Errorf("application test message body mismatch (-want +got):\n%s", d)
	}
}

// fieldOf is the field an *unical.Error names, "" for another error.
func fieldOf(err error) string {
	var e *unical.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}
