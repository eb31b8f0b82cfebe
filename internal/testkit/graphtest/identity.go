package graphtest

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical/internal/testkit/fakekit"
)

// The identity platform side follows "Microsoft identity platform and OAuth
// 2.0 authorization code flow",
// https://learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow
// (MicrosoftDocs/entra-docs docs/identity-platform/v2-oauth2-auth-code-flow.md).

// User is a mailbox owner. AddUser fills empty fields.
type User struct {
	// ID is the user's object ID (a GUID). Default a random GUID.
	ID string
	// DisplayName is the user's name. Default "Test User".
	DisplayName string
	// Mail is the SMTP address. Default the UserPrincipalName.
	Mail string
	// UserPrincipalName is the sign-in name. Default "user<n>@contoso.test".
	UserPrincipalName string
	// TenantID is the user's home tenant, the tid of its ID tokens.
	// Default Options.Tenant. A user of another tenant models an identity
	// whose directory someone else administers: its Mail may be any
	// address, another tenant's user's included ("nOAuth").
	TenantID string
	// TimeZone is the mailbox time zone (a Windows name), used for working
	// hours in getSchedule. Default "UTC".
	TimeZone string
}

// Client is an application registration.
type Client struct {
	// ID is the application (client) ID.
	ID string
	// Secret is the client secret of a confidential client; empty for a
	// public client.
	Secret string
	// RedirectURIs are the registered redirect URIs, matched exactly.
	RedirectURIs []string
	// RequirePKCE refuses authorization requests without code_challenge.
	RequirePKCE bool
	// ApplicationPermissions are the Graph application permissions (app
	// roles, such as Calendars.ReadWrite) a tenant administrator has
	// consented to; the client credentials grant's tokens carry them.
	// Empty: no consent, so those tokens are refused by every call.
	ApplicationPermissions []string
}

type authorizeError struct{ code, description string }

type authCode struct {
	clientID, redirectURI, scope, userID string
	challenge, method                    string
	expires                              time.Time
	used                                 bool
}

type accessToken struct {
	userID, clientID string
	scopes           []string
	expires          time.Time
}

type refreshToken struct {
	userID, clientID string
	scopes           []string
	lastUsed         time.Time
	revoked          bool
	// refusal, when set, is the answer to every later redemption.
	refusal *tokenError
}

// AddUser adds a mailbox with a default calendar named "Calendar" and returns
// its user ID. The first user added is the one the authorize endpoint signs
// in unless SignIn or login_hint picks another.
func (s *Server) AddUser(u User) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.ID == "" {
		u.ID = newGUID()
	}
	if u.UserPrincipalName == "" {
		u.UserPrincipalName = fmt.Sprintf("user%d@contoso.test", len(s.users)+1)
	}
	if u.Mail == "" {
		u.Mail = u.UserPrincipalName
	}
	if u.TenantID == "" {
		u.TenantID = s.opts.Tenant
	}
	if u.DisplayName == "" {
		u.DisplayName = "Test User"
	}
	if u.TimeZone == "" {
		u.TimeZone = "UTC"
	}
	usr := &user{User: u, events: make(map[string]*event)}
	usr.calendars = append(usr.calendars, s.newCalendar(usr, "Calendar", true))
	s.users[u.ID] = usr
	s.userOrder = append(s.userOrder, u.ID)
	return u.ID
}

// AddClient registers an application.
func (s *Server) AddClient(c Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.RedirectURIs = slices.Clone(c.RedirectURIs)
	s.clients[c.ID] = &c
}

// SignIn makes userID the user the authorize endpoint signs in when the
// request has no login_hint naming another user.
func (s *Server) SignIn(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.signedIn = userID
}

// SetAuthorizeError makes the authorize endpoint redirect with
// error=code&error_description=description (for example "access_denied",
// the user declining consent) instead of a code. An empty code clears it.
func (s *Server) SetAuthorizeError(code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == "" {
		s.authErr = nil
		return
	}
	s.authErr = &authorizeError{code, description}
}

// IssueRefreshToken returns a refresh token for userID and clientID as if the
// user had consented to scopes (default "offline_access User.Read
// Calendars.ReadWrite").
func (s *Server) IssueRefreshToken(clientID, userID string, scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(scopes) == 0 {
		scopes = defaultScopes()
	}
	return s.newRefreshToken(userID, clientID, scopes)
}

