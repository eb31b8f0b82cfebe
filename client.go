package unical

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/unical/unical/internal/seal"
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
	// MaxPendingFlows caps the OAuth flows in progress (started, neither
	// completed nor expired) per application; past it the authorize
	// endpoint answers 429. Default DefaultMaxPendingFlows; negative
	// means no cap.
	MaxPendingFlows int
	// SweepInterval is how often [Client.Run] removes expired flows,
	// blobs and delivery attempts and old messages (see [Client.Sweep]);
	// default 5 minutes, negative never.
	SweepInterval time.Duration
	// DeliveredRetention is how long a delivered webhook message is kept
	// after its delivery; default 7 days, negative forever.
	DeliveredRetention time.Duration
	// FailedRetention is how long a failed webhook message is kept after
	// its last attempt, and so how long it can be resent; default 30
	// days, negative forever.
	FailedRetention time.Duration
	// Now returns the current time; default time.Now.
	Now func() time.Time
	// Logger receives structured logs; default discards them.
	Logger *slog.Logger
	// CacheTTL is how long applications and API keys read from the Store
	// are reused: a revocation or settings change made through another
	// replica takes effect after at most this long, and as soon as the
	// Store's version moves with a [VersionedStore] that learns of other
	// replicas' changes (the PostgreSQL store, within a moment). Default 5
	// seconds; negative disables the cache.
	CacheTTL time.Duration
	// Observer receives measurements of provider calls, webhook
	// deliveries, change polling and push notifications, for metrics;
	// default none.
	Observer Observer

	// WebhookConfig configures the webhook engine ([Client.Run]). It is
	// embedded, so its fields read as Config's own (cfg.WebhookSender); a
	// composite literal names it: Config{WebhookConfig: WebhookConfig{...}}.
	WebhookConfig
}

// Client is the unical library: every /v1 operation as a typed method. The
// operations of one application are methods of the [App] handle that
// [Client.App] and [Client.AppByAPIKey] return, so that no call can reach
// another application's data. A Client is safe for concurrent use.
type Client struct {
	store     Store
	providers map[ProviderType]Provider
	publicURL string
	flowTTL   time.Duration
	sweep     sweepConfig
	now       func() time.Time
	log       *slog.Logger

	credentials *seal.Sealer // account credentials and client secrets
	tokens      *seal.Sealer // sync and page tokens
	flows       *seal.Sealer // OAuth state and PKCE verifiers
	idempotency *seal.Sealer // kept answers of Idempotency-Key requests
	// fingerprintKey keys the HMAC of Idempotency-Key fingerprints, which
	// hash request bodies that may hold a password.
	fingerprintKey seal.Key

	apps    *ttlCache[*Application]
	apiKeys *ttlCache[*APIKey]
	// keysUsed throttles the recording of API key use (markKeyUsed).
	keysUsed keyUsage

	// endpoints resolves webhook endpoints and keeps their state, for the
	// engine and for resending.
	endpoints *endpoints
	engine    *engine
	// allowPrivate is Config.AllowPrivateTargets.
	allowPrivate bool
	obs          Observer // never nil: NopObserver when Config has none
	// engineRunning is set while Run runs.
	engineRunning atomic.Bool
	// done is closed by Close; a running engine stops then. runMu orders
	// Run's registration in running against Close's Wait.
	done    chan struct{}
	runMu   sync.Mutex
	running sync.WaitGroup

	closeOnce sync.Once
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
		store:     cfg.Store,
		providers: make(map[ProviderType]Provider),
		publicURL: strings.TrimRight(cfg.PublicURL, "/"),
		flowTTL:   cfg.FlowTTL,
		now:       cfg.Now,
		log:       cfg.Logger,
	}
	if c.publicURL != "" {
		u, err := url.Parse(c.publicURL)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return nil, errors.New("unical: Config.PublicURL must be an absolute URL")
		}
	}
	for _, p := range cfg.Providers {
		t := p.Type()
		if !t.Valid() {
			return nil, errors.New("unical: provider with unknown type " + string(t))
		}
		if _, dup := c.providers[t]; dup {
			return nil, errors.New("unical: two providers for " + string(t))
		}
		c.providers[t] = observe(p, cfg.Observer)
	}
	c.sweep = newSweepConfig(&cfg)
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
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ttl := cfg.CacheTTL
	if ttl == 0 {
		ttl = 5 * time.Second
	}
	c.apps = newTTLCache[*Application](ttl, c.now, c.StoreVersion)
	c.apiKeys = newTTLCache[*APIKey](ttl, c.now, c.StoreVersion)
	key := seal.Key(cfg.MasterKey)
	c.credentials = seal.New(key.Derive("credentials"))
	c.tokens = seal.New(key.Derive("tokens"))
	c.flows = seal.New(key.Derive("oauth-flows"))
	c.idempotency = seal.New(key.Derive("idempotency"))
	c.fingerprintKey = key.Derive("idempotency-fingerprint")
	c.done = make(chan struct{})
	c.allowPrivate = cfg.AllowPrivateTargets
	c.endpoints = &endpoints{store: cfg.Store, credentials: c.credentials, apps: c.apps}
	engineCfg, err := newEngineConfig(&cfg.WebhookConfig)
	if err != nil {
		return nil, err
	}
	c.engine = newEngine(engineCfg, engineDeps{
		store:                 cfg.Store,
		endpoints:             c.endpoints,
		sender:                cfg.WebhookSender,
		checkSubscription:     c.pollSubscription,
		renewWatch:            c.renewWatch,
		reconcileSubscription: c.reconcileSubscription,
		now:                   c.now,
		log:                   c.log,
		obs:                   c.obs,
	})
	if err := c.checkMasterKey(context.Background(), key); err != nil {
		return nil, err
	}
	return c, nil
}

