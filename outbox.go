package unical

import (
	"context"
	"encoding/json"

	"github.com/unical/unical/outbox"
)

// This file queues the messages of change detection (coalescing bursts of
// push notifications, which package subscriptions takes); package engine
// claims and delivers them.

// EnqueueSubscriptionMessage queues a calendar.event.* message for a
// subscription, carrying data when not nil, wakes the engine and returns
// the message id.
func (o *Outbox) EnqueueSubscriptionMessage(ctx context.Context, sub *SubscriptionRecord, eventType string, data *outbox.ChangeData) (string, error) {
	msg, err := o.subscriptionMessage(sub, eventType, data)
	if err != nil {
		return "", err
	}
	if err := o.c.store.EnqueueMessages(ctx, []*outbox.Message{msg}); err != nil {
		return "", err
	}
	o.c.cfg.Outbox.Notify()
	return msg.ID, nil
}

// EnqueueCoalesced queues a calendar.event.changed message unless the
// subscription's previous one is still waiting untouched: that one will
// make the receiver sync, and the sync sees this change too. The Store
// decides (outbox.Store.EnqueueCoalesced), so that it holds across
// replicas.
func (o *Outbox) EnqueueCoalesced(ctx context.Context, sub *SubscriptionRecord) error {
	msg, err := o.subscriptionMessage(sub, EventTypeCalendarEventChanged, nil)
	if err != nil {
		return err
	}
	queued, err := o.c.store.EnqueueCoalesced(ctx, msg)
	if queued {
		o.c.cfg.Outbox.Notify()
	}
	return err
}

// subscriptionMessage returns a pending calendar.event.* message for sub,
// carrying data when not nil.
func (o *Outbox) subscriptionMessage(sub *SubscriptionRecord, eventType string, data *outbox.ChangeData) (*outbox.Message, error) {
	now := o.c.now().UTC()
	body, err := json.Marshal(MessagePayload{
		EventType: eventType, Timestamp: FormatTimestamp(now),
		SubscriptionID: sub.ID, EndUserAccountID: sub.EndUserAccountID, CalendarID: sub.CalendarID, Data: data,
	})
	if err != nil {
		return nil, err
	}
	return &outbox.Message{
		ID: NewID("msg"), ApplicationID: sub.ApplicationID, SubscriptionID: sub.ID, EventType: eventType,
		Payload: body, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
	}, nil
}