// IssueAccessToken returns an access token for userID and clientID with
// scopes (default "offline_access User.Read Calendars.ReadWrite").
func (s *Server) IssueAccessToken(clientID, userID string, scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(scopes) == 0 {
		scopes = defaultScopes()
	}
	return s.newAccessToken(userID, clientID, scopes)
}

// RevokeRefreshTokens revokes every refresh token of userID, as a password
// reset or an administrator's revokeSignInSessions does: redeeming one then
// fails with invalid_grant (AADSTS50173). Access tokens stay valid until
// they expire.
func (s *Server) RevokeRefreshTokens(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rt := range s.refresh {
		if rt.userID == userID {
			rt.revoked = true
		}
	}
}

// RevokeConsent withdraws the consent userID gave, as removing the app at
// myapps.microsoft.com or an administrator deleting the grant does:
// redeeming a refresh token then fails with invalid_grant AADSTS65001
// (DelegationDoesNotExist, "The user or administrator has not consented
// to use the application", reference-error-codes).
func (s *Server) RevokeConsent(userID string) {
	s.refuseRefresh(userID, grantError(65001, "The user or administrator has not consented to use the application with ID '%s'. Send an interactive authorization request for this user and resource.", userID))
}

// WithdrawAdminConsent removes the application permissions a tenant
// administrator granted clientID, as revoking the admin consent of an
// enterprise application does. Access tokens cannot be revoked and work
// until they expire (Microsoft's answers on revoking tokens,
// learn.microsoft.com/answers/questions/672062, and access-tokens.md,
// "Token lifetime"); the client credentials grant keeps issuing tokens, now
// without a roles claim, and Graph answers every call made with one
// 403 (graph/resolve-auth-errors: "those permissions must be granted to
// the application by a user or an administrator"). UNVERIFIED: that the
// token endpoint issues the roles-less token rather than refusing, and
// the exact 403 code for calendar paths; ErrorAccessDenied is what the
// fake answers for any missing permission.
func (s *Server) WithdrawAdminConsent(clientID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.clients[clientID]; c != nil {
		c.ApplicationPermissions = nil
	}
}

// RequireMFA makes every refresh token of userID answer
// interaction_required AADSTS50076 (UserStrongAuthClientAuthNRequired,
// reference-error-codes): an administrator's policy now demands
// multi-factor authentication, which needs an interactive sign-in.
func (s *Server) RequireMFA(userID string) {
	s.refuseRefresh(userID, &tokenError{http.StatusBadRequest, "interaction_required", 50076, "Due to a configuration change made by your administrator, or because you moved to a new location, you must use multi-factor authentication to access the resource."})
}

func (s *Server) refuseRefresh(userID string, e *tokenError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rt := range s.refresh {
		if rt.userID == userID {
			rt.refusal = e
		}
	}
}

// ExpireAccessTokens makes every access token of userID expired, so that
// Graph answers 401 InvalidAuthenticationToken without moving the clock.
func (s *Server) ExpireAccessTokens(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.access {
		if at.userID == userID {
			at.expires = time.Time{}
		}
	}
}

func defaultScopes() []string {
	return []string{"offline_access", "User.Read", "Calendars.ReadWrite"}
}

func (s *Server) newAccessToken(userID, clientID string, scopes []string) string {
	tok := newID("eyJ0eXAiOiJKV1Qi.", 48)
	s.access[tok] = &accessToken{userID: userID, clientID: clientID, scopes: scopes, expires: s.now().Add(s.opts.AccessTokenLifetime)}
	return tok
}

func (s *Server) newRefreshToken(userID, clientID string, scopes []string) string {
	tok := newID("0.AXgA", 96)
	s.refresh[tok] = &refreshToken{userID: userID, clientID: clientID, scopes: scopes, lastUsed: s.now()}
	return tok
}

