package unical

import (
	"context"
	"encoding/json"
	"sync"
)

// This file queues the messages of change detection (coalescing bursts of
// push notifications); package engine claims and delivers them.

// enqueueSubscriptionMessage queues a calendar.event.* message for a
// subscription, wakes the engine and returns the message id.
func (c *Client) enqueueSubscriptionMessage(ctx context.Context, sub *SubscriptionRecord, eventType string) (string, error) {
	now := c.now().UTC()
	body, err := json.Marshal(MessagePayload{
		EventType: eventType, Timestamp: FormatTimestamp(now),
		SubscriptionID: sub.ID, EndUserAccountID: sub.EndUserAccountID, CalendarID: sub.CalendarID,
	})
	if err != nil {
		return "", err
	}
	msg := &OutboxMessage{
		ID: newID("msg"), ApplicationID: sub.ApplicationID, SubscriptionID: sub.ID, EventType: eventType,
		Payload: body, CreatedAt: now, Status: MessagePending, NextAttemptAt: now,
	}
	if err := c.store.EnqueueMessages(ctx, []*OutboxMessage{msg}); err != nil {
		return "", err
	}
	c.notifyOutbox()
	return msg.ID, nil
}

// enqueueCoalesced queues a calendar.event.changed message unless the
// subscription's previous one is still waiting untouched: that one will
// make the receiver sync, and the sync sees this change too.
func (c *Client) enqueueCoalesced(ctx context.Context, sub *SubscriptionRecord) error {
	co := c.coalesce
	co.mu.Lock()
	last := co.last[sub.ID]
	co.mu.Unlock()
	if last != "" {
		msg, err := c.store.GetMessage(ctx, sub.ApplicationID, last)
		if err == nil && msg.Status == MessagePending && msg.Attempts == 0 && msg.LeaseOwner == "" {
			return nil
		}
	}
	id, err := c.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventChanged)
	if err != nil {
		return err
	}
	co.remember(sub.ID, id)
	return nil
}

// coalescer remembers each subscription's newest queued push message, so
// that a burst of notifications queues one message while it waits. It is
// only a saving: forgetting an entry costs at most one extra message, so
// the map is pruned when a subscription goes and cleared when it grows
// past maxCoalesced.
type coalescer struct {
	mu   sync.Mutex
	last map[string]string // subscription id → message id
}

// maxCoalesced bounds the coalescer's map: subscriptions deleted by
// another replica, or with their account, are never pruned one by one.
const maxCoalesced = 100_000

// remember records id as sub's newest queued message.
func (co *coalescer) remember(subID, msgID string) {
	co.mu.Lock()
	defer co.mu.Unlock()
	if len(co.last) >= maxCoalesced {
		clear(co.last)
	}
	co.last[subID] = msgID
}

// forget drops what the coalescer knows of a subscription.
func (co *coalescer) forget(subID string) {
	co.mu.Lock()
	defer co.mu.Unlock()
	delete(co.last, subID)
}
