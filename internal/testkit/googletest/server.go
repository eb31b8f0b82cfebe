package googletest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	// The fake expands recurrences and renders times in IANA zones; embed
	// the zone database so results do not depend on the machine.
	_ "time/tzdata"

	"github.com/unical/unical/internal/testkit/fakekit"
)

// Options configures a [Server]. The zero value is ready to use.
type Options struct {
	// Now is the server's clock, used for token expiry, channel expiry,
	// created/updated stamps and the default expansion window. Default
	// time.Now. Tests pass a controllable clock to expire tokens without
	// sleeping.
	Now func() time.Time

	// AccessTokenTTL is the lifetime of issued access tokens, reported as
	// expires_in. Default 3599 s, the value Google's token endpoint sends.
	AccessTokenTTL time.Duration

	// AllowHTTPPush lets events.watch accept http:// channel addresses.
	// Google requires HTTPS ("push.webhookUrlNotHttps"), so the default is
	// to refuse them; plain httptest receivers need this set.
	AllowHTTPPush bool

	// PushClient sends push notifications, for example the Client of an
	// httptest TLS server so its certificate is trusted. Its transport must
	// only reach loopback addresses. Default: a client that dials loopback
	// addresses only.
	PushClient *http.Client

	// PushTimeout bounds one push attempt. Default 5 s.
	PushTimeout time.Duration

	// ExpansionHorizon bounds recurrence expansion when a query gives no
	// upper time bound (singleEvents=true without timeMax, incremental sync
	// of a changed series). Default 365 days after Now. UNVERIFIED: Google
	// documents no such window.
	ExpansionHorizon time.Duration

	// TestingMode makes the OAuth client behave like one whose consent
	// screen has the "Testing" publishing status: "A Google Cloud Platform
	// project with an OAuth consent screen configured for an external user
	// type and a publishing status of 'Testing' is issued a refresh token
	// expiring in 7 days" (identity/protocols/oauth2, "Refresh token
	// expiration"). Redeeming one later answers the same invalid_grant
	// "Token has been expired or revoked." as a revoked one.
	TestingMode bool
	// RefreshTokenUnusedLifetime is how long a refresh token may go
	// unused before redeeming it answers invalid_grant "Token has been
	// expired or revoked.": Google ends one that "has not been used for
	// six months" (identity/protocols/oauth2, "Refresh token expiration").
	// Default DefaultRefreshTokenUnusedLifetime.
	RefreshTokenUnusedLifetime time.Duration
}

// DefaultRefreshTokenUnusedLifetime is Google's six months, as 183 days.
const DefaultRefreshTokenUnusedLifetime = 183 * 24 * time.Hour

// TestingRefreshTokenLifetime is the lifetime of refresh tokens under
// Options.TestingMode.
const TestingRefreshTokenLifetime = 7 * 24 * time.Hour

// Server is a running fake. Create it with [NewServer]; it closes itself in
// tb.Cleanup.
type Server struct {
	// URL is the base URL of the fake, e.g. "http://127.0.0.1:34567".
	URL string

	tb   testing.TB
	opts Options
	ts   *httptest.Server

	// ctx is cancelled on close; push deliveries run under it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu sync.Mutex
	st state
}

