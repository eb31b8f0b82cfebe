// Package outbox holds the webhook outbox's contracts: the messages
// waiting for delivery ([Message]), the delivery log's entries
// ([Attempt]) and the parts of a Store that keep them ([Store],
// [LogStore], [Notifier]), which unical.Store embeds, so that a Store
// written outside this module implements them too; store/storetest checks
// them. [Queue] wakes and tracks the engine (package engine) that
// delivers the messages. What a developer sees of a message beside its
// payload is here too: the changes an includeEvents message carries
// ([ChangeData]) and how deliveries to an endpoint are going
// ([EndpointState]).
//
// Like every part of unical.Store, these methods return *unical.Error
// values: CodeNotFound for a missing record (also one of another
// application), CodeConflict for a lost lease. The package imports no
// other part of unical, so that the root can embed its contracts.
package outbox

import (
	"context"
	"encoding/json"
	"time"

	"github.com/unical/unical/internal/timefmt"
)

// Status is the delivery state of an outbox message.
type Status string

// Outbox message states.
const (
	Pending   Status = "pending"
	Delivered Status = "delivered"
	Failed    Status = "failed"
)

// Message is a webhook message waiting for, or done with, delivery.
type Message struct {
	// ID is the webhook-id header: stable across retries.
	ID             string
	ApplicationID  string
	SubscriptionID string // "" for the application's own endpoint
	EventType      string
	Payload        []byte
	CreatedAt      time.Time
	Status         Status
	Attempts       int
	NextAttemptAt  time.Time
	LastError      string
	// LeaseOwner and LeaseExpiry mark a claim by a worker; a claim that
	// expires returns the message to the queue, so a crashed worker's
	// messages are delivered by another.
	LeaseOwner  string
	LeaseExpiry time.Time
}

// Store is a durable queue of webhook messages with expiring claims.
type Store interface {
	// EnqueueMessages stores pending messages atomically.
	EnqueueMessages(ctx context.Context, msgs []*Message) error
	// ClaimMessages leases up to max pending messages due at now whose
	// lease is free or expired, oldest due first, to owner until now+lease.
	ClaimMessages(ctx context.Context, owner string, now time.Time, lease time.Duration, max int) ([]*Message, error)
	// UpdateMessage writes back a claimed message (status, attempts, next
	// attempt, error) and releases the lease. CodeConflict if owner no
	// longer holds the lease.
	UpdateMessage(ctx context.Context, msg *Message) error
	// GetMessage returns a message of an application.
	GetMessage(ctx context.Context, appID, id string) (*Message, error)
	// EnqueueCoalesced stores pending msg unless its subscription already
	// has a pending message of the same event type that is untouched (no
	// attempt, no lease): that one will make the receiver sync, and the
	// sync sees msg's change too. It reports whether msg was stored. The
	// check and the write are one step for all processes sharing the
	// Store, so that a burst of push notifications spread over replicas
	// queues one message.
	EnqueueCoalesced(ctx context.Context, msg *Message) (queued bool, err error)
}

// Notifier is implemented by a Store that can tell every process
// sharing it that messages were queued, so that a message queued on one
// replica is sent at once by whichever replica is free, not after the
// others' next outbox poll (PostgreSQL: LISTEN/NOTIFY). A Store without it
// still works: engines find messages queued elsewhere by polling the
// outbox every OutboxPollInterval (package engine).
type Notifier interface {
	// OutboxWakeups returns a channel that receives a value soon after
	// pending messages are stored by any process (EnqueueMessages,
	// CreateAccount, UpdateAccountAndEnqueue, DeleteAccount,
	// RetryMessage), until ctx ends, when it stops sending (it need not
	// be closed). Wake-ups may be merged or, while the connection behind
	// them is lost, missed; the engine's outbox poll covers both.
	OutboxWakeups(ctx context.Context) <-chan struct{}
}

// Attempt is one entry of the delivery log: one attempt to deliver
// a message, kept until ExpiresAt so that a developer can see why a
// receiver is not getting messages.
type Attempt struct {
	ID             string `json:"id"`
	ApplicationID  string `json:"-"`
	MessageID      string `json:"messageId"`
	SubscriptionID string `json:"webhookSubscriptionId,omitempty"` // "" for the application's own endpoint
	EventType      string `json:"eventType"`
	// Attempt counts the message's attempts, 1 for the first.
	Attempt int       `json:"attempt"`
	At      time.Time `json:"timestamp"`
	// StatusCode is the receiver's HTTP status; 0 when there was none
	// (refused address, timeout, TLS failure).
	StatusCode int           `json:"statusCode"`
	Latency    time.Duration `json:"-"`
	// Error says why the attempt failed; "" for a delivered message.
	Error     string    `json:"error,omitempty"`
	ExpiresAt time.Time `json:"-"`
}

// MarshalJSON adds latencyMs, the attempt's latency in whole milliseconds,
// to the attempt's fields, and writes its timestamp as the API writes
// every timestamp (unical.FormatTimestamp).
func (d Attempt) MarshalJSON() ([]byte, error) {
	type plain Attempt // without this method
	return json.Marshal(struct {
		plain
		At        string `json:"timestamp"`
		LatencyMS int64  `json:"latencyMs"`
	}{plain(d), timefmt.Format(d.At), d.Latency.Milliseconds()})
}

// Result is a claimed message to write back after an attempt, with
// the attempt for the delivery log; Attempt is nil when a lease is only
// given back.
type Result struct {
	Message *Message
	Attempt *Attempt
}

// LogStore writes delivery outcomes and keeps the delivery log.
type LogStore interface {
	// RecordDeliveries writes back claimed messages as UpdateMessage does
	// and appends each result's Attempt to the delivery log, all in one
	// atomic write, so that many deliveries share one commit. A result the
	// lease rules refuse gets UpdateMessage's code (CodeConflict,
	// CodeNotFound, CodeInvalid) at its index in errs and changes nothing;
	// the others are written. err reports a failure of the whole write, in
	// which case nothing is written. Attempt.ExpiresAt bounds how long an
	// attempt is kept.
	RecordDeliveries(ctx context.Context, results []Result) (errs []error, err error)
	// ListAttempts returns an application's attempts for one subscription
	// (subscriptionID "" for its own endpoint) that have not expired at
	// now, in id order after the given id, at most limit of them.
	ListAttempts(ctx context.Context, appID, subscriptionID string, now time.Time, after string, limit int) ([]*Attempt, error)
	// RetryMessage makes a failed message pending, due at now, with no attempts
	// or lease, and a pending one not leased at now (being sent) due at now.
	// CodeNotFound if the application has no such message (or it went with
	// its subscription), CodeConflict if it was delivered.
	RetryMessage(ctx context.Context, appID, id string, now time.Time) (*Message, error)
}

// ListParams pages the delivery log.
type ListParams struct {
	PageToken string
	Limit     int
}
