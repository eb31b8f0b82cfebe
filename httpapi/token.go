package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

// The routes of scoped tokens (package scopedtoken): issuing and revoking
// take the API key; a token reads its own grant.
func (h *handler) registerTokenRoutes() {
	h.mux.HandleFunc("POST /v1/tokens", h.api(h.handleTokenCreate))
	h.mux.HandleFunc("GET /v1/tokens/current", h.api(h.handleTokenCurrent))
	h.mux.HandleFunc("DELETE /v1/tokens/{id}", h.api(h.handleTokenRevoke))
}

// handleTokenCreate handles POST /v1/tokens.
func (h *handler) handleTokenCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params scopedtoken.Params
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	issued, err := h.tokens.Issue(r.Context(), app, &params)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, issued)
	return nil
}

// handleTokenRevoke handles DELETE /v1/tokens/{id}.
func (h *handler) handleTokenRevoke(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	if err := h.tokens.Revoke(r.Context(), app, r.PathValue("id")); err != nil {
		return err
	}
	return ok(w, unical.Success{Success: true})
}

// handleTokenCurrent handles GET /v1/tokens/current: the calling token's
// grant, without its secret.
func (h *handler) handleTokenCurrent(w http.ResponseWriter, r *http.Request, _ *unical.App) error {
	g := grantOf(r)
	if g == nil {
		return &unical.Error{Code: unical.CodeUnauthorized, Field: "Authorization",
			Message: "This endpoint describes a scoped token: call it with Authorization: Bearer <token>."}
	}
	return ok(w, g.Current())
}

// bearerToken returns the scoped token of an Authorization: Bearer
// header, and whether there is one. Other bearer credentials (the
// inbound iMIP secret) are not scoped tokens and stay with their routes.
func bearerToken(r *http.Request) (string, bool) {
	v := r.Header["Authorization"]
	if len(v) == 0 {
		return "", false
	}
	scheme, token, ok := strings.Cut(v[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, strings.HasPrefix(token, scopedtoken.Prefix)
}

type grantKey struct{}

// grantOf returns the grant of a request made with a scoped token; nil
// for one made with the API key.
func grantOf(r *http.Request) *scopedtoken.Grant {
	g, _ := r.Context().Value(grantKey{}).(*scopedtoken.Grant)
	return g
}

// authenticateToken authenticates a request made with a scoped token: the
// grant must be live, the browser origin (if any) one it allows, and the
// route one it covers as far as the path tells. It sets the CORS headers
// of an allowed origin first, so that a browser can read a refusal too.
func (h *handler) authenticateToken(w http.ResponseWriter, r *http.Request, token string) (*http.Request, *scopedtoken.Grant, *unical.App, error) {
	g, app, err := h.tokens.Authenticate(requestContext(w, r), token)
	if err != nil {
		return nil, nil, nil, err
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if !g.AllowsOrigin(origin) {
			return nil, nil, nil, &unical.Error{Code: scopedtoken.CodeForbidden, Field: "Origin",
				Message: "This token is not allowed from the origin " + origin + "."}
		}
		setCORS(w.Header(), origin)
	}
	if err := allowToken(g, r); err != nil {
		return nil, nil, nil, err
	}
	return r.WithContext(context.WithValue(r.Context(), grantKey{}, g)), g, app, nil
}

// allowBooking checks, for a token, the booking a /v1/bookings/{id}
// route names (scopedtoken.Booking), for the scope of the route.
func (h *handler) allowBooking(r *http.Request, app *unical.App) error {
	if !strings.Contains(r.Pattern, " /v1/bookings/{id}") {
		return nil
	}
	return scopedtoken.Booking(r.Context(), grantOf(r), routeAccesses[r.Pattern].scope, h.bookings(app), r.PathValue("id"))
}

// CORS: a browser may call /v1 with a scoped token from the token's
// allowedOrigins. A preflight carries no token, so it is answered for any
// origin with the methods and the headers a token request uses, never
// x-api-key: a browser therefore never sends an API key cross-origin. The
// actual request is then refused (403 naming Origin) unless its token
// allows the origin, and only an allowed origin is named in
// Access-Control-Allow-Origin. A request with the API key never gets a
// CORS header.
const (
	corsMethods       = "GET, POST, PUT, DELETE"
	corsHeaders       = "Authorization, Content-Type, Idempotency-Key"
	corsExposeHeaders = "Retry-After, Idempotent-Replayed"
	corsMaxAge        = "600"
	// corsMCPHeaders are those an MCP client adds on POST /v1/mcp
	// (Streamable HTTP): the protocol version it negotiated and the
	// method and tool name it repeats from the body.
	corsMCPHeaders = ", Mcp-Protocol-Version, Mcp-Method, Mcp-Name"
)

// preflight answers CORS preflight requests (OPTIONS with Origin and
// Access-Control-Request-Method) under /v1/ with 204, and passes every
// other request on.
func (h *handler) preflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if r.Method != http.MethodOptions || origin == "" || r.Header.Get("Access-Control-Request-Method") == "" ||
			!strings.HasPrefix(r.URL.Path, "/v1/") {
			next.ServeHTTP(w, r)
			return
		}
		hdr := w.Header()
		setCORS(hdr, origin)
		hdr.Set("Access-Control-Allow-Methods", corsMethods)
		if r.URL.Path == mcpPath {
			hdr.Set("Access-Control-Allow-Headers", corsHeaders+corsMCPHeaders)
		} else {
			hdr.Set("Access-Control-Allow-Headers", corsHeaders)
		}
		hdr.Set("Access-Control-Max-Age", corsMaxAge)
		w.WriteHeader(http.StatusNoContent)
	})
}

// setCORS names origin as allowed, for a preflight or a token's allowed
// origin.
func setCORS(hdr http.Header, origin string) {
	hdr.Set("Access-Control-Allow-Origin", origin)
	hdr.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	hdr.Add("Vary", "Origin")
}
