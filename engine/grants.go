package engine

import (
	"context"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/grants"
)

// grantTick is how often an engine looks for accounts whose grant check
// is due: an eighth of the period, within [10 ms, 15 min], so that an
// account is checked soon after its due time while a server with the
// default period of hours reads its accounts four times an hour.
func grantTick(period time.Duration) time.Duration {
	return min(max(period/8, 10*time.Millisecond), 15*time.Minute)
}

// grantLoop checks due grants (see [Engine.CheckGrants]) until ctx ends.
func (e *Engine) grantLoop(ctx context.Context) {
	t := time.NewTicker(grantTick(e.grantPeriod))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := e.CheckGrants(ctx); err != nil && ctx.Err() == nil {
			e.log.ErrorContext(ctx, "check account grants", "err", err)
		}
	}
}

// CheckGrants refreshes, through the Client, the token of every ACTIVE
// Google and Microsoft account whose grant check is due (see package
// grants): so an idle account's refresh token never goes unused for
// longer than Config.GrantKeepAlive, and a grant revoked at the provider
// expires its account within about Config.GrantCheckInterval. A running
// engine calls it every so often; engines sharing the Store take due
// accounts from it, so each account is checked once per period in all.
// It returns how many accounts it checked.
func (e *Engine) CheckGrants(ctx context.Context) (int, error) {
	return e.c.CheckGrants(ctx, e.grantPeriod)
}

// CheckGrants checks c's due grants once under the grant settings of s
// (see [Engine.CheckGrants]), for a program that does not run the engine.
func CheckGrants(ctx context.Context, c *unical.Client, s Settings) (int, error) {
	return grants.Check(ctx, c, grants.Config{CheckInterval: s.GrantCheckInterval, KeepAlive: s.GrantKeepAlive}.Period())
}
