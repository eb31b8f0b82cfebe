package unical

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// This file is the outbox side of the engine: queueing a message for a
// change (coalescing bursts of push notifications), claiming due messages
// for the delivery workers, and writing back what the workers did.

// enqueueSubscriptionMessage queues a calendar.event.* message for a
// subscription, wakes the engine and returns the message id.
func (e *engine) enqueueSubscriptionMessage(ctx context.Context, sub *SubscriptionRecord, eventType string) (string, error) {
	now := e.now().UTC()
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
	if err := e.store.EnqueueMessages(ctx, []*OutboxMessage{msg}); err != nil {
		return "", err
	}
	e.notify()
	return msg.ID, nil
}

// enqueueCoalesced queues a calendar.event.changed message unless the
// subscription's previous one is still waiting untouched: that one will
// make the receiver sync, and the sync sees this change too.
func (e *engine) enqueueCoalesced(ctx context.Context, sub *SubscriptionRecord) error {
	co := e.coalesce
	co.mu.Lock()
	last := co.last[sub.ID]
	co.mu.Unlock()
	if last != "" {
		msg, err := e.store.GetMessage(ctx, sub.ApplicationID, last)
		if err == nil && msg.Status == MessagePending && msg.Attempts == 0 && msg.LeaseOwner == "" {
			return nil
		}
	}
	id, err := e.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventChanged)
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

// forgetSubscription drops what the engine keeps of a deleted
// subscription.
func (e *engine) forgetSubscription(subID string) { e.coalesce.forget(subID) }

// forget drops what the coalescer knows of a subscription.
func (co *coalescer) forget(subID string) {
	co.mu.Lock()
	defer co.mu.Unlock()
	delete(co.last, subID)
}

// notify wakes a running engine after a message was queued, so that it
// goes out without waiting for the next poll.
func (e *engine) notify() {
	select {
	case e.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// maxRecordBatch bounds the results one RecordDeliveries call writes.
const maxRecordBatch = 256

// recordLoop writes the workers' results. It takes whatever has piled up
// while the previous write was committing, so under load many deliveries
// share one commit (group commit) and when idle each is written at once.
func (w *worker) recordLoop(ctx context.Context) {
	batch := make([]DeliveryResult, 0, maxRecordBatch)
	for first := range w.results {
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxRecordBatch {
			select {
			case r, ok := <-w.results:
				if !ok {
					break fill
				}
				batch = append(batch, r)
			default:
				break fill
			}
		}
		errs, err := w.e.store.RecordDeliveries(ctx, batch)
		if err != nil {
			// The leases expire and the messages are sent again: at least
			// once, never lost.
			w.e.log.ErrorContext(ctx, "write webhook deliveries", "count", len(batch), "err", err)
			continue
		}
		for i, err := range errs {
			w.finish(ctx, batch[i].Message, err)
		}
	}
}

// worker is one engine's delivery state.
type worker struct {
	e     *engine
	owner string // the lease owner of this engine's claims
	// slots are the send slots booked under subscriptions' rate limits.
	slots sendSlots
	// results carries written-back messages to recordLoop, the one writer.
	results chan DeliveryResult
}

// claimLoop claims due messages and hands them to the workers until ctx
// ends. It claims at most as many as there are workers at a time, so that
// claimed messages do not wait long under their lease.
func (w *worker) claimLoop(ctx context.Context, jobs chan<- *OutboxMessage) {
	e := w.e
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		msgs, err := w.e.store.ClaimMessages(ctx, w.owner, w.e.now(), e.lease, e.workers)
		if err != nil && ctx.Err() == nil {
			w.e.log.ErrorContext(ctx, "claim webhook messages", "err", err)
		}
		for i, msg := range msgs {
			select {
			case jobs <- msg:
			case <-ctx.Done():
				// Give the rest back now rather than leave them to their
				// lease, so that a restarted engine (or another replica)
				// sends them at once. They are written unchanged: still
				// due, no attempt counted.
				for _, msg := range msgs[i:] {
					w.update(msg)
				}
				return
			}
		}
		if len(msgs) == e.workers {
			continue // there may be more due right now
		}
		timer.Reset(e.outboxPoll)
		select {
		case <-ctx.Done():
			return
		case <-w.e.wake:
		case <-timer.C:
		}
	}
}

// record hands a claimed message back after an attempt, with the attempt
// for the delivery log, to the writer.
func (w *worker) record(msg *OutboxMessage, attempt *DeliveryAttempt) {
	attempt.ApplicationID, attempt.MessageID, attempt.SubscriptionID = msg.ApplicationID, msg.ID, msg.SubscriptionID
	attempt.EventType, attempt.Attempt = msg.EventType, msg.Attempts
	attempt.ID = newID("att")
	attempt.ExpiresAt = attempt.At.Add(w.e.logTTL)
	w.results <- DeliveryResult{Message: msg, Attempt: attempt}
}

// update hands a claimed message back without an attempt (a lease given
// back) to the writer.
func (w *worker) update(msg *OutboxMessage) {
	w.results <- DeliveryResult{Message: msg}
}

func (w *worker) finish(ctx context.Context, msg *OutboxMessage, err error) {
	switch ErrorCode(err) {
	case "", CodeNotFound:
		// Written, or deleted with its subscription meanwhile.
	case CodeConflict:
		// The lease ran out and another worker has the message; it will
		// be sent again, which at-least-once allows.
		w.e.log.WarnContext(ctx, "webhook message lease lost", "message", msg.ID)
	default:
		w.e.log.ErrorContext(ctx, "write webhook message", "message", msg.ID, "err", err)
	}
}
