package googletest

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/unical/unical/internal/testkit/fakekit"
)

// Scope strings. "email" and "profile" are the OpenID short forms; Google
// reports them in a token's scope as the userinfo.* URLs.
const (
	scopeOpenID  = "openid"
	scopeEmail   = "https://www.googleapis.com/auth/userinfo.email"
	scopeProfile = "https://www.googleapis.com/auth/userinfo.profile"
	scopeCal     = "https://www.googleapis.com/auth/calendar"
	calPrefix    = "https://www.googleapis.com/auth/calendar."
)

// knownScopes is the set the authorization endpoint accepts: the Calendar
// scopes of the discovery document (revision 20251028) plus OpenID's.
var knownScopes = map[string]bool{
	scopeOpenID: true, scopeEmail: true, scopeProfile: true, scopeCal: true,
	calPrefix + "readonly": true, calPrefix + "events": true, calPrefix + "events.readonly": true,
	calPrefix + "events.owned": true, calPrefix + "events.owned.readonly": true,
	calPrefix + "events.public.readonly": true, calPrefix + "events.freebusy": true,
	calPrefix + "freebusy": true, calPrefix + "calendarlist": true, calPrefix + "calendarlist.readonly": true,
	calPrefix + "calendars": true, calPrefix + "calendars.readonly": true, calPrefix + "acls": true,
	calPrefix + "acls.readonly": true, calPrefix + "app.created": true, calPrefix + "settings.readonly": true,
}

func normalizeScope(sc string) string {
	switch sc {
	case "email":
		return scopeEmail
	case "profile":
		return scopeProfile
	}
	return sc
}

// scopeSet is the set of scopes any one of which authorizes a method.
// UNVERIFIED against the current discovery document: the stored copies
// read for this audit are older revisions naming only calendar,
// calendar.readonly, calendar.events, calendar.events.readonly and
// calendar.settings.readonly. Within those the lists agree method by
// method (events.get/list/instances: calendar, calendar.events,
// calendar.events.readonly, calendar.readonly; events.insert/patch/update/
// delete: calendar, calendar.events); the finer scopes of revision
// 20251028 (events.owned, calendarlist, calendars, app.created, freebusy)
// are placed by their names, not read per method. colors.get and
// channels.stop accept any Calendar scope here, a little more than those
// revisions list.
type scopeSet []string

func (ss scopeSet) allows(granted map[string]bool) bool {
	for _, sc := range ss {
		if granted[sc] {
			return true
		}
	}
	return false
}

var (
	scopesCalendarListRead  = scopeSet{scopeCal, calPrefix + "readonly", calPrefix + "calendarlist", calPrefix + "calendarlist.readonly"}
	scopesCalendarListWrite = scopeSet{scopeCal, calPrefix + "calendarlist"}
	scopesCalendarsRead     = scopeSet{scopeCal, calPrefix + "readonly", calPrefix + "calendars", calPrefix + "calendars.readonly", calPrefix + "app.created"}
	scopesCalendarsWrite    = scopeSet{scopeCal, calPrefix + "calendars", calPrefix + "app.created"}
	scopesEventsRead        = scopeSet{scopeCal, calPrefix + "readonly", calPrefix + "events", calPrefix + "events.readonly", calPrefix + "events.owned", calPrefix + "events.owned.readonly", calPrefix + "app.created"}
	scopesEventsWrite       = scopeSet{scopeCal, calPrefix + "events", calPrefix + "events.owned", calPrefix + "app.created"}
	scopesFreeBusy          = scopeSet{scopeCal, calPrefix + "readonly", calPrefix + "events.freebusy", calPrefix + "freebusy"}
	scopesAnyCalendar       = func() scopeSet {
		var ss scopeSet
		for sc := range knownScopes {
			if sc == scopeCal || strings.HasPrefix(sc, calPrefix) {
				ss = append(ss, sc)
			}
		}
		return ss
	}()
)

// authCode is an issued, not yet exchanged authorization code.
type authCode struct {
	clientID, redirectURI, sub string
	scopes                     []string
	challenge, method          string
	offline                    bool
	nonce                      string
	expiry                     time.Time
	used                       bool
	issued                     []string // access tokens issued from it, revoked on reuse
	grant                      *grant
}

