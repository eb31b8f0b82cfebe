package unical

import (
	"context"
	"time"
)

// Retention defaults; see the Config fields of the same names.
const (
	DefaultSweepInterval      = 5 * time.Minute
	DefaultDeliveredRetention = 7 * 24 * time.Hour
	DefaultFailedRetention    = 30 * 24 * time.Hour
)

// sweepBatch bounds the records one Store.Sweep call removes, so that a
// large backlog (a first sweep of an old file) goes in short writes that
// let deliveries and requests in between.
const sweepBatch = 1000

// sweepConfig is the retention part of Config, with defaults applied; a
// zero duration means "keep" (retention) or "never" (interval).
type sweepConfig struct {
	interval  time.Duration
	delivered time.Duration
	failed    time.Duration
}

func newSweepConfig(cfg *Config) sweepConfig {
	orDefault := func(v, def time.Duration) time.Duration {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	s := sweepConfig{
		interval:  orDefault(cfg.SweepInterval, DefaultSweepInterval),
		delivered: orDefault(cfg.DeliveredRetention, DefaultDeliveredRetention),
		failed:    orDefault(cfg.FailedRetention, DefaultFailedRetention),
	}
	return s
}

// Sweep removes what the Store no longer needs: OAuth flows, sync cursor
// blobs and delivery-log attempts that have expired, delivered messages
// older than Config.DeliveredRetention and failed ones older than
// Config.FailedRetention. Pending messages are never removed. The engine (package engine)
// calls it every Config.SweepInterval; a Client that does not run the
// engine may call it itself. It works in batches and returns what it
// removed, also when ctx ends part way.
func (c *Client) Sweep(ctx context.Context) (SweepResult, error) {
	now := c.now().UTC()
	req := SweepRequest{Now: now, Limit: sweepBatch}
	if c.sweep.delivered > 0 {
		req.DeliveredBefore = now.Add(-c.sweep.delivered)
	}
	if c.sweep.failed > 0 {
		req.FailedBefore = now.Add(-c.sweep.failed)
	}
	var total SweepResult
	for {
		res, err := c.store.Sweep(ctx, req)
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
