package engine

import (
	"context"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/unical/unical"
)

// pollConcurrency bounds how many subscriptions one polling pass checks at
// once, so that a slow provider does not hold up the others without
// opening a connection per subscription.
const pollConcurrency = 8

// pollClaimBatch is how many due subscriptions one claim takes: enough
// that a busy interval needs few claims, few enough that the ones waiting
// for a checker are not held long.
const pollClaimBatch = 4 * pollConcurrency

// pollTick is how often an engine asks the Store for due subscriptions:
// a fortieth of the polling interval, within [50 ms, 1 s], so that a
// subscription is checked soon after its due time (which spreads the
// checks over the interval) while an idle engine asks rarely.
func pollTick(interval time.Duration) time.Duration {
	return min(max(interval/40, 50*time.Millisecond), time.Second)
}

// pollChanges checks subscriptions as they come due until ctx ends; it is
// part of [Engine.Run]. Every subscription has its own due time within
// the interval (NextCheckAt), and engines sharing the Store take due
// subscriptions with ClaimDueSubscriptions, which moves each one's due
// time one interval on in the same write: so each subscription is checked
// by one engine once per interval, the checks spread over the interval
// instead of coming in one burst, and a subscription whose engine died
// after claiming it comes due again, for any engine, one interval later.
func (e *Engine) pollChanges(ctx context.Context) {
	tick := pollTick(e.changePoll)
	t := time.NewTimer(0)
	defer t.Stop()
	sem := make(chan struct{}, pollConcurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for ctx.Err() == nil {
			n, err := e.pollDue(ctx, sem, &wg)
			if err != nil && ctx.Err() == nil {
				e.log.ErrorContext(ctx, "claim due subscriptions", "err", err)
			}
			if n < pollClaimBatch {
				break // nothing more is due now
			}
		}
		t.Reset(tick)
	}
}

// pollDue claims the subscriptions due now, up to pollClaimBatch, starts
// their checks (at most pollConcurrency at a time, waiting for a free
// checker when all are busy) and returns how many it claimed. The checks
// of one claim are reported as one PollCycle when the last one ends.
func (e *Engine) pollDue(ctx context.Context, sem chan struct{}, wg *sync.WaitGroup) (int, error) {
	now := e.now()
	subs, err := e.store.ClaimDueSubscriptions(ctx, now, e.changePoll, pollClaimBatch)
	if err != nil || len(subs) == 0 {
		return 0, err
	}
	start := time.Now()
	// lag is how long after its due time the most overdue subscription
	// was claimed: its due time is one interval before its new one.
	var lag time.Duration
	for _, sub := range subs {
		lag = max(lag, now.Sub(sub.NextCheckAt.Add(-e.changePoll)))
	}
	var count atomic.Int64
	var pending sync.WaitGroup
	for _, sub := range subs {
		if _, busy := e.checking.LoadOrStore(sub.ID, true); busy {
			// Its previous check, which took longer than the interval,
			// still runs: a second one would read the same cursor and
			// report the same change again.
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			// The rest come due again in one interval.
			e.checking.Delete(sub.ID)
			return len(subs), nil
		}
		pending.Add(1)
		wg.Go(func() {
			defer pending.Done()
			defer func() { <-sem }()
			defer e.checking.Delete(sub.ID)
			e.checkOne(ctx, sub, &count)
		})
	}
	wg.Go(func() {
		pending.Wait()
		e.obs.PollCycle(int(count.Load()), lag, time.Since(start))
	})
	return len(subs), nil
}

// PollChanges renews provider watches that end within
// Config.WatchRenewBefore, and checks every subscription without a watch
// for changes once: it lists the calendar's events since the subscription's
// sync cursor and queues one calendar.event.changed message when anything
// changed, however much did (bursts are coalesced into one message per
// pass). A subscription with a watch is checked the same way about once
// every Config.ReconcileInterval, in case its push channel died silently.
// A cursor the provider no longer accepts is replaced by a fresh
// one and reported as calendar.event.unknown, because what changed in
// between cannot be told. Accounts that are EXPIRED are skipped. [Engine.Run]
// checks each subscription once every Config.ChangePollInterval, sharing
// the work with other replicas through the Store; PollChanges is exported
// for programs that schedule polling themselves, and checks every
// subscription whatever its due time. Two processes polling the same
// subscription at once may each queue a message for the same change; that
// is harmless, since a message only tells the receiver to sync.
func (e *Engine) PollChanges(ctx context.Context) error {
	start := time.Now()
	polled, err := e.pollPass(ctx)
	e.obs.PollCycle(polled, 0, time.Since(start))
	return err
}

// pollPass is one pass of PollChanges; it returns how many
// subscriptions it polled with a sync cursor.
func (e *Engine) pollPass(ctx context.Context) (polled int, err error) {
	var count atomic.Int64
	defer func() { polled = int(count.Load()) }()
	sem := make(chan struct{}, pollConcurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	after := ""
	for {
		subs, err := e.store.ListAllSubscriptions(ctx, after, 100)
		if err != nil {
			return 0, err
		}
		for _, sub := range subs {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			wg.Go(func() {
				defer func() { <-sem }()
				e.checkOne(ctx, sub, &count)
			})
		}
		if len(subs) < 100 {
			return 0, nil
		}
		after = subs[len(subs)-1].ID
	}
}

// checkOne checks one subscription: one without a provider watch is
// polled with its sync cursor; one with a watch has it renewed when it
// ends within Config.WatchRenewBefore, and is now and then checked like a
// polled one. count counts the checks made with a sync cursor.
func (e *Engine) checkOne(ctx context.Context, sub *unical.SubscriptionRecord, count *atomic.Int64) {
	renew, reconcile := false, false
	if sub.Watch != nil {
		renew = !e.now().Add(e.watchRenewBefore).Before(sub.Watch.Expiration)
		reconcile = e.reconcileDue(sub, e.now())
		if !renew && !reconcile {
			return
		}
	}
	if sub.Watch == nil || reconcile {
		count.Add(1)
	}
	if err := e.c.CheckSubscription(ctx, sub, renew, reconcile); err != nil && ctx.Err() == nil {
		e.log.WarnContext(ctx, "check subscription", "subscription", sub.ID, "err", err)
	}
}

// reconcileDue reports whether watched subscription sub is due to be
// checked with its sync cursor at now. Time is cut into slots of
// Config.ReconcileInterval, shifted by an offset drawn from the
// subscription's id, and a subscription is due once per slot (once a
// slot began after its last check): so the
// checks of many subscriptions spread over the interval, and several
// engines sharing the Store check each one about once per interval, as the
// check records its time on the subscription. The first slot counts from
// the later of the subscription's creation and the engine's start, so a
// restart does not check every subscription at once.
func (e *Engine) reconcileDue(sub *unical.SubscriptionRecord, now time.Time) bool {
	if e.reconcile <= 0 {
		return false
	}
	last := e.started
	if sub.ReconciledAt.After(last) {
		last = sub.ReconciledAt
	}
	if sub.CreatedAt.After(last) {
		last = sub.CreatedAt
	}
	h := fnv.New64a()
	h.Write([]byte(sub.ID))
	offset := time.Duration(h.Sum64() % uint64(e.reconcile))
	// Slots count from the Unix epoch, not from the engine's start, so
	// that engines sharing the Store agree on them.
	slot := func(t time.Time) int64 { return (t.UnixNano() - int64(offset)) / int64(e.reconcile) }
	return slot(now) > slot(last)
}
