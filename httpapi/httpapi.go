// Package httpapi serves the unical API as the /v1 REST interface of the
// Unified Calendar API specification. Every handler decodes the request,
// makes one call on the application's *unical.App, and encodes the answer;
// business rules live in package unical.
package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/strictjson"
	"github.com/unical/unical/internal/wirecode"
	"github.com/unical/unical/requestlog"
)

// MaxBodyBytes is the largest request body accepted: 1 MiB.
const MaxBodyBytes = 1 << 20

// Options configures NewHandler. The zero value is usable.
type Options struct {
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
	// requests is Options.RequestLog.
	requests *requestlog.Log
}

// NewHandler returns the /v1 API over client as an http.Handler that an
// embedding program can mount; it owns no listener.
func NewHandler(client *unical.Client, opts Options) http.Handler {
	_, root := newHandler(client, opts)
	return root
}

// newHandler is NewHandler that also returns the handler, whose mux tests
// read the mounted routes from.
func newHandler(client *unical.Client, opts Options) (*handler, http.Handler) {
	h := &handler{client: client, log: opts.Logger, mux: newRouteMux(), errorCount: map[unical.Code]int{}}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h.keyLimit = newLimiter(opts.KeyRateLimit, opts.LimiterSize, hashString)
	h.ipLimit = newLimiter(opts.IPRateLimit, opts.LimiterSize, hashAddr)
	h.trustForwardedFor, h.timeout = opts.TrustForwardedFor, opts.RequestTimeout
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
	return h, h.recoverer(h.frontDoor(routed))
}

// handleUnrouted answers requests no route took: 405 with Allow when the
// path exists for other methods, else 404, both with the JSON error body.
func (h *handler) handleUnrouted(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, UnroutedError(w, r, h.mux.ServeMux))
}

// UnroutedError is the error for a request mux has no route for: 405
// (setting Allow on w) when the path exists for other methods, else 404.
// Other handlers of the same server (the admin API) answer unrouted
// requests with it too, through WriteError.
func UnroutedError(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) error {
	var allowed []string
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		return &unical.Error{Code: codeMethodNotAllowed, Allowed: allowed,
			Message: fmt.Sprintf("%s is not allowed here; use %s.", r.Method, strings.Join(allowed, " or "))}
	}
	return unical.Errorf(unical.CodeNotFound, "No such endpoint: %s %s.", r.Method, r.URL.Path)
}

// codeMethodNotAllowed is sent for a path served under other methods.
const codeMethodNotAllowed = wirecode.MethodNotAllowed

// statusCode returns the HTTP status and wire string of code, from the one
// table that pairs them.
func statusCode(code unical.Code) wirecode.Wire { return wirecode.Of(code) }

// errorBody is the one JSON error shape.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Field   string   `json:"field,omitempty"`
	Allowed []string `json:"allowed,omitempty"`
}

// writeError writes err as the JSON error body with its status. Internal
// and provider failures are logged with their cause; the body only ever
// carries the caller-safe message.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := writeErrorBody(w, r, h.log, h.timedOut(requestContext(w, r), err))
	h.mu.Lock()
	h.errorCount[code]++
	h.mu.Unlock()
}

// WriteError writes err as the /v1 API does: the one JSON error body, with
// the status of the one table of codes, logging internal and provider
// failures with their cause to logger. It is for other handlers of the
// same server (the admin API), so that they answer errors alike.
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	writeErrorBody(w, r, logger, err)
}

// WriteJSON writes v as a JSON answer with status, as the /v1 API does.
func WriteJSON(w http.ResponseWriter, status int, v any) { writeJSON(w, status, v) }

// DecodeJSON reads a JSON request body into v as the /v1 API does: at
// most MaxBodyBytes, keys spelled exactly, no unknown field at any depth,
// no key twice, nothing after the object; each
// failure is an *unical.Error naming the field where there is one.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	return decodeBody(w, r, v, nil)
}

// writeErrorBody writes err and returns its code.
func writeErrorBody(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) unical.Code {
	code := unical.ErrorCode(err)
	wire := statusCode(code)
	detail := errorDetail{Code: wire.Code, Message: unical.ErrorMessage(err)}
	var e *unical.Error
	if errors.As(err, &e) {
		detail.Field, detail.Allowed = e.Field, e.Allowed
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+999_999_999)/1_000_000_000)))
		}
	}
	if code == unical.CodeRateLimited && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	switch code {
	case unical.CodeInternal, unical.CodeUpstream, unical.CodeUnavailable, unical.CodeStoreUnavailable, codeTimeout:
		logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "code", code, "err", err)
	}
	writeJSON(w, wire.Status, errorBody{Error: detail})
	return code
}

