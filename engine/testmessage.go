package engine

import (
	"context"
	"encoding/json"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/webhook"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

// EventTypeTest is the event type of the message SendTestMessage queues.
const EventTypeTest = webhook.EventTypeTest

// SendTestMessage queues a webhook.test message for a subscription, or
// with accountID and subscriptionID both empty for the application's own
// webhook endpoint, and returns its id. The message takes the path of
// every other: the outbox, the signature with the endpoint's secret, the
// rate limit, the retry schedule and the delivery log, so that it shows
// whether the endpoint receives and verifies what unical sends. Its body
// is the eventType and timestamp, and for a subscription its
// webhookSubscriptionId, endUserAccountId and calendarId. An extension
// of the spec.
//
// Returns CodeNotFound if the subscription is not the account's (or the
// account not the application's), CodeInvalid naming webhookUrl when the
// application has no webhook URL of its own.
func SendTestMessage(ctx context.Context, app *unical.App, accountID, subscriptionID string) (string, error) {
	c := app.Client()
	payload := unical.MessagePayload{EventType: EventTypeTest, Timestamp: unical.FormatTimestamp(c.Config().Now().UTC())}
	if accountID != "" || subscriptionID != "" {
		sub, err := subscriptions.Get(ctx, app, accountID, subscriptionID)
		if err != nil {
			return "", err
		}
		payload.SubscriptionID, payload.EndUserAccountID, payload.CalendarID = sub.ID, sub.EndUserAccountID, sub.CalendarID
	} else {
		a, err := c.Application(ctx, app.ID())
		if err != nil {
			return "", err
		}
		if a.WebhookURL == "" {
			return "", &unical.Error{Code: unical.CodeInvalid, Field: "webhookUrl", Message: "The application has no webhook URL to send a test message to."}
		}
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	now := c.Config().Now().UTC()
	msg := &outbox.Message{
		ID: unical.NewID("msg"), ApplicationID: app.ID(), SubscriptionID: payload.SubscriptionID, EventType: EventTypeTest,
		Payload: body, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
	}
	if err := c.Store().EnqueueMessages(ctx, []*outbox.Message{msg}); err != nil {
		return "", err
	}
	c.Config().Outbox.Notify()
	return msg.ID, nil
}