// Close stops the Client's background work: a [Client.Run] in progress
// returns, and Close waits for it, so that no delivery is left half
// written. It does not close the Store.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.runMu.Lock()
		close(c.done)
		c.runMu.Unlock()
	})
	c.running.Wait()
	return nil
}

// Run runs the webhook engine until ctx ends or [Client.Close] is called:
// delivery workers that claim due outbox messages with a lease, sign them
// and POST them, the change poller (see Config.ChangePollInterval) and the
// store sweep (see [Client.Sweep]). It returns nil when stopped that way. Several Clients may run engines over
// one Store: the leases keep them from sending a message twice at once,
// and a crashed engine's claims pass to the others when they expire.
//
// Run is separate from [New] so that a Client that only serves requests or
// runs admin commands starts nothing in the background.
func (c *Client) Run(ctx context.Context) error {
	if c.engine.sender == nil {
		return errors.New("unical: Run needs Config.WebhookSender")
	}
	c.runMu.Lock()
	select {
	case <-c.done:
		c.runMu.Unlock()
		return errors.New("unical: Run after Close")
	default:
	}
	c.running.Add(1)
	c.runMu.Unlock()
	defer c.running.Done()
	c.engineRunning.Store(true)
	defer c.engineRunning.Store(false)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	var sweep sync.WaitGroup
	if c.sweep.interval > 0 {
		sweep.Go(func() { c.sweepLoop(ctx) })
	}
	c.engine.run(ctx)
	sweep.Wait()
	return nil
}

