package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/apidocs"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/bookingpage"
	"github.com/unical/unical/dashboard"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/grants"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/muxpath"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/webhook"
	"github.com/unical/unical/invite"
	"github.com/unical/unical/metrics"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/requestlog"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/store/postgres"
	"github.com/unical/unical/storestats"
	"github.com/unical/unical/subscriptions"
	"github.com/unical/unical/webhooksender"
)

// Main is the program, with its surroundings as fields so tests can run it
// in-process.
type Main struct {
	// Stdin is what unicald mcp reads; nil is os.Stdin.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Providers overrides the provider implementations (tests).
	Providers []unical.Provider
	// Ready, when set, receives the listening address once the server accepts
	// connections (tests).
	Ready chan<- string
	// WebhookTLS, when set, replaces the webhook client's TLS settings, so
	// that tests can trust their receiver's certificate.
	WebhookTLS *tls.Config
}

// Run runs the command that args name.
func (m *Main) Run(ctx context.Context, args []string) error {
	return m.run(ctx, commandTree(), args)
}

func (m *Main) env(name, def string) string {
	if v := m.Getenv(name); v != "" {
		return v
	}
	return def
}

// open opens the store and the Client over the data folder.
// engineSettings are the serve flags of the webhook engine.
type engineSettings struct {
	allowPrivate bool
	timeout      time.Duration
	lease        time.Duration
	disableAfter time.Duration
	retention    retentionSettings
	// pollInterval, reconcileInterval, retrySchedule and retryJitter are
	// in engine.Settings' terms.
	pollInterval      time.Duration
	reconcileInterval time.Duration
	// grantCheck and grantKeepAlive are engine.Settings.GrantCheckInterval and
	// GrantKeepAlive.
	grantCheck     time.Duration
	grantKeepAlive time.Duration
	retrySchedule  []time.Duration
	retryJitter    float64
	observer       unical.Observer
	// queue is the outbox queue serve hands to the Client and its engine,
	// so that the Client's messages wake the engine and Close stops it;
	// nil elsewhere (the Client makes its own).
	queue *outbox.Queue
}

// settings are the engine's settings from the flags; the webhook engine
// only runs in serve, admin commands just queue.
func (eng *engineSettings) settings(m *Main) engine.Settings {
	return engine.Settings{
		Sender:             webhooksender.New(webhooksender.Config{AllowPrivate: eng.allowPrivate, Timeout: eng.timeout, TLSConfig: m.WebhookTLS}),
		DeliveryTimeout:    eng.timeout,
		DeliveryLease:      eng.lease,
		DeliveredRetention: eng.retention.delivered,
		FailedRetention:    eng.retention.failed,
		SweepInterval:      eng.retention.sweepInterval,
		// Zero (admin commands, which never deliver) is the library's default.
		EndpointDisableAfter: eng.disableAfter,
		DeliveryLogTTL:       eng.retention.deliveryLog,
		ChangePollInterval:   eng.pollInterval,
		ReconcileInterval:    eng.reconcileInterval,
		GrantCheckInterval:   eng.grantCheck,
		GrantKeepAlive:       eng.grantKeepAlive,
		RetrySchedule:        eng.retrySchedule,
		RetryJitter:          eng.retryJitter,
	}
}

// retentionSettings are the serve flags that bound what the store keeps.
type retentionSettings struct {
	sweepInterval time.Duration
	delivered     time.Duration
	failed        time.Duration
	deliveryLog   time.Duration
}

// storeFlags are the flags that choose the store: bbolt in a data folder
// (the default), or PostgreSQL at a URL.
type storeFlags struct {
	dataDir  string
	storeURL string
}

// define adds --data and --store to fs, with defaults from the environment.
func (f *storeFlags) define(m *Main, fs *flag.FlagSet) {
	fs.StringVar(&f.dataDir, "data", m.env("UNICAL_DATA_DIR", "./unicald-data"), withEnv("data folder (the bbolt store and its master key file)", "UNICAL_DATA_DIR"))
	fs.StringVar(&f.storeURL, "store", "", withEnv("postgres://... URL of a PostgreSQL store shared by replicas, instead of bbolt in --data", "UNICAL_STORE_URL"))
	// Set after defining, so that help never shows the URL as a default:
	// it may hold the database password.
	f.storeURL = m.Getenv("UNICAL_STORE_URL")
}

