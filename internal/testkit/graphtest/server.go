package graphtest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/unical/unical/internal/testkit/fakekit"
)

// DefaultTenant is the tenant ID the fake uses when Options.Tenant is empty.
const DefaultTenant = "6f1b4d3e-2c5a-4e8b-9d70-1a2b3c4d5e6f"

// Options configures a Server. Every field is optional.
type Options struct {
	// Tenant is the directory tenant ID (a GUID) of every user. The
	// authorize and token endpoints also answer for "common",
	// "organizations" and "consumers". Default DefaultTenant.
	Tenant string
	// Now is the clock for token, authorization code, subscription and
	// throttling expiry. Default time.Now. See [Clock].
	Now func() time.Time
	// TLS starts the server with TLS (the httptest certificate); use
	// Server.Client to talk to it. Default plain HTTP.
	TLS bool

	// AccessTokenLifetime is how long access tokens live. Default one hour.
	AccessTokenLifetime time.Duration
	// RefreshTokenLifetime is how long a refresh token may go unused before
	// it fails with AADSTS700082. Default 90 days.
	RefreshTokenLifetime time.Duration
	// AuthCodeLifetime is how long an authorization code may wait before
	// redemption. Default 10 minutes, as the identity platform documents.
	AuthCodeLifetime time.Duration
	// RevokeRotatedRefreshTokens makes a refresh token invalid once it has
	// been redeemed. The identity platform does not do this ("Refresh tokens
	// aren't revoked when used to acquire new access tokens"), so the
	// default false keeps old refresh tokens working; set it to prove that a
	// client stores the rotated token.
	RevokeRotatedRefreshTokens bool

	// PageSize is the page size of collections when the request sets
	// neither $top nor Prefer: odata.maxpagesize. Default 10: no reference
	// page states it, but users of calendarView report pages of 10
	// (microsoft-graph-docs issue 6201, microsoft-graph-explorer issue 91).
	PageSize int

	// ExpiredDeltaTokenStatus is the HTTP status a delta or skip token
	// answers, with error code syncStateNotFound, after ExpireDeltaTokens.
	// Microsoft documents only "a 40X-series error with error codes such as
	// syncStateNotFound" (concepts/delta-query-overview.md, "Token
	// duration"), so tests can try 400 or 404 too. Default 410, the status
	// clients commonly report.
	ExpiredDeltaTokenStatus int

	// SubscriptionMaxLifetime is the longest a subscription may live.
	// Default 4,230 minutes, the maximum for Outlook message, event and
	// contact subscriptions in
	// concepts/includes/change-notifications-subscription-lifetime.md
	// (one revision says 10,080; see subscription.go).
	SubscriptionMaxLifetime time.Duration
	// DocumentedSubscriptionResourcesOnly makes POST /subscriptions accept
	// only the event resources Microsoft documents, me/events and
	// users/{id}/events, and refuse the per-calendar forms with 400
	// ExtensionError, so tests can check a client's fallback. By default
	// the fake also accepts me/calendar/events and
	// me/calendars/{id}/events, which clients report working though no
	// documentation lists them (see subscription.go).
	DocumentedSubscriptionResourcesOnly bool
	// ValidationTimeout bounds the notificationUrl validation request.
	// Default 10 seconds, as documented.
	ValidationTimeout time.Duration
	// NotificationTimeout bounds one change or lifecycle notification POST.
	// Default 3 seconds, as documented.
	NotificationTimeout time.Duration
	// NotificationAttempts is how often a change notification is tried
	// before it is dropped. Default 3 (Graph retries for up to 4 hours).
	NotificationAttempts int
	// MaxOutboundRequests caps the number of POSTs the server sends to
	// notification URLs in its lifetime. Default 1000.
	MaxOutboundRequests int
	// NotificationClient sends validation and notification requests. Default
	// a client that trusts the httptest certificate and only dials loopback
	// addresses.
	NotificationClient *http.Client
	// AllowHTTPNotificationURLs accepts http:// notification URLs. Graph
	// requires https, so the default false refuses them.
	AllowHTTPNotificationURLs bool
}

