package unical

import (
	"context"
	"encoding/json"
)

// This file queues the messages of change detection (coalescing bursts of
// push notifications, which package subscriptions takes); package engine
// claims and delivers them.

// EnqueueSubscriptionMessage queues a calendar.event.* message for a
// subscription, carrying data when not nil, wakes the engine and returns
// the message id.
func (o *Outbox) EnqueueSubscriptionMessage(ctx context.Context, sub *SubscriptionRecord, eventType string, data *ChangeData) (string, error) {
	msg, err := o.subscriptionMessage(sub, eventType, data)
	if err != nil {
		return "", err
	}
	if err := o.store.EnqueueMessages(ctx, []*OutboxMessage{msg}); err != nil {
		return "", err
	}
	o.Notify()
	return msg.ID, nil
}

// EnqueueCoalesced queues a calendar.event.changed message unless the
// subscription's previous one is still waiting untouched: that one will
// make the receiver sync, and the sync sees this change too. The Store
// decides (OutboxStore.EnqueueCoalesced), so that it holds across
// replicas.
func (o *Outbox) EnqueueCoalesced(ctx context.Context, sub *SubscriptionRecord) error {
	msg, err := o.subscriptionMessage(sub, EventTypeCalendarEventChanged, nil)
	if err != nil {
		return err
	}
	queued, err := o.store.EnqueueCoalesced(ctx, msg)
	if queued {
		o.Notify()
	}
	return err
}

// subscriptionMessage returns a pending calendar.event.* message for sub,
// carrying data when not nil.
func (o *Outbox) subscriptionMessage(sub *SubscriptionRecord, eventType string, data *ChangeData) (*OutboxMessage, error) {
	now := o.now().UTC()
	body, err := json.Marshal(MessagePayload{
		EventType: eventType, Timestamp: FormatTimestamp(now),
		SubscriptionID: sub.ID, EndUserAccountID: sub.EndUserAccountID, CalendarID: sub.CalendarID, Data: data,
	})
	if err != nil {
		return nil, err
	}
	return &OutboxMessage{
		ID: NewID("msg"), ApplicationID: sub.ApplicationID, SubscriptionID: sub.ID, EventType: eventType,
		Payload: body, CreatedAt: now, Status: MessagePending, NextAttemptAt: now,
	}, nil
}
