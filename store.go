package unical

import (
	"context"
	"time"
)

// Store keeps what unical owns: applications, API keys, accounts with their
// sealed credentials, webhook subscriptions and their outbox, OAuth flow
// state and sync state too large for a token. Calendars and events are never
// stored: they live at the provider.
//
// Implementations must be safe for concurrent use by several Clients in
// several processes (replicas), keep no process-global state, and return
// *Error values: CodeNotFound for missing records (also when the record
// belongs to another application), CodeConflict for uniqueness violations and
// lost leases. The exported suite in store/storetest checks all of this.
type Store interface {
	ApplicationStore
	APIKeyStore
	AccountStore
	SubscriptionStore
	OutboxStore
	DeliveryLogStore
	FlowStore
	BlobStore
	SweepStore
	// Close releases the store's resources.
	Close() error
}

// Application is a tenant: an application with its own API keys, accounts
// and settings. Secrets are sealed before they reach the Store.
type Application struct {
	ID        string    `json:"applicationId"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// RedirectURLs are the registered redirect URLs of the OAuth flow.
	RedirectURLs []string `json:"redirectUrls"`
	// Providers holds per-provider settings, with ClientSecret empty and its
	// sealed form in SealedSecrets.
	Providers map[ProviderType]ProviderSettings `json:"providers,omitempty"`
	// SealedSecrets holds sealed per-provider client secrets.
	SealedSecrets map[ProviderType][]byte `json:"-"`
	// WebhookURL receives the application's enduseraccount.* messages.
	WebhookURL string `json:"webhookUrl,omitempty"`
	// SealedWebhookSecret is the sealed whsec_ secret of WebhookURL.
	SealedWebhookSecret []byte `json:"-"`
	// WebhookState is how deliveries to WebhookStateURL go. It is the
	// state of WebhookURL only while the two are equal, so that a new URL
	// starts afresh without every URL change having to reset it.
	WebhookState    EndpointState `json:"webhookState,omitzero"`
	WebhookStateURL string        `json:"-"`
}

// ApplicationStore keeps applications.
type ApplicationStore interface {
	// CreateApplication stores a new application; CodeConflict if the id is taken.
	CreateApplication(ctx context.Context, app *Application) error
	// GetApplication returns an application.
	GetApplication(ctx context.Context, id string) (*Application, error)
	// UpdateApplication replaces a stored application.
	UpdateApplication(ctx context.Context, app *Application) error
	// ListApplications returns every application, oldest first.
	ListApplications(ctx context.Context) ([]*Application, error)
	// DeleteApplication removes an application and its API keys in one
	// atomic write. CodeNotFound if there is no such application,
	// CodeConflict (and nothing changes) while it still has accounts.
	DeleteApplication(ctx context.Context, id string) error
}

// APIKey is a stored API key. Only the SHA-256 hash of its secret part is
// kept; the key itself is shown once, when it is created.
type APIKey struct {
	ID            string    `json:"id"`
	ApplicationID string    `json:"applicationId"`
	Hash          []byte    `json:"-"`
	CreatedAt     time.Time `json:"createdAt"`
	// LastUsedAt is when a request last authenticated with the key, to
	// within the Client's APIKeyUsedEvery; zero when never.
	LastUsedAt time.Time `json:"lastUsedAt,omitzero"`
}

// APIKeyStore keeps API keys.
type APIKeyStore interface {
	// CreateAPIKey stores a key; CodeConflict if the id is taken.
	CreateAPIKey(ctx context.Context, key *APIKey) error
	// GetAPIKey returns a key by id, whatever its application.
	GetAPIKey(ctx context.Context, id string) (*APIKey, error)
	// ListAPIKeys returns an application's keys, oldest first.
	ListAPIKeys(ctx context.Context, appID string) ([]*APIKey, error)
	// DeleteAPIKey removes one of an application's keys.
	DeleteAPIKey(ctx context.Context, appID, id string) error
	// MarkAPIKeyUsed sets a key's LastUsedAt to at, unless it already
	// holds a later time; CodeNotFound if there is no such key.
	MarkAPIKeyUsed(ctx context.Context, id string, at time.Time) error
}

// AccountRecord is a stored end user account.
type AccountRecord struct {
	Account
	// SealedSecrets is the sealed JSON of the account's tokens or password.
	SealedSecrets []byte
	// TokenExpiry is when the stored access token expires.
	TokenExpiry time.Time
	// CredentialsID, CredentialsCreatedAt and CredentialsUpdatedAt describe
	// the credentials record of the credentials endpoint.
	CredentialsID        string
	CredentialsCreatedAt time.Time
	CredentialsUpdatedAt time.Time
	// ProviderState is the provider's Connection.State.
	ProviderState []byte
}

// AccountFilter selects accounts of one application.
type AccountFilter struct {
	// Search keeps accounts whose email or external id contains it,
	// case-insensitively.
	Search string
	// Status keeps accounts in that state; "" keeps all.
	Status AccountStatus
	// After continues a listing after the account with that id.
	After string
	// Limit is the most records to return; they come in id order.
	Limit int
}

// AccountStore keeps end user accounts. Within an application the pair
// (provider type, lower-cased email) is unique.
type AccountStore interface {
	// CreateAccount stores a new account and queues msgs (as
	// EnqueueMessages does) in one atomic write: both or, on any error,
	// neither. CodeConflict if the application already has an account with
	// the same provider type and email.
	CreateAccount(ctx context.Context, rec *AccountRecord, msgs ...*OutboxMessage) error
	// GetAccount returns an account of an application.
	GetAccount(ctx context.Context, appID, id string) (*AccountRecord, error)
	// FindAccount returns the account with that provider type and email.
	FindAccount(ctx context.Context, appID string, providerType ProviderType, email string) (*AccountRecord, error)
	// UpdateAccount reads an account, lets fn change it, and writes it back
	// atomically. An error from fn aborts the update and is returned.
	UpdateAccount(ctx context.Context, appID, id string, fn func(*AccountRecord) error) (*AccountRecord, error)
	// UpdateAccountAndEnqueue is UpdateAccount whose fn also returns the
	// messages that report the change; the account and the messages are
	// written in one atomic write, both or neither.
	UpdateAccountAndEnqueue(ctx context.Context, appID, id string, fn func(*AccountRecord) ([]*OutboxMessage, error)) (*AccountRecord, error)
	// ListAccounts returns accounts in id order.
	ListAccounts(ctx context.Context, appID string, filter AccountFilter) ([]*AccountRecord, error)
	// DeleteAccount removes an account and its subscriptions and queues
	// msgs, all in one atomic write; on any error nothing changes.
	DeleteAccount(ctx context.Context, appID, id string, msgs ...*OutboxMessage) error
}

// SubscriptionRecord is a stored webhook subscription.
type SubscriptionRecord struct {
	Subscription
	ApplicationID string
	RateLimit     int
	// SealedSecret is the sealed whsec_ endpoint secret.
	SealedSecret []byte
	// Watch is the provider-side watch, when there is one.
	Watch *Watch
	// Cursor is the sync cursor the engine polls or syncs from.
	Cursor string
	// ReconciledAt is when the engine last checked a watched subscription
	// with its sync cursor as a safety net under push (see
	// WebhookConfig.ReconcileInterval); zero when never.
	ReconciledAt time.Time
}

// SubscriptionStore keeps webhook subscriptions.
type SubscriptionStore interface {
	// CreateSubscription stores a subscription; CodeNotFound if its account
	// does not exist in the application.
	CreateSubscription(ctx context.Context, rec *SubscriptionRecord) error
	// GetSubscription returns a subscription of an application.
	GetSubscription(ctx context.Context, appID, id string) (*SubscriptionRecord, error)
	// UpdateSubscription reads, changes with fn and writes back atomically.
	UpdateSubscription(ctx context.Context, appID, id string, fn func(*SubscriptionRecord) error) (*SubscriptionRecord, error)
	// ListSubscriptions returns an account's subscriptions in id order,
	// after the given id, at most limit of them; accountID "" lists the
	// whole application's.
	ListSubscriptions(ctx context.Context, appID, accountID, after string, limit int) ([]*SubscriptionRecord, error)
	// ListAllSubscriptions returns subscriptions of every application in id
	// order, for the webhook engine.
	ListAllSubscriptions(ctx context.Context, after string, limit int) ([]*SubscriptionRecord, error)
	// DeleteSubscription removes a subscription and its undelivered messages.
	DeleteSubscription(ctx context.Context, appID, id string) error
}

// MessageStatus is the delivery state of an outbox message.
type MessageStatus string

// Outbox message states.
const (
	MessagePending   MessageStatus = "pending"
	MessageDelivered MessageStatus = "delivered"
	MessageFailed    MessageStatus = "failed"
)

// OutboxMessage is a webhook message waiting for, or done with, delivery.
type OutboxMessage struct {
	// ID is the webhook-id header: stable across retries.
	ID             string
	ApplicationID  string
	SubscriptionID string // "" for the application's own endpoint
	EventType      string
	Payload        []byte
	CreatedAt      time.Time
	Status         MessageStatus
	Attempts       int
	NextAttemptAt  time.Time
	LastError      string
	// LeaseOwner and LeaseExpiry mark a claim by a worker; a claim that
	// expires returns the message to the queue, so a crashed worker's
	// messages are delivered by another.
	LeaseOwner  string
	LeaseExpiry time.Time
}

// OutboxStore is a durable queue of webhook messages with expiring claims.
type OutboxStore interface {
	// EnqueueMessages stores pending messages atomically.
	EnqueueMessages(ctx context.Context, msgs []*OutboxMessage) error
	// ClaimMessages leases up to max pending messages due at now whose
	// lease is free or expired, oldest due first, to owner until now+lease.
	ClaimMessages(ctx context.Context, owner string, now time.Time, lease time.Duration, max int) ([]*OutboxMessage, error)
	// UpdateMessage writes back a claimed message (status, attempts, next
	// attempt, error) and releases the lease. CodeConflict if owner no
	// longer holds the lease.
	UpdateMessage(ctx context.Context, msg *OutboxMessage) error
	// GetMessage returns a message of an application.
	GetMessage(ctx context.Context, appID, id string) (*OutboxMessage, error)
}

// DeliveryAttempt is one entry of the delivery log: one attempt to deliver
// a message, kept until ExpiresAt so that a developer can see why a
// receiver is not getting messages.
type DeliveryAttempt struct {
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

// DeliveryResult is a claimed message to write back after an attempt, with
// the attempt for the delivery log; Attempt is nil when a lease is only
// given back.
type DeliveryResult struct {
	Message *OutboxMessage
	Attempt *DeliveryAttempt
}

// DeliveryLogStore writes delivery outcomes and keeps the delivery log.
type DeliveryLogStore interface {
	// RecordDeliveries writes back claimed messages as UpdateMessage does
	// and appends each result's Attempt to the delivery log, all in one
	// atomic write, so that many deliveries share one commit. A result the
	// lease rules refuse gets UpdateMessage's code (CodeConflict,
	// CodeNotFound, CodeInvalid) at its index in errs and changes nothing;
	// the others are written. err reports a failure of the whole write, in
	// which case nothing is written. Attempt.ExpiresAt bounds how long an
	// attempt is kept.
	RecordDeliveries(ctx context.Context, results []DeliveryResult) (errs []error, err error)
	// ListAttempts returns an application's attempts for one subscription
	// (subscriptionID "" for its own endpoint) that have not expired at
	// now, in id order after the given id, at most limit of them.
	ListAttempts(ctx context.Context, appID, subscriptionID string, now time.Time, after string, limit int) ([]*DeliveryAttempt, error)
	// RetryMessage puts a failed message back in the queue: pending, due at
	// now, with no attempts and no lease. CodeNotFound if the application
	// has no such message (or it went with its subscription), CodeConflict
	// if the message has not failed.
	RetryMessage(ctx context.Context, appID, id string, now time.Time) (*OutboxMessage, error)
}

// OAuthFlow is the server-side half of one OAuth authorization flow.
type OAuthFlow struct {
	ID            string
	ApplicationID string
	ProviderType  ProviderType
	RedirectURL   string
	State         string
	LoginHint     string
	// SealedVerifier is the sealed PKCE code verifier.
	SealedVerifier []byte
	CreatedAt      time.Time
	ExpiresAt      time.Time
}

// FlowStore keeps OAuth flows until their callback.
type FlowStore interface {
	// CreateFlow stores a flow. When maxPending is positive and the flow's
	// application already has maxPending flows unexpired at
	// flow.CreatedAt, it stores nothing and returns CodeRateLimited with
	// RetryAfter the time until the first of them expires. The count and
	// the write are one atomic step, so concurrent calls cannot overshoot.
	CreateFlow(ctx context.Context, flow *OAuthFlow, maxPending int) error
	// ConsumeFlow removes and returns a flow, so that it works once;
	// CodeNotFound if it is unknown, used or expired at now.
	ConsumeFlow(ctx context.Context, id string, now time.Time) (*OAuthFlow, error)
}

// BlobStore keeps opaque state of an application, such as a sync snapshot
// too large to fit in a token.
type BlobStore interface {
	// PutBlob stores data under key until expires.
	PutBlob(ctx context.Context, appID, key string, data []byte, expires time.Time) error
	// GetBlob returns the data under key; CodeNotFound if absent or expired at now.
	GetBlob(ctx context.Context, appID, key string, now time.Time) ([]byte, error)
}

// SweepRequest says what [SweepStore.Sweep] removes.
type SweepRequest struct {
	// Now is the sweep's time: OAuth flows, blobs and delivery attempts
	// that have expired at Now are removed.
	Now time.Time
	// DeliveredBefore removes delivered messages whose NextAttemptAt (the
	// due time of their last attempt, which is when they finished) is
	// before it; the zero time keeps them all.
	DeliveredBefore time.Time
	// FailedBefore does the same for failed messages.
	FailedBefore time.Time
	// Limit bounds how many records one call removes in all, so that a
	// backlog goes in several short writes instead of one long one; zero
	// or less means no bound.
	Limit int
}

// SweepResult counts what one [SweepStore.Sweep] removed.
type SweepResult struct {
	Flows             int `json:"flows"`
	Blobs             int `json:"blobs"`
	Attempts          int `json:"attempts"`
	DeliveredMessages int `json:"deliveredMessages"`
	FailedMessages    int `json:"failedMessages"`
}

// Total is the number of records removed.
func (r SweepResult) Total() int {
	return r.Flows + r.Blobs + r.Attempts + r.DeliveredMessages + r.FailedMessages
}

// SweepStore removes what has expired or outlived its retention, so that
// the Store does not grow without bound. Expired flows, blobs and attempts
// are already invisible to reads; the sweep gives their space back.
type SweepStore interface {
	// Sweep removes, across every application, expired OAuth flows,
	// expired blobs, expired delivery attempts, and delivered and failed
	// outbox messages past their retention, at most req.Limit records in
	// all. Pending messages and unexpired records are never removed.
	Sweep(ctx context.Context, req SweepRequest) (SweepResult, error)
}