// grant is one user's authorization of one client: a refresh token and the
// scopes it carries.
type grant struct {
	id           int
	clientID     string
	sub          string
	scopes       []string
	refreshToken string
	revoked      bool
	// issued is when the refresh token was issued, for Options.TestingMode.
	issued time.Time
	// used is when it was issued or last redeemed, for
	// Options.RefreshTokenUnusedLifetime.
	used time.Time
	// dropped: the refresh token fell out under maxRefreshTokens; access
	// tokens issued from it keep working until they expire.
	dropped bool
	nonce   string
}

// accessToken is an issued bearer token.
type accessToken struct {
	token    string
	clientID string
	sub      string
	scopes   map[string]bool
	expiry   time.Time
	grant    *grant // nil for tokens not backed by a refresh token
}

func scopeMap(scopes []string) map[string]bool {
	m := make(map[string]bool, len(scopes))
	for _, sc := range scopes {
		m[sc] = true
	}
	return m
}

// authenticateLocked resolves the bearer token of an API request.
func (s *Server) authenticateLocked(r *http.Request) (*accessToken, *user, *apiError) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, nil, errLoginRequired()
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, nil, errAuth()
	}
	at := s.st.access[strings.TrimSpace(tok)]
	if at == nil || !s.now().Before(at.expiry) || (at.grant != nil && at.grant.revoked) {
		return nil, nil, errAuth()
	}
	u := s.st.users[at.sub]
	if u == nil {
		return nil, nil, errAuth()
	}
	return at, u, nil
}

// issueAccessLocked mints an access token for sub and client.
func (s *Server) issueAccessLocked(clientID, sub string, scopes []string, g *grant) *accessToken {
	at := &accessToken{
		token:    "ya29.fake-" + randomID(40, alnum),
		clientID: clientID,
		sub:      sub,
		scopes:   scopeMap(scopes),
		expiry:   s.now().Add(s.opts.AccessTokenTTL),
		grant:    g,
	}
	s.st.access[at.token] = at
	return at
}

// maxRefreshTokens is Google's per-account, per-client cap: "There is
// currently a limit of 100 refresh tokens per Google Account per OAuth 2.0
// client ID", past which a new one "automatically invalidates the oldest
// refresh token without warning" (Using OAuth 2.0 to Access Google APIs,
// "Refresh token expiration": https://developers.google.com/identity/protocols/oauth2;
// read through several verbatim quotations, not the page itself).
const maxRefreshTokens = 100

// newGrantLocked creates a grant with a fresh refresh token, invalidating
// the user's oldest live refresh token for the client past the cap.
func (s *Server) newGrantLocked(clientID, sub string, scopes []string) *grant {
	var live []*grant
	for _, g := range s.st.grants {
		if g.clientID == clientID && g.sub == sub && !g.revoked && !g.dropped {
			live = append(live, g)
		}
	}
	for _, old := range live[:max(len(live)-(maxRefreshTokens-1), 0)] {
		old.dropped = true
		delete(s.st.refresh, old.refreshToken)
	}
	s.st.grantSeq++
	g := &grant{
		id:           s.st.grantSeq,
		clientID:     clientID,
		sub:          sub,
		scopes:       slices.Clone(scopes),
		refreshToken: "1//fake-" + randomID(48, alnum),
		issued:       s.now(),
		used:         s.now(),
	}
	s.st.grants = append(s.st.grants, g)
	s.st.refresh[g.refreshToken] = g
	return g
}

// priorGrantLocked returns the newest live grant of user sub to client.
func (s *Server) priorGrantLocked(clientID, sub string) *grant {
	for i := len(s.st.grants) - 1; i >= 0; i-- {
		g := s.st.grants[i]
		if g.clientID == clientID && g.sub == sub && !g.revoked {
			return g
		}
	}
	return nil
}

// authorizeErrorPage renders the page Google shows instead of redirecting
// when the request itself is bad ("Authorization Error … Error 400:
// redirect_uri_mismatch"): errors that cannot be trusted to go back to the
// redirect URI are shown to the user.
func authorizeErrorPage(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "Authorization Error\nError %d: %s\n%s\n", status, code, detail)
}

