package unical

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/internal/pagetoken"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/ttlcache"
	"github.com/unical/unical/keys"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/storeversion"
)

// Config configures a Client. Store, Providers and MasterKey are required;
// every other field has the default its comment states.
type Config struct {
	// Store keeps applications, accounts, subscriptions and the outbox.
	// The Client does not close it.
	Store Store
	// Providers are the provider implementations, at most one per type.
	// Operations on an account whose type has none answer CodeNotImplemented.
	Providers []Provider
	// MasterKey is the 32-byte key that seals credentials and tokens.
	MasterKey [32]byte
	// PublicURL is the absolute base URL under which the HTTP API is
	// reachable by browsers and providers (for example
	// "https://cal.example.com"). It builds the OAuth callback URL and push
	// notification addresses. Empty disables OAuth redirects and push.
	PublicURL string
	// FlowTTL is how long an OAuth flow may take; default 15 minutes.
	FlowTTL time.Duration
	// Now returns the current time; default time.Now.
	Now func() time.Time
	// Logger receives structured logs; default discards them.
	Logger *slog.Logger
	// CacheTTL is how long applications and API keys read from the Store
	// are reused: a revocation or settings change made through another
	// replica takes effect after at most this long, and as soon as the
	// Store's version moves with a [storeversion.Store] that learns of other
	// replicas' changes (the PostgreSQL store, within a moment). Default 5
	// seconds; negative disables the cache.
	CacheTTL time.Duration
	// Observer receives measurements of webhook deliveries, change
	// polling and push notifications, for metrics, and of provider calls
	// when it is a [ProviderWrapper] too (a *metrics.Metrics is); default
	// none.
	Observer Observer
	// Revoker revokes a deleted account's grant (default: r.RevokeGrant,
	// once); unicald's grants.RevokeOrQueue queues a retryable failure.
	Revoker func(ctx context.Context, c *Client, t ProviderType, r GrantRevoker, s *Session)
	// Subscriptions hears of VIRTUAL writes and account deletions for the
	// webhook subscriptions (package subscriptions' Hooks); default none.
	Subscriptions SubscriptionHooks
	// AllowPrivateTargets accepts webhook URLs naming loopback, private or
	// link-local addresses, for development. Default false: such URLs are
	// refused with a 400 when they are IP literals or localhost, and the
	// sender refuses every such address when it connects.
	AllowPrivateTargets bool

	// Outbox wakes and tracks the engine (package engine) that delivers
	// the Client's messages; default the Client's own, which Config reports.
	Outbox *outbox.Queue
}

// Client is the unical library: every /v1 operation as a typed method. The
// operations of one application are methods of the [App] handle that
// [Client.App] and [Client.AppByAPIKey] return, so that no call can reach
// another application's data. A Client is safe for concurrent use.
type Client struct {
	store     Store
	providers map[ProviderType]Provider
	// types are the providers' types, in ProviderTypes' order.
	types []ProviderType
	// capabilities are the providers' tables (capability.go).
	capabilities map[ProviderType]*Capabilities
	publicURL    string
	flowTTL      time.Duration
	now          func() time.Time
	log          *slog.Logger

	keys        *keys.Keys           // sealing under the master key
	pages       *pagetoken.Tokens    // sync and page tokens
	idempotency *idempotency.Service // Idempotency-Key requests

	apps    *ttlcache.Cache[*Application]
	apiKeys *ttlcache.Cache[*cachedKey]
	// keysUsed throttles the recording of API key use (markKeyUsed).
	keysUsed   *ttlcache.Every
	keySecrets seal.CheckedSecrets // API key secrets that matched

	obs  Observer          // never nil: NopObserver when Config has none
	subs SubscriptionHooks // never nil: noSubscriptions without

	// cfg is Config with its defaults, for Config().
	cfg Config
}

