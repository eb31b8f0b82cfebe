package graphtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// scope is what a route needs from the access token.
type scope int

const (
	scopeAny       scope = iota
	scopeUserRead        // User.Read
	scopeCalRead         // Calendars.Read or Calendars.ReadWrite
	scopeCalWrite        // Calendars.ReadWrite
	scopePlaceRead       // Place.Read.All
)

// call is one authenticated Graph request, handled under s.mu.
type call struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	user *user
	tok  *accessToken
	out  zone // output zone from Prefer: outlook.timezone
	pref map[string]string
	now  time.Time
	// sends are the notifications the request caused; the route wrapper
	// dispatches them after releasing s.mu.
	sends []*outbound
}

func (s *Server) graphRoutes() {
	r := func(pattern string, sc scope, fn func(*call)) {
		s.graph.Handle(pattern, s.route(sc, fn))
	}
	r("GET /v1.0/me", scopeUserRead, (*call).getMe)

	r("GET /v1.0/me/calendars", scopeCalRead, (*call).listCalendars)
	r("POST /v1.0/me/calendars", scopeCalWrite, (*call).createCalendar)
	r("GET /v1.0/me/calendar", scopeCalRead, (*call).getCalendar)
	r("GET /v1.0/me/calendars/{cid}", scopeCalRead, (*call).getCalendar)
	r("PATCH /v1.0/me/calendars/{cid}", scopeCalWrite, (*call).updateCalendar)
	r("PATCH /v1.0/me/calendar", scopeCalWrite, (*call).updateCalendar) // api/calendar-update.md
	r("DELETE /v1.0/me/calendars/{cid}", scopeCalWrite, (*call).deleteCalendar)

	for _, base := range []string{"/v1.0/me", "/v1.0/me/calendar", "/v1.0/me/calendars/{cid}"} {
		r("GET "+base+"/events", scopeCalRead, (*call).listEvents)
		r("POST "+base+"/events", scopeCalWrite, (*call).createEvent)
		r("GET "+base+"/events/{eid}", scopeCalRead, (*call).getEvent)
		r("PATCH "+base+"/events/{eid}", scopeCalWrite, (*call).updateEvent)
		r("DELETE "+base+"/events/{eid}", scopeCalWrite, (*call).deleteEvent)
		r("POST "+base+"/events/{eid}/{action}", scopeCalWrite, (*call).eventAction)
		r("GET "+base+"/events/{eid}/instances", scopeCalRead, (*call).listInstances)
		r("GET "+base+"/calendarView", scopeCalRead, (*call).calendarView)
	}
	// v1.0 documents calendarView/delta for the primary calendar only
	// (api/event-delta.md); the per-calendar form is served too and stays
	// UNVERIFIED for v1.0 (see delta.go for what was searched).
	r("GET /v1.0/me/calendarView/delta", scopeCalRead, (*call).delta)
	r("GET /v1.0/me/calendar/calendarView/delta", scopeCalRead, (*call).delta)
	r("GET /v1.0/me/calendars/{cid}/calendarView/delta", scopeCalRead, (*call).delta)
	r("POST /v1.0/me/calendar/getSchedule", scopeCalRead, (*call).getSchedule)

	r("GET /v1.0/places/microsoft.graph.room", scopePlaceRead, (*call).listRooms)

	r("GET /v1.0/subscriptions", scopeAny, (*call).listSubscriptions)
	r("GET /v1.0/subscriptions/{sid}", scopeAny, (*call).getSubscription)
	r("PATCH /v1.0/subscriptions/{sid}", scopeAny, (*call).updateSubscription)
	r("DELETE /v1.0/subscriptions/{sid}", scopeAny, (*call).deleteSubscription)
	r("POST /v1.0/subscriptions/{sid}/reauthorize", scopeAny, (*call).reauthorizeSubscription)
	// Creating a subscription calls out to the notification URL, which may
	// call back in, so it manages s.mu itself.
	s.graph.HandleFunc("POST /v1.0/subscriptions", s.handleCreateSubscription)

	s.graph.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeGraphError(w, r, s.now(), http.StatusBadRequest, "BadRequest", "Resource not found for the segment '%s' (graphtest has no route for %s %s).", lastSegment(r.URL.Path), r.Method, r.URL.Path)
	})
}

