package engine

import (
	"time"

	"github.com/unical/unical"
)

// Observer receives the engine's measurements: webhook deliveries,
// disabled endpoints and change-polling passes. The engine takes it from
// Config.Observer when that has these methods (a *metrics.Metrics does;
// [unical.NopObserver] has them as no-ops), so that one value measures
// the Client and its engine. It is the engine's own because nothing else
// reports these: the Client's [unical.Observer] keeps what the Client
// measures.
//
// Every argument is from a small fixed set or a number, never an id, an
// email or a secret, so an implementation may use them as label values.
// Methods are called from many goroutines: they must be cheap and safe
// for concurrent use.
type Observer interface {
	// DeliveryAttempt reports one webhook delivery attempt with one of
	// the Delivery outcome constants; took is the request's duration, 0
	// when no request was made.
	DeliveryAttempt(outcome string, took time.Duration)
	// EndpointDisabled reports that the engine disabled a webhook
	// endpoint (see [outbox.EndpointState]).
	EndpointDisabled()
	// PollCycle reports one change-polling pass: how many subscriptions
	// it checked with a sync cursor (watched ones included, when they were
	// due to be reconciled), and lag, how long after its due time the most
	// overdue subscription of the pass was taken up (0 for passes a
	// program runs with [PollChanges]). A running engine makes a pass of
	// each batch of subscriptions it claims as they come due.
	PollCycle(polled int, lag, took time.Duration)
}

// Webhook delivery attempt outcomes, as [Observer.DeliveryAttempt]
// reports them.
const (
	// DeliveryDelivered: the receiver answered 2xx.
	DeliveryDelivered = "delivered"
	// DeliveryRetrying: the attempt failed and another is scheduled.
	DeliveryRetrying = "retrying"
	// DeliveryFailed: the attempt failed and the message has failed for
	// good (no attempts left, 410 Gone, endpoint disabled).
	DeliveryFailed = "failed"
	// DeliverySkipped: no request was made, because the endpoint is
	// disabled or the application has no webhook URL; the message failed.
	DeliverySkipped = "skipped"
)

// DeliveryOutcomes lists every delivery attempt outcome.
var DeliveryOutcomes = []string{DeliveryDelivered, DeliveryRetrying, DeliveryFailed, DeliverySkipped}

// observerOf is the engine's Observer in obs, or one that records
// nothing.
func observerOf(obs unical.Observer) Observer {
	if o, ok := obs.(Observer); ok {
		return o
	}
	return unical.NopObserver{}
}