// New validates cfg and returns a Client. It checks that Config.MasterKey
// opens the data in the Store (a sealed known value it keeps there) and
// returns [ErrWrongMasterKey] when it does not.
func New(cfg Config) (*Client, error) {
	if cfg.Store == nil {
		return nil, errors.New("unical: Config.Store is required")
	}
	if cfg.MasterKey == ([32]byte{}) {
		return nil, errors.New("unical: Config.MasterKey is required")
	}
	c := &Client{
		store:        cfg.Store,
		providers:    make(map[ProviderType]Provider),
		capabilities: make(map[ProviderType]*Capabilities),
		publicURL:    strings.TrimRight(cfg.PublicURL, "/"),
		flowTTL:      cfg.FlowTTL,
		now:          cfg.Now,
		log:          cfg.Logger,
	}
	if c.publicURL != "" {
		u, err := url.Parse(c.publicURL)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return nil, errors.New("unical: Config.PublicURL must be an absolute URL")
		}
	}
	for _, p := range cfg.Providers {
		t := p.Type()
		if _, ok := ParseProviderPath(t.PathName()); !ok || t != ProviderType(strings.ToUpper(string(t))) {
			return nil, errors.New("unical: provider type " + string(t) + " is not upper case letters, digits and underscores")
		}
		if _, dup := c.providers[t]; dup {
			return nil, errors.New("unical: two providers for " + string(t))
		}
		caps, err := CapabilitiesOf(p)
		if err != nil {
			return nil, err
		}
		c.capabilities[t] = caps
		if w, ok := cfg.Observer.(ProviderWrapper); ok {
			p = w.WrapProvider(p)
		}
		c.providers[t] = p
		c.types = append(c.types, t)
	}
	rank := func(t ProviderType) int { return cmp.Or(slices.Index(ProviderTypes, t)+1, len(ProviderTypes)+1) }
	slices.SortStableFunc(c.types, func(a, b ProviderType) int { return rank(a) - rank(b) })
	if c.flowTTL == 0 {
		c.flowTTL = 15 * time.Minute
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.obs = cfg.Observer
	if c.obs == nil {
		c.obs = NopObserver{}
	}
	if c.subs = cfg.Subscriptions; c.subs == nil {
		c.subs = noSubscriptions{}
	}
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ttl := cfg.CacheTTL
	if ttl == 0 {
		ttl = 5 * time.Second
	}
	c.apps = ttlcache.New[*Application](ttl, c.now, c.storeVersion)
	c.apiKeys = ttlcache.New[*cachedKey](ttl, c.now, c.storeVersion)
	c.keysUsed = ttlcache.NewEvery(APIKeyUsedEvery)
	key := seal.Key(cfg.MasterKey)
	c.keys = keys.FromMaster(cfg.MasterKey)
	c.pages = pagetoken.New(seal.New(key.Derive("tokens")), c.store, c.now)
	c.idempotency = idempotency.NewService(idempotency.Config{Store: c.store, MasterKey: cfg.MasterKey, Errors: idempotencyErrors{}, Now: c.now, Logger: c.log, SweepInterval: 5 * time.Minute}) // the engine's default sweep
	cfg.Outbox = cmp.Or(cfg.Outbox, outbox.NewQueue())
	if err := c.checkMasterKey(context.Background()); err != nil {
		return nil, err
	}
	c.cfg = cfg
	c.cfg.MasterKey = [32]byte{}
	c.cfg.PublicURL, c.cfg.FlowTTL = c.publicURL, c.flowTTL
	c.cfg.Now, c.cfg.Logger, c.cfg.Observer, c.cfg.CacheTTL = c.now, c.log, c.obs, ttl
	return c, nil
}

// Config returns the Config the Client runs with, every default applied
// (a negative CacheTTL, never, stays negative) and
// PublicURL without a trailing slash; MasterKey is left out, since the
// Client's [Keys] seal with it. The parts that run beside the Client
// (packages engine, admin, oauth, subscriptions, grants) read their
// settings here; the engine has its own (engine.Settings).
func (c *Client) Config() Config { return c.cfg }

// OAuthCallbackURL is the OAuth redirect URI to register at Google and
// Microsoft, built from PublicURL; "" when there is none.
func (cfg Config) OAuthCallbackURL() string {
	if cfg.PublicURL == "" {
		return ""
	}
	return strings.TrimRight(cfg.PublicURL, "/") + OAuthCallbackPath
}

// Close stops the Client's background work: an engine attached to its
// Config.Outbox (package engine) stops, and Close waits for it, so that no
// delivery is left half written. It does not close the Store.
func (c *Client) Close() error {
	c.cfg.Outbox.Close()
	return nil
}

// storeVersion is the Store's version, for the caches.
func (c *Client) storeVersion() (uint64, bool) { return storeversion.Of(c.store) }

// Keys returns the sealing of secrets under the Client's master key, for
// the parts beside the Client.
func (c *Client) Keys() *keys.Keys { return c.keys }

// Store returns Config.Store, for the parts that run beside the Client
// over the same Store: the webhook engine and the operator side (package
// admin).
func (c *Client) Store() Store { return c.store }

// NewID returns a new id with prefix: unique, and ordered by creation
// time to the millisecond.
func NewID(prefix string) string { return ids.New(prefix) }

// App is one application's view of the API: every /v1 operation, scoped to
// the application. Get one from [Client.App] or [Client.AppByAPIKey].
type App struct {
	c  *Client
	id string
	// accounts, when set, keeps the accounts Session read, by id: see
	// ReadingAccountsOnce.
	accounts *sync.Map
}