// handleAuthorize serves GET /o/oauth2/v2/auth. There is no human, so the
// consent the test configured with [Server.SetConsent] is applied at once
// and the browser is redirected to redirect_uri with code and state (or
// error=access_denied), as described in "Using OAuth 2.0 for Web Server
// Applications", step 5 (https://developers.google.com/identity/protocols/oauth2/web-server).
func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()

	cl := s.st.clients[q.Get("client_id")]
	if cl == nil {
		authorizeErrorPage(w, http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
		return
	}
	redirect := q.Get("redirect_uri")
	if !slices.Contains(cl.RedirectURIs, redirect) {
		// Matching is exact: scheme, host, port, path, trailing slash.
		authorizeErrorPage(w, http.StatusBadRequest, "redirect_uri_mismatch", "redirect_uri: "+redirect)
		return
	}
	if rt := q.Get("response_type"); rt != "code" {
		authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "Unsupported response_type: "+rt)
		return
	}
	var scopes []string
	for _, sc := range strings.Fields(q.Get("scope")) {
		sc = normalizeScope(sc)
		if !knownScopes[sc] {
			authorizeErrorPage(w, http.StatusBadRequest, "invalid_scope", "Some requested scopes were invalid: "+sc)
			return
		}
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) == 0 {
		authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "Missing required parameter: scope")
		return
	}
	accessType := q.Get("access_type")
	if accessType != "" && accessType != "online" && accessType != "offline" {
		authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "Invalid access_type: "+accessType)
		return
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	if challenge == "" && method != "" {
		authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "code_challenge_method without code_challenge")
		return
	}
	if challenge != "" {
		if method == "" {
			method = "plain" // the documented default
		}
		if method != "S256" && method != "plain" {
			authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "Invalid code_challenge_method: "+method)
			return
		}
		// RFC 7636 §4.2: an S256 challenge is base64url(SHA-256), 43 chars.
		if method == "S256" && len(challenge) != 43 {
			authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "Invalid code_challenge.")
			return
		}
	}
	// prompt is "a space-delimited, case-sensitive list" of none, consent
	// and select_account, and none "must not be specified with other
	// values" (web-server guide, authorization parameters:
	// https://developers.google.com/identity/protocols/oauth2/web-server).
	var prompts []string
	for _, p := range strings.Fields(q.Get("prompt")) {
		if p != "none" && p != "consent" && p != "select_account" {
			authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "Invalid prompt: "+p)
			return
		}
		prompts = append(prompts, p)
	}
	if slices.Contains(prompts, "none") && len(prompts) > 1 {
		authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "prompt=none cannot be combined with other values")
		return
	}

	back, _ := url.Parse(redirect)
	rq := back.Query()
	if st := q.Get("state"); st != "" {
		rq.Set("state", st)
	}
	fail := func(code string) {
		rq.Set("error", code)
		back.RawQuery = rq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}

	c := s.st.consent
	u := s.consentUserLocked(c, q.Get("login_hint"))
	if u == nil {
		authorizeErrorPage(w, http.StatusBadRequest, "invalid_request", "No user is signed in to the fake (call AddUser).")
		return
	}
	prior := s.priorGrantLocked(cl.ID, u.sub)
	if slices.Contains(prompts, "none") && prior == nil {
		// OpenID Connect Core §3.1.2.6: no prior consent and no UI allowed.
		fail("consent_required")
		return
	}
	if c.Deny {
		fail("access_denied")
		return
	}
	granted := scopes
	if c.GrantedScopes != nil {
		// Granular consent: the user unticked some scopes.
		granted = nil
		allowed := map[string]bool{}
		for _, sc := range c.GrantedScopes {
			allowed[normalizeScope(sc)] = true
		}
		for _, sc := range scopes {
			if allowed[sc] {
				granted = append(granted, sc)
			}
		}
	}
	// include_granted_scopes=true: "the new access token will also cover
	// any scopes to which the user previously granted the application
	// access" (web-server guide, incremental authorization).
	if q.Get("include_granted_scopes") == "true" && prior != nil {
		for _, sc := range prior.scopes {
			if !slices.Contains(granted, sc) {
				granted = append(granted, sc)
			}
		}
	}

	code := "4/0fake-" + randomID(40, alnum)
	s.st.codes[code] = &authCode{
		clientID: cl.ID, redirectURI: redirect, sub: u.sub, scopes: granted,
		challenge: challenge, method: method,
		// access_type=offline makes Google "return a refresh token and an
		// access token the first time that your application exchanges an
		// authorization code" (web-server guide, access_type); later
		// consents yield none unless prompt=consent asks for consent again.
		offline: accessType == "offline" && (prior == nil || slices.Contains(prompts, "consent")),
		nonce:   q.Get("nonce"),
		expiry:  s.now().Add(10 * time.Minute), // RFC 6749 §4.1.2 recommends ≤ 10 min
	}
	rq.Set("code", code)
	// Google echoes the granted scopes in the redirect as well.
	rq.Set("scope", strings.Join(granted, " "))
	back.RawQuery = rq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// consentUserLocked picks the account that "signs in": the one the test
