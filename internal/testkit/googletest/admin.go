package googletest

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// User is a Google account in the fake. AddUser gives it a primary
// calendar whose id is its email.
type User struct {
	// Email is the account's address and its primary calendar's id.
	Email string
	// Sub is the stable OpenID subject; default: derived from Email.
	Sub string
	// Name is the display name; optional.
	Name string
	// TimeZone is the primary calendar's IANA zone; default "UTC".
	TimeZone string
	// EmailUnverified makes userinfo and ID tokens say email_verified
	// false: Google never confirmed the address belongs to the account
	// (the OpenID Connect guide's email_verified; an address may then be
	// another account's too). Such a user may share its Email with another
	// user; of the two, the one added second has its Sub as its primary
	// calendar's id, since the fake keeps calendars by id.
	EmailUnverified bool
}

// Client is a registered OAuth client.
type Client struct {
	// ID is the client_id.
	ID string
	// Secret is the client_secret.
	Secret string
	// RedirectURIs are the registered redirect URIs, matched exactly.
	RedirectURIs []string
}

// Consent is what the simulated user does at Google's consent screen.
type Consent struct {
	// Deny makes the authorization endpoint redirect with
	// error=access_denied, as when the user cancels.
	Deny bool
	// Email selects the account that signs in. Default: the login_hint
	// user if known, else the first user added.
	Email string
	// Sub selects the account that signs in by its subject, before Email
	// (two accounts may claim one unverified address).
	Sub string
	// GrantedScopes, when non-nil, limits the grant to these of the
	// requested scopes, like a user unticking boxes (granular consent).
	GrantedScopes []string
}

// Calendar seeds a secondary calendar with [Server.AddCalendar].
type Calendar struct {
	// ID is the calendar id; default: a generated
	// "c_…@group.calendar.google.com".
	ID string
	// Summary is the calendar's title; default "Calendar".
	Summary     string
	Description string
	Location    string
	// TimeZone is an IANA zone; default: the owner's zone.
	TimeZone string
	// ConferenceSolutionTypes is conferenceProperties.
	// allowedConferenceSolutionTypes; default ["hangoutsMeet"].
	ConferenceSolutionTypes []string
	// BackgroundColor is the owner's calendarList colour, e.g. "#9fe1e7".
	BackgroundColor string
}

// Fault makes the next Times requests matching Method and PathPrefix fail or
// wait, before any other processing. Faults on /calendar/ paths answer with
// Google's API error body; others with an OAuth error body.
type Fault struct {
	// Method matches the HTTP method; empty matches any.
	Method string
	// PathPrefix matches the start of the URL path, e.g.
	// "/calendar/v3/calendars/" or "/token"; empty matches every path.
	PathPrefix string
	// Times is how many matching requests the fault applies to; at least 1.
	Times int
	// Status is the HTTP status to answer, e.g. 403, 429, 500, 503. Zero
	// with a Delay only delays the request.
	Status int
	// Reason is errors[].reason; default from Status: rateLimitExceeded
	// for 403/429, backendError for 5xx. Use userRateLimitExceeded or
	// quotaExceeded for the other documented 403s.
	Reason string
	// RetryAfter, if set, is sent as the Retry-After header.
	RetryAfter string
	// Delay holds the request this long before answering (bounded by the
	// request's context and server shutdown).
	Delay time.Duration
}

func (s *Server) fatalf(format string, args ...any) {
	s.tb.Helper()
	s.tb.Fatalf("googletest: "+format, args...)
}