// handleAuthorize handles GET /{tenant}/oauth2/v2.0/authorize. There is no
// human: it signs in the configured user at once and redirects to
// redirect_uri with code and state (response_mode=query), or with error and
// error_description. Errors about client_id and redirect_uri are shown as a
// page, since redirecting to an unverified URI would be unsafe.
func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	if !s.knownTenant(r.PathValue("tenant")) {
		aadPage(w, 90002, "Tenant '%s' not found.", r.PathValue("tenant"))
		return
	}
	clientID := q.Get("client_id")
	client, ok := s.clients[clientID]
	if !ok {
		aadPage(w, 700016, "Application with identifier '%s' was not found in the directory.", clientID)
		return
	}
	redirectURI := q.Get("redirect_uri")
	if !slices.Contains(client.RedirectURIs, redirectURI) {
		aadPage(w, 50011, "The redirect URI '%s' specified in the request does not match the redirect URIs configured for the application '%s'.", redirectURI, clientID)
		return
	}
	fail := func(code string, aadsts int, format string, args ...any) {
		desc := fmt.Sprintf(format, args...)
		if aadsts != 0 {
			desc = fmt.Sprintf("AADSTS%d: %s", aadsts, desc)
		}
		v := url.Values{"error": {code}, "error_description": {desc}}
		if st := q.Get("state"); st != "" {
			v.Set("state", st)
		}
		http.Redirect(w, r, withQuery(redirectURI, v), http.StatusFound)
	}
	if rt := q.Get("response_type"); rt != "code" {
		fail("unsupported_response_type", 700054, "response_type '%s' is not supported by graphtest; use code.", rt)
		return
	}
	if rm := q.Get("response_mode"); rm != "" && rm != "query" {
		fail("invalid_request", 0, "graphtest supports only response_mode=query, not %q.", rm)
		return
	}
	scope := q.Get("scope")
	if strings.TrimSpace(scope) == "" {
		fail("invalid_request", 900144, "The request body must contain the following parameter: 'scope'.")
		return
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	switch {
	case method != "" && challenge == "":
		fail("invalid_request", 50125, "code_challenge_method is set but code_challenge is missing.")
		return
	case method != "" && method != "S256" && method != "plain":
		fail("invalid_request", 50126, "Invalid code_challenge_method '%s'.", method)
		return
	case challenge == "" && client.RequirePKCE:
		fail("invalid_request", 9002325, "Proof Key for Code Exchange is required for this client.")
		return
	}
	if method == "" && challenge != "" {
		method = "plain" // As documented: without a method the challenge is plain.
	}
	prompt := q.Get("prompt")
	if prompt != "" && !slices.Contains([]string{"login", "none", "consent", "select_account"}, prompt) {
		fail("invalid_request", 90023, "Invalid prompt value '%s'.", prompt)
		return
	}
	if s.authErr != nil {
		fail(s.authErr.code, 0, "%s", s.authErr.description)
		return
	}
	usr := s.signInUser(q.Get("login_hint"))
	if usr == nil {
		if prompt == "none" {
			fail("login_required", 50058, "A silent sign-in request was sent but no user is signed in.")
		} else {
			fail("access_denied", 0, "graphtest: no user to sign in; call AddUser first.")
		}
		return
	}
	code := newID("1.AXgA", 64)
	s.codes[code] = &authCode{
		clientID: clientID, redirectURI: redirectURI, scope: scope, userID: usr.ID,
		challenge: challenge, method: method, expires: s.now().Add(s.opts.AuthCodeLifetime),
	}
	v := url.Values{"code": {code}}
	if st := q.Get("state"); st != "" {
		v.Set("state", st)
	}
	http.Redirect(w, r, withQuery(redirectURI, v), http.StatusFound)
}

func (s *Server) knownTenant(t string) bool {
	return t == s.opts.Tenant || t == "common" || t == "organizations" || t == "consumers"
}

// signInUser picks the user named by loginHint, else the SignIn user, else
// the first user added.
func (s *Server) signInUser(loginHint string) *user {
	if loginHint != "" {
		for _, id := range s.userOrder {
			u := s.users[id]
			if strings.EqualFold(u.UserPrincipalName, loginHint) || strings.EqualFold(u.Mail, loginHint) {
				return u
			}
		}
	}
	if u, ok := s.users[s.signedIn]; ok {
		return u
	}
	if len(s.userOrder) > 0 {
		return s.users[s.userOrder[0]]
	}
	return nil
}