// state is everything the fake knows, guarded by Server.mu.
type state struct {
	seq uint64 // global change counter; every write takes the next value

	users    map[string]*user // by sub
	clients  map[string]*Client
	calendar map[string]*calendar // by id

	codes    map[string]*authCode
	grants   []*grant
	refresh  map[string]*grant
	access   map[string]*accessToken
	consent  Consent
	grantSeq int

	syncTokens map[string]syncCursor
	syncGen    uint64
	// historyFloor is when the server last forgot its change history
	// ([Server.ExpireSyncTokens]); updatedMin before it answers 410
	// updatedMinTooLongAgo.
	historyFloor time.Time
	pageTokens   map[string]*pageCursor

	channels map[string]*channel // by channel id
	// silentChannels is set by [Server.SilenceChannels].
	silentChannels bool

	// shortPages is set by [Server.SetShortPages].
	shortPages bool

	// conferencePendingReads is set by [Server.SetConferencePending];
	// pendingConferences counts the reads left per create requestId.
	conferencePendingReads int
	pendingConferences     map[string]int

	faults   fakekit.Faults[Fault]
	requests fakekit.RequestLog
	// revokeTokens are the tokens of the revocation requests that reached
	// the revocation endpoint (not faulted), in order.
	revokeTokens []string

	// serviceAccounts are by client_email; see [Server.AddServiceAccount].
	serviceAccounts map[string]*ServiceAccount
	// rooms are the directory's calendar resources, admins the subs of
	// the Workspace administrators ([Server.AddRoom], [Server.SetAdmin]).
	rooms  []Room
	admins map[string]bool
}

// NewServer starts a fake on 127.0.0.1 and registers its shutdown with
// tb.Cleanup.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AccessTokenTTL <= 0 {
		opts.AccessTokenTTL = 3599 * time.Second
	}
	if opts.RefreshTokenUnusedLifetime <= 0 {
		opts.RefreshTokenUnusedLifetime = DefaultRefreshTokenUnusedLifetime
	}
	if opts.PushTimeout <= 0 {
		opts.PushTimeout = 5 * time.Second
	}
	if opts.ExpansionHorizon <= 0 {
		opts.ExpansionHorizon = 365 * 24 * time.Hour
	}
	if opts.PushClient == nil {
		opts.PushClient = loopbackClient()
	}
	s := &Server{tb: tb, opts: opts}
	s.st = state{
		users:              map[string]*user{},
		clients:            map[string]*Client{},
		calendar:           map[string]*calendar{},
		codes:              map[string]*authCode{},
		refresh:            map[string]*grant{},
		access:             map[string]*accessToken{},
		syncTokens:         map[string]syncCursor{},
		pageTokens:         map[string]*pageCursor{},
		pendingConferences: map[string]int{},
		channels:           map[string]*channel{},
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.ts = httptest.NewServer(s.routes())
	s.URL = s.ts.URL
	tb.Cleanup(s.close)
	return s
}

// close stops push deliveries first (they may be talking to receivers the
// test is about to close), then the HTTP server.
func (s *Server) close() {
	s.cancel()
	s.wg.Wait()
	s.opts.PushClient.CloseIdleConnections()
	s.ts.Close()
}

// AuthURL is the authorization endpoint, the path Google documents for web
// server apps (accounts.google.com/o/oauth2/v2/auth). The legacy path
// /o/oauth2/auth, which golang.org/x/oauth2/google.Endpoint uses, is served
// too.
func (s *Server) AuthURL() string { return s.URL + "/o/oauth2/v2/auth" }

// TokenURL is the token endpoint (oauth2.googleapis.com/token).
func (s *Server) TokenURL() string { return s.URL + "/token" }

// RevokeURL is the token revocation endpoint (oauth2.googleapis.com/revoke).
func (s *Server) RevokeURL() string { return s.URL + "/revoke" }

// UserinfoURL is the OpenID Connect userinfo endpoint, the one Google's
// discovery document names (openidconnect.googleapis.com/v1/userinfo). The
// older www.googleapis.com path /oauth2/v3/userinfo is served too.
func (s *Server) UserinfoURL() string { return s.URL + "/v1/userinfo" }

// Endpoint is the fake's OAuth endpoint for golang.org/x/oauth2. Like
// golang.org/x/oauth2/google.Endpoint it sends client credentials in the
// form body.
func (s *Server) Endpoint() oauth2.Endpoint {
	return oauth2.Endpoint{AuthURL: s.AuthURL(), TokenURL: s.TokenURL(), AuthStyle: oauth2.AuthStyleInParams}
}