// Server is an in-memory Microsoft identity platform and Microsoft Graph
// v1.0 server for tests. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the server, such as http://127.0.0.1:1234.
	URL string

	ts     *httptest.Server
	opts   Options
	now    func() time.Time
	mux    *http.ServeMux
	graph  *http.ServeMux
	client *http.Client

	ctx    context.Context // cancelled by Close; bounds outbound requests
	cancel context.CancelFunc
	wg     sync.WaitGroup // outbound deliveries in flight

	mu           sync.Mutex
	seq          int64 // change sequence for delta
	users        map[string]*user
	userOrder    []string
	signedIn     string
	authErr      *authorizeError
	clients      map[string]*Client
	codes        map[string]*authCode
	access       map[string]*accessToken
	refresh      map[string]*refreshToken
	subs         map[string]*subscription
	deltas       map[string]*deltaToken
	faults       fakekit.Faults[Fault]
	requests     fakekit.RequestLog
	deliveries   []Delivery
	outboundUsed int
	// rooms are the tenant's room mailboxes; see [Server.AddRoom].
	rooms []Room
}

// NewServer starts a Server and closes it when tb's test ends.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.Tenant == "" {
		opts.Tenant = DefaultTenant
	}
	if opts.AccessTokenLifetime <= 0 {
		opts.AccessTokenLifetime = time.Hour
	}
	if opts.RefreshTokenLifetime <= 0 {
		opts.RefreshTokenLifetime = 90 * 24 * time.Hour
	}
	if opts.AuthCodeLifetime <= 0 {
		opts.AuthCodeLifetime = 10 * time.Minute
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 10
	}
	if opts.ExpiredDeltaTokenStatus == 0 {
		opts.ExpiredDeltaTokenStatus = http.StatusGone
	}
	if opts.SubscriptionMaxLifetime <= 0 {
		opts.SubscriptionMaxLifetime = 4230 * time.Minute
	}
	if opts.ValidationTimeout <= 0 {
		opts.ValidationTimeout = 10 * time.Second
	}
	if opts.NotificationTimeout <= 0 {
		opts.NotificationTimeout = 3 * time.Second
	}
	if opts.NotificationAttempts <= 0 {
		opts.NotificationAttempts = 3
	}
	if opts.MaxOutboundRequests <= 0 {
		opts.MaxOutboundRequests = 1000
	}
	s := &Server{
		opts:    opts,
		now:     opts.Now,
		users:   make(map[string]*user),
		clients: make(map[string]*Client),
		codes:   make(map[string]*authCode),
		access:  make(map[string]*accessToken),
		refresh: make(map[string]*refreshToken),
		subs:    make(map[string]*subscription),
		deltas:  make(map[string]*deltaToken),
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.routes()
	s.ts = httptest.NewUnstartedServer(s)
	if opts.TLS {
		s.ts.StartTLS()
	} else {
		s.ts.Start()
	}
	s.URL = s.ts.URL
	s.client = opts.NotificationClient
	if s.client == nil {
		s.client = loopbackClient()
	}
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server, cancels outbound notifications and waits for them.
func (s *Server) Close() {
	s.cancel()
	s.ts.Close()
	s.wg.Wait()
}

// Client returns an HTTP client for the server (it trusts its certificate
// when Options.TLS is set).
func (s *Server) Client() *http.Client { return s.ts.Client() }

// AuthorityURL returns the identity platform authority, URL + "/" + tenant.
func (s *Server) AuthorityURL() string { return s.URL + "/" + s.opts.Tenant }

// AuthURL returns the authorize endpoint of the tenant.
func (s *Server) AuthURL() string { return s.AuthorityURL() + "/oauth2/v2.0/authorize" }

// TokenURL returns the token endpoint of the tenant.
func (s *Server) TokenURL() string { return s.AuthorityURL() + "/oauth2/v2.0/token" }

// GraphBaseURL returns the Graph v1.0 base URL, URL + "/v1.0".
func (s *Server) GraphBaseURL() string { return s.URL + "/v1.0" }

// Endpoint returns the server's authorize and token URLs for x/oauth2.
func (s *Server) Endpoint() oauth2.Endpoint {
	return oauth2.Endpoint{AuthURL: s.AuthURL(), TokenURL: s.TokenURL()}
}

// Tenant returns the tenant ID of the server's users.
func (s *Server) Tenant() string { return s.opts.Tenant }

// ServeHTTP counts the request, applies any injected fault and routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Record(r)
	if f, ok := s.faults.Take(r); ok && s.applyFault(w, r, f) {
		return
	}
	if strings.HasPrefix(r.URL.Path, "/v1.0/") {
		s.handleGraph(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// RequestCount returns how many requests, with any method, the server has
// received for paths that start with pathPrefix (for example
// "/v1.0/me/calendarView"). Faulted requests count.
func (s *Server) RequestCount(pathPrefix string) int {
	return s.requests.Count("", pathPrefix)
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{tenant}/oauth2/v2.0/authorize", s.handleAuthorize)
	s.mux.HandleFunc("POST /{tenant}/oauth2/v2.0/token", s.handleToken)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeGraphError(w, r, s.now(), http.StatusNotFound, "NotFound", "graphtest: no route for %s %s", r.Method, r.URL.Path)
	})
	s.graph = http.NewServeMux()
	s.graphRoutes()
}

// newID returns a random identifier of n bytes, base64url-encoded with
// padding, like Outlook item IDs.
func newID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + base64.URLEncoding.EncodeToString(b)
}