// named, else the login_hint (email or sub), else the first user added.
func (s *Server) consentUserLocked(c Consent, hint string) *user {
	if c.Sub != "" {
		return s.st.users[c.Sub]
	}
	if c.Email != "" {
		return s.userByEmailLocked(c.Email)
	}
	if hint != "" {
		if u := s.userByEmailLocked(hint); u != nil {
			return u
		}
		if u := s.st.users[hint]; u != nil {
			return u
		}
	}
	var first *user
	for _, u := range s.st.users {
		if first == nil || u.order < first.order {
			first = u
		}
	}
	return first
}

// clientAuthLocked authenticates the client of a token request, by
// client_id/client_secret in the form or by HTTP Basic (RFC 6749 §2.3.1).
func (s *Server) clientAuthLocked(r *http.Request) (*Client, *oauthError) {
	formID, formSecret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	id, secret, basic := r.BasicAuth()
	if basic {
		if formSecret != "" {
			return nil, &oauthError{http.StatusBadRequest, "invalid_request", "Client authentication used more than one method."}
		}
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, &oauthError{http.StatusUnauthorized, "invalid_client", "Unauthorized"}
		}
	} else {
		id, secret = formID, formSecret
	}
	cl := s.st.clients[id]
	if cl == nil {
		return nil, &oauthError{http.StatusUnauthorized, "invalid_client", "The OAuth client was not found."}
	}
	if subtle.ConstantTimeCompare([]byte(secret), []byte(cl.Secret)) != 1 {
		return nil, &oauthError{http.StatusUnauthorized, "invalid_client", "Unauthorized"}
	}
	return cl, nil
}

type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
	TokenType    string `json:"token_type"`
	IDToken      string `json:"id_token,omitempty"`
}

