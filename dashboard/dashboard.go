// Package dashboard serves unicald's web dashboard at /dashboard/: an
// overview of the server, the operator's pages for applications, API
// keys, redirect URLs, provider settings, accounts, calendars, an
// availability explorer and webhooks, a set-up checklist, each
// application's recent /v1 requests, and the audit log of operator
// changes.
//
// Pages are rendered on the server from html/template files embedded in the
// binary, with our own CSS and one small script (a copy button); every flow
// works without JavaScript. The operator logs in with the admin token. The
// session lives in a cookie sealed with a key derived from the master
// key, so that every replica accepts it without a session table; it holds
// the admin token, checked on every request, so that changing the token
// ends every session. Logging out records the session in the Store until
// its expiry, so that every replica refuses its cookie from then on.
// Every form carries a CSRF token derived from the session.
//
// The dashboard calls the same admin.Service methods as the admin API (and
// the same App methods as /v1 to read calendars and events) and holds no
// business rules of its own.
package dashboard

import (
	"embed"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/adapter/httpwire"
)

// Prefix is where the dashboard is mounted.
const Prefix = "/dashboard/"

// DefaultSessionTTL is how long a login lasts when Config.SessionTTL is zero.
const DefaultSessionTTL = 8 * time.Hour

// Config configures New.
type Config struct {
	// Admin performs the operator's operations, the same ones the admin
	// API calls; required. The dashboard acts as admin.ActorDashboard.
	Admin *admin.Service
	// SessionKey seals session cookies and MACs CSRF tokens; at least 32 bytes,
	// the same on every replica (unicald derives it from the master key).
	SessionKey []byte
	// PublicURL is the server's public base URL: it builds the OAuth
	// callback URL shown on the Providers page, and an https URL makes
	// the session cookie Secure. Empty is reported on the Set-up page.
	PublicURL string
	// SessionTTL is how long a login lasts; default DefaultSessionTTL.
	SessionTTL time.Duration
	// Failures counts failed logins per client address; past its limit
	// the login form answers 429 with Retry-After without checking the
	// token. Nil is no limit; unicald shares one with the admin API.
	Failures httpwire.FailureCounter
	// Logger receives errors (never secrets); default discards them.
	Logger *slog.Logger
	// Now returns the current time; default time.Now.
	Now func() time.Time
	// DeliveryCounts returns the webhook delivery attempts since start by
	// outcome, for the overview; unicald passes its metrics' counts
	// (metrics.Metrics.DeliveryCounts), so the overview and /metrics agree.
	// Nil leaves the error rate out.
	DeliveryCounts func() map[string]float64
	// RequestCounts returns the HTTP requests served since start by
	// status code, for the overview's error rate; unicald passes its
	// metrics' counts (metrics.Metrics.RequestCounts). Nil leaves the
	// request counts out.
	RequestCounts func() map[string]float64
}

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// handler serves the dashboard.
type handler struct {
	admin      *admin.Service
	sessions   sessionKeys
	publicURL  string
	secure     bool // cookies carry Secure
	sessionTTL time.Duration
	// revoked keeps the sessions logged out before their expiry: the
	// Client's Store, so that every replica sees them.
	revoked  unical.BlobStore
	failures httpwire.FailureCounter
	log      *slog.Logger
	now      func() time.Time
	// deliveryCounts is Config.DeliveryCounts.
	deliveryCounts func() map[string]float64
	// requestCounts is Config.RequestCounts.
	requestCounts func() map[string]float64
	mux           *http.ServeMux
}

