package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// TestDeliveryEndpoints drives the delivery log and resend extensions. The
// test server runs no engine, so the test plays the worker through the
// Store: one failed attempt, then a resend.
func TestDeliveryEndpoints(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	base := "/v1/calendarSubscriptions/" + acct
	subID := ts.must(t, "POST", base, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": "https://hooks.example.com/cal"}).Object(t)["webhookSubscriptionId"].(string)

	store := ts.Store
	now := time.Now().UTC()
	msg := &outbox.Message{ID: "msg_delivery_test", ApplicationID: ts.AppID, SubscriptionID: subID, EventType: unical.EventTypeCalendarEventChanged, Payload: []byte(`{}`), CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now}
	if err := store.EnqueueMessages(t.Context(), []*outbox.Message{msg}); err != nil {
		t.Fatal(err)
	}
	claimed, err := store.ClaimMessages(t.Context(), "test-worker", now, time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("ClaimMessages() = %v, %v", claimed, err)
	}
	claimed[0].Status, claimed[0].Attempts, claimed[0].LastError = outbox.Failed, 1, "HTTP 502"
	attempt := &outbox.Attempt{ID: "att_1", ApplicationID: ts.AppID, MessageID: msg.ID, SubscriptionID: subID, EventType: msg.EventType, Attempt: 1, At: now, StatusCode: 502, Latency: 42 * time.Millisecond, Error: "HTTP 502", ExpiresAt: now.Add(time.Hour)}
	if errs, err := store.RecordDeliveries(t.Context(), []outbox.Result{{Message: claimed[0], Attempt: attempt}}); err != nil || errs[0] != nil {
		t.Fatal(err, errs)
	}

	t.Run("GET deliveries", func(t *testing.T) {
		m := ts.must(t, "GET", base+"/"+subID+"/deliveries?limit=5", nil).Object(t)
		data := m["data"].([]any)
		if len(data) != 1 || m["nextPageToken"] != nil {
			t.Fatalf("deliveries = %v", m)
		}
		got := data[0].(map[string]any)
		checkKeys(t, "delivery attempt", sorted("id", "messageId", "webhookSubscriptionId", "eventType", "attempt", "timestamp", "statusCode", "latencyMs", "error"), got)
		if got["statusCode"] != float64(502) || got["latencyMs"] != float64(42) || got["messageId"] != msg.ID {
			t.Errorf("attempt = %v", got)
		}
	})
	t.Run("GET deliveries of an unknown subscription", func(t *testing.T) {
		if r := ts.do(t, "GET", base+"/sub_nope/deliveries", nil); r.Status != http.StatusNotFound {
			t.Errorf("status = %d, want 404", r.Status)
		}
	})
	t.Run("POST resend", func(t *testing.T) {
		path := base + "/" + subID + "/messages/" + msg.ID + "/resend"
		if m := ts.must(t, "POST", path, nil).Object(t); m["success"] != true {
			t.Errorf("resend answer = %v", m)
		}
		// Pending and due already, a second resend has nothing to bring
		// forward and changes nothing.
		if m := ts.must(t, "POST", path, nil).Object(t); m["success"] != true {
			t.Errorf("second resend answer = %v", m)
		}
		stored, err := store.GetMessage(t.Context(), ts.AppID, msg.ID)
		if err != nil || stored.Status != outbox.Pending || stored.Attempts != 0 {
			t.Errorf("message after resend = %+v, %v", stored, err)
		}
	})
}

// TestApplicationDeliveryEndpoints reads the delivery log of the
// application's own endpoint, where enduseraccount.* messages go.
func TestApplicationDeliveryEndpoints(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	store := ts.Store
	now := time.Now().UTC()
	msg := &outbox.Message{ID: "msg_app_test", ApplicationID: ts.AppID, EventType: unical.EventTypeAccountCreated, Payload: []byte(`{}`), CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now}
	if err := store.EnqueueMessages(t.Context(), []*outbox.Message{msg}); err != nil {
		t.Fatal(err)
	}
	claimed, err := store.ClaimMessages(t.Context(), "test-worker", now, time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("ClaimMessages() = %v, %v", claimed, err)
	}
	claimed[0].Status = outbox.Failed
	attempt := &outbox.Attempt{ID: "att_app", ApplicationID: ts.AppID, MessageID: msg.ID, EventType: msg.EventType, Attempt: 1, At: now, Error: "deliver: address not allowed", ExpiresAt: now.Add(time.Hour)}
	if errs, err := store.RecordDeliveries(t.Context(), []outbox.Result{{Message: claimed[0], Attempt: attempt}}); err != nil || errs[0] != nil {
		t.Fatal(err, errs)
	}
	data := ts.must(t, "GET", "/v1/applicationWebhook/deliveries", nil).Object(t)["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["messageId"] != msg.ID || data[0].(map[string]any)["statusCode"] != float64(0) {
		t.Errorf("application deliveries = %v", data)
	}
	if m := ts.must(t, "POST", "/v1/applicationWebhook/messages/"+msg.ID+"/resend", nil).Object(t); m["success"] != true {
		t.Errorf("resend answer = %v", m)
	}
}

// TestSubscriptionCreate_PrivateTarget checks that a webhookUrl naming a
// private address is a 400 naming the field when the server does not allow
// private targets (the test server does not).
func TestSubscriptionCreate_PrivateTarget(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	for _, target := range []string{"https://10.0.0.5/hook", "https://127.0.0.1:8443/hook", "https://[::1]/hook", "https://localhost/hook"} {
		r := ts.do(t, "POST", "/v1/calendarSubscriptions/"+acct, map[string]any{"calendarId": "primary/" + googleUser, "webhookUrl": target})
		if r.Status != http.StatusBadRequest {
			t.Errorf("POST with %s: status %d, want 400", target, r.Status)
			continue
		}
		e := r.Object(t)["error"].(map[string]any)
		if e["code"] != "invalid_request" || e["field"] != "webhookUrl" {
			t.Errorf("POST with %s: error %v, want invalid_request naming webhookUrl", target, e)
		}
	}
}