// handleToken serves POST /token: the authorization_code and refresh_token
// grants of RFC 6749 §4.1.3 and §6, with PKCE verification (RFC 7636 §4.6).
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, &oauthError{http.StatusBadRequest, "invalid_request", "Malformed form body."})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.PostForm.Get("grant_type") == jwtBearerGrant {
		// The signed assertion authenticates the service account: there
		// is no client secret.
		resp, oe := s.jwtBearerLocked(r.PostForm)
		if oe != nil {
			writeOAuthError(w, oe)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, resp)
		return
	}
	cl, oe := s.clientAuthLocked(r)
	if oe != nil {
		writeOAuthError(w, oe)
		return
	}
	var resp *tokenResponse
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "authorization_code":
		resp, oe = s.exchangeCodeLocked(cl, r.PostForm)
	case "refresh_token":
		resp, oe = s.refreshLocked(cl, r.PostForm)
	case "":
		oe = &oauthError{http.StatusBadRequest, "unsupported_grant_type", "Missing grant_type."}
	default:
		oe = &oauthError{http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: " + gt}
	}
	if oe != nil {
		writeOAuthError(w, oe)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) exchangeCodeLocked(cl *Client, form url.Values) (*tokenResponse, *oauthError) {
	code := s.st.codes[form.Get("code")]
	// UNVERIFIED descriptions: Google answers unknown, spent and expired
	// codes with invalid_grant ("Malformed auth code." / "Bad Request").
	if code == nil {
		return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Malformed auth code."}
	}
	if code.used {
		// RFC 6749 §4.1.2: a code used twice is refused, and the tokens
		// issued from it should be revoked.
		for _, t := range code.issued {
			delete(s.st.access, t)
		}
		if code.grant != nil {
			code.grant.revoked = true
		}
		return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Bad Request"}
	}
	if code.clientID != cl.ID || !s.now().Before(code.expiry) {
		return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Bad Request"}
	}
	if form.Get("redirect_uri") != code.redirectURI {
		// UNVERIFIED: Google reports this as redirect_uri_mismatch; RFC
		// 6749 §5.2 would say invalid_grant.
		return nil, &oauthError{http.StatusBadRequest, "redirect_uri_mismatch", "Bad Request"}
	}
	if code.challenge != "" {
		v := form.Get("code_verifier")
		if v == "" {
			return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Missing code verifier."}
		}
		if !fakekit.PKCEMatches(code.method, code.challenge, v) {
			return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Invalid code verifier."}
		}
	}
	code.used = true

	var g *grant
	resp := &tokenResponse{Scope: strings.Join(code.scopes, " "), TokenType: "Bearer"}
	if code.offline {
		g = s.newGrantLocked(cl.ID, code.sub, code.scopes)
		g.nonce = code.nonce
		resp.RefreshToken = g.refreshToken
		code.grant = g
	}
	at := s.issueAccessLocked(cl.ID, code.sub, code.scopes, g)
	code.issued = append(code.issued, at.token)
	resp.AccessToken = at.token
	resp.ExpiresIn = int(s.opts.AccessTokenTTL / time.Second)
	if slices.Contains(code.scopes, scopeOpenID) {
		resp.IDToken = s.idTokenLocked(cl.ID, code.sub, code.scopes, code.nonce, at.token)
	}
	return resp, nil
}

func (s *Server) refreshLocked(cl *Client, form url.Values) (*tokenResponse, *oauthError) {
	g := s.st.refresh[form.Get("refresh_token")]
	if g == nil || g.revoked || s.opts.TestingMode && !s.now().Before(g.issued.Add(TestingRefreshTokenLifetime)) ||
		!s.now().Before(g.used.Add(s.opts.RefreshTokenUnusedLifetime)) {
		// The body Google sends for a revoked or expired refresh token.
		return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Token has been expired or revoked."}
	}
	if g.clientID != cl.ID {
		return nil, &oauthError{http.StatusBadRequest, "unauthorized_client", "Unauthorized"}
	}
	scopes := g.scopes
	if req := form.Get("scope"); req != "" {
		// RFC 6749 §6: a refresh may narrow, never widen, the scope.
		scopes = nil
		for _, sc := range strings.Fields(req) {
			sc = normalizeScope(sc)
			if !slices.Contains(g.scopes, sc) {
				return nil, &oauthError{http.StatusBadRequest, "invalid_scope", "Some requested scopes were invalid."}
			}
			scopes = append(scopes, sc)
		}
	}
	g.used = s.now()
	at := s.issueAccessLocked(cl.ID, g.sub, scopes, g)
	// Google does not rotate refresh tokens: the response omits
	// refresh_token and clients keep the one they have.
	resp := &tokenResponse{
		AccessToken: at.token,
		ExpiresIn:   int(s.opts.AccessTokenTTL / time.Second),
		Scope:       strings.Join(scopes, " "),
		TokenType:   "Bearer",
	}
	if slices.Contains(scopes, scopeOpenID) {
		resp.IDToken = s.idTokenLocked(cl.ID, g.sub, scopes, "", at.token)
	}
	return resp, nil
}