// APIBaseURL is the Calendar API root, without a trailing slash: append
// paths such as "/calendars/primary/events".
func (s *Server) APIBaseURL() string { return s.URL + "/calendar/v3" }

func (s *Server) now() time.Time { return s.opts.Now() }

// routes builds the handler tree. Calendar API routes go through api(),
// which authenticates and takes the lock.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()

	mux.HandleFunc("GET /o/oauth2/v2/auth", s.handleAuthorize)
	mux.HandleFunc("GET /o/oauth2/auth", s.handleAuthorize)
	mux.HandleFunc("POST /token", s.handleToken)
	mux.HandleFunc("POST /revoke", s.handleRevoke)
	mux.HandleFunc("GET /v1/userinfo", s.handleUserinfo)
	mux.HandleFunc("GET /oauth2/v3/userinfo", s.handleUserinfo)
	mux.HandleFunc("GET /.well-known/openid-configuration", s.handleDiscovery)
	mux.HandleFunc("GET /oauth2/v3/certs", s.handleCerts)

	const base = "/calendar/v3"
	api := func(pattern string, scopes scopeSet, h apiHandler) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+base+path, s.api(scopes, h))
	}
	api("GET /users/me/calendarList", scopesCalendarListRead, s.calendarListList)
	api("GET /users/me/calendarList/{calendarId}", scopesCalendarListRead, s.calendarListGet)
	api("PATCH /users/me/calendarList/{calendarId}", scopesCalendarListWrite, s.calendarListPatch)
	api("PUT /users/me/calendarList/{calendarId}", scopesCalendarListWrite, s.calendarListUpdate)
	api("DELETE /users/me/calendarList/{calendarId}", scopesCalendarListWrite, s.calendarListDelete)

	api("POST /calendars", scopesCalendarsWrite, s.calendarsInsert)
	api("GET /calendars/{calendarId}", scopesCalendarsRead, s.calendarsGet)
	api("PATCH /calendars/{calendarId}", scopesCalendarsWrite, s.calendarsPatch)
	api("PUT /calendars/{calendarId}", scopesCalendarsWrite, s.calendarsUpdate)
	api("DELETE /calendars/{calendarId}", scopesCalendarsWrite, s.calendarsDelete)

	api("GET /calendars/{calendarId}/events", scopesEventsRead, s.eventsList)
	api("POST /calendars/{calendarId}/events", scopesEventsWrite, s.eventsInsert)
	api("POST /calendars/{calendarId}/events/watch", scopesEventsRead, s.eventsWatch)
	api("GET /calendars/{calendarId}/events/{eventId}", scopesEventsRead, s.eventsGet)
	api("PATCH /calendars/{calendarId}/events/{eventId}", scopesEventsWrite, s.eventsPatch)
	api("PUT /calendars/{calendarId}/events/{eventId}", scopesEventsWrite, s.eventsUpdate)
	api("DELETE /calendars/{calendarId}/events/{eventId}", scopesEventsWrite, s.eventsDelete)
	api("GET /calendars/{calendarId}/events/{eventId}/instances", scopesEventsRead, s.eventsInstances)

	api("GET /colors", scopesAnyCalendar, s.colorsGet)
	api("POST /freeBusy", scopesFreeBusy, s.freeBusyQuery)
	api("POST /channels/stop", scopesAnyCalendar, s.channelsStop)

	mux.Handle("GET /admin/directory/v1/customer/{customer}/resources/calendars", s.api(scopesDirectoryResources, s.resourcesCalendarsList))

	// Anything else under the API root gets Google's JSON 404 rather than
	// the mux's plain-text one.
	mux.HandleFunc(base+"/", func(w http.ResponseWriter, r *http.Request) {
		writeAPIError(w, errNotFound())
	})

	return s.middleware(mux)
}

