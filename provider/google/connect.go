package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
	"github.com/unical/unical/internal/adapter/oauthflow"
	"github.com/unical/unical/internal/identity"
)

// oauthConfig is the x/oauth2 configuration of one application. Google
// takes the client credentials in the form body (AuthStyleInParams), as
// golang.org/x/oauth2/google.Endpoint does; that package is not used
// because it drags in cloud metadata dependencies the module does not have.
func (p *Provider) oauthConfig(s unical.ProviderSettings, redirectURI string) *oauth2.Config {
	ep := endpointsFor(s)
	return &oauth2.Config{
		ClientID:     s.ClientID,
		ClientSecret: s.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: ep.auth, TokenURL: ep.token, AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL:  redirectURI,
		Scopes:       scopesFor(s),
	}
}

// googleErrors is Google's part of the token endpoint classification
// (RFC 6749 §5.2 codes as Google's OAuth guides use them):
// unauthorized_client means the grant was issued to another OAuth client,
// so the account must be connected again like after invalid_grant;
// invalid_client is the application's own misconfiguration.
var googleErrors = oauthflow.Errors{
	Revoked: []string{"unauthorized_client"},
	Client:  map[string]unical.Code{"invalid_client": unical.CodeUpstream},
	Reason:  googleReason,
}

// googleReason classifies Google's refused grants. Google answers
// invalid_grant "Token has been expired or revoked." for every cause its
// OAuth guide lists under "Refresh token expiration" (identity/protocols/
// oauth2#expiration): the user revoked access, six months unused, a
// password change with Gmail scopes, too many live refresh tokens, a
// session control policy, and the seven-day lifetime of refresh tokens
// issued to an app whose consent screen is in "Testing" publishing
// status. The answer does not tell these apart, so it is
// refresh_token_revoked; docs/api.md tells the application that one
// recurring a week after each connection is the Testing-mode expiry.
func googleReason(code, description string) unical.StatusReason {
	if code == "invalid_grant" && strings.Contains(strings.ToLower(description), "expired or revoked") {
		return unical.StatusReasonRefreshTokenRevoked
	}
	return unical.StatusReasonUnknown
}

// flow is the shared OAuth token path for one application's settings.
func (p *Provider) flow(s unical.ProviderSettings, redirectURI string) *oauthflow.Flow {
	return &oauthflow.Flow{
		Config:     p.oauthConfig(s, redirectURI),
		HTTPClient: p.client,
		Now:        p.now,
		Retry:      p.policy(),
		Name:       "Google",
		Errors:     googleErrors,
	}
}

// AuthCodeURL implements [unical.OAuthProvider]. The URL asks for offline
// access (a refresh token), the application's scopes (default: calendar,
// openid and email), incremental authorization, and carries the caller's
// PKCE S256 challenge, state, prompt and login hint.
//
// The prompt always includes consent unless the caller asked for none:
// with access_type=offline Google returns a refresh token only "the first
// time that your application exchanges an authorization code", and
// without prompt "the user will be prompted only the first time your
// project requests access" (web-server guide,
// https://developers.google.com/identity/protocols/oauth2/web-server). An
// account connected again after being removed here, or a Google account
// that already granted the same OAuth client elsewhere, would otherwise
// come back without a refresh token and stop working when its first
// access token expires.
func (p *Provider) AuthCodeURL(settings unical.ProviderSettings, req *unical.AuthCodeRequest) (string, error) {
	if settings.ClientID == "" {
		return "", unical.Errorf(unical.CodeInvalid, "The application has no Google OAuth client id configured.")
	}
	if req.RedirectURI == "" || req.CodeChallenge == "" {
		return "", unical.WrapError(unical.CodeInternal, errors.New("google: AuthCodeURL needs a redirect URI and a PKCE challenge"), "Internal error.")
	}
	opts := []oauth2.AuthCodeOption{
		oauth2.AccessTypeOffline,
		oauth2.SetAuthURLParam("code_challenge", req.CodeChallenge),
		oauth2.SetAuthURLParam("code_challenge_method", "S256"),
		oauth2.SetAuthURLParam("include_granted_scopes", "true"),
	}
	if prompt := withConsent(req.Prompt); prompt != "" {
		opts = append(opts, oauth2.SetAuthURLParam("prompt", prompt))
	}
	if req.LoginHint != "" {
		opts = append(opts, oauth2.SetAuthURLParam("login_hint", req.LoginHint))
	}
	return p.oauthConfig(settings, req.RedirectURI).AuthCodeURL(req.State, opts...), nil
}