func withQuery(base string, v url.Values) string {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + v.Encode()
}

func aadPage(w http.ResponseWriter, aadsts int, format string, args ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, "Sign in\nAADSTS%d: %s\n", aadsts, fmt.Sprintf(format, args...))
}

// tokenError is the identity platform's token endpoint error body.
type tokenError struct {
	status  int
	code    string
	aadsts  int
	message string
}

func (s *Server) writeTokenError(w http.ResponseWriter, e *tokenError) {
	now := s.now().UTC()
	trace, corr := newGUID(), newGUID()
	stamp := now.Format("2006-01-02 15:04:05Z")
	body := map[string]any{
		"error":             e.code,
		"error_description": fmt.Sprintf("AADSTS%d: %s\r\nTrace ID: %s\r\nCorrelation ID: %s\r\nTimestamp: %s", e.aadsts, e.message, trace, corr, stamp),
		"error_codes":       []int{e.aadsts},
		"timestamp":         stamp,
		"trace_id":          trace,
		"correlation_id":    corr,
		"error_uri":         fmt.Sprintf("https://login.microsoftonline.com/error?code=%d", e.aadsts),
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store, no-cache")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(body)
}

func grantError(aadsts int, format string, args ...any) *tokenError {
	return &tokenError{http.StatusBadRequest, "invalid_grant", aadsts, fmt.Sprintf(format, args...)}
}

// handleToken handles POST /{tenant}/oauth2/v2.0/token for the
// authorization_code and refresh_token grants. Client credentials may come
// in the form or as HTTP Basic authentication.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.knownTenant(r.PathValue("tenant")) {
		s.writeTokenError(w, &tokenError{http.StatusBadRequest, "invalid_request", 90002, fmt.Sprintf("Tenant '%s' not found.", r.PathValue("tenant"))})
		return
	}
	if err := r.ParseForm(); err != nil {
		s.writeTokenError(w, &tokenError{http.StatusBadRequest, "invalid_request", 900144, "The request body must be application/x-www-form-urlencoded."})
		return
	}
	f := r.PostForm
	clientID, secret, basic := r.BasicAuth()
	if basic {
		clientID, _ = url.QueryUnescape(clientID)
		secret, _ = url.QueryUnescape(secret)
	} else {
		clientID, secret = f.Get("client_id"), f.Get("client_secret")
	}
	grant := f.Get("grant_type")
	if grant == "" {
		s.writeTokenError(w, &tokenError{http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'grant_type'."})
		return
	}
	if clientID == "" {
		s.writeTokenError(w, &tokenError{http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'client_id'."})
		return
	}
	client, ok := s.clients[clientID]
	if !ok {
		s.writeTokenError(w, &tokenError{http.StatusBadRequest, "unauthorized_client", 700016, fmt.Sprintf("Application with identifier '%s' was not found in the directory.", clientID)})
		return
	}
	if client.Secret != "" {
		if secret == "" {
			s.writeTokenError(w, &tokenError{http.StatusUnauthorized, "invalid_client", 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'."})
			return
		}
		if subtle.ConstantTimeCompare([]byte(secret), []byte(client.Secret)) != 1 {
			s.writeTokenError(w, &tokenError{http.StatusUnauthorized, "invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID."})
			return
		}
	}
	var (
		userID string
		scopes []string
		e      *tokenError
	)
	switch grant {
	case "authorization_code":
		userID, scopes, e = s.redeemCode(clientID, f)
	case "refresh_token":
		userID, scopes, e = s.redeemRefreshToken(clientID, f)
	case "client_credentials":
		scopes, e = clientCredentials(client, f)
	default:
		e = &tokenError{http.StatusBadRequest, "unsupported_grant_type", 70003, fmt.Sprintf("The app requested an unsupported grant type '%s'.", grant)}
	}
	if e != nil {
		s.writeTokenError(w, e)
		return
	}
	life := int(s.opts.AccessTokenLifetime / time.Second)
	resp := map[string]any{
		"token_type":     "Bearer",
		"scope":          strings.Join(scopes, " "),
		"expires_in":     life,
		"ext_expires_in": life,
		"access_token":   s.newAccessToken(userID, clientID, scopes),
	}
	// A refresh token is only returned when offline_access was granted; a
	// new one on every redemption (rotation). v2-oauth2-auth-code-flow.md
	// ("Refresh the access token"): "Refresh tokens aren't revoked when used
	// to acquire new access tokens. You're expected to discard the old
	// refresh token." "Refresh tokens in the Microsoft identity platform"
	// (https://learn.microsoft.com/entra/identity-platform/refresh-tokens,
	// "Token lifetime"): "Refresh tokens replace themselves with a fresh
	// token upon every use. The Microsoft identity platform doesn't revoke
	// old refresh tokens when used to fetch new access tokens. Securely
	// delete the old refresh token after acquiring a new one." Old tokens
	// therefore keep working unless Options.RevokeRotatedRefreshTokens is
	// set, which tests use to prove a client kept the rotated one.
	if userID == "" {
		// An app-only token: its permissions are in the token's roles,
		// and the answer names no scope.
		delete(resp, "scope")
	}
	if hasScope(scopes, "offline_access") {
		resp["refresh_token"] = s.newRefreshToken(userID, clientID, scopes)
	}
	if hasScope(scopes, "openid") {
		resp["id_token"] = s.idToken(userID, clientID, scopes)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store, no-cache")
	_ = json.NewEncoder(w).Encode(resp)
}

// clientCredentials answers the client credentials grant ("Microsoft
// identity platform and the OAuth 2.0 client credentials flow",
// https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow,
// "First case: Access token request with a shared secret"): a
// confidential client asks for scope {resource}/.default and gets an
// app-only token with the application permissions consented to, and no
// refresh token ("Successful response" lists token_type, expires_in and
// access_token). UNVERIFIED: the AADSTS1002012 text for another scope.
func clientCredentials(client *Client, f url.Values) ([]string, *tokenError) {
	if client.Secret == "" {
		return nil, &tokenError{http.StatusUnauthorized, "invalid_client", 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'."}
	}
	if f.Get("scope") != "https://graph.microsoft.com/.default" {
		return nil, &tokenError{http.StatusBadRequest, "invalid_scope", 1002012, fmt.Sprintf("The provided value for scope %s is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).", f.Get("scope"))}
	}
	return slices.Clone(client.ApplicationPermissions), nil
}

func (s *Server) redeemCode(clientID string, f url.Values) (string, []string, *tokenError) {
	code := f.Get("code")
	if code == "" {
		return "", nil, &tokenError{http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'code'."}
	}
	ac, ok := s.codes[code]
	switch {
	case !ok:
		return "", nil, grantError(70000, "Provided grant is invalid or malformed.")
	case ac.used:
		return "", nil, grantError(54005, "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.")
	case !s.now().Before(ac.expires):
		return "", nil, grantError(70008, "The provided authorization code or refresh token has expired due to inactivity. Send a new interactive authorization request for this user and resource.")
	case ac.clientID != clientID:
		return "", nil, grantError(70000, "Provided grant is invalid or malformed: the code was issued to another client.")
	case f.Get("redirect_uri") != ac.redirectURI:
		// AADSTS500112 is what Entra ID answers for a redirect_uri that
		// differs from the authorize request's, as many deployments report
		// ("AADSTS500112: reply address ... does not match"); the Entra
		// error-code reference (entra-docs
		// docs/identity-platform/reference-error-codes.md) does not list
		// it, and the error value (invalid_grant here) is UNVERIFIED: some
		// reports pair the code with invalid_client.
		return "", nil, grantError(500112, "The reply address does not match the reply address provided when requesting the authorization code.")
	}
	if ac.challenge != "" {
		if !fakekit.PKCEMatches(ac.method, ac.challenge, f.Get("code_verifier")) {
			return "", nil, grantError(501481, "The Code_Verifier does not match the code_challenge supplied in the authorization request.")
		}
	}
	ac.used = true
	return ac.userID, strings.Fields(ac.scope), nil
}

func (s *Server) redeemRefreshToken(clientID string, f url.Values) (string, []string, *tokenError) {
	tok := f.Get("refresh_token")
	if tok == "" {
		return "", nil, &tokenError{http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'refresh_token'."}
	}
	rt, ok := s.refresh[tok]
	switch {
	case !ok:
		return "", nil, grantError(9002313, "Invalid request. Request is malformed or invalid.")
	case rt.refusal != nil:
		return "", nil, rt.refusal
	case rt.revoked:
		return "", nil, grantError(50173, "The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password.")
	case !s.now().Before(rt.lastUsed.Add(s.opts.RefreshTokenLifetime)):
		return "", nil, grantError(700082, "The refresh token has expired due to inactivity. The token was issued on %s and was inactive for %s.", rt.lastUsed.UTC().Format(time.RFC3339), s.opts.RefreshTokenLifetime)
	case rt.clientID != clientID:
		return "", nil, grantError(70000, "Provided grant is invalid or malformed: the refresh token was issued to another client.")
	}
	if _, ok := s.users[rt.userID]; !ok {
		return "", nil, grantError(50034, "The user account does not exist in the directory.")
	}
	scopes := rt.scopes
	if raw := f.Get("scope"); raw != "" {
		// Scopes are space-separated; a comma-separated list is refused for
		// work and school accounts (providers.md §2.1, corroborated).
		if strings.Contains(raw, ",") {
			return "", nil, &tokenError{http.StatusBadRequest, "invalid_scope", 70011, fmt.Sprintf("The provided value for the input parameter 'scope' is not valid. The scope %s is not valid.", raw)}
		}
		asked := strings.Fields(raw)
		for _, sc := range asked {
			if !hasScope(rt.scopes, sc) && !isOIDCScope(sc) {
				return "", nil, grantError(65001, "The user or administrator has not consented to use the application with ID '%s'. Send an interactive authorization request for this user and resource.", clientID)
			}
		}
		scopes = asked
		if hasScope(rt.scopes, "offline_access") && !hasScope(scopes, "offline_access") {
			scopes = append(scopes, "offline_access")
		}
	}
	rt.lastUsed = s.now()
	if s.opts.RevokeRotatedRefreshTokens {
		rt.revoked = true
	}
	return rt.userID, scopes, nil
}

func isOIDCScope(sc string) bool {
	switch strings.ToLower(sc) {
	case "openid", "profile", "email", "offline_access":
		return true
	}
	return false
}

// normScope strips the Graph resource prefix and lowercases a scope, so that
// "https://graph.microsoft.com/Calendars.ReadWrite" equals
// "calendars.readwrite".
func normScope(sc string) string {
	sc = strings.TrimPrefix(strings.ToLower(sc), "https://graph.microsoft.com/")
	return sc
}

func hasScope(scopes []string, want string) bool {
	for _, sc := range scopes {
		if normScope(sc) == normScope(want) {
			return true
		}
	}
	return false
}

// idToken returns an unsigned JWT with the v2.0 claims of the "ID token
// claims reference"
// (https://learn.microsoft.com/entra/identity-platform/id-token-claims-reference):
// aud the client, iss and tid the user's tenant, oid the user's object
// id, sub a pairwise id (unique to the user and the application, so not
// the object id), and with the profile scope name and
// preferred_username (the user principal name), with the email scope
// email (the mail address, which the tenant's administrator sets).
// The identity platform signs its tokens (RS256); this one is unsigned,
// so a client that wants a signature fails here instead of trusting it.
func (s *Server) idToken(userID, clientID string, scopes []string) string {
	u := s.users[userID]
	now := s.now().Unix()
	pairwise := sha256.Sum256([]byte(u.ID + "|" + clientID))
	claims := map[string]any{
		"aud": clientID, "iss": "https://login.microsoftonline.com/" + u.TenantID + "/v2.0",
		"iat": now, "nbf": now, "exp": now + 3600,
		"oid": u.ID, "tid": u.TenantID, "sub": base64.RawURLEncoding.EncodeToString(pairwise[:]),
		"ver": "2.0",
	}
	if hasScope(scopes, "profile") {
		claims["name"], claims["preferred_username"] = u.DisplayName, u.UserPrincipalName
	}
	if hasScope(scopes, "email") && u.Mail != "" {
		claims["email"] = u.Mail
	}
	return fakekit.UnsignedJWT(claims)
}
