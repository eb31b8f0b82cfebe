package engine

import (
	"context"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
	"github.com/unical/unical/sweep"
)

// Retention defaults; see the Settings fields of the same
// names.
const (
	DefaultDeliveredRetention = 7 * 24 * time.Hour
	DefaultFailedRetention    = 30 * 24 * time.Hour
)

// sweepBatch bounds the records one Store.Sweep call removes, so that a
// large backlog (a first sweep of an old file) goes in short writes that
// let deliveries and requests in between.
const sweepBatch = 1000

// Sweep sweeps c's Store once with the retention of s (see
// [Engine.Sweep]), for a program that does not run the engine.
func Sweep(ctx context.Context, c *unical.Client, s Settings) (sweep.Result, error) {
	e, err := New(Config{Client: ClientOf(c), Store: c.Store(), Outbox: c.Config().Outbox, Settings: s})
	if err != nil {
		return sweep.Result{}, err
	}
	return e.Sweep(ctx)
}

// Sweep removes what the Store no longer needs: OAuth flows, sync cursor
// blobs, delivery-log attempts, Idempotency-Keys and the grants of scoped
// tokens (when the Store keeps them) that have expired,
// delivered messages older than Config.DeliveredRetention and failed ones
// older than Config.FailedRetention. Pending messages are never removed.
// A running engine calls it every Config.SweepInterval. It works in
// batches and returns what it removed, also when ctx ends part way.
func (e *Engine) Sweep(ctx context.Context) (sweep.Result, error) {
	now := e.now().UTC()
	req := sweep.Request{Now: now, Limit: sweepBatch}
	if e.delivered > 0 {
		req.DeliveredBefore = now.Add(-e.delivered)
	}
	if e.failed > 0 {
		req.FailedBefore = now.Add(-e.failed)
	}
	e.sweepTokenGrants(ctx, now)
	var total sweep.Result
	for {
		res, err := e.store.Sweep(ctx, req)
		total.Flows += res.Flows
		total.Blobs += res.Blobs
		total.Attempts += res.Attempts
		total.DeliveredMessages += res.DeliveredMessages
		total.FailedMessages += res.FailedMessages
		total.IdempotencyKeys += res.IdempotencyKeys
		if err != nil || res.Total() < sweepBatch {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// sweepLoop runs Sweep every Config.SweepInterval until ctx ends. Several
// engines over one Store may sweep at once: the Store's transactions make
// that safe, only wasteful.
func (e *Engine) sweepLoop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		res, err := e.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			e.log.ErrorContext(ctx, "sweep the store", "err", err)
		case res.Total() > 0:
			e.log.InfoContext(ctx, "swept the store", "flows", res.Flows, "blobs", res.Blobs, "attempts", res.Attempts,
				"delivered", res.DeliveredMessages, "failed", res.FailedMessages, "idempotencyKeys", res.IdempotencyKeys)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweepTokenGrants removes the expired grants of scoped tokens, when the
// Store keeps them (scopedtoken.GrantStore), in batches of sweepBatch. A
// failure is logged: it must not stop the rest of the sweep, and the
// grants are refused at their expiry whether swept or not.
func (e *Engine) sweepTokenGrants(ctx context.Context, now time.Time) {
	gs, ok := e.store.(scopedtoken.GrantStore)
	if !ok {
		return
	}
	total := 0
	for ctx.Err() == nil {
		n, err := gs.SweepTokenGrants(ctx, now, sweepBatch)
		total += n
		if err != nil {
			e.log.ErrorContext(ctx, "sweep scoped token grants", "err", err)
			break
		}
		if n < sweepBatch {
			break
		}
	}
	if total > 0 {
		e.log.InfoContext(ctx, "swept scoped token grants", "grants", total)
	}
}
