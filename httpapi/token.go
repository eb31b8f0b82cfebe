package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
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

// allowUses returns nil for a request made with the API key, or with a
// scoped token that covers every use; else the 403 of the first it does
// not cover. Handlers call it for the resources a request names in its
// body or query (routes marked inBody).
func allowUses(r *http.Request, uses ...scopedtoken.Use) error {
	g := grantOf(r)
	if g == nil {
		return nil
	}
	for _, u := range uses {
		if err := g.Allow(u); err != nil {
			return err
		}
	}
	return nil
}

// allowCalendars checks, for a token, that the calendars a request names
// for account are covered, at field; when the token narrows the
// account's calendars, the request must name them (the default calendars
// the API would otherwise pick may lie outside the token).
func allowCalendars(r *http.Request, scope scopedtoken.Scope, field, account string, calendars []string) error {
	g := grantOf(r)
	if g == nil {
		return nil
	}
	if err := g.Allow(scopedtoken.Use{Scope: scope, AccountID: account}); err != nil {
		return err
	}
	if _, narrowed := g.Calendars[account]; narrowed && len(calendars) == 0 {
		return &unical.Error{Code: scopedtoken.CodeForbidden, Field: field,
			Message: "This token covers some calendars of the account " + account + " only: name them in " + field + "."}
	}
	for _, c := range calendars {
		if err := g.Allow(scopedtoken.Use{Scope: scope, AccountID: account, CalendarID: c}); err != nil {
			return &unical.Error{Code: scopedtoken.CodeForbidden, Field: field, Message: unical.ErrorMessage(err)}
		}
	}
	return nil
}

// allowAvailability checks the participants of POST /v1/availability.
func allowAvailability(r *http.Request, p *availability.Params) error {
	for i, part := range p.Participants {
		if err := allowCalendars(r, scopedtoken.FreeBusyRead, "participants["+strconv.Itoa(i)+"].calendarIds", part.EndUserAccountID, part.CalendarIDs); err != nil {
			return err
		}
	}
	return nil
}

// allowBookingParams checks the booking type a booking write names in
// its body: a hold's or a booking's.
func allowBookingParams(r *http.Request, params any) error {
	switch p := params.(type) {
	case *booking.HoldParams:
		return allowUses(r, scopedtoken.Use{Scope: scopedtoken.HoldsWrite, BookingType: p.BookingTypeID})
	case *booking.BookingParams:
		return allowUses(r, scopedtoken.Use{Scope: scopedtoken.BookingsWrite, BookingType: p.BookingTypeID})
	}
	return nil
}

// allowBooking checks, for a token, the booking a /v1/bookings/{id}
// route names: it must be of a booking type the token covers. A booking
// that does not exist is refused the same way, so that the answer tells
// nothing of bookings outside the token.
func (h *handler) allowBooking(ctx context.Context, r *http.Request, app *unical.App, id string) error {
	g := grantOf(r)
	if g == nil || !strings.Contains(r.Pattern, " /v1/bookings/{id}") {
		return nil
	}
	refused := &unical.Error{Code: scopedtoken.CodeForbidden, Field: "id", Message: "This token does not cover the booking " + id + "."}
	b, err := h.bookings(app).GetBooking(ctx, id)
	switch {
	case unical.ErrorCode(err) == unical.CodeNotFound:
		return refused
	case err != nil:
		return err
	}
	if g.Allow(scopedtoken.Use{Scope: routeAccesses[r.Pattern].scope, BookingType: b.BookingTypeID}) != nil {
		return refused
	}
	return nil
}

// allowBookingList checks the bookingTypeId of GET /v1/bookings: a token
// lists the bookings of one booking type it covers.
func allowBookingList(r *http.Request, bookingTypeID string) error {
	if g := grantOf(r); g != nil && bookingTypeID == "" {
		return &unical.Error{Code: scopedtoken.CodeForbidden, Field: "bookingTypeId",
			Message: "A scoped token lists the bookings of one booking type: give bookingTypeId."}
	}
	return allowUses(r, scopedtoken.Use{Scope: scopedtoken.BookingsRead, BookingType: bookingTypeID})
}

// coveredCalendars keeps, for a token that narrows account's calendars,
// those it covers.
func coveredCalendars(r *http.Request, account string, cals []*unical.Calendar) []*unical.Calendar {
	g := grantOf(r)
	if g == nil {
		return cals
	}
	allowed, narrowed := g.Calendars[account]
	if !narrowed {
		return cals
	}
	return slices.DeleteFunc(cals, func(c *unical.Calendar) bool { return !slices.Contains(allowed, c.ID) })
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
		hdr.Set("Access-Control-Allow-Headers", corsHeaders)
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