// writeJSON encodes v with status. The body is encoded into a pooled
// buffer first, so it goes out with a Content-Length in one write, and a
// value that fails to encode is a 500 rather than a status with no body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := jsonBuffers.Get().(*[]byte)
	body, err := appendJSON((*buf)[:0], v)
	if err != nil {
		status, body = http.StatusInternalServerError, append(body[:0], internalErrorBody...)
	}
	writeBody(w, status, body)
	if cap(body) <= maxPooledBuffer {
		*buf = body
		jsonBuffers.Put(buf)
	}
}

// writeBody writes an encoded JSON answer.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	writeBodyLength(w, status, body, []string{strconv.Itoa(len(body))})
}

// writeBodyLength is writeBody with the Content-Length value given, so
// that a kept answer keeps its length too (two allocations fewer).
func writeBodyLength(w http.ResponseWriter, status int, body []byte, length []string) {
	h := w.Header()
	// Shared, never-modified values save two allocations per answer.
	h["Content-Type"] = jsonContentType
	h["Cache-Control"] = noStore
	h["Content-Length"] = length
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

var (
	jsonContentType   = []string{"application/json; charset=utf-8"}
	noStore           = []string{"no-store"}
	internalErrorBody = `{"error":{"code":"internal","message":"Internal error."}}` + "\n"
)

// jsonBuffers holds answer buffers for reuse; buffers that grew past
// maxPooledBuffer (long event pages) are left to the garbage collector, so
// the pool stays small.
var jsonBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBuffer = 64 << 10

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
		app, err := h.client.AppByAPIKey(requestContext(w, r), key)
		if err != nil {
			h.refuse(w, r, err)
			return
		}
		if h.requests == nil {
			h.serveApp(w, r, app, key, fn)
			return
		}
		x := logged(w)
		// A panic leaves this 500, the recoverer's answer; else serveApp
		// says 0 for the exchange's status.
		status := http.StatusInternalServerError
		defer func() { h.logRequest(x, r, app.ID(), key, status) }()
		status = h.serveApp(x, r, app, key, fn)
	}
}

// serveApp serves a request authenticated as app with key: its rate
// limit, its Idempotency-Key, then fn. It returns the status of a refusal
// it answered on a connection it took over (refuse), which the answer's
// writer does not see; 0 otherwise.
func (h *handler) serveApp(w http.ResponseWriter, r *http.Request, app *unical.App, key string, fn appHandler) int {
	if h.keyLimit != nil {
		if ok, wait := h.keyLimit.allowTime(apiKeyID(key), requestStart(w)); !ok {
			h.refuse(w, r, rateLimited(wait, "Too many requests with this API key."))
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

// decodeBody reads a JSON object into v: at most MaxBodyBytes, keys spelled
// exactly, no unknown field at any depth, no key twice, none of readOnly,
// nothing after the object. Each failure is a 400 (413 for size) naming
// the field where there is one. An update passes no readOnly: the
// resource's read-only fields are then taken, so that a fetched resource
// can be sent back, and ignored by v's UnmarshalJSON.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, readOnly []string) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return unical.FieldError("Content-Type", "Send the body as application/json.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return unical.Errorf(unical.CodeTooLarge, "The request body is larger than 1 MiB.")
		}
		return unical.Errorf(unical.CodeInvalid, "The request body could not be read.")
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return unical.Errorf(unical.CodeInvalid, "A JSON request body is required.")
	}
	// encoding/json would turn invalid UTF-8 into U+FFFD without a word.
	if !utf8.Valid(body) {
		return invalidUTF8(body)
	}
	// One object and nothing after it: encoding/json refuses the rest.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return syntaxError(err)
	}
	for _, name := range readOnly {
		if _, ok := fields[name]; ok {
			return unical.FieldError(name, "%s is read-only.", name)
		}
	}
	if err := strictjson.Unmarshal(body, v); err != nil {
		return decodeError(err)
	}
	return nil
}

func syntaxError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return unical.Errorf(unical.CodeInvalid, "The request body is not valid JSON (at byte %d).", syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field == "" {
		return unical.Errorf(unical.CodeInvalid, "The request body must be a JSON object.")
	}
	return unical.Errorf(unical.CodeInvalid, "The request body is not valid JSON.")
}

// decodeError names the field of a decoding failure.
func decodeError(err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := typ.Field
		if field == "" {
			return unical.Errorf(unical.CodeInvalid, "The request body must be a JSON object.")
		}
		return unical.FieldError(field, "%s must be %s, not %s.", field, jsonType(typ.Type.Kind().String()), typ.Value)
	}
	var e *unical.Error
	if errors.As(err, &e) {
		return e
	}
	var key *strictjson.Error
	if errors.As(err, &key) {
		return unical.FieldError(key.Path, "%s", key.Error())
	}
	return syntaxError(err)
}

// jsonType names a Go kind as a JSON type.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "float64", "uint":
		return "a number"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return "another type"
}
