package unical

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// This file queues the messages of change detection (coalescing bursts of
// push notifications); package engine claims and delivers them.

// enqueueSubscriptionMessage queues a calendar.event.* message for a
// subscription, wakes the engine and returns the message id.
func (c *Client) enqueueSubscriptionMessage(ctx context.Context, sub *SubscriptionRecord, eventType string, data *ChangeData) (string, error) {
	msg, err := c.subscriptionMessage(sub, eventType, data)
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
	msg, err := c.subscriptionMessage(sub, EventTypeCalendarEventChanged, nil)
	if err != nil {
		return err
	}
	queued, err := c.store.EnqueueCoalesced(ctx, msg)
	if queued {
		c.notifyOutbox()
	}
	return err
}

// subscriptionMessage returns a pending calendar.event.* message for sub,
// carrying data when not nil.
func (c *Client) subscriptionMessage(sub *SubscriptionRecord, eventType string, data *ChangeData) (*OutboxMessage, error) {
	now := c.now().UTC()
	body, err := json.Marshal(MessagePayload{
		EventType: eventType, Timestamp: FormatTimestamp(now),
		SubscriptionID: sub.ID, EndUserAccountID: sub.EndUserAccountID, CalendarID: sub.CalendarID, Data: data,
	})
	if err != nil {
		return nil, err
	}
	return &OutboxMessage{
		ID: newID("msg"), ApplicationID: sub.ApplicationID, SubscriptionID: sub.ID, EventType: eventType,
		Payload: body, CreatedAt: now, Status: MessagePending, NextAttemptAt: now,
	}, nil
}

// changeData lists events, as one sync step listed them since a cursor
// taken at since, for an includeEvents message, oldest change first: a
// cancelled event is
// deleted, one the provider created at or after since is created, any
// other updated. Bodies are kept while the message holds fewer than
// MaxChangeBodies of them and MaxChangeBytes; from the first that does
// not fit on, changes are announced without their body (Truncated), so
// that the receiver can sync from there. Past MaxChangesListed changes
// the rest are left out and the data is Truncated.
func changeData(events []*Event, since time.Time) *ChangeData {
	d := &ChangeData{Events: []EventChange{}}
	// In the order the changes were made (updatedAt), whatever order the
	// provider lists them in; an event without a readable updatedAt keeps
	// its place after the one before it.
	keys := make(map[*Event]time.Time, len(events))
	var last time.Time
	for _, e := range events {
		if t, err := time.Parse(time.RFC3339Nano, e.UpdatedAt); err == nil {
			last = t
		}
		keys[e] = last
	}
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b *Event) int { return keys[a].Compare(keys[b]) })
	bodies, size, full := 0, 0, false
	for i, e := range events {
		if i == MaxChangesListed {
			d.Truncated = true
			break
		}
		ch := EventChange{ChangeType: "updated", EventID: e.ID}
		var body []byte
		var err error
		switch {
		case e.IsCancelled:
			ch.ChangeType = "deleted"
			body, err = json.Marshal(struct {
				ID          string `json:"id"`
				IsCancelled bool   `json:"isCancelled"`
			}{e.ID, true})
		default:
			if created, perr := time.Parse(time.RFC3339Nano, e.CreatedAt); perr == nil && !since.IsZero() && !created.Before(since.Truncate(precision(created))) {
				ch.ChangeType = "created"
			}
			body, err = json.Marshal(e)
		}
		full = full || err != nil || bodies == MaxChangeBodies || size+len(body) > MaxChangeBytes
		if full {
			ch.Truncated = true
		} else {
			ch.Event, bodies, size = body, bodies+1, size+len(body)
		}
		d.Events = append(d.Events, ch)
	}
	return d
}

// precision is the precision a provider's timestamp t was written with:
// a whole second (CalDAV's CREATED) is compared with a cursor's time cut
// to the second, so that an event created in the cursor's second counts as
// created.
func precision(t time.Time) time.Duration {
	if t.Nanosecond() == 0 {
		return time.Second
	}
	return 1
}
