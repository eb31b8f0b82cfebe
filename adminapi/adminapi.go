// Package adminapi serves the operator's admin API under /admin/v1/:
// applications, their API keys, redirect URLs, provider settings and
// webhook, and their accounts, subscriptions and delivery logs. Every
// route but the OpenAPI document needs the operator token in
// "Authorization: Bearer <token>"; application API keys are refused.
// Errors are written by internal/adapter/httpwire, as /v1 writes them, so they
// have the /v1 body and statuses.
// Each handler makes one call on the operator's [admin.Service], acting
// as [admin.ActorAdminToken], so that the audit log names the admin API.
package adminapi

import (
	"context"
	_ "embed"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/adapter/httpwire"
)

// Prefix is where the admin API is mounted.
const Prefix = "/admin/v1/"

// OpenAPIDocument is the OpenAPI 3.1 description of every admin route,
// written by hand and kept true by the package's tests.
//
//go:embed openapi.json
var OpenAPIDocument []byte

// Config configures NewHandler. Service is required; the other fields'
// zero values are usable.
type Config struct {
	// Service is what the admin API serves: each route is one call of it,
	// made as the admin token's actor.
	Service *admin.Service
	// Logger receives error logs; default discards them. The token is
	// never logged.
	Logger *slog.Logger
	// RequestTimeout bounds each request (the provider check goes out to
	// the network); zero is none.
	RequestTimeout time.Duration
	// Failures counts refused tokens per client address: an address past
	// its limit is answered 429 with Retry-After, its token unchecked.
	// Nil is no limit; unicald shares one with the dashboard's login.
	Failures httpwire.FailureCounter
}

// handler serves the admin API over a Client.
type handler struct {
	svc      *admin.Service
	client   *unical.Client
	log      *slog.Logger
	mux      *http.ServeMux
	patterns []string
	timeout  time.Duration
	failures httpwire.FailureCounter
}

// NewHandler returns the admin API over cfg.Service, to be mounted at
// Prefix.
func NewHandler(cfg Config) http.Handler {
	return newHandler(cfg)
}

// MountedRoutes returns the patterns NewHandler mounts, for tests that
// compare them with the OpenAPI document.
func MountedRoutes() []string {
	return append([]string(nil), newHandler(Config{}).patterns...)
}

func newHandler(opts Config) *handler {
	svc := opts.Service
	h := &handler{log: opts.Logger, mux: http.NewServeMux(), timeout: opts.RequestTimeout, failures: httpwire.OrNoLimit(opts.Failures)}
	if svc != nil {
		h.svc, h.client = svc.As(admin.ActorAdminToken), svc.Client()
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h.routes()
	h.mux.HandleFunc("/", h.unrouted)
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

// handle registers an authenticated route.
func (h *handler) handle(pattern string, fn func(w http.ResponseWriter, r *http.Request) error) {
	h.patterns = append(h.patterns, pattern)
	h.mux.HandleFunc(pattern, h.authenticated(fn))
}

// authenticated checks the operator token before fn runs, from the
// headers alone: a refused request's body is never read. Only failures
// are throttled: an address with too many refused tokens is answered 429
// for every further wrong one, but the right token (compared in constant
// time) still works, so that nobody sharing the operator's address (a
// proxy's, say) can lock the operator out.
func (h *handler) authenticated(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.timeout > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
			defer cancel()
			r = r.WithContext(ctx)
		}
		if err := h.svc.VerifyAdminToken(r.Context(), bearerToken(r)); err != nil {
			if wait := h.failures.Wait(r); wait > 0 && unical.ErrorCode(err) == unical.CodeUnauthorized {
				httpwire.WriteError(w, r, h.log, httpwire.TooManyFailures(wait))
				return
			}
			if unical.ErrorCode(err) == unical.CodeUnauthorized {
				h.failures.Fail(r)
				if bearerToken(r) == "" && r.Header.Get("x-api-key") != "" {
					err = &unical.Error{Code: unical.CodeUnauthorized, Field: "Authorization", Message: "Application API keys (x-api-key) do not work on admin routes; send the operator token as Authorization: Bearer <admin token>."}
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="unical admin"`)
			}
			httpwire.WriteError(w, r, h.log, err)
			return
		}
		if err := httpwire.CheckQuery(r, queryParams[r.Pattern]); err != nil {
			httpwire.WriteError(w, r, h.log, err)
			return
		}
		if err := fn(w, r); err != nil {
			httpwire.WriteError(w, r, h.log, err)
		}
	}
}

// queryParams lists the query parameters each admin route takes, by its
// pattern; a route not listed takes none, and any other parameter is a
// 400 naming it, as on /v1. TestOpenAPIQueryParameters holds
// adminapi/openapi.json to this table.
var queryParams = map[string][]string{
	"DELETE /admin/v1/applications/{appId}":                                        {"cascade"},
	"DELETE /admin/v1/applications/{appId}/redirectUrls":                           {"url"},
	"GET /admin/v1/applications/{appId}/webhook/deliveries":                        {"pageToken", "limit"},
	"GET /admin/v1/applications/{appId}/accounts":                                  {"search", "statusFilter", "pageToken", "limit"},
	"GET /admin/v1/applications/{appId}/subscriptions":                             {"pageToken", "limit"},
	"GET /admin/v1/applications/{appId}/subscriptions/{subscriptionId}/deliveries": {"pageToken", "limit"},
	"GET /admin/v1/audit":                                                          {"pageToken", "limit"},
	"GET /admin/v1/applications/{appId}/audit":                                     {"pageToken", "limit"},
	"GET /admin/v1/applications/{appId}/requests":                                  {"failed"},
}

// bearerToken returns the token of "Authorization: Bearer <token>", or "".
func bearerToken(r *http.Request) string {
	v := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// unrouted answers what no route took: 405 with Allow when the path
// exists for other methods, else 404, both with the error body.
func (h *handler) unrouted(w http.ResponseWriter, r *http.Request) {
	httpwire.WriteError(w, r, h.log, httpwire.UnroutedError(w, r, h.mux))
}

// ok writes a 200 JSON answer.
func ok(w http.ResponseWriter, v any) error {
	httpwire.WriteJSON(w, http.StatusOK, v)
	return nil
}

// list is the envelope of the admin lists that are not paged.
type list[T any] struct {
	Data []T `json:"data"`
}

// provider reads the {provider} path segment (provider_a, provider_b,
// provider_c); package admin says whether the type takes settings.
func provider(r *http.Request) (unical.ProviderType, error) {
	t, found := unical.ParseProviderPath(r.PathValue("provider"))
	if !found {
		return "", unical.FieldError("provider", "provider must be the path name of a provider type, such as provider_a.")
	}
	return t, nil
}

// pageParams reads pageToken and limit.
func pageParams(r *http.Request) (token string, limit int, err error) {
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, convErr := strconv.Atoi(v)
		if convErr != nil {
			return "", 0, unical.FieldError("limit", "limit must be a whole number.")
		}
		limit = n
	}
	return q.Get("pageToken"), limit, nil
}

// boolParam reads an optional true/false query parameter.
func boolParam(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, &unical.Error{Code: unical.CodeInvalid, Field: name, Allowed: []string{"true", "false"}, Message: name + " must be true or false."}
}
