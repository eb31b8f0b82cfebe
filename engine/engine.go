// Package engine is unical's webhook engine, run beside a
// [unical.Client]: it claims due outbox messages with a lease, signs them
// (Standard Webhooks) and posts them through Config.Sender, keeps
// each endpoint's delivery state, and schedules the change polls, watch
// renewals, reconciliations and store sweeps. Everything that talks to a
// provider (package subscriptions' checks and watch renewals),
// and the master key that opens the endpoints' signing secrets, stay
// outside the engine and are reached through [Client]. Several
// engines may share one Store; cmd/unicald runs one per process:
//
//	go engine.Run(ctx, client, settings) // until ctx ends or client.Close()
//
// The delivery log as the API shows it is the engine's too:
// [ListDeliveries] and [ResendMessage] are operations of an App over the
// attempts the engine writes ([DeliveryLog]), and [Observer] is what the
// engine measures.
package engine

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/grants"
	"github.com/unical/unical/internal/webhook"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
	"github.com/unical/unical/sweep"
)

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
	// delivered and failed are Config.DeliveredRetention and
	// Config.FailedRetention; 0 keeps such messages for good.
	delivered time.Duration
	failed    time.Duration
	// grantPeriod is grants.Config.Period: how often each account's grant is
	// refreshed; 0 never.
	grantPeriod time.Duration
	// sweep is how often to sweep the Store; 0 never.
	sweep time.Duration
}

