// Package httpapi serves the unical API as the /v1 REST interface of the
// Unified Calendar API specification. Every handler decodes the request,
// makes one call on the application's *unical.App, and encodes the answer;
// business rules live in package unical.
package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/internal/adapter/wirecode"
	"github.com/unical/unical/mcpserver"
	"github.com/unical/unical/requestlog"
	"github.com/unical/unical/scopedtoken"
)

// MaxBodyBytes is the largest request body accepted: 1 MiB.
const MaxBodyBytes = httpwire.MaxBodyBytes

// Config configures NewHandler. Client is required; the other fields'
// zero values are usable.
type Config struct {
	// Client is what the API serves: every route is one call of it or of
	// one of its Apps.
	Client *unical.Client

	// Logger receives request and error logs; default discards them.
	Logger *slog.Logger

	// KeyRateLimit limits the requests of each API key, counted after
	// authentication. IPRateLimit limits those of each client address
	// (IPv6: each /64), counted before authentication, so that a flood of
	// bad keys is limited too. Past a limit the answer is 429 rate_limited
	// with Retry-After in seconds. The zero value is no limit; unicald
	// serves with DefaultKeyRate and DefaultIPRate.
	KeyRateLimit RateLimit
	IPRateLimit  RateLimit
	// LimiterSize caps how many API keys, and how many addresses, the
	// limiters remember; zero is DefaultLimiterSize.
	LimiterSize int
	// TrustForwardedFor takes the client address from the last entry of
	// X-Forwarded-For instead of the connection's peer. Set it only behind
	// a proxy that appends that header: otherwise any caller picks its
	// own address and escapes the per-address limit.
	TrustForwardedFor bool
	// RequestTimeout bounds each request: when it passes, the provider and
	// store calls in flight are cancelled and the answer is 504 timeout.
	// Zero is no deadline; unicald serves with DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Requests receives each request's route, status and duration; nil
	// measures nothing.
	Requests RequestObserver
	// Metrics, when set, is served at GET /metrics without an API key.
	Metrics http.Handler
	// RequestLog, when set, records each request made with a valid API
	// key under its application (method, route pattern, status, latency,
	// key id); requests refused before their key was known are not an
	// application's. nil records nothing.
	RequestLog *requestlog.Log
}

// handler serves the API over a Client.
type handler struct {
	client *unical.Client
	log    *slog.Logger
	mux    *routeMux

	mu         sync.Mutex
	errorCount map[unical.Code]int

	keyLimit          *limiter[string]     // by API key id; nil: no limit
	ipLimit           *limiter[netip.Addr] // by client address; nil: no limit
	trustForwardedFor bool
	timeout           time.Duration
	// answers keeps encoded account reads (answercache.go).
	answers answerCache
	// tokens issues and checks scoped tokens (token.go).
	tokens *scopedtoken.Service
	// requests is Config.RequestLog.
	requests *requestlog.Log
}

// NewHandler returns the /v1 API over cfg.Client as an http.Handler that
// an embedding program can mount; it owns no listener.
func NewHandler(cfg Config) http.Handler {
	_, root := newHandler(cfg)
	return root
}

// newHandler is NewHandler that also returns the handler, whose mux tests
// read the mounted routes from.
func newHandler(opts Config) (*handler, http.Handler) {
	client := opts.Client
	h := &handler{client: client, log: opts.Logger, mux: newRouteMux(), errorCount: map[unical.Code]int{}}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h.keyLimit = newLimiter(opts.KeyRateLimit, opts.LimiterSize, hashString)
	h.ipLimit = newLimiter(opts.IPRateLimit, opts.LimiterSize, hashAddr)
	h.trustForwardedFor, h.timeout = opts.TrustForwardedFor, opts.RequestTimeout
	h.tokens = scopedtoken.NewService(client)
	h.requests = opts.RequestLog
	h.registerAccountRoutes()
	h.registerOAuthRoutes()
	h.registerCalendarRoutes()
	h.registerEventRoutes()
	h.registerICSRoutes()
	h.registerFreeBusyRoutes()
	h.registerAvailabilityRoutes()
	h.registerRoomRoutes()
	h.registerInvitationRoutes()
	h.registerBookingRoutes()
	h.registerCapabilityRoutes()
	h.registerTokenRoutes()
	h.registerWebhookRoutes()
	h.registerHealthRoutes(opts.Metrics)
	h.registerOpenAPIRoute()
	h.mux.HandleFunc("/", h.handleUnrouted)
	var routed http.Handler = h.mux
	if opts.Requests != nil {
		routed = (&requestMetrics{obs: opts.Requests}).instrument(h.mux)
	}
	// The request metrics sit right around the mux, which sets the route
	// pattern they label by; the front door's refusals happen outside.
	root := h.recoverer(h.frontDoor(h.preflight(routed)))
	h.registerMCPRoute(root)
	return h, root
}

// registerMCPRoute mounts the MCP server (package mcpserver), whose tools
// call api, this whole handler, in memory: each tool's call passes the
// front door and its checks of the caller's credential as a request from
// outside would.
func (h *handler) registerMCPRoute(api http.Handler) {
	h.mux.Handle("POST "+mcpPath, mcpserver.NewHandler(mcpserver.Config{Sender: mcpserver.InProcess(api), Logger: h.log}))
}

// mcpPath is the MCP endpoint's path.
const mcpPath = "/v1/mcp"