// where names the store for logs, without a password.
func (f *storeFlags) where() string {
	if f.storeURL == "" {
		return f.dataDir
	}
	return redactURL(f.storeURL)
}

// storeOpenTimeout bounds how long start-up waits for PostgreSQL.
const storeOpenTimeout = 30 * time.Second

// openStore opens the chosen store and returns it with the master key. A
// PostgreSQL store is shared by replicas, which must all seal with one
// key, so its key must come from UNICAL_MASTER_KEY: a key file made on one
// machine would differ from the others'.
func (m *Main) openStore(ctx context.Context, sf storeFlags, boltCfg bolt.Config) (unical.Store, seal.Key, string, error) {
	if sf.storeURL == "" {
		if err := os.MkdirAll(sf.dataDir, 0o700); err != nil {
			return nil, seal.Key{}, "", fmt.Errorf("data folder: %w", err)
		}
		key, keySource, err := m.masterKey(sf.dataDir)
		if err != nil {
			return nil, seal.Key{}, "", err
		}
		boltCfg.Path = filepath.Join(sf.dataDir, "unicald.db")
		store, err := bolt.Open(boltCfg)
		if err != nil {
			return nil, seal.Key{}, "", err
		}
		return store, key, keySource, nil
	}
	if !strings.HasPrefix(sf.storeURL, "postgres://") && !strings.HasPrefix(sf.storeURL, "postgresql://") {
		return nil, seal.Key{}, "", usageError{msg: "--store must be a postgres:// URL (or leave it out for bbolt in --data)"}
	}
	v := m.Getenv("UNICAL_MASTER_KEY")
	if v == "" {
		return nil, seal.Key{}, "", errors.New("--store postgres://... needs UNICAL_MASTER_KEY: every replica must seal with the same key, so none may make its own (generate one with `openssl rand -base64 32` and give it to every replica)")
	}
	key, err := seal.ParseKey(v)
	if err != nil {
		return nil, seal.Key{}, "", fmt.Errorf("UNICAL_MASTER_KEY: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, storeOpenTimeout)
	defer cancel()
	store, err := postgres.Open(ctx, postgres.Config{URL: sf.storeURL})
	if err != nil {
		// pgx masks the password in what it reports; scrubbing it here
		// as well keeps that promise whatever the driver says.
		return nil, seal.Key{}, "", fmt.Errorf("--store %s: %s", redactURL(sf.storeURL), scrubPassword(err.Error(), sf.storeURL))
	}
	return store, key, "UNICAL_MASTER_KEY", nil
}

// redactURL returns a store URL with its password replaced by "xxxxx".
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// scrubPassword removes the password of a store URL from s.
func scrubPassword(s, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the URL cannot be parsed"
	}
	if p, ok := u.User.Password(); ok && p != "" {
		s = strings.ReplaceAll(s, p, "xxxxx")
		if esc := url.QueryEscape(p); esc != p {
			s = strings.ReplaceAll(s, esc, "xxxxx")
		}
	}
	return s
}

func (m *Main) open(ctx context.Context, sf storeFlags, publicURL string, eng engineSettings, logger *slog.Logger, boltCfg bolt.Config) (*unical.Client, unical.Store, error) {
	store, key, keySource, err := m.openStore(ctx, sf, boltCfg)
	if err != nil {
		return nil, nil, err
	}
	providers := m.Providers
	if providers == nil {
		if providers, err = defaultProviders(logger, eng.allowPrivate); err != nil {
			store.Close()
			return nil, nil, err
		}
	}
	// VIRTUAL calendars live in the store, so every server has them.
	providers = virtual.Add(providers, virtual.Config{Store: store, PublicURL: publicURL})
	// VIRTUAL and CalDAV accounts mail their invitations themselves
	// (package invite); the sender runs in serve.
	providers = withInvitations(providers, invite.Config{Store: store, Wakeup: invite.NewWakeup()})
	client, err := unical.New(unical.Config{
		Store: store, Providers: providers, MasterKey: key, PublicURL: publicURL, Logger: logger,
		Observer: eng.observer,
		Outbox:   eng.queue,
		// A revocation that fails as its account is deleted is queued
		// for the engine (package grants).
		Revoker:             grants.RevokeOrQueue,
		Subscriptions:       &subscriptions.Hooks{ChangePollInterval: eng.pollInterval},
		AllowPrivateTargets: eng.allowPrivate,
	})
	if errors.Is(err, unical.ErrWrongMasterKey) {
		store.Close()
		where := filepath.Join(sf.dataDir, "unicald.db")
		if sf.storeURL != "" {
			where = redactURL(sf.storeURL)
		}
		return nil, nil, fmt.Errorf("the master key (%s) does not open %s: it is not the key its data was sealed with; start with that key, or with a new data folder", keySource, where)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return client, store, nil
}

// masterKey reads UNICAL_MASTER_KEY, or the key file in the data folder,
// creating it with mode 0600 on first start. source says which, for errors.
func (m *Main) masterKey(dataDir string) (k seal.Key, source string, err error) {
	if v := m.Getenv("UNICAL_MASTER_KEY"); v != "" {
		k, err := seal.ParseKey(v)
		if err != nil {
			return k, "", fmt.Errorf("UNICAL_MASTER_KEY: %w", err)
		}
		return k, "UNICAL_MASTER_KEY", nil
	}
	path := filepath.Join(dataDir, "master.key")
	k, _, err = seal.LoadOrCreateKeyFile(path)
	return k, path, err
}

// serveCommand is unicald serve.
func serveCommand() *command {
	return &command{
		path: "serve", synopsis: "[flags]",
		summary: "Run the server: /v1, the admin API, the dashboard, the booking pages and the API reference on one address.",
		notes: `Environment without a flag:
  UNICAL_MASTER_KEY   the key that seals stored secrets (else a 0600 key file in --data, made on first start;
                      required with --store)
  UNICAL_ADMIN_TOKEN  the admin API's and dashboard's token (else one made and printed on first start)`,
		setup: (*Main).serveSetup,
	}
}

// serveSetup defines the serve flags, with their defaults from the
// environment, and returns the server. A bad value in the environment is
// returned after all flags are defined, so that --help lists them all.
func (m *Main) serveSetup(fs *flag.FlagSet) (func(context.Context) error, error) {
	addr := fs.String("addr", m.env("UNICAL_ADDR", "127.0.0.1:8080"), withEnv("listen address", "UNICAL_ADDR"))
	var sf storeFlags
	sf.define(m, fs)
	publicURL := fs.String("public-url", m.env("UNICAL_PUBLIC_URL", ""), withEnv("public base URL (OAuth callbacks, push, and the URLs printed at start)", "UNICAL_PUBLIC_URL"))
	var eng engineSettings
	fs.BoolVar(&eng.allowPrivate, "allow-private-targets", m.env("UNICAL_ALLOW_PRIVATE_TARGETS", "") == "1", withEnv("let webhooks and providers (CalDAV servers, provider URL overrides) reach loopback and private addresses, and webhooks on loopback and CalDAV use http (development only)", "UNICAL_ALLOW_PRIVATE_TARGETS=1"))
	fs.DurationVar(&eng.timeout, "delivery-timeout", 15*time.Second, "time limit of one webhook delivery attempt")
	fs.DurationVar(&eng.lease, "delivery-lease", 2*time.Minute, "how long a claimed message is held before another worker may take it (after a crash, the wait before it is resent); must exceed -delivery-timeout")
	fs.DurationVar(&eng.disableAfter, "endpoint-disable-after", 5*24*time.Hour, "disable a webhook endpoint that has failed this long without one delivery (negative: never)")
	var front frontSettings
	frontErr := m.frontFlags(fs, &front)
	ret := &eng.retention
	// Sign-ins in progress are no longer stored (their flow travels in the
	// OAuth state), so there is nothing to cap; the flag is still
	// accepted so that existing command lines keep starting.
	fs.Var(ignoredFlag{}, "max-pending-flows", "ignored: OAuth sign-ins in progress are not stored, so they need no cap")
	fs.DurationVar(&ret.sweepInterval, "sweep-interval", engine.DefaultSweepInterval, "how often expired flows, cursors and delivery-log entries and old messages are removed (negative: never)")
	fs.DurationVar(&ret.delivered, "delivered-retention", engine.DefaultDeliveredRetention, "how long a delivered webhook message is kept (negative: forever)")
	fs.DurationVar(&ret.failed, "failed-retention", engine.DefaultFailedRetention, "how long a failed webhook message is kept, and so can be resent (negative: forever)")
	fs.DurationVar(&ret.deliveryLog, "delivery-log-ttl", 7*24*time.Hour, "how long delivery attempts stay in the delivery log")
	poll := pollInterval(time.Minute)
	reconcile := pollInterval(15 * time.Minute)
	grantCheck := pollInterval(grants.DefaultCheckInterval)
	grantKeepAlive := pollInterval(grants.DefaultKeepAlive)
	schedule := defaultRetrySchedule()
	jitter := jitterFlag(webhook.DefaultJitter)
	metricsAddr := fs.String("metrics-addr", m.env("UNICAL_METRICS_ADDR", ""), withEnv("serve /metrics on this address instead of the API's", "UNICAL_METRICS_ADDR"))
	setupErr := firstError(frontErr,
		m.envFlag(fs, &poll, "poll-interval", "UNICAL_POLL_INTERVAL", "how often subscriptions without a provider watch are checked for changes; negative: never"),
		m.envFlag(fs, &reconcile, "reconcile-interval", "UNICAL_RECONCILE_INTERVAL", "how often subscriptions with a provider watch are still checked for changes push missed; negative: never"),
		m.envFlag(fs, &grantCheck, "grant-check-interval", "UNICAL_GRANT_CHECK_INTERVAL", "how often each Google and Microsoft account's grant is checked with a token refresh, so that a revoked one expires the account without waiting for a call; negative: never"),
		m.envFlag(fs, &grantKeepAlive, "grant-keep-alive", "UNICAL_GRANT_KEEP_ALIVE", "the longest an account's refresh token goes unused before the server refreshes it (Microsoft ends one unused for 90 days); negative: never"),
		m.envFlag(fs, &schedule, "retry-schedule", "UNICAL_RETRY_SCHEDULE", "delays before each retry of a webhook message, comma-separated"),
		m.envFlag(fs, &jitter, "retry-jitter", "UNICAL_RETRY_JITTER", "spread each retry delay by up to this fraction of itself, 0 for none"))
	return func(ctx context.Context) error {
		if !(front.keyRate >= 0) || !(front.ipRate >= 0) || front.requestTimeout < 0 { // !(x >= 0) also refuses NaN
			return usageError{msg: "--rate-limit-key, --rate-limit-ip and --request-timeout must not be negative (0 turns them off)"}
		}
		if err := checkPublicURL(*publicURL); err != nil {
			return err
		}
		m.setServeGC()
		// Bind before anything is created: a first start that cannot
		// listen (the port is taken) must not make the API key and admin
		// token it would then never print.
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return fmt.Errorf("--addr %s: %w", *addr, listenCause(err))
		}
		defer ln.Close()
		eng.pollInterval, eng.retrySchedule, eng.retryJitter = time.Duration(poll), schedule.config(), jitter.config()
		eng.reconcileInterval = time.Duration(reconcile)
		eng.grantCheck, eng.grantKeepAlive = time.Duration(grantCheck), time.Duration(grantKeepAlive)
		met := metrics.New()
		eng.observer = met
		eng.queue = outbox.NewQueue()
		logger := slog.New(slog.NewJSONHandler(m.Stderr, nil))
		client, store, err := m.open(ctx, sf, *publicURL, eng, logger, bolt.Config{})
		if err != nil {
			return err
		}
		defer store.Close()
		defer client.Close()
		webhooks, err := engine.New(engine.Config{Client: engine.ClientOf(client), Store: store, Outbox: eng.queue, Settings: eng.settings(m)})
		if err != nil {
			return err
		}
		met.WatchStore(func(ctx context.Context) (*storestats.Stats, error) { return storestats.Of(ctx, store) })
		// The request log is this process's memory, per replica (package
		// requestlog): the dashboard and the admin API show what this
		// replica served.
		requests := requestlog.New(requestlog.Config{})
		svc, err := admin.New(admin.Config{Store: store, Client: client, Logger: logger, RequestLog: requests})
		if err != nil {
			return err
		}
		created, err := m.firstStart(ctx, svc.As(admin.ActorCLI))
		if err != nil {
			return err
		}
		token, err := m.adminToken(ctx, client)
		if err != nil {
			return err
		}
		apiCfg := httpapi.Config{
			Client:            client,
			Logger:            logger,
			Requests:          met,
			RequestLog:        requests,
			KeyRateLimit:      httpapi.RateLimit{PerSecond: front.keyRate},
			IPRateLimit:       httpapi.RateLimit{PerSecond: front.ipRate},
			TrustForwardedFor: front.trustForwardedFor,
			RequestTimeout:    front.requestTimeout,
		}
		var metricsSrv *http.Server
		if *metricsAddr == "" {
			apiCfg.Metrics = met.Handler()
		} else {
			mln, err := net.Listen("tcp", *metricsAddr)
			if err != nil {
				return fmt.Errorf("--metrics-addr: %w", err)
			}
			metricsSrv = serveMetrics(mln, met, logger)
			defer metricsSrv.Close()
		}
		// The key is read again here (open has checked it) for the
		// dashboard's sessions. A PostgreSQL store's key is always
		// UNICAL_MASTER_KEY, which masterKey reads first.
		key, _, err := m.masterKey(sf.dataDir)
		if err != nil {
			return err
		}
		// One count of refused admin tokens per address, wherever they are
		// tried: the dashboard's login and the admin API.
		failures := httpapi.NewFailureLimiter(httpapi.LimiterConfig{Rate: httpapi.DefaultFailureLimit, TrustForwardedFor: front.trustForwardedFor})
		dash, err := newDashboard(svc, key, *publicURL, logger, met, failures)
		if err != nil {
			return err
		}
		bookPage, err := newBookingPage(client, key, &front, logger)
		if err != nil {
			return err
		}
		// /admin/v1/ and the dashboard beside /v1 on the same listener;
		// everything else, unknown paths included, goes to the /v1 handler.
		reference, err := apidocs.Handler(httpapi.OpenAPIDocument)
		if err != nil {
			return err
		}
		api := httpapi.NewHandler(apiCfg)
		root := http.NewServeMux()
		root.Handle(apidocs.Prefix, reference)
		root.Handle(adminapi.Prefix, adminapi.NewHandler(adminapi.Config{Service: svc, Logger: logger, RequestTimeout: front.requestTimeout, Failures: failures}))
		root.Handle(dashboard.Prefix, dash)
		root.Handle(bookingpage.Prefix, bookPage)
		root.Handle("/", api)
		srv := &http.Server{
			Handler:           apiFirst(api, root),
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       60 * time.Second,
			WriteTimeout:      120 * time.Second,
			IdleTimeout:       120 * time.Second,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
		// The webhook engine resumes pending deliveries from the Store; it
		// is attached before the first request, so /readyz never sees it
		// missing, and the deferred client.Close stops it and waits for it.
		if _, err := webhooks.Start(ctx); err != nil {
			return fmt.Errorf("webhook engine: %w", err)
		}
		// The invitation sender resumes the invitations the Store holds
		// (queued before a restart or by another replica); it stops
		// before the client closes.
		invitations := invite.NewSender(invite.SenderConfig{Client: client})
		invitationsCtx, stopInvitations := context.WithCancel(ctx)
		invitationsDone := make(chan struct{})
		go func() { invitations.Run(invitationsCtx); close(invitationsDone) }()
		defer func() { stopInvitations(); <-invitationsDone }()
		// Recovery undoes the bookings whose writer died (this replica's
		// or another's); it stops before the client and store close.
		recoverCtx, stopRecovery := context.WithCancel(ctx)
		recovered := make(chan struct{})
		go func() {
			defer close(recovered)
			booking.RunRecovery(recoverCtx, client)
		}()
		defer func() {
			stopRecovery()
			<-recovered
		}()
		logger.Info("listening", "addr", ln.Addr().String(), "store", sf.where())
		m.printStart(ln.Addr(), *publicURL, created, token)
		if m.Ready != nil {
			m.Ready <- ln.Addr().String()
		}
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		select {
		case err := <-errc:
			return err
		case <-ctx.Done():
		}
		logger.Info("shutting down")
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			return err
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, setupErr
}

// listenCause is what a failed listen says without the "listen tcp"
// prefix, which the flag's name replaces.
func listenCause(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

// checkPublicURL refuses a --public-url that is not an absolute http or
// https URL, naming the flag (the Client's own check names its Go field).
func checkPublicURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{msg: fmt.Sprintf("--public-url must be an absolute http or https URL, such as https://cal.example.com, not %q", raw)}
	}
	return nil
}

// apiFirst hands root's requests for plain /v1/ paths straight to api,
// which root would hand them to anyway: no other handler of root is under
// /v1/, and a plain path is one root neither cleans nor redirects
// (muxpath.Plain). The API's own router still routes them; this spares
// each API request the matching of a second ServeMux (about 3,300
// instructions of a cached account read's 67,000).
func apiFirst(api http.Handler, root *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := muxpath.Plain(r); ok && strings.HasPrefix(p, "/v1/") {
			api.ServeHTTP(w, r)
			return
		}
		root.ServeHTTP(w, r)
	})
}

