// Package sweep is the contract of a Store's sweep: what the engine
// (engine.Sweep, every Config.SweepInterval) asks a Store to remove once it
// has expired or outlived its retention, and what was removed. A
// unical.Store embeds [Store], so an outside Store implements it;
// store/storetest checks it. It imports nothing of the module, so the root
// package can embed it.
package sweep

import (
	"context"
	"time"
)

// Request says what [Store.Sweep] removes.
type Request struct {
	// Now is the sweep's time: OAuth flows, blobs, delivery attempts and
	// idempotency records that have expired at Now are removed.
	Now time.Time
	// DeliveredBefore removes delivered messages whose NextAttemptAt (the
	// due time of their last attempt, which is when they finished) is
	// before it; the zero time keeps them all.
	DeliveredBefore time.Time
	// FailedBefore does the same for failed messages.
	FailedBefore time.Time
	// Limit bounds how many records one call removes in all, so that a
	// backlog goes in several short writes instead of one long one; zero
	// or less means no bound.
	Limit int
}

// Result counts what one [Store.Sweep] removed.
type Result struct {
	Flows             int `json:"flows"`
	Blobs             int `json:"blobs"`
	Attempts          int `json:"attempts"`
	DeliveredMessages int `json:"deliveredMessages"`
	FailedMessages    int `json:"failedMessages"`
	IdempotencyKeys   int `json:"idempotencyKeys"`
}

// Total is the number of records removed.
func (r Result) Total() int {
	return r.Flows + r.Blobs + r.Attempts + r.DeliveredMessages + r.FailedMessages + r.IdempotencyKeys
}

// Store removes what has expired or outlived its retention, so that
// the Store does not grow without bound. Expired flows, blobs and attempts
// are already invisible to reads; the sweep gives their space back.
type Store interface {
	// Sweep removes, across every application, expired OAuth flows,
	// expired blobs, expired delivery attempts, expired idempotency
	// records (whatever their state), and delivered and failed
	// outbox messages past their retention, at most req.Limit records in
	// all. Pending messages and unexpired records are never removed.
	Sweep(ctx context.Context, req Request) (Result, error)
}