// handleRevoke serves POST /revoke (token=…). Revoking a refresh token or
// an access token backed by one revokes the whole grant: "If the token is
// an access token and it has a corresponding refresh token, the refresh
// token will also be revoked"; success is 200, "for error conditions, an
// HTTP status code 400 is returned along with an error code" (web-server
// guide, "Revoking a token"). UNVERIFIED: which error code; the guide
// names none, and invalid_token is RFC 7009 §2.2.1's. The guide names no
// other status; an outage (a 5xx, RFC 7009 §2.2.1's 503 "the client must
// assume the token still exists and may retry after a reasonable delay"),
// throttling (429) or an endpoint that hangs is a [Fault] with PathPrefix
// "/revoke", which fails or holds the next Times requests before they
// reach this handler.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, &oauthError{http.StatusBadRequest, "invalid_request", "Malformed form body."})
		return
	}
	tok := r.Form.Get("token")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.revokeTokens = append(s.st.revokeTokens, tok)
	if g := s.st.refresh[tok]; g != nil && !g.revoked {
		g.revoked = true
		writeJSON(w, http.StatusOK, map[string]any{})
		return
	}
	if at := s.st.access[tok]; at != nil && s.now().Before(at.expiry) {
		delete(s.st.access, tok)
		if at.grant != nil {
			at.grant.revoked = true
		}
		writeJSON(w, http.StatusOK, map[string]any{})
		return
	}
	writeOAuthError(w, &oauthError{http.StatusBadRequest, "invalid_token", "Token expired or revoked"})
}

// handleUserinfo serves the OpenID Connect userinfo endpoint, the
// userinfo_endpoint of Google's discovery document
// (https://openidconnect.googleapis.com/v1/userinfo, as Google's
// .well-known/openid-configuration is widely quoted; the OpenID Connect
// reference names the field, https://developers.google.com/identity/openid-connect/reference).
// Claims follow the granted scopes as OpenID Connect Core §5.4 maps them:
// sub always, email/email_verified with the email scope, name with profile.
func (s *Server) handleUserinfo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	at, u, aerr := s.authenticateLocked(r)
	if aerr != nil {
		s.mu.Unlock()
		// UNVERIFIED: Google's userinfo answers bad tokens with an
		// OAuth-style body rather than the Calendar error envelope.
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeOAuthError(w, &oauthError{http.StatusUnauthorized, "invalid_request", "Invalid Credentials"})
		return
	}
	if !at.scopes[scopeOpenID] && !at.scopes[scopeEmail] && !at.scopes[scopeProfile] {
		s.mu.Unlock()
		writeOAuthError(w, &oauthError{http.StatusUnauthorized, "invalid_request", "Invalid Credentials"})
		return
	}
	claims := map[string]any{"sub": u.sub}
	if at.scopes[scopeEmail] {
		claims["email"] = u.email
		claims["email_verified"] = !u.emailUnverified
	}
	if at.scopes[scopeProfile] && u.name != "" {
		claims["name"] = u.name
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, claims)
}

// googleIssuer is the iss claim of Google ID tokens.
const googleIssuer = "https://accounts.google.com"

// handleDiscovery serves an OpenID discovery document whose endpoints point
// at the fake, so OIDC libraries can be configured from it.
func (s *Server) handleDiscovery(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                googleIssuer,
		"authorization_endpoint":                s.AuthURL(),
		"token_endpoint":                        s.TokenURL(),
		"userinfo_endpoint":                     s.UserinfoURL(),
		"revocation_endpoint":                   s.RevokeURL(),
		"jwks_uri":                              s.URL + "/oauth2/v3/certs",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic"},
		"code_challenge_methods_supported":      []string{"plain", "S256"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
	})
}

// handleCerts serves the JWKS that verifies ID tokens.
func (s *Server) handleCerts(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, fakekit.JWKS())
}

// idTokenLocked signs an RS256 ID token with the claims Google documents
// (iss, azp, aud, sub, email, email_verified, at_hash, iat, exp, nonce).
func (s *Server) idTokenLocked(clientID, sub string, scopes []string, nonce, accessTok string) string {
	u := s.st.users[sub]
	now := s.now()
	sum := sha256.Sum256([]byte(accessTok))
	claims := map[string]any{
		"iss": googleIssuer, "azp": clientID, "aud": clientID, "sub": sub,
		"at_hash": base64.RawURLEncoding.EncodeToString(sum[:16]),
		"iat":     now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
	if slices.Contains(scopes, scopeEmail) && u != nil {
		claims["email"], claims["email_verified"] = u.email, !u.emailUnverified
	}
	if slices.Contains(scopes, scopeProfile) && u != nil && u.name != "" {
		claims["name"] = u.name
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	return fakekit.SignJWT(claims)
}

// sortedScopes returns scopes in a stable order for test-facing APIs.
func sortedScopes(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for sc := range m {
		out = append(out, sc)
	}
	sort.Strings(out)
	return out
}