// App is one application's view of the API: every /v1 operation, scoped to
// the application. Get one from [Client.App] or [Client.AppByAPIKey].
type App struct {
	c  *Client
	id string
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

// apiKeyPrefix starts every API key: "uk_<key id>_<secret>".
const apiKeyPrefix = "uk_"

// AppByAPIKey returns the application an API key belongs to. A missing,
// malformed, revoked or wrong key is CodeUnauthorized with field x-api-key.
// The secret is compared by hash in constant time.
func (c *Client) AppByAPIKey(ctx context.Context, key string) (*App, error) {
	// Built only on failure: this runs on every request.
	unauthorized := func() error {
		return &Error{Code: CodeUnauthorized, Field: "x-api-key", Message: "A valid x-api-key header is required."}
	}
	if key == "" {
		return nil, unauthorized()
	}
	rest, ok := strings.CutPrefix(key, apiKeyPrefix)
	if !ok {
		return nil, unauthorized()
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok || id == "" || secret == "" {
		return nil, unauthorized()
	}
	stored, err := c.getAPIKey(ctx, "key_"+id)
	if err != nil {
		if ErrorCode(err) == CodeNotFound {
			return nil, unauthorized()
		}
		return nil, err
	}
	if !seal.SecretMatches(stored.Hash, secret) {
		return nil, unauthorized()
	}
	c.markKeyUsed(ctx, stored)
	return &App{c: c, id: stored.ApplicationID}, nil
}

// ApplicationParams are the settings of an application for
// [Client.CreateApplication] and [Client.UpdateApplication]. Absent fields
// are left alone on update.
type ApplicationParams struct {
	Name         Optional[string]   `json:"name,omitzero"`
	RedirectURLs Optional[[]string] `json:"redirectUrls,omitzero"`
	// Providers replaces the settings of the provider types it names; a
	// ClientSecret left empty keeps the stored one.
	Providers  map[ProviderType]ProviderSettings `json:"providers,omitempty"`
	WebhookURL Optional[string]                  `json:"webhookUrl,omitzero"`
}

// CreatedApplication is a new application with its first API key, which is
// shown only here.
type CreatedApplication struct {
	ApplicationID string `json:"applicationId"`
	APIKey        string `json:"apiKey"`
	// WebhookSecret verifies the application's own webhook messages; shown
	// only when the application has a webhook URL.
	WebhookSecret string `json:"webhookSecret,omitempty"`
}

// CreateApplication creates an application and its first API key.
func (c *Client) CreateApplication(ctx context.Context, params *ApplicationParams) (*CreatedApplication, error) {
	name, _ := params.Name.Get()
	if strings.TrimSpace(name) == "" {
		return nil, invalidf("name", "name is required.")
	}
	now := c.now().UTC()
	app := &Application{ID: newID("app"), Name: name, CreatedAt: now, UpdatedAt: now, RedirectURLs: []string{}}
	secret, err := c.applyApplicationParams(app, params)
	if err != nil {
		return nil, err
	}
	if err := c.store.CreateApplication(ctx, app); err != nil {
		return nil, err
	}
	_, key, err := c.CreateAPIKey(ctx, app.ID)
	if err != nil {
		return nil, err
	}
	return &CreatedApplication{ApplicationID: app.ID, APIKey: key, WebhookSecret: secret}, nil
}

// UpdateApplication changes an application's settings. It returns a new
// webhook secret when the webhook URL was set for the first time.
func (c *Client) UpdateApplication(ctx context.Context, id string, params *ApplicationParams) (*Application, string, error) {
	app, err := c.store.GetApplication(ctx, id)
	if err != nil {
		return nil, "", err
	}
	secret, err := c.applyApplicationParams(app, params)
	if err != nil {
		return nil, "", err
	}
	app.UpdatedAt = c.now().UTC()
	if err := c.store.UpdateApplication(ctx, app); err != nil {
		return nil, "", err
	}
	c.apps.drop(id)
	return app, secret, nil
}

// GetApplication returns an application with its secrets left out.
func (c *Client) GetApplication(ctx context.Context, id string) (*Application, error) {
	return c.store.GetApplication(ctx, id)
}

// ListApplications returns every application.
func (c *Client) ListApplications(ctx context.Context) ([]*Application, error) {
	return c.store.ListApplications(ctx)
}

func (c *Client) applyApplicationParams(app *Application, params *ApplicationParams) (webhookSecret string, err error) {
	if name, ok := params.Name.Get(); ok {
		if strings.TrimSpace(name) == "" {
			return "", invalidf("name", "name cannot be empty.")
		}
		app.Name = name
	}
	if urls, ok := params.RedirectURLs.Get(); ok {
		for i, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" {
				return "", invalidf("redirectUrls", "redirectUrls[%d] must be an absolute URL without a fragment.", i)
			}
		}
		app.RedirectURLs = urls
	} else if params.RedirectURLs.IsNull() {
		app.RedirectURLs = []string{}
	}
	for t, s := range params.Providers {
		if !t.Valid() {
			return "", &Error{Code: CodeInvalid, Field: "providers", Allowed: providerTypeStrings(), Message: "providers keys must be provider types."}
		}
		for name, raw := range map[string]string{"authUrl": s.AuthURL, "tokenUrl": s.TokenURL, "userInfoUrl": s.UserInfoURL, "apiBaseUrl": s.APIBaseURL, "serverUrl": s.ServerURL} {
			if raw == "" {
				continue
			}
			if u, err := url.Parse(raw); err != nil || !u.IsAbs() || u.Host == "" {
				return "", invalidf("providers."+string(t)+"."+name, "%s must be an absolute URL.", name)
			}
		}
		if app.Providers == nil {
			app.Providers = map[ProviderType]ProviderSettings{}
		}
		if app.SealedSecrets == nil {
			app.SealedSecrets = map[ProviderType][]byte{}
		}
		if s.ClientSecret != "" {
			app.SealedSecrets[t] = c.credentials.Seal([]byte(s.ClientSecret), []byte("client-secret/"+app.ID+"/"+string(t)))
		}
		s.ClientSecret = ""
		app.Providers[t] = s
	}
	if raw, ok := params.WebhookURL.Get(); ok && raw != "" {
		if err := c.checkWebhookURL("webhookUrl", raw); err != nil {
			return "", err
		}
		if app.SealedWebhookSecret == nil {
			webhookSecret = newEndpointSecret()
			app.SealedWebhookSecret = c.credentials.Seal([]byte(webhookSecret), []byte("webhook-secret/"+app.ID))
		}
		app.WebhookURL = raw
	} else if params.WebhookURL.IsSet() {
		app.WebhookURL = ""
		app.SealedWebhookSecret = nil
	}
	return webhookSecret, nil
}