// newGUID returns a random GUID in its 8-4-4-4-12 form.
func newGUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// writeJSON writes v as a JSON response with Graph's request-id headers.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	setRequestIDs(w, r)
	w.Header().Set("Content-Type", "application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func setRequestIDs(w http.ResponseWriter, r *http.Request) {
	id := newGUID()
	w.Header().Set("request-id", id)
	if c := r.Header.Get("client-request-id"); c != "" {
		w.Header().Set("client-request-id", c)
	} else {
		w.Header().Set("client-request-id", id)
	}
}

// writeGraphError writes Graph's error body,
// {"error":{"code","message","innerError":{"date","request-id","client-request-id"}}},
// as https://learn.microsoft.com/graph/errors documents it.
func writeGraphError(w http.ResponseWriter, r *http.Request, now time.Time, status int, code, format string, args ...any) {
	writeGraphErrorInner(w, r, now, status, code, fmt.Sprintf(format, args...), nil)
}

func writeGraphErrorInner(w http.ResponseWriter, r *http.Request, now time.Time, status int, code, msg string, extra map[string]any) {
	setRequestIDs(w, r)
	inner := map[string]any{
		"date":              now.UTC().Format("2006-01-02T15:04:05"),
		"request-id":        w.Header().Get("request-id"),
		"client-request-id": w.Header().Get("client-request-id"),
	}
	for k, v := range extra {
		inner[k] = v
	}
	body := map[string]any{"error": map[string]any{"code": code, "message": msg, "innerError": inner}}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// loopbackClient returns the default client for outbound requests: it trusts
// the httptest certificate (so httptest.NewTLSServer receivers work) and
// refuses to dial anything but loopback addresses.
func loopbackClient() *http.Client {
	probe := httptest.NewUnstartedServer(http.NotFoundHandler())
	probe.StartTLS()
	pool := x509.NewCertPool()
	pool.AddCert(probe.Certificate())
	probe.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	tr.Proxy = nil
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (netConn, error) {
		if !isLoopbackHostPort(addr) {
			return nil, fmt.Errorf("graphtest: refusing to dial non-loopback address %s", addr)
		}
		return dial(ctx, network, addr)
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}
