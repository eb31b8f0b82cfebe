package engine

import (
	"context"
	"time"
)

// Sender posts one webhook request and returns the receiver's answer. A
// failure to get one (refused address, timeout, TLS error) is an error.
// It must not follow redirects: a 3xx is the receiver's answer.
// Implementations must be safe for concurrent use; package webhooksender
// has one.
type Sender interface {
	Send(ctx context.Context, url string, header map[string][]string, body []byte) (Response, error)
}

// Response is the part of a receiver's answer the engine acts on.
type Response struct {
	// StatusCode is the HTTP status code.
	StatusCode int
	// RetryAfter is the wait the receiver asked for in a Retry-After
	// header (seconds or an HTTP date), 0 without one. The engine honours
	// it on 429, 502, 503 and 504, the answers Standard Webhooks reads as
	// "slow down".
	RetryAfter time.Duration
}

// DefaultSweepInterval is the default of Settings.SweepInterval.
const DefaultSweepInterval = 5 * time.Minute

// Settings are the engine's part of [Config], set by the program that
// runs it (cmd/unicald from its flags). Every field has the default its
// comment states. A Client that never runs the engine (tests, admin
// commands) still queues messages; a running engine, in this or another
// process sharing the Store, delivers them.
type Settings struct {
	// Sender posts the signed webhook requests. Run fails without one:
	// cmd/unicald uses package webhooksender, built with
	// unical.Config.AllowPrivateTargets and DeliveryTimeout below.
	Sender Sender
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
	// messages; messages queued by its Client, or by another process when
	// the Store implements [outbox.Notifier], wake it at once.
	// Default 1 second.
	OutboxPollInterval time.Duration
	// ChangePollInterval is how often subscriptions without a provider
	// watch are checked for changes with the provider's sync cursor;
	// default 1 minute, negative disables polling. Each subscription has
	// its own due time within the interval (give the same interval to
	// subscriptions.Hooks, which picks the first), so the checks spread
	// over it, and engines sharing the Store take due subscriptions from
	// it (see SubscriptionStore.ClaimDueSubscriptions), so each
	// subscription is checked once per interval in all, not once per
	// engine.
	ChangePollInterval time.Duration
	// DeliveryLogTTL is how long delivery attempts stay in the delivery
	// log; default 7 days.
	DeliveryLogTTL time.Duration
	// EndpointDisableAfter is how long a webhook endpoint may fail without
	// a single delivery before it is disabled (see [outbox.EndpointState]);
	// default 5 days, as Svix does; negative never disables.
	EndpointDisableAfter time.Duration
	// WatchRenewBefore is how long before it ends a provider watch (push
	// channel) is renewed, checked on every change poll; default 12 hours.
	// It must exceed ChangePollInterval, or watches lapse between checks.
	WatchRenewBefore time.Duration
	// DeliveredRetention is how long a delivered webhook message is kept
	// after its delivery; default 7 days, negative forever.
	DeliveredRetention time.Duration
	// FailedRetention is how long a failed webhook message is kept after
	// its last attempt, and so how long it can be resent; default 30
	// days, negative forever.
	FailedRetention time.Duration
	// ReconcileInterval is how often a subscription with a provider watch
	// is still checked with its sync cursor, as subscriptions without one
	// are, because a push channel can end without a word and its changes
	// would be missed for good. Default 15 minutes, negative disables.
	// Checks happen on the change polls (so not more often than
	// ChangePollInterval, and not at all when polling is disabled) and are
	// spread over the interval by subscription, so that watched
	// subscriptions are not all checked at the same instant.
	ReconcileInterval time.Duration
	// GrantCheckInterval and GrantKeepAlive are package grants' (6 h, 30 days; negative: never).
	GrantCheckInterval, GrantKeepAlive time.Duration
	// SweepInterval is how often the engine removes expired flows, blobs,
	// delivery attempts and Idempotency-Keys and old messages (see
	// [Sweep]; what it keeps is DeliveredRetention and FailedRetention);
	// default DefaultSweepInterval, negative never.
	SweepInterval time.Duration
}

// sweepInterval is SweepInterval with its default; 0 never.
func (s *Settings) sweepInterval() time.Duration {
	return orNever(s.SweepInterval, DefaultSweepInterval)
}