// handleUnrouted answers requests no route took: 405 with Allow when the
// path exists for other methods, else 404, both with the JSON error body.
func (h *handler) handleUnrouted(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, httpwire.UnroutedError(w, r, h.mux.ServeMux))
}

// statusCode returns the HTTP status and wire string of code, from the one
// table that pairs them.
func statusCode(code unical.Code) wirecode.Wire { return wirecode.Of(code) }

// writeError writes err as the JSON error body with its status. Internal
// and provider failures are logged with their cause; the body only ever
// carries the caller-safe message.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := httpwire.WriteError(w, r, h.log, h.timedOut(requestContext(w, r), err))
	h.mu.Lock()
	h.errorCount[code]++
	h.mu.Unlock()
}

// writeJSON writes v as a JSON answer with status, the most frequent
// answers encoded by hand (appendJSON).
func writeJSON(w http.ResponseWriter, status int, v any) {
	httpwire.WriteAppended(w, status, v, appendJSON)
}

// writeBody writes an encoded JSON answer.
func writeBody(w http.ResponseWriter, status int, body []byte) { httpwire.WriteBody(w, status, body) }

// writeBodyLength is writeBody with the Content-Length value given.
func writeBodyLength(w http.ResponseWriter, status int, body []byte, length []string) {
	httpwire.WriteBodyLength(w, status, body, length)
}

// decodeBody reads a JSON object into v (httpwire.DecodeJSON), refusing
// the readOnly fields.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, readOnly []string) error {
	return httpwire.DecodeJSON(w, r, v, readOnly)
}

// recoverer turns a panic into a 500 with no internals.
func (h *handler) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler { //nolint:errorlint // a panic value, re-raised as net/http expects
					panic(v)
				}
				h.log.ErrorContext(r.Context(), "panic", "method", r.Method, "path", r.URL.Path, "panic", v)
				h.writeError(w, r, unical.Errorf(unical.CodeInternal, "Internal error."))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// appHandler is a handler of an authenticated request.
type appHandler func(w http.ResponseWriter, r *http.Request, app *unical.App) error

// api authenticates the request by its x-api-key and runs fn; an error
// from fn is written with writeError. The key is checked, and its rate
// limit taken, from the headers alone: a refused request's body is never
// read (see refuse).
func (h *handler) api(fn appHandler) http.HandlerFunc {
	handle := fn
	// The query is checked as part of the request, so that an
	// Idempotency-Key reused with another query is the 422 it always is.
	fn = func(w http.ResponseWriter, r *http.Request, app *unical.App) error {
		if err := checkQuery(r); err != nil {
			return err
		}
		return handle(w, r, app)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		key := apiKey(r)
		var app *unical.App
		var err error
		// credential is what the request log keeps of the caller: an API
		// key's public prefix ("uk_<id>_") or a scoped token's id.
		limitKey, limitMessage, credential := "", "Too many requests with this API key.", ""
		if token, isToken := bearerToken(r); isToken && key == "" {
			// A scoped token (token.go): the same checks, then the
			// request goes on carrying its grant.
			var g *scopedtoken.Grant
			var withGrant *http.Request
			if withGrant, g, app, err = h.authenticateToken(w, r, token); err == nil {
				r, limitKey, limitMessage, credential = withGrant, g.ID, "Too many requests with this token.", g.ID
			}
		} else {
			app, err = h.client.AppByAPIKey(requestContext(w, r), key)
			limitKey = apiKeyID(key)
			if err == nil {
				credential = key[:len(unical.APIKeyPrefix)+len(limitKey)+1]
			}
		}
		if err != nil {
			h.refuse(w, r, err)
			return
		}
		if h.requests == nil {
			h.serveApp(w, r, app, limitKey, limitMessage, fn)
			return
		}
		x := logged(w)
		// A panic leaves this 500, the recoverer's answer; else serveApp
		// says 0 for the exchange's status.
		status := http.StatusInternalServerError
		defer func() { h.logRequest(x, r, app.ID(), credential, status) }()
		status = h.serveApp(x, r, app, limitKey, limitMessage, fn)
	}
}

// serveApp serves a request authenticated as app: the rate limit of its
// credential (limitKey, refused with limitMessage), its Idempotency-Key,
// then fn. It returns the status of a refusal
// it answered on a connection it took over (refuse), which the answer's
// writer does not see; 0 otherwise.
func (h *handler) serveApp(w http.ResponseWriter, r *http.Request, app *unical.App, limitKey, limitMessage string, fn appHandler) int {
	if h.keyLimit != nil {
		if ok, wait := h.keyLimit.allowTime(limitKey, requestStart(w)); !ok {
			h.refuse(w, r, rateLimited(wait, limitMessage))
			return http.StatusTooManyRequests
		}
	}
	if isWrite(r.Method) {
		if keys := r.Header[idempotencyHeader]; keys != nil {
			h.idempotent(w, r, app, keys, fn)
			return 0
		}
	}
	if err := fn(w, r, app); err != nil {
		h.writeError(w, r, err)
	}
	return 0
}

// apiKey returns the x-api-key header. It indexes the header map by the
// canonical name net/http stores it under, instead of Header.Get, which
// builds that name anew (an allocation) on every request.
func apiKey(r *http.Request) string {
	if v := r.Header["X-Api-Key"]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// ok writes a successful answer.
func ok(w http.ResponseWriter, v any) error {
	writeJSON(w, http.StatusOK, v)
	return nil
}