// middleware counts every request and applies injected faults before the
// request reaches its handler.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.st.requests.Record(r)
		f, faulted := s.st.faults.Take(r)
		if faulted {
			if !fakekit.Hold(r, f.Delay, s.ctx.Done()) {
				return
			}
			if f.Status != 0 {
				if f.RetryAfter != "" {
					w.Header().Set("Retry-After", f.RetryAfter)
				}
				if strings.HasPrefix(r.URL.Path, "/calendar/") {
					writeAPIError(w, faultError(f.Status, f.Reason))
				} else {
					writeOAuthError(w, oauthFault(f.Status, f.Reason))
				}
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// oauthFault renders an injected fault on the OAuth endpoints. UNVERIFIED:
// Google's token endpoint error bodies for throttling and outages are not
// documented; these use RFC 6749-style codes.
func oauthFault(status int, reason string) *oauthError {
	if reason == "" {
		switch {
		case status == http.StatusTooManyRequests:
			reason = "rate_limit_exceeded"
		case status >= 500:
			reason = "temporarily_unavailable"
		default:
			reason = "access_denied"
		}
	}
	return &oauthError{status: status, code: reason, description: http.StatusText(status)}
}

// apiHandler serves one Calendar API method. It runs with s.mu held and
// returns the status and body to write after the lock is released.
type apiHandler func(c *call) (int, any, error)

// call is one authenticated Calendar API request.
type call struct {
	r     *http.Request
	q     url.Values
	body  []byte
	user  *user
	token *accessToken
}

// maxBody bounds request bodies; Google's own limit for event bodies is far
// lower than this, so it never refuses a legitimate request.
const maxBody = 4 << 20

func (s *Server) api(scopes scopeSet, h apiHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			writeAPIError(w, errBadRequest("Request body too large or unreadable."))
			return
		}
		status, resp, err := s.serveLocked(r, body, scopes, h)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				ae = &apiError{status: http.StatusInternalServerError, domain: "global", reason: "backendError", message: err.Error()}
			}
			writeAPIError(w, ae)
			return
		}
		if status == http.StatusNoContent {
			w.WriteHeader(status)
			return
		}
		if status == http.StatusNotModified {
			w.WriteHeader(status)
			return
		}
		writeJSON(w, status, resp)
	})
}

// serveLocked authenticates the request and runs h under s.mu. The lock is
// released by defer so a panicking handler cannot wedge the server.
func (s *Server) serveLocked(r *http.Request, body []byte, scopes scopeSet, h apiHandler) (int, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, u, aerr := s.authenticateLocked(r)
	if aerr != nil {
		return 0, nil, aerr
	}
	if !scopes.allows(tok.scopes) {
		return 0, nil, errInsufficientScopes()
	}
	return h(&call{r: r, q: r.URL.Query(), body: body, user: u, token: tok})
}

// decodeBody decodes a JSON request body. An empty body decodes to the zero
// value, as Google treats it.
func decodeBody(body []byte, v any) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		// UNVERIFIED: Google's message for malformed JSON is "Parse Error"
		// with reason "parseError".
		return &apiError{status: http.StatusBadRequest, domain: "global", reason: "parseError", message: "Parse Error"}
	}
	return nil
}

// randomID returns n characters from alphabet, from crypto/rand.
func randomID(n int, alphabet string) string { return fakekit.RandomString(n, alphabet) }

const (
	alnum     = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	base32hex = "abcdefghijklmnopqrstuv0123456789"
	lower     = "abcdefghijklmnopqrstuvwxyz"
)

// nextSeq takes the next change number. Callers hold s.mu.
func (s *Server) nextSeq() uint64 {
	s.st.seq++
	return s.st.seq
}

// etagFor renders a change number as a Google-style quoted etag.
func etagFor(seq uint64) string { return fmt.Sprintf(`"%d"`, 3000000000000000+seq) }

// rfc3339Milli is the layout of created/updated stamps, e.g.
// "2011-06-03T10:00:00.000Z".
const rfc3339Milli = "2006-01-02T15:04:05.000Z07:00"

func (s *Server) stamp() string { return s.now().UTC().Format(rfc3339Milli) }