// appUserKey is the context key of the user an app-only request acts on.
type appUserKey struct{}

// userNamed finds a user by id, userPrincipalName or mail.
func (s *Server) userNamed(who string) *user {
	for _, u := range s.users {
		if strings.EqualFold(who, u.ID) || strings.EqualFold(who, u.UserPrincipalName) || strings.EqualFold(who, u.Mail) {
			return u
		}
	}
	return nil
}

func lastSegment(p string) string {
	return p[strings.LastIndex(p, "/")+1:]
}

// handleGraph authenticates a /v1.0 request, maps /users/{id|upn}/ to /me/
// for the signed-in user and routes it.
//
// An app-only token (client credentials) has no signed-in user: it works
// only under /users/{id|upn}/, on any user of the tenant, and the mapped
// request carries that user in its context.
func (s *Server) handleGraph(w http.ResponseWriter, r *http.Request) {
	rest, underUsers := strings.CutPrefix(r.URL.Path, "/v1.0/users/")
	s.mu.Lock()
	var (
		usr *user
		ok  bool
	)
	raw, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if at := s.access[raw]; underUsers && at != nil && at.userID == "" {
		// The user comes from the path; route checks the token again,
		// expiry included.
		ok = true
	} else {
		_, usr, ok = s.authenticate(w, r)
	}
	if ok && usr == nil && underUsers {
		who, _, _ := strings.Cut(rest, "/")
		who, _ = url.PathUnescape(who)
		usr = s.userNamed(who)
		if usr == nil {
			// UNVERIFIED: the answer quoted for a mailbox that does not
			// exist in the tenant; no reference page lists it.
			writeGraphError(w, r, s.now(), http.StatusNotFound, "ErrorInvalidUser", "The requested user '%s' is invalid.", who)
			ok = false
		}
	}
	s.mu.Unlock()
	if !ok {
		return
	}
	if underUsers {
		who, tail, _ := strings.Cut(rest, "/")
		who, _ = url.PathUnescape(who)
		if !strings.EqualFold(who, usr.ID) && !strings.EqualFold(who, usr.UserPrincipalName) && !strings.EqualFold(who, usr.Mail) {
			writeGraphError(w, r, s.now(), http.StatusForbidden, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
			return
		}
		r2 := r.Clone(context.WithValue(r.Context(), appUserKey{}, usr.ID))
		r2.URL.Path = "/v1.0/me"
		if tail != "" {
			r2.URL.Path += "/" + tail
		}
		r2.URL.RawPath = ""
		r = r2
	}
	s.graph.ServeHTTP(w, r)
}

// authenticate checks the bearer token. Graph rejects a missing, unknown or
// expired token with 401 and code InvalidAuthenticationToken. No reference
// page lists the code; the spelling (and "Access token is empty.") is
// corroborated by real error output quoted in many public projects.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*accessToken, *user, bool) {
	h := r.Header.Get("Authorization")
	raw, ok := strings.CutPrefix(h, "Bearer ")
	deny := func(msg string) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="", authorization_uri="`+s.AuthURL()+`", client_id="00000003-0000-0000-c000-000000000000"`)
		writeGraphError(w, r, s.now(), http.StatusUnauthorized, "InvalidAuthenticationToken", "%s", msg)
	}
	if !ok || raw == "" {
		deny("Access token is empty.")
		return nil, nil, false
	}
	tok, ok := s.access[raw]
	if !ok {
		deny("IDX14100: JWT is not well formed, there are no dots (.).")
		return nil, nil, false
	}
	if !s.now().Before(tok.expires) {
		deny("Lifetime validation failed, the token is expired.")
		return nil, nil, false
	}
	userID := tok.userID
	if userID == "" {
		// An app-only token: the user is the one handleGraph mapped
		// /users/{id} to. The message is Graph's, widely quoted.
		userID, _ = r.Context().Value(appUserKey{}).(string)
		if userID == "" && strings.HasPrefix(r.URL.Path, "/v1.0/places/") {
			// The tenant's places belong to no user.
			return tok, nil, true
		}
		if userID == "" && (r.URL.Path == "/v1.0/subscriptions" || strings.HasPrefix(r.URL.Path, "/v1.0/subscriptions/")) {
			// An application's subscriptions are its own, not a user's:
			// it creates them on users/{id}/events and manages them by
			// id (subscription-post-subscriptions.md lists application
			// permissions for event resources).
			return tok, nil, true
		}
		if userID == "" {
			writeGraphError(w, r, s.now(), http.StatusBadRequest, "BadRequest", "/me request is only valid with delegated authentication flow.")
			return nil, nil, false
		}
	}
	usr, ok := s.users[userID]
	if !ok {
		deny("The user of the token no longer exists.")
		return nil, nil, false
	}
	return tok, usr, true
}

// route wraps a handler: it authenticates again under the lock (the token
// may have changed since handleGraph), checks scopes, parses Prefer, runs fn
// and dispatches the notifications fn queued.
func (s *Server) route(sc scope, fn func(*call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		tok, usr, ok := s.authenticate(w, r)
		if !ok {
			s.mu.Unlock()
			return
		}
		c := &call{s: s, w: w, r: r, user: usr, tok: tok, now: s.now(), pref: parsePrefer(r.Header)}
		if !c.allowed(sc) {
			s.mu.Unlock()
			c.fail(http.StatusForbidden, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
			return
		}
		c.out = outputZone(c.pref["outlook.timezone"])
		fn(c)
		sends := c.sends
		s.mu.Unlock()
		s.dispatch(sends)
	})
}

func (c *call) allowed(sc scope) bool {
	switch sc {
	case scopeUserRead:
		return hasScope(c.tok.scopes, "User.Read") || hasScope(c.tok.scopes, "User.ReadBasic.All") || hasScope(c.tok.scopes, "User.Read.All")
	case scopeCalRead:
		return hasScope(c.tok.scopes, "Calendars.Read") || hasScope(c.tok.scopes, "Calendars.ReadWrite")
	case scopeCalWrite:
		return hasScope(c.tok.scopes, "Calendars.ReadWrite")
	case scopePlaceRead:
		return hasScope(c.tok.scopes, "Place.Read.All") || hasScope(c.tok.scopes, "Place.ReadWrite.All")
	}
	return true
}

// fail writes a Graph error.
func (c *call) fail(status int, code, format string, args ...any) {
	writeGraphError(c.w, c.r, c.now, status, code, format, args...)
}

// reply writes a JSON body; the Preference-Applied header reports the
// honoured Prefer values.
func (c *call) reply(status int, v any) {
	var applied []string
	if tz := c.pref["outlook.timezone"]; tz != "" && c.out.name == tz {
		applied = append(applied, `outlook.timezone="`+tz+`"`)
	}
	if mp := c.pref["odata.maxpagesize"]; mp != "" {
		applied = append(applied, "odata.maxpagesize="+mp)
	}
	if len(applied) > 0 {
		c.w.Header().Set("Preference-Applied", strings.Join(applied, ","))
	}
	writeJSON(c.w, c.r, status, v)
}

// noContent writes an empty response with status (204 or 202).
func (c *call) noContent(status int) {
	setRequestIDs(c.w, c.r)
	c.w.WriteHeader(status)
}

// decodeBody reads a JSON object body into a map of raw values.
func (c *call) decodeBody() (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(http.MaxBytesReader(c.w, c.r.Body, 4<<20))
	if err := dec.Decode(&m); err != nil || m == nil {
		c.fail(http.StatusBadRequest, "RequestBodyRead", "Cannot read the request body as a JSON object: %v", err)
		return nil, false
	}
	return m, true
}

// context returns an absolute @odata.context URL for a metadata fragment.
func (c *call) context(fragment string) string {
	return c.s.URL + "/v1.0/$metadata#" + fragment
}

// parsePrefer returns the Prefer header preferences, lower-case keys mapped
// to unquoted values: Prefer: outlook.timezone="Pacific Standard Time",
// odata.maxpagesize=2.
func parsePrefer(h http.Header) map[string]string {
	out := make(map[string]string)
	for _, line := range h.Values("Prefer") {
		for _, part := range strings.Split(line, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			k = strings.ToLower(strings.TrimSpace(k))
			if k == "" {
				continue
			}
			out[k] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return out
}

// page returns the slice bounds and the next $skip for a collection of n
// items, from $top (1..1000), Prefer: odata.maxpagesize and $skip.
func (c *call) page(n int) (lo, hi int, next int, ok bool) {
	q := c.r.URL.Query()
	size := c.s.opts.PageSize
	if mp, err := strconv.Atoi(c.pref["odata.maxpagesize"]); err == nil && mp > 0 {
		size = mp
	}
	if t := q.Get("$top"); t != "" {
		top, err := strconv.Atoi(t)
		if err != nil || top < 1 || top > 1000 {
			c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "The value '%s' of parameter '$top' is invalid; it must be between 1 and 1000.", t)
			return 0, 0, 0, false
		}
		size = top
	}
	skip := 0
	if sk := q.Get("$skip"); sk != "" {
		v, err := strconv.Atoi(sk)
		if err != nil || v < 0 {
			c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "The value '%s' of parameter '$skip' is invalid.", sk)
			return 0, 0, 0, false
		}
		skip = v
	}
	lo, hi = min(skip, n), min(skip+size, n)
	if hi < n {
		next = hi
	} else {
		next = -1
	}
	return lo, hi, next, true
}

// nextLink returns the request URL with $skip set, as an absolute URL.
// calendar-list-calendarview.md only says a result spanning pages "returns
// an @odata.nextLink property ... that contains a URL to the next page";
// what that URL carries ($skip here, a $skiptoken elsewhere in Graph) is
// UNVERIFIED for event lists, so clients must follow it verbatim.
func (c *call) nextLink(skip int) string {
	q := c.r.URL.Query()
	q.Set("$skip", strconv.Itoa(skip))
	return c.s.URL + c.r.URL.Path + "?" + encodeQuery(q)
}

// encodeQuery encodes q and keeps the OData "$" unescaped, as Graph's links
// do ($skip, $skiptoken, $deltatoken).
func encodeQuery(q url.Values) string {
	return strings.ReplaceAll(q.Encode(), "%24", "$")
}

// collection writes {"@odata.context", "value", "@odata.nextLink"}.
func (c *call) collection(ctx string, items []any, next int) {
	body := map[string]any{"@odata.context": c.context(ctx), "value": items}
	if next >= 0 {
		body["@odata.nextLink"] = c.nextLink(next)
	}
	c.reply(http.StatusOK, body)
}

// getMe handles GET /me.
func (c *call) getMe() {
	u := c.user
	c.reply(http.StatusOK, map[string]any{
		"@odata.context":    c.context("users/$entity"),
		"id":                u.ID,
		"displayName":       u.DisplayName,
		"mail":              u.Mail,
		"userPrincipalName": u.UserPrincipalName,
		"businessPhones":    []string{},
		"givenName":         nil,
		"surname":           nil,
		"jobTitle":          nil,
		"mobilePhone":       nil,
		"officeLocation":    nil,
		"preferredLanguage": nil,
	})
}

// checkQuery refuses query options a route does not support, so that a
// client relying on them notices.
func (c *call) checkQuery(allowed ...string) bool {
	for k := range c.r.URL.Query() {
		if !strings.HasPrefix(k, "$") {
			continue
		}
		ok := false
		for _, a := range allowed {
			if strings.EqualFold(k, a) {
				ok = true
			}
		}
		if !ok {
			c.fail(http.StatusBadRequest, "BadRequest", "graphtest: query option '%s' is not supported on %s.", k, c.r.URL.Path)
			return false
		}
	}
	return true
}

func quoteETag(changeKey string) string { return fmt.Sprintf(`W/"%s"`, changeKey) }