// AddUser registers an account and creates its primary calendar. It
// returns the user's sub.
func (s *Server) AddUser(u User) string {
	s.tb.Helper()
	if u.Email == "" {
		s.fatalf("AddUser: Email is required")
	}
	if u.Sub == "" {
		u.Sub = subFor(u.Email)
	}
	if u.TimeZone == "" {
		u.TimeZone = "UTC"
	}
	if _, ok := loadZone(u.TimeZone); !ok {
		s.fatalf("AddUser: unknown time zone %q", u.TimeZone)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	primary := u.Email
	if other := s.userByEmailLocked(u.Email); s.st.users[u.Sub] != nil || (other != nil && !u.EmailUnverified && !other.emailUnverified) {
		s.fatalf("AddUser: user %s already exists", u.Email)
	} else if other != nil {
		primary = u.Sub
	}
	usr := &user{
		sub: u.Sub, email: u.Email, name: u.Name, timeZone: u.TimeZone, emailUnverified: u.EmailUnverified,
		order: len(s.st.users), primary: primary, entries: map[string]*listEntry{},
	}
	s.st.users[u.Sub] = usr
	summary := u.Email
	s.newCalendarLocked(usr, &calendar{id: primary, summary: summary, timeZone: u.TimeZone, primary: true})
	return u.Sub
}

// subFor derives a numeric subject from an email, so the same email gets
// the same sub in every run.
func subFor(email string) string {
	var h uint64 = 1469598103934665603 // FNV-1a
	for _, b := range []byte(strings.ToLower(email)) {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return fmt.Sprintf("1%019d", h%1e19)
}

// AddClient registers an OAuth client.
func (s *Server) AddClient(c Client) {
	s.tb.Helper()
	if c.ID == "" {
		s.fatalf("AddClient: ID is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cc := c
	cc.RedirectURIs = append([]string(nil), c.RedirectURIs...)
	s.st.clients[c.ID] = &cc
}

// SetConsent sets what the simulated user does on later authorization
// requests.
func (s *Server) SetConsent(c Consent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.consent = c
}

// defaultScopes are granted by IssueRefreshToken and IssueAccessToken when
// the test names none.
var defaultScopes = []string{scopeCal, scopeOpenID, scopeEmail}

// userAndClient finds the user by email, or by sub (for a user whose
// unverified address another user has too), and the client.
func (s *Server) userAndClient(clientID, email string) (*user, *Client) {
	s.tb.Helper()
	u := s.st.users[email]
	if u == nil {
		u = s.userByEmailLocked(email)
	}
	if u == nil {
		s.fatalf("unknown user %s", email)
	}
	cl := s.st.clients[clientID]
	if cl == nil {
		s.fatalf("unknown client %s", clientID)
	}
	return u, cl
}

func normalizeScopes(scopes []string) []string {
	if len(scopes) == 0 {
		return append([]string(nil), defaultScopes...)
	}
	out := make([]string, len(scopes))
	for i, sc := range scopes {
		out[i] = normalizeScope(sc)
	}
	return out
}

// IssueRefreshToken grants client access to the user's account (named by
// email or sub) without the browser flow and returns the refresh token,
// as if the user had consented earlier. With no scopes it grants
// calendar, openid and email.
func (s *Server) IssueRefreshToken(clientID, email string, scopes ...string) string {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	u, cl := s.userAndClient(clientID, email)
	return s.newGrantLocked(cl.ID, u.sub, normalizeScopes(scopes)).refreshToken
}

// IssueAccessToken returns a bearer token for the user, valid for
// Options.AccessTokenTTL from now and not backed by a refresh token.
func (s *Server) IssueAccessToken(clientID, email string, scopes ...string) string {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	u, cl := s.userAndClient(clientID, email)
	return s.issueAccessLocked(cl.ID, u.sub, normalizeScopes(scopes), nil).token
}

// RevokeRefreshToken revokes a refresh token and every access token issued
// from it, as when the user removes the app's access. Later refreshes get
// invalid_grant; API calls with its access tokens get 401.
func (s *Server) RevokeRefreshToken(refreshToken string) {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.st.refresh[refreshToken]
	if g == nil {
		s.fatalf("RevokeRefreshToken: unknown refresh token")
	}
	g.revoked = true
}

// RevokeRequests returns the tokens of the revocation requests that
// reached the revocation endpoint, in order; requests a [Fault] failed
// or held are not among them.
func (s *Server) RevokeRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.revokeTokens)
}

// RevokeAccess revokes every grant the user gave the client, including
// access tokens issued directly with IssueAccessToken.
func (s *Server) RevokeAccess(clientID, email string) {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	u, cl := s.userAndClient(clientID, email)
	for _, g := range s.st.grants {
		if g.clientID == cl.ID && g.sub == u.sub {
			g.revoked = true
		}
	}
	for tok, at := range s.st.access {
		if at.clientID == cl.ID && at.sub == u.sub {
			delete(s.st.access, tok)
		}
	}
}

// GrantedScopes returns the scopes of an access token, sorted; nil if the
// token is unknown.
func (s *Server) GrantedScopes(accessToken string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.st.access[accessToken]
	if at == nil {
		return nil
	}
	return sortedScopes(at.scopes)
}

// AddCalendar creates a secondary calendar owned by the user and returns
// its id.
func (s *Server) AddCalendar(ownerEmail string, c Calendar) string {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.userByEmailLocked(ownerEmail)
	if u == nil {
		s.fatalf("AddCalendar: unknown user %s", ownerEmail)
	}
	if c.ID == "" {
		c.ID = "c_" + randomID(26, base32hex) + "@group.calendar.google.com"
	}
	if s.st.calendar[c.ID] != nil {
		s.fatalf("AddCalendar: calendar %s already exists", c.ID)
	}
	if c.Summary == "" {
		c.Summary = "Calendar"
	}
	if c.TimeZone != "" {
		if _, ok := loadZone(c.TimeZone); !ok {
			s.fatalf("AddCalendar: unknown time zone %q", c.TimeZone)
		}
	}
	cal := s.newCalendarLocked(u, &calendar{
		id: c.ID, summary: c.Summary, description: c.Description, location: c.Location,
		timeZone: c.TimeZone, solutionTypes: append([]string(nil), c.ConferenceSolutionTypes...),
	})
	if len(c.ConferenceSolutionTypes) == 0 {
		cal.solutionTypes = []string{"hangoutsMeet"}
	}
	if c.BackgroundColor != "" {
		u.entries[cal.id].bg = c.BackgroundColor
	}
	return cal.id
}

// ShareCalendar adds the calendar to the user's calendar list with role
// "freeBusyReader", "reader", "writer" or "owner", as if its owner had
// shared it and the user had subscribed.
func (s *Server) ShareCalendar(calendarID, email, role string) {
	s.tb.Helper()
	if roleRank[role] == 0 {
		s.fatalf("ShareCalendar: unknown role %q", role)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.userByEmailLocked(email)
	if u == nil || s.st.calendar[calendarID] == nil {
		s.fatalf("ShareCalendar: unknown user %s or calendar %s", email, calendarID)
	}
	s.subscribeLocked(u, calendarID, role)
}

// DeleteCalendar deletes a calendar as its owner would, from outside the
// code under test (calendar list entries become deleted; push channels get
// not_exists).
func (s *Server) DeleteCalendar(calendarID string) {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cal := s.st.calendar[calendarID]
	if cal == nil || cal.deleted {
		s.fatalf("DeleteCalendar: unknown calendar %s", calendarID)
	}
	s.deleteCalendarLocked(cal)
}

// AddEvent inserts an event into a calendar as its owner would, through
// the same validation as events.insert, and returns it as stored. Unlike
// the API it keeps a preset Organizer, Creator, ICalUID, and conference data
// (conferenceDataVersion=1 semantics), so tests can seed invitations from
// other people. It counts as a change: sync tokens see it and push channels
// are notified.
func (s *Server) AddEvent(calendarID string, ev Event) Event {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cal := s.st.calendar[calendarID]
	if cal == nil || cal.deleted {
		s.fatalf("AddEvent: unknown calendar %s", calendarID)
	}
	se, err := s.insertEventLocked(cal, s.st.users[cal.ownerSub], ev, 1, true)
	if err != nil {
		s.fatalf("AddEvent: %v", err)
	}
	return se.ev
}

// UpdateEvent changes a stored event as another client would: fn edits a
// copy, which is validated and stored with a new etag and updated stamp.
func (s *Server) UpdateEvent(calendarID, eventID string, fn func(*Event)) Event {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cal := s.st.calendar[calendarID]
	if cal == nil {
		s.fatalf("UpdateEvent: unknown calendar %s", calendarID)
	}
	se := cal.events[eventID]
	if se == nil {
		s.fatalf("UpdateEvent: unknown event %s", eventID)
	}
	next := cloneEvent(se.ev)
	fn(&next)
	next.ID, next.Created, next.ICalUID = se.ev.ID, se.ev.Created, se.ev.ICalUID
	if err := validateEvent(&next); err != nil {
		s.fatalf("UpdateEvent: %v", err)
	}
	if err := s.applyConference(cal, &next, &se.ev); err != nil {
		s.fatalf("UpdateEvent: %v", err)
	}
	seq := s.nextSeq()
	next.Updated, next.Etag = s.stamp(), etagFor(seq)
	se.ev, se.modSeq = next, seq
	s.touchLocked(cal)
	return next
}

// DeleteEvent deletes an event (or instance id) as another client would.
func (s *Server) DeleteEvent(calendarID, eventID string) {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cal := s.st.calendar[calendarID]
	if cal == nil {
		s.fatalf("DeleteEvent: unknown calendar %s", calendarID)
	}
	cur, stored, ok := s.lookupEventLocked(cal, eventID)
	if !ok || isCancelled(&cur) {
		s.fatalf("DeleteEvent: no live event %s", eventID)
	}
	s.cancelLocked(cal, cur, stored)
	s.touchLocked(cal)
}

// GetEvent returns the stored form of an event or instance, including
// cancelled tombstones.
func (s *Server) GetEvent(calendarID, eventID string) (Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cal := s.st.calendar[calendarID]
	if cal == nil {
		return Event{}, false
	}
	ev, _, ok := s.lookupEventLocked(cal, eventID)
	return ev, ok
}

// ExpireSyncTokens invalidates every sync token issued so far, for events
// and calendar lists: their next use answers 410 fullSyncRequired, as
// Google does when it invalidates tokens "for various reasons including
// token expiration or changes in related ACLs". Tokens issued later work.
// The change history before now is forgotten too: an events.list whose
// updatedMin lies earlier answers 410 updatedMinTooLongAgo (errors guide).
func (s *Server) ExpireSyncTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.syncGen++
	s.st.historyFloor = s.now()
}

// InjectFault queues a fault; faults match in the order they were added.
func (s *Server) InjectFault(f Fault) {
	s.tb.Helper()
	if f.Times < 1 {
		s.fatalf("InjectFault: Times must be at least 1")
	}
	if f.Status == 0 && f.Delay <= 0 {
		s.fatalf("InjectFault: set Status, Delay or both")
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		s.fatalf("InjectFault: Status %d is not an error status", f.Status)
	}
	s.st.faults.Add(f.Method, f.PathPrefix, f.Times, f)
}

// RequestCount returns how many requests with the method (empty: any) and
// a path starting with pathPrefix the server has received, faulted ones
// included.
func (s *Server) RequestCount(method, pathPrefix string) int {
	return s.st.requests.Count(method, pathPrefix)
}

// RequestQueries returns the query parameters of the requests
// RequestCount counts, in the order they came, so that a test can check
// what a write asked for (sendUpdates, for example).
func (s *Server) RequestQueries(method, pathPrefix string) []url.Values {
	return s.st.requests.Queries(method, pathPrefix)
}

// SetConferencePending makes later Meet creations asynchronous, as Google
// documents them: the write that asks for a conference answers with
// createRequest.status.statusCode "pending" and no entry points, and the
// conference is created (status "success", Meet link, hangoutLink) once the
// event has been read reads more times with events.get. reads 0 (the
// default) creates conferences at once.
func (s *Server) SetConferencePending(reads int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.conferencePendingReads = max(reads, 0)
}

// SetShortPages makes list pages that are not the last hold fewer items
// than maxResults asked for (half, or none at all when half is nothing),
// which the events.list reference allows: only nextPageToken says whether
// more pages follow. Off by default.
func (s *Server) SetShortPages(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.shortPages = on
}