// firstError returns the first of errs that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// frontSettings are the serve flags of the /v1 front door.
type frontSettings struct {
	keyRate, ipRate   float64
	trustForwardedFor bool
	requestTimeout    time.Duration
}

// frontFlags defines the front-door flags on fs, with their defaults from
// the environment; a bad value there is returned once all are defined.
func (m *Main) frontFlags(fs *flag.FlagSet, f *frontSettings) error {
	keyRate, keyErr := m.envFloat("UNICAL_RATE_LIMIT_KEY", httpapi.DefaultKeyRate)
	ipRate, ipErr := m.envFloat("UNICAL_RATE_LIMIT_IP", httpapi.DefaultIPRate)
	timeout := httpapi.DefaultRequestTimeout
	var timeoutErr error
	if v := m.Getenv("UNICAL_REQUEST_TIMEOUT"); v != "" {
		var err error
		if timeout, err = time.ParseDuration(v); err != nil {
			timeoutErr = usageError{msg: "UNICAL_REQUEST_TIMEOUT: " + err.Error()}
		}
	}
	fs.Float64Var(&f.keyRate, "rate-limit-key", keyRate, withEnv("requests per second of one API key, with a burst of twice as many (0: no limit)", "UNICAL_RATE_LIMIT_KEY"))
	fs.Float64Var(&f.ipRate, "rate-limit-ip", ipRate, withEnv("requests per second of one client address (IPv6: /64), before authentication, with a burst of twice as many (0: no limit)", "UNICAL_RATE_LIMIT_IP"))
	fs.BoolVar(&f.trustForwardedFor, "trust-forwarded-for", m.env("UNICAL_TRUST_FORWARDED_FOR", "") == "1", withEnv("take the client address from the last X-Forwarded-For entry (only behind a proxy that appends it)", "UNICAL_TRUST_FORWARDED_FOR=1"))
	fs.DurationVar(&f.requestTimeout, "request-timeout", timeout, withEnv("time limit of one API request; past it the answer is 504 (0: none)", "UNICAL_REQUEST_TIMEOUT"))
	return firstError(keyErr, ipErr, timeoutErr)
}

// envFloat reads a number from the environment, def when unset.
func (m *Main) envFloat(name string, def float64) (float64, error) {
	v := m.Getenv(name)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, usageError{msg: name + ": not a number: " + v}
	}
	return f, nil
}