// ID returns the application id.
func (a *App) ID() string { return a.id }

// App returns the handle of application id, or CodeNotFound.
func (c *Client) App(ctx context.Context, id string) (*App, error) {
	if _, err := c.store.GetApplication(ctx, id); err != nil {
		return nil, err
	}
	return &App{c: c, id: id}, nil
}

// APIKeyPrefix starts every API key: "uk_<key id>_<secret>".
const APIKeyPrefix = "uk_"

// AppByAPIKey returns the application an API key belongs to. A missing,
// malformed, revoked or wrong key is CodeUnauthorized with field x-api-key.
// The secret is compared by hash in constant time.
func (c *Client) AppByAPIKey(ctx context.Context, key string) (*App, error) {
	// Built only on failure: this runs on every request.
	unauthorized := func() error {
		return &Error{Code: CodeUnauthorized, Field: "x-api-key", Message: "A valid x-api-key header is required."}
	}
	rest, prefixed := strings.CutPrefix(key, APIKeyPrefix)
	id, secret, ok := strings.Cut(rest, "_")
	if !prefixed || !ok || id == "" || secret == "" {
		return nil, unauthorized()
	}
	now := c.now() // one reading for the cache and the use
	cached, err := c.getAPIKey(ctx, id, now)
	if err != nil {
		if ErrorCode(err) == CodeNotFound {
			return nil, unauthorized()
		}
		return nil, err
	}
	if !c.keySecrets.Matches(cached.stored.ID, cached.stored.Hash, secret) {
		return nil, unauthorized()
	}
	c.markKeyUsed(ctx, cached.stored, now)
	return cached.app, nil
}

// APIKeyUsedEvery is how often, at most, a Client records that a key was
// used: APIKey.LastUsedAt is exact to within it, and a busy key costs
// one Store write per this period and Client.
const APIKeyUsedEvery = time.Minute

// markKeyUsed records a use of key at now, at most once per
// APIKeyUsedEvery per key and Client. A failure is only logged: a request
// must not fail for its bookkeeping.
func (c *Client) markKeyUsed(ctx context.Context, key *APIKey, now time.Time) {
	if !c.keysUsed.Due(key.ID, now) {
		return
	}
	if err := c.store.MarkAPIKeyUsed(ctx, key.ID, now.UTC()); err != nil && ErrorCode(err) != CodeNotFound {
		c.log.WarnContext(ctx, "record API key use", "key", key.ID, "err", err)
	}
}

// ProviderSettings returns an application's settings for t with the
// client secret unsealed: what a session gets, and what the operator's
// settings check (package admin) tries at the provider.
func (c *Client) ProviderSettings(app *Application, t ProviderType) (ProviderSettings, error) {
	s := app.Providers[t]
	if sealed := app.SealedSecrets[t]; sealed != nil {
		secret, err := c.keys.OpenClientSecret(app.ID, string(t), sealed)
		if err != nil {
			return s, WrapError(CodeInternal, err, "Internal error.")
		}
		s.ClientSecret = secret
	}
	return s, nil
}

// cachedKey is an API key as the Client's cache holds it: the stored key
// and the handle of its application, made once when the key is read
// rather than on every request that presents it. An App is never changed,
// so every request of the key shares it.
type cachedKey struct {
	stored *APIKey
	app    *App
}

// getAPIKey reads the API key of key id through the cache at now, keyed by
// the id a presented key holds, so that a request builds no string for it.
func (c *Client) getAPIKey(ctx context.Context, id string, now time.Time) (*cachedKey, error) {
	return c.apiKeys.LoadAt(id, now, func() (*cachedKey, error) {
		stored, err := c.store.GetAPIKey(ctx, storedKeyPrefix+id)
		if err != nil {
			return nil, err
		}
		return &cachedKey{stored: stored, app: &App{c: c, id: stored.ApplicationID}}, nil
	})
}

const storedKeyPrefix = "key_" // of an API key's stored id, "key_<key id>"

// Application returns application id, read through the Client's cache;
// the caller must not change it. Returns CodeNotFound when there is none.
func (c *Client) Application(ctx context.Context, id string) (*Application, error) {
	return cachedApplication(ctx, c.store, c.apps, id)
}

// cachedApplication reads application id through the cache apps.
func cachedApplication(ctx context.Context, store ApplicationStore, apps *ttlcache.Cache[*Application], id string) (*Application, error) {
	return apps.Load(id, func() (*Application, error) { return store.GetApplication(ctx, id) })
}
