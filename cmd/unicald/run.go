package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
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
	"github.com/unical/unical/dashboard"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/webhook"
	"github.com/unical/unical/metrics"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/store/postgres"
	"github.com/unical/unical/webhooksender"
)

// Main is the program, with its surroundings as fields so tests can run it
// in-process.
type Main struct {
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

// Run runs one command.
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		writeUsage(m.Stderr)
		return usageError{"no command"}
	}
	switch args[0] {
	case "serve":
		return m.serve(ctx, args[1:])
	case "apps":
		return m.apps(ctx, args[1:])
	case "keys":
		return m.keys(ctx, args[1:])
	case "help", "-h", "--help":
		writeUsage(m.Stdout)
		return nil
	}
	writeUsage(m.Stderr)
	return usageError{"unknown command " + args[0]}
}

func (m *Main) env(name, def string) string {
	if v := m.Getenv(name); v != "" {
		return v
	}
	return def
}

func (m *Main) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	return fs
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
	// in Config's terms.
	pollInterval      time.Duration
	reconcileInterval time.Duration
	retrySchedule     []time.Duration
	retryJitter       float64
	observer          unical.Observer
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
	fs.StringVar(&f.dataDir, "data", m.env("UNICAL_DATA_DIR", "./unicald-data"), "data folder (the bbolt store and its master key file)")
	fs.StringVar(&f.storeURL, "store", m.env("UNICAL_STORE_URL", ""), "postgres://... URL of a PostgreSQL store shared by replicas, instead of bbolt in --data (env UNICAL_STORE_URL)")
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
func (m *Main) openStore(ctx context.Context, sf storeFlags, boltOpts *bolt.Options) (unical.Store, seal.Key, string, error) {
	if sf.storeURL == "" {
		if err := os.MkdirAll(sf.dataDir, 0o700); err != nil {
			return nil, seal.Key{}, "", fmt.Errorf("data folder: %w", err)
		}
		key, keySource, err := m.masterKey(sf.dataDir)
		if err != nil {
			return nil, seal.Key{}, "", err
		}
		store, err := bolt.Open(filepath.Join(sf.dataDir, "unicald.db"), boltOpts)
		if err != nil {
			return nil, seal.Key{}, "", err
		}
		return store, key, keySource, nil
	}
	if !strings.HasPrefix(sf.storeURL, "postgres://") && !strings.HasPrefix(sf.storeURL, "postgresql://") {
		return nil, seal.Key{}, "", usageError{"--store must be a postgres:// URL (or leave it out for bbolt in --data)"}
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
	store, err := postgres.Open(ctx, sf.storeURL)
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

func (m *Main) open(ctx context.Context, sf storeFlags, publicURL string, eng engineSettings, logger *slog.Logger, boltOpts *bolt.Options) (*unical.Client, unical.Store, error) {
	store, key, keySource, err := m.openStore(ctx, sf, boltOpts)
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
	providers = virtual.Add(providers, store)
	client, err := unical.New(unical.Config{
		Store: store, Providers: providers, MasterKey: key, PublicURL: publicURL, Logger: logger,
		SweepInterval:      eng.retention.sweepInterval,
		DeliveredRetention: eng.retention.delivered,
		FailedRetention:    eng.retention.failed,
		Observer:           eng.observer,
		WebhookConfig: unical.WebhookConfig{
			// The webhook engine only runs in serve; admin commands just queue.
			WebhookSender:       webhooksender.New(webhooksender.Options{AllowPrivate: eng.allowPrivate, Timeout: eng.timeout, TLSConfig: m.WebhookTLS}),
			AllowPrivateTargets: eng.allowPrivate,
			DeliveryTimeout:     eng.timeout,
			DeliveryLease:       eng.lease,
			// Zero (admin commands, which never deliver) is the library's default.
			EndpointDisableAfter: eng.disableAfter,
			DeliveryLogTTL:       eng.retention.deliveryLog,
			ChangePollInterval:   eng.pollInterval,
			ReconcileInterval:    eng.reconcileInterval,
			RetrySchedule:        eng.retrySchedule,
			RetryJitter:          eng.retryJitter,
		},
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

func (m *Main) serve(ctx context.Context, args []string) error {
	fs := m.flags("serve")
	addr := fs.String("addr", m.env("UNICAL_ADDR", "127.0.0.1:8080"), "listen address")
	var sf storeFlags
	sf.define(m, fs)
	publicURL := fs.String("public-url", m.env("UNICAL_PUBLIC_URL", ""), "public base URL (OAuth callbacks, push)")
	var eng engineSettings
	fs.BoolVar(&eng.allowPrivate, "allow-private-targets", m.env("UNICAL_ALLOW_PRIVATE_TARGETS", "") == "1", "let webhooks and providers (CalDAV servers, provider URL overrides) reach loopback and private addresses and CalDAV use http (development only)")
	fs.DurationVar(&eng.timeout, "delivery-timeout", 15*time.Second, "time limit of one webhook delivery attempt")
	fs.DurationVar(&eng.lease, "delivery-lease", 2*time.Minute, "how long a claimed message is held before another worker may take it (after a crash, the wait before it is resent); must exceed -delivery-timeout")
	fs.DurationVar(&eng.disableAfter, "endpoint-disable-after", 5*24*time.Hour, "disable a webhook endpoint that has failed this long without one delivery (negative: never)")
	var front frontSettings
	if err := m.frontFlags(fs, &front); err != nil {
		return err
	}
	ret := &eng.retention
	// Sign-ins in progress are no longer stored (their flow travels in the
	// OAuth state), so there is nothing to cap; the flag is still
	// accepted so that existing command lines keep starting.
	fs.Int("max-pending-flows", 0, "ignored: OAuth sign-ins in progress are not stored, so they need no cap")
	fs.DurationVar(&ret.sweepInterval, "sweep-interval", unical.DefaultSweepInterval, "how often expired flows, cursors and delivery-log entries and old messages are removed (negative: never)")
	fs.DurationVar(&ret.delivered, "delivered-retention", unical.DefaultDeliveredRetention, "how long a delivered webhook message is kept (negative: forever)")
	fs.DurationVar(&ret.failed, "failed-retention", unical.DefaultFailedRetention, "how long a failed webhook message is kept, and so can be resent (negative: forever)")
	fs.DurationVar(&ret.deliveryLog, "delivery-log-ttl", 7*24*time.Hour, "how long delivery attempts stay in the delivery log")
	poll := pollInterval(time.Minute)
	reconcile := pollInterval(15 * time.Minute)
	schedule := defaultRetrySchedule()
	jitter := jitterFlag(webhook.DefaultJitter)
	metricsAddr := fs.String("metrics-addr", m.env("UNICAL_METRICS_ADDR", ""), "serve /metrics on this address instead of the API's (env UNICAL_METRICS_ADDR)")
	for _, err := range []error{
		m.envFlag(fs, &poll, "poll-interval", "UNICAL_POLL_INTERVAL", "how often subscriptions without a provider watch are checked for changes; negative: never"),
		m.envFlag(fs, &reconcile, "reconcile-interval", "UNICAL_RECONCILE_INTERVAL", "how often subscriptions with a provider watch are still checked for changes push missed; negative: never"),
		m.envFlag(fs, &schedule, "retry-schedule", "UNICAL_RETRY_SCHEDULE", "delays before each retry of a webhook message, comma-separated"),
		m.envFlag(fs, &jitter, "retry-jitter", "UNICAL_RETRY_JITTER", "spread each retry delay by up to this fraction of itself, 0 for none"),
	} {
		if err != nil {
			return err
		}
	}
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if !(front.keyRate >= 0) || !(front.ipRate >= 0) || front.requestTimeout < 0 { // !(x >= 0) also refuses NaN
		return usageError{"--rate-limit-key, --rate-limit-ip and --request-timeout must not be negative (0 turns them off)"}
	}
	eng.pollInterval, eng.retrySchedule, eng.retryJitter = time.Duration(poll), schedule.config(), jitter.config()
	eng.reconcileInterval = time.Duration(reconcile)
	met := metrics.New()
	eng.observer = met
	logger := slog.New(slog.NewJSONHandler(m.Stderr, nil))
	client, store, err := m.open(ctx, sf, *publicURL, eng, logger, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	defer client.Close()
	webhooks, err := engine.New(client, store)
	if err != nil {
		return err
	}
	met.WatchStore(client.StoreStats)
	svc, err := admin.New(admin.Config{Store: store, Client: client, Logger: logger})
	if err != nil {
		return err
	}
	if err := m.firstStart(ctx, svc.As(admin.ActorCLI)); err != nil {
		return err
	}
	if err := m.adminToken(ctx, client); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	apiOpts := httpapi.Options{
		Logger:            logger,
		Requests:          met,
		KeyRateLimit:      httpapi.RateLimit{PerSecond: front.keyRate},
		IPRateLimit:       httpapi.RateLimit{PerSecond: front.ipRate},
		TrustForwardedFor: front.trustForwardedFor,
		RequestTimeout:    front.requestTimeout,
	}
	var metricsSrv *http.Server
	if *metricsAddr == "" {
		apiOpts.Metrics = met.Handler()
	} else {
		mln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			ln.Close()
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
		ln.Close()
		return err
	}
	// One count of refused admin tokens per address, wherever they are
	// tried: the dashboard's login and the admin API.
	failures := httpapi.NewFailureLimiter(httpapi.DefaultFailureLimit, front.trustForwardedFor)
	dash, err := newDashboard(svc, key, *publicURL, logger, met.DeliveryCounts, failures)
	if err != nil {
		ln.Close()
		return err
	}
	// /admin/v1/ and the dashboard beside /v1 on the same listener;
	// everything else, unknown paths included, goes to the /v1 handler.
	reference, err := apidocs.Handler(httpapi.OpenAPIDocument)
	if err != nil {
		ln.Close()
		return err
	}
	root := http.NewServeMux()
	root.Handle(apidocs.Prefix, reference)
	root.Handle(adminapi.Prefix, adminapi.NewHandler(svc, adminapi.Options{Logger: logger, RequestTimeout: front.requestTimeout, Failures: failures}))
	root.Handle(dashboard.Prefix, dash)
	root.Handle("/", httpapi.NewHandler(client, apiOpts))
	srv := &http.Server{
		Handler:           root,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("listening", "addr", ln.Addr().String(), "store", sf.where())
	if m.Ready != nil {
		m.Ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// The webhook engine resumes pending deliveries from the Store; the
	// deferred client.Close stops it and waits for it.
	go func() {
		if err := webhooks.Run(ctx); err != nil {
			logger.Error("webhook engine", "err", err)
		}
	}()
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
}

// frontSettings are the serve flags of the /v1 front door.
type frontSettings struct {
	keyRate, ipRate   float64
	trustForwardedFor bool
	requestTimeout    time.Duration
}

// frontFlags defines the front-door flags on fs, with their defaults from
// the environment.
func (m *Main) frontFlags(fs *flag.FlagSet, f *frontSettings) error {
	keyRate, err := m.envFloat("UNICAL_RATE_LIMIT_KEY", httpapi.DefaultKeyRate)
	if err != nil {
		return err
	}
	ipRate, err := m.envFloat("UNICAL_RATE_LIMIT_IP", httpapi.DefaultIPRate)
	if err != nil {
		return err
	}
	timeout := httpapi.DefaultRequestTimeout
	if v := m.Getenv("UNICAL_REQUEST_TIMEOUT"); v != "" {
		if timeout, err = time.ParseDuration(v); err != nil {
			return usageError{"UNICAL_REQUEST_TIMEOUT: " + err.Error()}
		}
	}
	fs.Float64Var(&f.keyRate, "rate-limit-key", keyRate, "requests per second of one API key, with a burst of twice as many (0: no limit)")
	fs.Float64Var(&f.ipRate, "rate-limit-ip", ipRate, "requests per second of one client address (IPv6: /64), before authentication, with a burst of twice as many (0: no limit)")
	fs.BoolVar(&f.trustForwardedFor, "trust-forwarded-for", m.env("UNICAL_TRUST_FORWARDED_FOR", "") == "1", "take the client address from the last X-Forwarded-For entry (only behind a proxy that appends it)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", timeout, "time limit of one API request; past it the answer is 504 (0: none)")
	return nil
}

// envFloat reads a number from the environment, def when unset.
func (m *Main) envFloat(name string, def float64) (float64, error) {
	v := m.Getenv(name)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, usageError{name + ": not a number: " + v}
	}
	return f, nil
}

// firstStart creates a default application when there is none and prints
// its id and API key once, so a newcomer can call the API right away.
func (m *Main) firstStart(ctx context.Context, svc *admin.Service) error {
	apps, err := svc.ListApplications(ctx)
	if err != nil || len(apps) > 0 {
		return err
	}
	created, err := svc.CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("default")})
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Created the default application.\n  applicationId: %s\n  apiKey:        %s\nThe API key is shown only now; keep it.\n", created.ApplicationID, created.APIKey)
	return nil
}

// adminToken sets the operator token of the admin API from
// UNICAL_ADMIN_TOKEN, or creates one on first start and prints it once.
// Only its hash is stored; the token is never logged.
func (m *Main) adminToken(ctx context.Context, client *unical.Client) error {
	if v := m.Getenv("UNICAL_ADMIN_TOKEN"); v != "" {
		if err := client.SetAdminToken(ctx, v); err != nil {
			return fmt.Errorf("UNICAL_ADMIN_TOKEN: %s", unical.ErrorMessage(err))
		}
		return nil
	}
	token, err := client.EnsureAdminToken(ctx)
	if err != nil || token == "" {
		return err
	}
	fmt.Fprintf(m.Stdout, "Created the admin token of /admin/v1 (Authorization: Bearer ...), also the dashboard's login at /dashboard/.\n  adminToken:    %s\nIt is shown only now and stored only as a hash; keep it, or set UNICAL_ADMIN_TOKEN to replace it.\n", token)
	return nil
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func (m *Main) apps(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{"apps needs create, update, list or delete"}
	}
	fs := m.flags("apps " + args[0])
	var sf storeFlags
	sf.define(m, fs)
	server := fs.String("server", "", "call the admin API of the unicald at this URL (token from UNICAL_ADMIN_TOKEN) instead of opening the store")
	id := fs.String("id", "", "application id")
	name := fs.String("name", "", "application name")
	asJSON := fs.Bool("json", false, "print JSON")
	cascade := fs.Bool("cascade", false, "apps delete: also delete the application's accounts")
	var redirects stringList
	fs.Var(&redirects, "redirect-url", "registered OAuth redirect URL (repeatable)")
	webhookURL := fs.String("webhook-url", "", "URL for the application's enduseraccount.* messages")
	provider := fs.String("provider", "", "provider_a, provider_b or provider_c")
	var ps unical.ProviderSettings
	fs.StringVar(&ps.ClientID, "client-id", "", "OAuth client id")
	secretFile := fs.String("client-secret-file", "", "file holding the OAuth client secret")
	fs.StringVar(&ps.AuthURL, "auth-url", "", "authorization endpoint override")
	fs.StringVar(&ps.TokenURL, "token-url", "", "token endpoint override")
	fs.StringVar(&ps.UserInfoURL, "userinfo-url", "", "user info endpoint override")
	fs.StringVar(&ps.APIBaseURL, "api-base-url", "", "calendar API base URL override")
	fs.StringVar(&ps.ServerURL, "server-url", "", "CalDAV server URL")
	fs.StringVar(&ps.Tenant, "tenant", "", "Microsoft tenant")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	var providerType unical.ProviderType
	if *provider != "" {
		t, ok := unical.ParseProviderPath(*provider)
		if !ok {
			return usageError{"--provider must be provider_a, provider_b or provider_c"}
		}
		providerType = t
		if *secretFile != "" {
			b, err := os.ReadFile(*secretFile)
			if err != nil {
				return err
			}
			ps.ClientSecret = strings.TrimSpace(string(b))
		}
	}
	switch args[0] {
	case "create", "list":
	case "update", "delete":
		if *id == "" {
			return usageError{"apps " + args[0] + " needs --id"}
		}
	default:
		return usageError{"unknown apps command " + args[0]}
	}
	cmd := appsCommand{op: args[0], id: *id, name: *name, asJSON: *asJSON, cascade: *cascade,
		redirects: redirects, webhookURL: *webhookURL, provider: providerType, settings: ps}
	if *server != "" {
		remote, err := m.remoteAdmin(*server)
		if err != nil {
			return err
		}
		return m.appsRemote(ctx, remote, &cmd)
	}
	client, store, err := m.openOffline(ctx, sf)
	if err != nil {
		return err
	}
	defer store.Close()
	params := &admin.ApplicationParams{}
	if *name != "" {
		params.Name = unical.Some(*name)
	}
	if len(redirects) > 0 {
		params.RedirectURLs = unical.Some([]string(redirects))
	}
	if *webhookURL != "" {
		params.WebhookURL = unical.Some(*webhookURL)
	}
	if providerType != "" {
		params.Providers = map[unical.ProviderType]unical.ProviderSettings{providerType: ps}
	}
	switch args[0] {
	case "create":
		created, err := client.CreateApplication(ctx, params)
		if err != nil {
			return err
		}
		return m.printCreated(created, *asJSON)
	case "update":
		app, secret, err := client.UpdateApplication(ctx, *id, params)
		if err != nil {
			return err
		}
		if secret != "" {
			fmt.Fprintf(m.Stderr, "webhookSecret (shown once): %s\n", secret)
		}
		return json.NewEncoder(m.Stdout).Encode(app)
	case "list":
		apps, err := client.ListApplications(ctx)
		if err != nil {
			return err
		}
		return json.NewEncoder(m.Stdout).Encode(apps)
	default: // delete
		deleted, err := client.DeleteApplication(ctx, *id, *cascade)
		if err != nil {
			return err
		}
		return json.NewEncoder(m.Stdout).Encode(deleted)
	}
}

// printCreated prints a new application with its key, shown only now.
func (m *Main) printCreated(created *admin.CreatedApplication, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(created)
	}
	fmt.Fprintf(m.Stdout, "applicationId: %s\napiKey:        %s\n", created.ApplicationID, created.APIKey)
	if created.WebhookSecret != "" {
		fmt.Fprintf(m.Stdout, "webhookSecret: %s\n", created.WebhookSecret)
	}
	return nil
}

func (m *Main) keys(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{"keys needs create, list or revoke"}
	}
	fs := m.flags("keys " + args[0])
	var sf storeFlags
	sf.define(m, fs)
	server := fs.String("server", "", "call the admin API of the unicald at this URL (token from UNICAL_ADMIN_TOKEN) instead of opening the store")
	appID := fs.String("app", "", "application id")
	keyID := fs.String("key", "", "key id")
	label := fs.String("label", "", "keys create: a label naming the key, shown in lists")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if *appID == "" {
		return usageError{"keys needs --app"}
	}
	switch args[0] {
	case "create", "list":
	case "revoke":
		if *keyID == "" {
			return usageError{"keys revoke needs --key"}
		}
	default:
		return usageError{"unknown keys command " + args[0]}
	}
	if *server != "" {
		remote, err := m.remoteAdmin(*server)
		if err != nil {
			return err
		}
		return m.keysRemote(ctx, remote, args[0], *appID, *keyID, *label)
	}
	client, store, err := m.openOffline(ctx, sf)
	if err != nil {
		return err
	}
	defer store.Close()
	switch args[0] {
	case "create":
		created, err := client.CreateAPIKey(ctx, *appID, *label)
		if err != nil {
			return err
		}
		return json.NewEncoder(m.Stdout).Encode(map[string]string{"keyId": created.Key.ID, "apiKey": created.APIKey})
	case "list":
		keys, err := client.ListAPIKeyViews(ctx, *appID)
		if err != nil {
			return err
		}
		return json.NewEncoder(m.Stdout).Encode(keys)
	default: // revoke
		return client.RevokeAPIKey(ctx, *appID, *keyID)
	}
}
