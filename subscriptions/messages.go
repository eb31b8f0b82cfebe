package subscriptions

import (
	"context"
	"encoding/json"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// This file queues the messages of change detection (coalescing bursts of
// push notifications); package engine claims and delivers them, woken by
// the Client's outbox.Queue (unical.Config.Outbox).

// Enqueue queues a calendar.event.* message for a subscription of c,
// carrying data when not nil, wakes the engine and returns the message id.
func Enqueue(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord, eventType string, data *outbox.ChangeData) (string, error) {
	msg, err := subscriptionMessage(c, sub, eventType, data)
	if err != nil {
		return "", err
	}
	if err := c.Store().EnqueueMessages(ctx, []*outbox.Message{msg}); err != nil {
		return "", err
	}
	c.Config().Outbox.Notify()
	return msg.ID, nil
}

// enqueueCoalesced queues a calendar.event.changed message unless the
// subscription's previous one is still waiting untouched: that one will
// make the receiver sync, and the sync sees this change too. The Store
// decides (outbox.Store.EnqueueCoalesced), so that it holds across
// replicas.
func enqueueCoalesced(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord) error {
	msg, err := subscriptionMessage(c, sub, unical.EventTypeCalendarEventChanged, nil)
	if err != nil {
		return err
	}
	queued, err := c.Store().EnqueueCoalesced(ctx, msg)
	if queued {
		c.Config().Outbox.Notify()
	}
	return err
}

// subscriptionMessage returns a pending calendar.event.* message for sub,
// carrying data when not nil.
func subscriptionMessage(c *unical.Client, sub *unical.SubscriptionRecord, eventType string, data *outbox.ChangeData) (*outbox.Message, error) {
	now := c.Config().Now().UTC()
	body, err := json.Marshal(unical.MessagePayload{
		EventType: eventType, Timestamp: unical.FormatTimestamp(now),
		SubscriptionID: sub.ID, EndUserAccountID: sub.EndUserAccountID, CalendarID: sub.CalendarID, Data: data,
	})
	if err != nil {
		return nil, err
	}
	return &outbox.Message{
		ID: unical.NewID("msg"), ApplicationID: sub.ApplicationID, SubscriptionID: sub.ID, EventType: eventType,
		Payload: body, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
	}, nil
}
