package engine

import (
	"context"
	"time"
)

// sweepLoop runs Sweep every Config.SweepInterval until ctx ends. Several
// engines over one Store may sweep at once: the Store's transactions make
// that safe, only wasteful.
func (e *Engine) sweepLoop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		res, err := e.c.Sweep(ctx)
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