// New returns the dashboard as an http.Handler for the paths under Prefix.
func New(opts Config) (http.Handler, error) {
	if opts.Admin == nil {
		panic("dashboard: Config.Admin is required")
	}
	if len(opts.SessionKey) < 32 {
		panic("dashboard: Config.SessionKey must be at least 32 bytes")
	}
	h := &handler{
		admin:      opts.Admin.As(admin.ActorDashboard),
		sessions:   newSessionKeys(opts.SessionKey),
		publicURL:  strings.TrimRight(opts.PublicURL, "/"),
		sessionTTL: opts.SessionTTL,
		revoked:    opts.Admin.Client().Store(),
		failures:   httpwire.OrNoLimit(opts.Failures),
		log:        opts.Logger,
		now:        opts.Now,

		deliveryCounts: opts.DeliveryCounts,
		requestCounts:  opts.RequestCounts,
	}
	if u, err := url.Parse(h.publicURL); err == nil && u.Scheme == "https" {
		h.secure = true
	}
	if h.sessionTTL <= 0 {
		h.sessionTTL = DefaultSessionTTL
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if h.now == nil {
		h.now = time.Now
	}
	if err := checkPages(); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	// No page may be cached: some show a secret once, and all show data
	// only a logged-in operator may see.
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	h.mux.ServeHTTP(w, r)
}

func (h *handler) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	m.Handle("GET /dashboard/static/", http.StripPrefix("/dashboard/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /dashboard/static/week.css", weekStyle)
	m.HandleFunc("GET /dashboard/login", h.loginPage)
	m.HandleFunc("POST /dashboard/login", h.login)
	m.HandleFunc("POST /dashboard/logout", h.form(h.logout))
	// The overview is the landing page; /dashboard/health, its former
	// name, leads there.
	m.HandleFunc("GET /dashboard/{$}", h.page(func(w http.ResponseWriter, r *http.Request, s *session) {
		http.Redirect(w, r, "/dashboard/overview", http.StatusSeeOther)
	}))
	m.HandleFunc("GET /dashboard/health", h.page(func(w http.ResponseWriter, r *http.Request, s *session) {
		http.Redirect(w, r, "/dashboard/overview", http.StatusMovedPermanently)
	}))
	m.HandleFunc("GET /dashboard/overview", h.page(h.overviewPage))
	m.HandleFunc("GET /dashboard/apps", h.page(h.appsPage))
	m.HandleFunc("GET /dashboard/audit", h.page(h.auditPage))
	m.HandleFunc("POST /dashboard/apps", h.form(h.createApp))
	m.HandleFunc("GET /dashboard/apps/{app}", h.page(h.pageHandler(pageSetup)))
	m.HandleFunc("POST /dashboard/apps/{app}/rename", h.form(h.renameApp))
	m.HandleFunc("POST /dashboard/apps/{app}/delete", h.form(h.deleteApp))
	m.HandleFunc("GET /dashboard/apps/{app}/keys", h.page(h.pageHandler(pageKeys)))
	m.HandleFunc("POST /dashboard/apps/{app}/keys", h.form(h.createKey))
	m.HandleFunc("POST /dashboard/apps/{app}/keys/{key}/revoke", h.form(h.revokeKey))
	m.HandleFunc("POST /dashboard/apps/{app}/keys/{key}/label", h.form(h.labelKey))
	m.HandleFunc("GET /dashboard/apps/{app}/redirects", h.page(h.pageHandler(pageRedirects)))
	m.HandleFunc("POST /dashboard/apps/{app}/redirects", h.form(h.addRedirect))
	m.HandleFunc("POST /dashboard/apps/{app}/redirects/remove", h.form(h.removeRedirect))
	m.HandleFunc("GET /dashboard/apps/{app}/providers", h.page(h.pageHandler(pageProviders)))
	m.HandleFunc("POST /dashboard/apps/{app}/providers/{provider}", h.form(h.saveProvider))
	m.HandleFunc("POST /dashboard/apps/{app}/providers/{provider}/check", h.form(h.checkProvider))
	m.HandleFunc("POST /dashboard/apps/{app}/delegations/{provider}", h.form(h.saveDelegation))
	m.HandleFunc("POST /dashboard/apps/{app}/delegations/{provider}/verify", h.form(h.verifyDelegation))
	m.HandleFunc("POST /dashboard/apps/{app}/delegations/{provider}/remove", h.form(h.removeDelegation))
	m.HandleFunc("GET /dashboard/apps/{app}/accounts", h.page(h.pageHandler(pageAccounts)))
	m.HandleFunc("POST /dashboard/apps/{app}/accounts/{account}/delete", h.form(h.deleteAccount))
	m.HandleFunc("POST /dashboard/apps/{app}/accounts/virtual", h.form(h.createVirtualAccount))
	m.HandleFunc("POST /dashboard/apps/{app}/accounts/caldav", h.form(h.connectCalDAVAccount))
	m.HandleFunc("GET /dashboard/apps/{app}/availability", h.page(h.pageHandler(pageAvailability)))
	m.HandleFunc("GET /dashboard/apps/{app}/accounts/{account}", h.page(h.pageHandler(pageAccount)))
	m.HandleFunc("GET /dashboard/apps/{app}/accounts/{account}/calendars/{calendar}", h.page(h.pageHandler(pageCalendar)))
	m.HandleFunc("POST /dashboard/apps/{app}/subscriptions/{sub}/pause", h.form(h.pauseSubscription))
	m.HandleFunc("POST /dashboard/apps/{app}/subscriptions/{sub}/resume", h.form(h.resumeSubscription))
	m.HandleFunc("POST /dashboard/apps/{app}/subscriptions/{sub}/delete", h.form(h.deleteSubscription))
	m.HandleFunc("GET /dashboard/apps/{app}/webhooks", h.page(h.pageHandler(pageWebhooks)))
	m.HandleFunc("GET /dashboard/apps/{app}/bookings", h.page(h.pageHandler(pageBookings)))
	m.HandleFunc("GET /dashboard/apps/{app}/requests", h.page(h.pageHandler(pageRequests)))
	m.HandleFunc("POST /dashboard/apps/{app}/webhooks/url", h.form(h.setWebhookURL))
	m.HandleFunc("POST /dashboard/apps/{app}/webhooks/rotate", h.form(h.rotateWebhookSecret))
	m.HandleFunc("POST /dashboard/apps/{app}/webhooks/resend", h.form(h.resend))
	m.HandleFunc("POST /dashboard/apps/{app}/webhooks/test", h.form(h.sendTest))
	m.HandleFunc("GET /dashboard/apps/{app}/webhooks/messages/{message}", h.page(h.pageHandler(pageMessage)))
	m.HandleFunc("GET /dashboard/apps/{app}/mail", h.page(h.pageHandler(pageMail)))
	m.HandleFunc("POST /dashboard/apps/{app}/mail", h.form(h.saveMail))
	m.HandleFunc("POST /dashboard/apps/{app}/mail/remove", h.form(h.removeMail))
	m.HandleFunc("POST /dashboard/apps/{app}/mail/verify", h.form(h.verifyMail))
	m.HandleFunc("/dashboard/", func(w http.ResponseWriter, r *http.Request) {
		h.render(w, r, http.StatusNotFound, "error", &view{Title: "Not found", Error: "There is no such page."})
	})
	h.mux = m
}

// page wraps a GET handler that needs a logged-in operator; without a
// valid session it sends the browser to the login page.
func (h *handler) page(fn func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.sessionOf(r)
		if !ok {
			http.Redirect(w, r, "/dashboard/login", http.StatusSeeOther)
			return
		}
		fn(w, r, s)
	}
}

// maxFormBytes bounds a form body; the largest form (provider settings)
// is far smaller.
const maxFormBytes = 64 << 10

// form wraps a POST handler: it needs a valid session and the session's
// CSRF token in the form's csrf field, and answers 403 otherwise, changing
// nothing.
func (h *handler) form(fn func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.sessionOf(r)
		if !ok {
			h.render(w, r, http.StatusForbidden, "error", &view{Title: "Logged out", Error: "Your session has ended. Log in again, then repeat the action."})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			h.render(w, r, http.StatusBadRequest, "error", &view{Session: s, Title: "Bad request", Error: "The form could not be read."})
			return
		}
		if !h.sessions.checkCSRF(s, r.PostFormValue("csrf")) {
			h.render(w, r, http.StatusForbidden, "error", &view{Session: s, Title: "Refused", Error: "The form's security token is missing or wrong. Reload the page and try again."})
			return
		}
		fn(w, r, s)
	}
}
