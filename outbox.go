package unical

import (
	"context"
	"encoding/json"
)

// This file queues the messages of change detection (coalescing bursts of
// push notifications); package engine claims and delivers them.

// enqueueSubscriptionMessage queues a calendar.event.* message for a
// subscription, wakes the engine and returns the message id.
func (c *Client) enqueueSubscriptionMessage(ctx context.Context, sub *SubscriptionRecord, eventType string) (string, error) {
	msg, err := c.subscriptionMessage(sub, eventType)
	if err != nil {
		return "", err
	}
	if err := c.store.EnqueueMessages(ctx, []*OutboxMessage{msg}); err != nil {
		return "", err
	}
	c.notifyOutbox()
	return msg.ID, nil
}

// enqueueCoalesced queues a calendar.event.changed message unless the
// subscription's previous one is still waiting untouched: that one will
// make the receiver sync, and the sync sees this change too. The Store
// decides (EnqueueCoalesced), so that it holds across replicas.
func (c *Client) enqueueCoalesced(ctx context.Context, sub *SubscriptionRecord) error {
	msg, err := c.subscriptionMessage(sub, EventTypeCalendarEventChanged)
	if err != nil {
		return err
	}
	queued, err := c.store.EnqueueCoalesced(ctx, msg)
	if queued {
		c.notifyOutbox()
	}
	return err
}

// subscriptionMessage returns a pending calendar.event.* message for sub.
func (c *Client) subscriptionMessage(sub *SubscriptionRecord, eventType string) (*OutboxMessage, error) {
	now := c.now().UTC()
	body, err := json.Marshal(MessagePayload{
		EventType: eventType, Timestamp: FormatTimestamp(now),
		SubscriptionID: sub.ID, EndUserAccountID: sub.EndUserAccountID, CalendarID: sub.CalendarID,
	})
	if err != nil {
		return nil, err
	}
	return &OutboxMessage{
		ID: newID("msg"), ApplicationID: sub.ApplicationID, SubscriptionID: sub.ID, EventType: eventType,
		Payload: body, CreatedAt: now, Status: MessagePending, NextAttemptAt: now,
	}, nil
}
