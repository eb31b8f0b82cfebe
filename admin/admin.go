// Package admin is the operator side of unical: what the admin API
// (/admin/v1), the dashboard and unicald's apps and keys commands do to
// applications, as opposed to what an application does with its own data
// through [unical.App]. Applications, their API keys, redirect URLs,
// provider settings and own webhook are read and written here, over the
// Store, with secrets sealed by the Client and the Client's caches
// dropped after every change. Every change is written to the audit log
// (see [Service.ListAudit]).
//
// The callers check the operator first (the admin token, a dashboard
// session, or access to the store's files for the CLI), then call a
// [Service] made for that actor with [Service.As].
package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/requestlog"
)

// Config configures a Service. Client is required.
type Config struct {
	// Store holds the applications, API keys and the audit log; default
	// the Client's own Store.
	Store unical.Store
	// Client seals secrets with its master key, drops its cached
	// applications and keys after a change ([unical.Client.Invalidate]),
	// and runs the operations on accounts and subscriptions.
	Client *unical.Client
	// AuditRetention is how long an audit log entry is kept; default
	// DefaultAuditRetention.
	AuditRetention time.Duration
	// Now returns the current time; default time.Now.
	Now func() time.Time
	// Logger receives the errors of audit writes that fail after their
	// change was made; default discards them.
	Logger *slog.Logger
	// RequestLog is this process's /v1 request log, the one given to
	// httpapi.Config.RequestLog, which ListRequests reads; nil keeps
	// none.
	RequestLog *requestlog.Log
}

// DefaultAuditRetention is how long audit log entries are kept when
// Config.AuditRetention is zero.
const DefaultAuditRetention = 90 * 24 * time.Hour

// Actor says who makes a change, for the audit log.
type Actor string

// The actors of the audit log.
const (
	// ActorAdminToken is a caller of the admin API with the admin token.
	ActorAdminToken Actor = "admin-token"
	// ActorDashboard is an operator logged in to the dashboard.
	ActorDashboard Actor = "dashboard"
	// ActorCLI is unicald's apps and keys commands working on the store's
	// files directly (offline).
	ActorCLI Actor = "cli"
)

// Service performs the operator's operations. It is safe for concurrent
// use.
type Service struct {
	store     unical.Store
	client    *unical.Client
	retention time.Duration
	now       func() time.Time
	log       *slog.Logger
	actor     Actor
	requests  *requestlog.Log
}

// New validates cfg and returns a Service acting as ActorAdminToken; use
// [Service.As] for the others.
func New(cfg Config) (*Service, error) {
	if cfg.Client == nil {
		return nil, errors.New("admin: Config.Client is required")
	}
	if cfg.Store == nil {
		cfg.Store = cfg.Client.Store()
	}
	s := &Service{store: cfg.Store, client: cfg.Client, retention: cfg.AuditRetention, now: cfg.Now, log: cfg.Logger, actor: ActorAdminToken, requests: cfg.RequestLog}
	if s.retention <= 0 {
		s.retention = DefaultAuditRetention
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return s, nil
}

// Of returns a Service over client with every other setting at its
// default, acting as ActorAdminToken: for programs that embed unical and
// make their applications in Go.
func Of(client *unical.Client) *Service {
	s, err := New(Config{Client: client})
	if err != nil {
		panic(err) // only a nil client fails
	}
	return s
}

// As returns a Service whose changes the audit log attributes to actor.
func (s *Service) As(actor Actor) *Service {
	c := *s
	c.actor = actor
	return &c
}

// Client returns the Client the Service works through.
func (s *Service) Client() *unical.Client { return s.client }

// saveApplication writes a changed application and drops it from the
// Client's cache, so the change takes effect at once.
func (s *Service) saveApplication(ctx context.Context, app *unical.Application) error {
	app.UpdatedAt = s.now().UTC()
	if err := s.store.UpdateApplication(ctx, app); err != nil {
		return err
	}
	s.client.Invalidate(app.ID)
	return nil
}

// app returns the handle of application id, or CodeNotFound.
func (s *Service) app(ctx context.Context, id string) (*unical.App, error) {
	return s.client.App(ctx, id)
}