// withConsent adds consent to a space-delimited prompt list, leaving none
// alone (it "must not be specified with other values").
func withConsent(prompt string) string {
	ps := strings.Fields(prompt)
	if slices.Contains(ps, "none") || slices.Contains(ps, "consent") {
		return prompt
	}
	return strings.Join(append(ps, "consent"), " ")
}

// Exchange implements [unical.OAuthProvider]: it redeems the code with the
// PKCE verifier, then reads the account's email and subject from the
// userinfo endpoint. A code Google refuses (unknown, spent, expired, wrong
// verifier) is CodeUnauthorized, and so is a grant without calendar access
// or without the email. The exchange is not retried: a code works once.
func (p *Provider) Exchange(ctx context.Context, settings unical.ProviderSettings, req *unical.CodeExchange) (*unical.Connection, error) {
	if settings.ClientID == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "The application has no Google OAuth client id configured.")
	}
	tok, err := p.flow(settings, req.RedirectURI).Exchange(ctx, req.Code, req.CodeVerifier)
	if err != nil {
		return nil, err
	}
	return p.connection(ctx, settings, tok)
}

// Connect implements [unical.Provider]: the refresh token is refreshed
// once and the identity behind it read from userinfo. A refresh token
// Google refuses is CodeUnauthorized, as is one that belongs to an account
// other than params.Email.
func (p *Provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	if params.RefreshToken == "" {
		return nil, &unical.Error{Code: unical.CodeUnauthorized, Field: "refreshToken", Message: "A Google account needs a refresh token."}
	}
	tok, err := p.flow(settings, "").Refresh(ctx, params.RefreshToken, unical.CodeUnauthorized)
	if err != nil {
		return nil, err
	}
	conn, err := p.connection(ctx, settings, tok)
	if err != nil {
		return nil, err
	}
	if params.Email != "" && !strings.EqualFold(params.Email, conn.Email) {
		return nil, unical.Errorf(unical.CodeUnauthorized, "The refresh token belongs to another Google account than %s.", params.Email)
	}
	return conn, nil
}

// ConnectDelegated implements [unical.DelegatedConnector]: it connects
// params.Email through the Workspace credential in params.Delegation,
// minting the user's token (JWT bearer
// grant, sub = the user: "Delegating domain-wide authority" in
// https://developers.google.com/identity/protocols/oauth2/service-account)
// and reading the user's primary calendar with it. There is no userinfo
// scope in the grant, so the account has no provider account id.
func (p *Provider) ConnectDelegated(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	c := p.conn(&unical.Session{Email: params.Email, Settings: settings, Delegation: params.Delegation})
	if err := c.do(ctx, "GET", c.api("/calendars/primary", nil), nil, nil); err != nil {
		return nil, delegation.ConnectError(err)
	}
	return &unical.Connection{Email: params.Email, Scopes: slices.Clone(delegation.GoogleScopes)}, nil
}

// RefreshToken implements [unical.TokenRefresher]: it always refreshes,
// persists the result through s.OnTokenRefresh and returns it. A revoked
// or expired grant is CodeAccountExpired (see testingExpiry).
func (p *Provider) RefreshToken(ctx context.Context, s *unical.Session) (unical.Token, error) {
	tok, err := p.flow(s.Settings, "").RefreshSession(ctx, s, s.Token)
	return tok, p.testingExpiry(s, err)
}

// testingLifetime is the lifetime of the refresh tokens Google issues to
// an OAuth app whose consent screen is in "Testing" publishing status
// (identity/protocols/oauth2, "Refresh token expiration").
const testingLifetime = 7 * 24 * time.Hour

// testingWindow is how long after testingLifetime a refused grant is
// still taken for the Testing-mode expiry: an account in use refreshes
// its token every hour, so it meets the expiry within hours of day
// seven; a refusal much later is more likely a revocation.
const testingWindow = 24 * time.Hour

// testingExpiry tells the seven-day expiry of Testing mode from a
// revocation, which Google answers with the same invalid_grant (see
// googleReason): a refusal that comes within a day after the refresh
// token turned seven days old (by s.RefreshIssued) is
// refresh_token_expired. A revocation in that day is reported as an
// expiry too; both ask the user to reconnect.
func (p *Provider) testingExpiry(s *unical.Session, err error) error {
	var e *unical.Error
	if !errors.As(err, &e) || e.Code != unical.CodeAccountExpired || e.Reason != unical.StatusReasonRefreshTokenRevoked || s.RefreshIssued.IsZero() {
		return err
	}
	if age := p.now().Sub(s.RefreshIssued); age < testingLifetime || age >= testingLifetime+testingWindow {
		return err
	}
	expired := *e
	expired.Reason = unical.StatusReasonRefreshTokenExpired
	return &expired
}

