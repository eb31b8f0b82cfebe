package unical

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/unical/unical/internal/webhook"
)

// WebhookSender posts one webhook request and returns the receiver's
// answer. A failure to get one (refused address, timeout, TLS error) is an
// error. It must not follow redirects: a 3xx is the receiver's answer.
// Implementations must be safe for concurrent use.
type WebhookSender interface {
	Send(ctx context.Context, url string, header map[string][]string, body []byte) (WebhookResponse, error)
}

// WebhookResponse is the part of a receiver's answer the engine acts on.
type WebhookResponse struct {
	// StatusCode is the HTTP status code.
	StatusCode int
	// RetryAfter is the wait the receiver asked for in a Retry-After
	// header (seconds or an HTTP date), 0 without one. The engine honours
	// it on 429, 502, 503 and 504, the answers Standard Webhooks reads as
	// "slow down".
	RetryAfter time.Duration
}

// WebhookConfig is the webhook engine's part of [Config]. Its fields
// matter only to [Client.Run], except AllowPrivateTargets, which also
// decides which webhook URLs are accepted. A Client that never runs the
// engine (tests, admin commands) still queues messages; a running one, in
// this or another process sharing the Store, delivers them.
type WebhookConfig struct {
	// WebhookSender posts the signed webhook requests. Run fails without
	// one: the root package keeps free of net/http, so the HTTP client is
	// wired in by the program (cmd/unicald uses package webhooksender,
	// built with AllowPrivateTargets and DeliveryTimeout below).
	WebhookSender WebhookSender
	// AllowPrivateTargets accepts webhook URLs naming loopback, private or
	// link-local addresses, for development. Default false: such URLs are
	// refused with a 400 when they are IP literals or localhost, and the
	// sender refuses every such address when it connects.
	AllowPrivateTargets bool
	// DeliveryWorkers is how many deliveries run at once; default 16.
	DeliveryWorkers int
	// RetrySchedule is the delay before each attempt, from the failure of
	// the one before (the first entry, for the first attempt, is not
	// used); its length is the number of attempts. Default
	// webhook.DefaultSchedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
	// 10 h.
	RetrySchedule []time.Duration
	// RetryJitter spreads each retry delay over ±RetryJitter of itself;
	// default 0.2, negative for none.
	RetryJitter float64
	// DeliveryTimeout bounds one delivery attempt; default 15 seconds.
	DeliveryTimeout time.Duration
	// DeliveryLease is how long a worker holds a claimed message before
	// another worker (or process, after a crash) may take it; default 2
	// minutes. It must exceed DeliveryTimeout.
	DeliveryLease time.Duration
	// OutboxPollInterval is how often an idle engine looks for due
	// messages; messages queued by this Client, or by another process when
	// the Store implements [OutboxNotifier], wake it at once. Default 1
	// second.
	OutboxPollInterval time.Duration
	// ChangePollInterval is how often subscriptions without a provider
	// watch are checked for changes with the provider's sync cursor;
	// default 1 minute, negative disables polling. Each subscription has
	// its own due time within the interval, so the checks spread over it,
	// and engines sharing the Store take due subscriptions from it (see
	// SubscriptionStore.ClaimDueSubscriptions), so each subscription is
	// checked once per interval in all, not once per engine.
	ChangePollInterval time.Duration
	// DeliveryLogTTL is how long delivery attempts stay in the delivery
	// log; default 7 days.
	DeliveryLogTTL time.Duration
	// EndpointDisableAfter is how long a webhook endpoint may fail without
	// a single delivery before it is disabled (see [EndpointState]);
	// default 5 days, as Svix does; negative never disables.
	EndpointDisableAfter time.Duration
	// WatchRenewBefore is how long before it ends a provider watch (push
	// channel) is renewed, checked on every change poll; default 12 hours.
	// It must exceed ChangePollInterval, or watches lapse between checks.
	WatchRenewBefore time.Duration
	// ReconcileInterval is how often a subscription with a provider watch
	// is still checked with its sync cursor, as subscriptions without one
	// are, because a push channel can end without a word and its changes
	// would be missed for good. Default 15 minutes, negative disables.
	// Checks happen on the change polls (so not more often than
	// ChangePollInterval, and not at all when polling is disabled) and are
	// spread over the interval by subscription, so that watched
	// subscriptions are not all checked at the same instant.
	ReconcileInterval time.Duration
}

// engineConfig is the webhook engine's settings from Config, with
// defaults applied.
type engineConfig struct {
	workers    int
	backoff    webhook.Backoff
	timeout    time.Duration
	lease      time.Duration
	outboxPoll time.Duration
	changePoll time.Duration
	logTTL     time.Duration
	// disableAfter is Config.EndpointDisableAfter; 0 never disables.
	disableAfter time.Duration
	// watchRenewBefore is how long before its end a watch is renewed.
	watchRenewBefore time.Duration
	// reconcile is Config.ReconcileInterval; 0 never reconciles.
	reconcile time.Duration
}

