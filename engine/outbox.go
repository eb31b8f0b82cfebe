package engine

import (
	"context"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// maxRecordBatch bounds the results one RecordDeliveries call writes.
const maxRecordBatch = 256

// recordLoop writes the workers' results. It takes whatever has piled up
// while the previous write was committing, so under load many deliveries
// share one commit (group commit) and when idle each is written at once.
func (w *worker) recordLoop(ctx context.Context) {
	batch := make([]outbox.Result, 0, maxRecordBatch)
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
	e     *Engine
	owner string // the lease owner of this engine's claims
	// slots are the send slots booked under subscriptions' rate limits.
	slots sendSlots
	// results carries written-back messages to recordLoop, the one writer.
	results chan outbox.Result
}

// claimLoop claims due messages and hands them to the workers until ctx
// ends. It claims at most as many as there are workers at a time, so that
// claimed messages do not wait long under their lease.
func (w *worker) claimLoop(ctx context.Context, jobs chan<- *outbox.Message) {
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
func (w *worker) record(msg *outbox.Message, attempt *outbox.Attempt) {
	attempt.ApplicationID, attempt.MessageID, attempt.SubscriptionID = msg.ApplicationID, msg.ID, msg.SubscriptionID
	attempt.EventType, attempt.Attempt = msg.EventType, msg.Attempts
	attempt.ID = unical.NewID("att")
	attempt.ExpiresAt = attempt.At.Add(w.e.logTTL)
	w.results <- outbox.Result{Message: msg, Attempt: attempt}
}

// update hands a claimed message back without an attempt (a lease given
// back) to the writer.
func (w *worker) update(msg *outbox.Message) {
	w.results <- outbox.Result{Message: msg}
}

func (w *worker) finish(ctx context.Context, msg *outbox.Message, err error) {
	switch unical.ErrorCode(err) {
	case "", unical.CodeNotFound:
		// Written, or deleted with its subscription meanwhile.
	case unical.CodeConflict:
		// The lease ran out and another worker has the message; it will
		// be sent again, which at-least-once allows.
		w.e.log.WarnContext(ctx, "webhook message lease lost", "message", msg.ID)
	default:
		w.e.log.ErrorContext(ctx, "write webhook message", "message", msg.ID, "err", err)
	}
}