// providerSettings returns an application's settings for t with the client
// secret unsealed.
func (c *Client) providerSettings(app *Application, t ProviderType) (ProviderSettings, error) {
	s := app.Providers[t]
	if sealed := app.SealedSecrets[t]; sealed != nil {
		secret, err := c.credentials.Open(sealed, []byte("client-secret/"+app.ID+"/"+string(t)))
		if err != nil {
			return s, WrapError(CodeInternal, err, "Internal error.")
		}
		s.ClientSecret = string(secret)
	}
	return s, nil
}

// CreateAPIKey creates an API key for an application and returns its id and
// the key, which is shown only here.
func (c *Client) CreateAPIKey(ctx context.Context, appID string) (id, key string, err error) {
	if _, err := c.store.GetApplication(ctx, appID); err != nil {
		return "", "", err
	}
	short := newID("")[1:] // the random id without its prefix separator
	secret := randomString(32)
	stored := &APIKey{ID: "key_" + short, ApplicationID: appID, Hash: seal.HashSecret(secret), CreatedAt: c.now().UTC()}
	if err := c.store.CreateAPIKey(ctx, stored); err != nil {
		return "", "", err
	}
	return stored.ID, apiKeyPrefix + short + "_" + secret, nil
}

// ListAPIKeys lists an application's API keys (never their secrets).
func (c *Client) ListAPIKeys(ctx context.Context, appID string) ([]*APIKey, error) {
	return c.store.ListAPIKeys(ctx, appID)
}

// RevokeAPIKey deletes an API key: requests with it fail from then on
// through this Client, and within Config.CacheTTL through the others.
// Returns CodeNotFound when the application has no such key.
func (c *Client) RevokeAPIKey(ctx context.Context, appID, keyID string) error {
	c.apiKeys.drop(keyID)
	err := c.store.DeleteAPIKey(ctx, appID, keyID)
	// Dropped again: a request that read the key while it was being
	// deleted may have cached it.
	c.apiKeys.drop(keyID)
	c.keysUsed.forget(keyID)
	return err
}

// getAPIKey reads an API key through the cache.
func (c *Client) getAPIKey(ctx context.Context, id string) (*APIKey, error) {
	return c.apiKeys.load(id, func() (*APIKey, error) { return c.store.GetAPIKey(ctx, id) })
}

// application reads an application through the cache. Callers must not
// change the result.
func (c *Client) application(ctx context.Context, id string) (*Application, error) {
	return cachedApplication(ctx, c.store, c.apps, id)
}

// cachedApplication reads application id through the cache apps.
func cachedApplication(ctx context.Context, store ApplicationStore, apps *ttlCache[*Application], id string) (*Application, error) {
	return apps.load(id, func() (*Application, error) { return store.GetApplication(ctx, id) })
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// newID returns prefix_ + 26 characters: 48 bits of milliseconds and 80
// random bits in a sortable base32, so ids list in creation order.
func newID(prefix string) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("unical: no randomness: " + err.Error())
	}
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// randomString returns n random bytes in URL-safe base32.
func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("unical: no randomness: " + err.Error())
	}
	return idEncoding.EncodeToString(b)
}