func newEngineConfig(cfg *WebhookConfig) (engineConfig, error) {
	e := engineConfig{
		workers:      cfg.DeliveryWorkers,
		backoff:      webhook.Backoff{Schedule: cfg.RetrySchedule, Jitter: cfg.RetryJitter},
		timeout:      cfg.DeliveryTimeout,
		lease:        cfg.DeliveryLease,
		outboxPoll:   cfg.OutboxPollInterval,
		changePoll:   cfg.ChangePollInterval,
		logTTL:       cfg.DeliveryLogTTL,
		disableAfter: cfg.EndpointDisableAfter,

		watchRenewBefore: cfg.WatchRenewBefore,
		reconcile:        cfg.ReconcileInterval,
	}
	switch {
	case e.reconcile == 0:
		e.reconcile = 15 * time.Minute
	case e.reconcile < 0:
		e.reconcile = 0
	}
	if e.watchRenewBefore <= 0 {
		e.watchRenewBefore = 12 * time.Hour
	}
	if e.workers <= 0 {
		e.workers = 16
	}
	switch {
	case e.backoff.Jitter == 0:
		e.backoff.Jitter = webhook.DefaultJitter
	case e.backoff.Jitter < 0:
		e.backoff.Jitter = 0
	}
	if e.timeout <= 0 {
		e.timeout = 15 * time.Second
	}
	if e.lease <= 0 {
		e.lease = 2 * time.Minute
	}
	if e.lease <= e.timeout {
		return e, errors.New("unical: Config.DeliveryLease must exceed Config.DeliveryTimeout")
	}
	if e.outboxPoll <= 0 {
		e.outboxPoll = time.Second
	}
	if e.changePoll == 0 {
		e.changePoll = time.Minute
	}
	if e.logTTL <= 0 {
		e.logTTL = 7 * 24 * time.Hour
	}
	switch {
	case e.disableAfter == 0:
		e.disableAfter = 5 * 24 * time.Hour
	case e.disableAfter < 0:
		e.disableAfter = 0
	}
	return e, nil
}

// engineStore is the part of the Store the engine uses: the outbox it
// queues to and claims from, the delivery log it writes, and the
// subscriptions it polls and updates.
type engineStore interface {
	OutboxStore
	DeliveryLogStore
	SubscriptionStore
}

// engineDeps are the engine's inputs besides its settings. The engine
// reads nothing of the Client but these.
type engineDeps struct {
	store engineStore
	// endpoints resolves where a message goes and keeps each endpoint's
	// delivery state.
	endpoints *endpoints
	// sender posts the signed requests; nil until the program sets
	// Config.WebhookSender, and then Run refuses to start.
	sender WebhookSender
	// checkSubscription polls one subscription without a provider watch
	// for changes, renewWatch renews one with a watch near its end, and
	// reconcileSubscription checks one with a watch for changes push did
	// not report; all call providers, which is the Client's part.
	checkSubscription     func(context.Context, *SubscriptionRecord) error
	renewWatch            func(context.Context, *SubscriptionRecord) error
	reconcileSubscription func(context.Context, *SubscriptionRecord) error
	now                   func() time.Time
	log                   *slog.Logger
	obs                   Observer
}

// engine is the change-detection and delivery engine: it queues messages
// for changes (outbox.go), claims and delivers them (deliver.go), polls
// subscriptions without a provider watch (poller.go) and renews the
// watches of those with one; provider push notifications (push.go) reach
// it through enqueueCoalesced.
type engine struct {
	engineConfig
	engineDeps
	// wake nudges a running engine when a message is queued.
	wake     chan struct{}
	coalesce *coalescer
	// checking holds the ids of the subscriptions this engine is
	// checking, so that a check slower than the polling interval is not
	// joined by a second one.
	checking sync.Map
	// started is when the engine was made; reconciling counts from it, so
	// that a restart does not check every watched subscription at once.
	started time.Time
}

// newEngine returns an engine; it starts nothing (see run).
func newEngine(cfg engineConfig, deps engineDeps) *engine {
	return &engine{
		engineConfig: cfg,
		engineDeps:   deps,
		wake:         make(chan struct{}, 1),
		coalesce:     &coalescer{last: map[string]string{}},
		started:      deps.now(),
	}
}

// run delivers and polls until ctx ends, then writes what the workers
// left and returns.
func (e *engine) run(ctx context.Context) {
	w := &worker{e: e, owner: newID("wrk"), results: make(chan DeliveryResult, 4*e.workers)}
	jobs := make(chan *OutboxMessage)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		w.recordLoop(context.WithoutCancel(ctx))
	}()
	var wg sync.WaitGroup
	for range e.workers {
		wg.Go(func() {
			for msg := range jobs {
				w.deliver(ctx, msg)
			}
		})
	}
	var poller sync.WaitGroup
	if e.changePoll > 0 {
		poller.Go(func() { e.pollChanges(ctx) })
	}
	if n, ok := e.store.(OutboxNotifier); ok {
		// Messages queued by other replicas wake this engine too.
		poller.Go(func() {
			wakeups := n.OutboxWakeups(ctx)
			for {
				select {
				case <-ctx.Done():
					return
				case <-wakeups:
					e.notify()
				}
			}
		})
	}
	w.claimLoop(ctx, jobs)
	close(jobs)
	wg.Wait()
	// Every worker is done: write what they left, then stop.
	close(w.results)
	<-recorded
	poller.Wait()
}