// connection reads the identity behind a fresh token and checks the grant.
func (p *Provider) connection(ctx context.Context, settings unical.ProviderSettings, ut unical.Token) (*unical.Connection, error) {
	if len(settings.Scopes) == 0 && ut.Scopes != nil && !slices.Contains(ut.Scopes, ScopeCalendar) {
		// Granular consent: the user may untick the calendar scope.
		return nil, unical.Errorf(unical.CodeUnauthorized, "The Google account did not grant access to its calendars.")
	}
	c := p.newConn(nil, settings, ut, unical.CodeUnauthorized)
	var info identity.Claims
	if err := c.do(ctx, "GET", c.ep.userinfo, nil, &info); err != nil {
		return nil, err
	}
	if info.Subject == "" || info.Email == "" {
		return nil, unical.Errorf(unical.CodeUnauthorized, "Google did not share the account's email address; the email scope is required.")
	}
	if !info.EmailVerified {
		// The OpenID Connect guide: email "may not be unique" and only
		// email_verified says Google checked it. An unverified address may
		// be anyone's, so it names no account here.
		return nil, unical.WrapError(unical.CodeUnauthorized, identity.ErrEmailUnverified, "Google has not verified the account's email address %s.", info.Email)
	}
	return &unical.Connection{
		Email:             info.Email,
		ProviderAccountID: info.Subject,
		VerifiedNames:     []string{info.Email},
		Scopes:            ut.Scopes,
		Token:             ut,
	}, nil
}

// endpoints are the URLs of one application's settings, defaults applied.
type endpoints struct {
	auth, token, userinfo, api, revoke string
}

func endpointsFor(s unical.ProviderSettings) endpoints {
	pick := func(v, def string) string {
		if v == "" {
			return def
		}
		return strings.TrimRight(v, "/")
	}
	return endpoints{
		auth:     pick(s.AuthURL, DefaultAuthURL),
		token:    pick(s.TokenURL, DefaultTokenURL),
		userinfo: pick(s.UserInfoURL, DefaultUserInfoURL),
		api:      pick(s.APIBaseURL, DefaultAPIBaseURL),
		revoke:   pick(s.RevokeURL, DefaultRevokeURL),
	}
}

// RevokeTimeout bounds one revocation request (RevokeGrant).
const RevokeTimeout = 5 * time.Second

// scopesFor returns the scopes to request for an application.
func scopesFor(s unical.ProviderSettings) []string {
	if len(s.Scopes) > 0 {
		return s.Scopes
	}
	return DefaultScopes
}

// RevokeGrant implements [unical.GrantRevoker] as the web-server guide's
// "Revoking a token" describes it: a form POST of token= to the revocation
// endpoint, which for a refresh token ends the whole grant (every access
// token issued from it too); 200 is success, and "for error conditions,
// an HTTP status code 400 is returned along with an error code". Without
// a refresh token the access token is revoked, which the guide says
// revokes its refresh token as well. A 400 invalid_token (a token already
// revoked or expired, as RFC 7009 §2.2.1 names the error) means the grant
// is gone, so it is success here. No answer, a 5xx (RFC 7009 §2.2.1: 503
// means the token may still exist and the client may retry later) and a
// 429 are CodeUnavailable and CodeRateLimited, which the Client retries
// through the outbox; any other refusal is CodeUpstream. It waits at most
// RevokeTimeout, so that an endpoint that hangs does not hold the DELETE
// of the account for the whole request deadline.
func (p *Provider) RevokeGrant(ctx context.Context, s *unical.Session) error {
	ctx, cancel := context.WithTimeout(ctx, RevokeTimeout)
	defer cancel()
	tok := s.Token.RefreshToken
	if tok == "" {
		tok = s.Token.AccessToken
	}
	if tok == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpointsFor(s.Settings).revoke,
		strings.NewReader(url.Values{"token": {tok}}.Encode()))
	if err != nil {
		return unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := p.client.Do(req)
	if err != nil {
		return unical.WrapError(unical.CodeUnavailable, err, "Google's revocation endpoint cannot be reached.")
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var answer struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &answer) // a body that is not JSON names no error
	// The answer names no token, so it may be logged.
	refused := fmt.Sprintf("Google refused the revocation: HTTP %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusBadRequest && answer.Error == "invalid_token":
		return nil // already revoked or expired: the grant is gone
	case resp.StatusCode == http.StatusTooManyRequests:
		return unical.Errorf(unical.CodeRateLimited, "%s", refused)
	case resp.StatusCode >= 500:
		return unical.Errorf(unical.CodeUnavailable, "%s", refused)
	}
	return unical.Errorf(unical.CodeUpstream, "%s", refused)
}