func newEngineConfig(cfg *Settings) (engineConfig, error) {
	e := engineConfig{
		workers:      cfg.DeliveryWorkers,
		backoff:      webhook.Backoff{Schedule: cfg.RetrySchedule, Jitter: cfg.RetryJitter},
		timeout:      cfg.DeliveryTimeout,
		lease:        cfg.DeliveryLease,
		outboxPoll:   cfg.OutboxPollInterval,
		changePoll:   cfg.ChangePollInterval,
		logTTL:       cfg.DeliveryLogTTL,
		disableAfter: orNever(cfg.EndpointDisableAfter, 5*24*time.Hour),

		watchRenewBefore: cfg.WatchRenewBefore,
		reconcile:        orNever(cfg.ReconcileInterval, 15*time.Minute),
		delivered:        orNever(cfg.DeliveredRetention, DefaultDeliveredRetention),
		failed:           orNever(cfg.FailedRetention, DefaultFailedRetention),
		grantPeriod:      grants.Config{CheckInterval: cfg.GrantCheckInterval, KeepAlive: cfg.GrantKeepAlive}.Period(),
		sweep:            cfg.sweepInterval(),
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
		return e, errors.New("engine: Config.DeliveryLease must exceed Config.DeliveryTimeout")
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
	return e, nil
}

// orNever is a setting whose zero value means its default def and whose
// negative values mean never (or, for a retention, for good): it returns
// def for 0, 0 for a negative v, else v.
func orNever(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Store is the part of the Store the engine uses: the outbox it claims
// from, the delivery log it writes, the subscriptions it polls and
// updates, the applications whose webhook endpoint state it keeps, and
// the sweep.
type Store interface {
	outbox.Store
	outbox.LogStore
	unical.SubscriptionStore
	unical.ApplicationStore
	sweep.Store
}

// Client is what the engine needs of the [unical.Client]: change
// detection, which calls providers (CheckSubscription, package
// subscriptions' Check), the signing secrets of webhook endpoints, which are
// sealed under its master key, the applications it caches, and its
// clock, logger and lifetime. The engine's settings are its own
// ([Settings]), not the Client's.
// [ClientOf] a *unical.Client implements it; tests use a fake.
type Client interface {
	// CheckSubscription checks one due subscription: one without a
	// provider watch with its sync cursor; one with a watch has it renewed
	// when renew is set and is checked with its sync cursor when
	// reconcile is set.
	CheckSubscription(ctx context.Context, sub *unical.SubscriptionRecord, renew, reconcile bool) error
	// CheckGrants refreshes the grants of the accounts whose check is due
	// every period (see package grants), sharing the work with other
	// engines through the Store, and returns how many it checked.
	CheckGrants(ctx context.Context, period time.Duration) (int, error)
	// RevokeGrant makes one try at a revocation queued in the outbox
	// when its account was deleted (see package grants).
	RevokeGrant(ctx context.Context, msg *outbox.Message) error
	// Application reads an application through the Client's cache, for
	// its own webhook endpoint.
	Application(ctx context.Context, id string) (*unical.Application, error)
	// SubscriptionSecret and WebhookSecret open an endpoint's signing
	// secret, which is sealed under the Client's master key.
	SubscriptionSecret(sub *unical.SubscriptionRecord) (string, error)
	WebhookSecret(app *unical.Application) (string, error)
	// Invalidate drops an application from the Client's cache after the
	// engine changed its webhook endpoint's state in the Store.
	Invalidate(appID string, keyIDs ...string)
	Observer() unical.Observer
	Logger() *slog.Logger
	Now() time.Time
}

// ClientOf returns c as the engine's Client: its own methods, with the
// change detection of package subscriptions, which keeps the provider
// watches, and the grant checks and queued revocations of package grants.
func ClientOf(c *unical.Client) Client { return watching{c} }

type watching struct{ *unical.Client }

func (w watching) CheckSubscription(ctx context.Context, sub *unical.SubscriptionRecord, renew, reconcile bool) error {
	return subscriptions.Check(ctx, w.Client, sub, renew, reconcile)
}

func (w watching) SubscriptionSecret(sub *unical.SubscriptionRecord) (string, error) {
	return w.Keys().SubscriptionSecret(sub.ID, sub.SealedSecret)
}

func (w watching) WebhookSecret(app *unical.Application) (string, error) {
	return w.Keys().WebhookSecret(app.ID, app.SealedWebhookSecret)
}

func (w watching) Observer() unical.Observer { return w.Config().Observer }

func (w watching) Logger() *slog.Logger { return w.Config().Logger }

func (w watching) Now() time.Time { return w.Config().Now() }

func (w watching) CheckGrants(ctx context.Context, period time.Duration) (int, error) {
	return grants.Check(ctx, w.Client, period)
}

func (w watching) RevokeGrant(ctx context.Context, msg *outbox.Message) error {
	return grants.Revoke(ctx, w.Client, msg)
}

// Engine delivers webhooks and schedules change detection: it claims due
// outbox messages and delivers them (outbox.go, deliver.go), and polls
// subscriptions without a provider watch, renews the watches of those
// with one and reconciles them now and then (poll.go), calling back into
// the Client for everything that talks to a provider.
type Engine struct {
	engineConfig
	c     Client
	store Store
	// sender posts the signed requests.
	sender Sender
	log    *slog.Logger
	obs    Observer
	// queue is Config.Outbox: it signals messages queued in this
	// process, and a running engine attaches to it.
	queue *outbox.Queue
	// wake nudges a running engine when a message is queued.
	wake chan struct{}
	// checking holds the ids of the subscriptions this engine is
	// checking, so that a check slower than the polling interval is not
	// joined by a second one.
	checking sync.Map
	// started is when the engine was made; reconciling counts from it, so
	// that a restart does not check every watched subscription at once.
	started time.Time
}

// Config configures an Engine. Client and Store are required.
type Config struct {
	// Client is what the engine calls back into (change detection, the
	// signing secrets, the cache); [ClientOf] a *unical.Client is one.
	Client Client
	// Store is the outbox, delivery log and subscriptions it works on.
	Store Store
	// Outbox is the queue the Client (unical.Config.Outbox) and the
	// operations beside it notify when they queue messages; a running
	// engine attaches to it, so that closing it (unical.Client.Close)
	// stops the engine. Default a queue of the engine's own, which only
	// the outbox poll and Run's context drive.
	Outbox *outbox.Queue
	// Settings are the engine's settings. They are embedded, so their
	// fields read as Config's own (cfg.Sender).
	Settings
}

// New returns an engine for cfg.Client over cfg.Store; it starts nothing
// (see [Engine.Run]).
func New(cfg Config) (*Engine, error) {
	c, st := cfg.Client, cfg.Store
	if c == nil || st == nil {
		return nil, errors.New("engine: Config.Client and Config.Store are required")
	}
	ec, err := newEngineConfig(&cfg.Settings)
	if err != nil {
		return nil, err
	}
	return &Engine{
		engineConfig: ec,
		c:            c,
		store:        st,
		sender:       cfg.Sender,
		log:          c.Logger(),
		obs:          observerOf(c.Observer()),
		queue:        cmp.Or(cfg.Outbox, outbox.NewQueue()),
		wake:         make(chan struct{}, 1),
		started:      c.Now(),
	}, nil
}

// Run runs the engine for c over its Store with settings s (see [New]
// and [Engine.Run]).
func Run(ctx context.Context, c *unical.Client, s Settings) error {
	e, err := New(Config{Client: ClientOf(c), Store: c.Store(), Outbox: c.Config().Outbox, Settings: s})
	if err != nil {
		return err
	}
	return e.Run(ctx)
}

// PollChanges checks c's subscriptions once with settings s (see
// [Engine.PollChanges]).
func PollChanges(ctx context.Context, c *unical.Client, s Settings) error {
	e, err := New(Config{Client: ClientOf(c), Store: c.Store(), Outbox: c.Config().Outbox, Settings: s})
	if err != nil {
		return err
	}
	return e.PollChanges(ctx)
}

// Run runs the engine until ctx ends or the Client is closed: delivery
// workers that claim due outbox messages with a lease, sign them and POST
// them, the change poller (see Config.ChangePollInterval) and the store
// sweep (see [Engine.Sweep]). It returns nil when stopped that way.
// Several engines may run over one Store: the leases keep them from
// sending a message twice at once, and a crashed engine's claims pass to
// the others when they expire.
func (e *Engine) Run(ctx context.Context) error {
	wait, err := e.Start(ctx)
	if err != nil {
		return err
	}
	wait()
	return nil
}

// Start is Run in the background: it attaches the engine to its Outbox
// before it returns, so that readiness (/readyz) reports the engine
// running from then on rather than from whenever a goroutine gets to it,
// and wait blocks until the engine has stopped.
func (e *Engine) Start(ctx context.Context) (wait func(), err error) {
	if e.sender == nil {
		return nil, errors.New("engine: Run needs Config.Sender")
	}
	ctx, detach, err := e.queue.Attach(ctx)
	if err != nil {
		return nil, err
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer detach()
		var sweep sync.WaitGroup
		if e.sweep > 0 {
			sweep.Go(func() { e.sweepLoop(ctx, e.sweep) })
		}
		if e.grantPeriod > 0 {
			sweep.Go(func() { e.grantLoop(ctx) })
		}
		e.run(ctx)
		sweep.Wait()
	}()
	return func() { <-stopped }, nil
}

// now is the Client's clock.
func (e *Engine) now() time.Time { return e.c.Now() }

// notify wakes a running engine after a message was queued, so that it
// goes out without waiting for the next poll.
func (e *Engine) notify() {
	select {
	case e.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// run delivers and polls until ctx ends, then writes what the workers
// left and returns.
func (e *Engine) run(ctx context.Context) {
	w := &worker{e: e, owner: unical.NewID("wrk"), results: make(chan outbox.Result, 4*e.workers)}
	jobs := make(chan *outbox.Message)
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
	// Messages queued by this Client wake the engine at once.
	poller.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-e.queue.Queued():
				e.notify()
			}
		}
	})
	if e.changePoll > 0 {
		poller.Go(func() { e.pollChanges(ctx) })
	}
	if n, ok := e.store.(outbox.Notifier); ok {
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
