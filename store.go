package unical

import (
	"context"
	"time"

	"github.com/unical/unical/audit"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/records"
	"github.com/unical/unical/sweep"
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
	outbox.Store
	outbox.LogStore
	FlowStore
	BlobStore
	records.Store
	idempotency.Store
	sweep.Store
	audit.Store
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
	WebhookState    outbox.EndpointState `json:"webhookState,omitzero"`
	WebhookStateURL string               `json:"-"`
	// Delegations are the application's delegation credentials (our
	// extension), at most one per provider type.
	Delegations map[ProviderType]Delegation `json:"-"`
	SealedMail  []byte                      `json:"-"` // invitation mail settings (package smtpsend), sealed; nil when unset
}

// Delegation is a credential that acts for every user of a Google
// Workspace domain or Microsoft 365 tenant, set by the operator: its
// secret (Google's service account key, Microsoft's client secret) is only
// stored sealed, in Sealed.
type Delegation struct {
	// ClientID is Google's service account (client_email) or Microsoft's
	// application (client) id.
	ClientID string
	// TenantID is Microsoft's directory (tenant) id; "" for Google.
	TenantID string
	// Domains are the email domains whose users it acts for.
	Domains []string
	// AdminEmail is the Google Workspace administrator the room
	// directory is read as (Google's Directory API answers only them);
	// "" lists no Google rooms.
	AdminEmail string
	// TokenURL, APIBaseURL and DirectoryURL override the provider's
	// endpoints; "" is the provider's own.
	TokenURL, APIBaseURL, DirectoryURL string
	// Status is pending until verified, then active or failing with
	// StatusReason saying what is missing.
	Status       string
	StatusReason string
	UpdatedAt    time.Time
	Sealed       []byte
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
	// DeleteApplication removes an application, its API keys and its own
	// records (account id "") in one atomic write; CodeNotFound if there is
	// none, CodeConflict (and nothing changes) while it still has accounts.
	DeleteApplication(ctx context.Context, id string) error
}

// APIKey is a stored API key. Only the SHA-256 hash of its secret part is
// kept; the key itself is shown once, when it is created.
type APIKey struct {
	ID            string    `json:"id"`
	ApplicationID string    `json:"applicationId"`
	Hash          []byte    `json:"-"`
	CreatedAt     time.Time `json:"createdAt"`
	// Label is the operator's name for the key; "" when it has none.
	Label string `json:"label,omitempty"`
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
	// SetAPIKeyLabel sets the label of one of an application's keys and
	// returns the key; CodeNotFound if the application has no such key.
	SetAPIKeyLabel(ctx context.Context, appID, id, label string) (*APIKey, error)
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
	ProviderState    []byte
	ProviderTenantID string // Connection.TenantID, kept with ProviderAccountID
}

// AccountFilter selects accounts of one application.
type AccountFilter struct {
	// Search keeps accounts whose email or external id contains it,
	// case-insensitively.
	Search string
	// Status keeps accounts in that state; "" keeps all.
	Status AccountStatus
	// ProviderType keeps accounts of that provider type; "" keeps all.
	ProviderType ProviderType
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
	CreateAccount(ctx context.Context, rec *AccountRecord, msgs ...*outbox.Message) error
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
	UpdateAccountAndEnqueue(ctx context.Context, appID, id string, fn func(*AccountRecord) ([]*outbox.Message, error)) (*AccountRecord, error)
	// ListAccounts returns accounts in id order.
	ListAccounts(ctx context.Context, appID string, filter AccountFilter) ([]*AccountRecord, error)
	// DeleteAccount removes an account, its subscriptions and its records
	// (see records.Store) and queues msgs, all in one atomic write; on any
	// error nothing changes.
	DeleteAccount(ctx context.Context, appID, id string, msgs ...*outbox.Message) error
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
	// CursorAt is when Cursor was taken: an event created since is
	// reported as created, not updated, to includeEvents subscriptions.
	CursorAt time.Time
	// ReconciledAt is when the engine last checked a watched subscription
	// with its sync cursor as a safety net under push (see
	// engine.Config.ReconcileInterval); zero when never.
	ReconciledAt time.Time
	// NextCheckAt is when the engine next checks the subscription (polls
	// it, renews its watch); zero means at once. Claiming a due
	// subscription moves it one poll interval on (see
	// ClaimDueSubscriptions), so it is also the claim's lease.
	NextCheckAt time.Time
	// NextSendAt is the earliest time of the subscription's next webhook
	// send under RateLimit. Every replica books its sends by moving it on
	// with UpdateSubscription, so the limit holds across all of them.
	NextSendAt time.Time
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
	// ClaimDueSubscriptions claims up to max subscriptions, of every
	// application, whose NextCheckAt is at or before now, earliest first,
	// and in the same atomic write moves each one's NextCheckAt on by
	// whole multiples of interval to the first time after now, keeping
	// its phase within the interval. A zero NextCheckAt moves instead to
	// a time in (now, now+interval] that spreads the subscriptions
	// claimed together over the interval (random, or drawn from the id).
	// It returns the claimed records as stored after the claim. So each
	// due subscription goes to one caller however many replicas claim at
	// once, and comes due again one interval later even if that caller
	// dies before checking it: the new NextCheckAt is the claim's lease.
	// CodeInvalid for an interval that is not positive.
	ClaimDueSubscriptions(ctx context.Context, now time.Time, interval time.Duration, max int) ([]*SubscriptionRecord, error)
}

// OAuthFlow is the record of one OAuth authorization flow. The Client
// stores one when a flow's callback is used, with ID, ApplicationID,
// ProviderType, CreatedAt and ExpiresAt only, so that the flow's state
// (which carries the rest, sealed) works once; the other fields are read
// only from flows stored by earlier versions.
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

// FlowStore keeps OAuth flow records until they expire. The Client uses
// CreateFlow with no cap, its CodeConflict telling a state used before;
// ConsumeFlow and the cap serve stores' callers that keep whole flows.
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
