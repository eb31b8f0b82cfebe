package microsoft

import (
	"context"
	"errors"
	"slices"
	"strings"

	"golang.org/x/oauth2"
	oauthms "golang.org/x/oauth2/microsoft"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
	"github.com/unical/unical/internal/adapter/oauthflow"
	"github.com/unical/unical/internal/identity"
)

// Microsoft's prompt values for unical's (v2 authorize endpoint: login,
// none, consent, select_account).
var prompts = map[string]string{
	"consent":        "consent",
	"select_account": "select_account",
	"none":           "none",
}

// AuthCodeURL returns the identity platform's authorize URL for req: the
// authorization code flow with a PKCE S256 challenge, response_mode=query,
// and prompt and login_hint passed on.
func (p *Provider) AuthCodeURL(settings unical.ProviderSettings, req *unical.AuthCodeRequest) (string, error) {
	if settings.ClientID == "" {
		return "", unical.Errorf(unical.CodeInvalid, "The application has no Microsoft client id.")
	}
	if req.CodeChallenge == "" {
		return "", unical.Errorf(unical.CodeInternal, "microsoft: authorization request without a PKCE challenge")
	}
	opts := []oauth2.AuthCodeOption{
		oauth2.SetAuthURLParam("response_mode", "query"),
		oauth2.SetAuthURLParam("code_challenge", req.CodeChallenge),
		oauth2.SetAuthURLParam("code_challenge_method", "S256"),
	}
	if req.Prompt != "" {
		v, ok := prompts[req.Prompt]
		if !ok {
			return "", unical.FieldError("prompt", "prompt must be one of consent, select_account, none.")
		}
		opts = append(opts, oauth2.SetAuthURLParam("prompt", v))
	}
	if req.LoginHint != "" {
		opts = append(opts, oauth2.SetAuthURLParam("login_hint", req.LoginHint))
	}
	return oauthConfig(settings, req.RedirectURI).AuthCodeURL(req.State, opts...), nil
}

// Exchange redeems an authorization code with its PKCE verifier and reads
// the signed-in user's profile. A refused code is CodeUnauthorized; an
// application without a client id is CodeInvalid before any request.
func (p *Provider) Exchange(ctx context.Context, settings unical.ProviderSettings, req *unical.CodeExchange) (*unical.Connection, error) {
	if settings.ClientID == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "The application has no Microsoft client id.")
	}
	tok, idToken, err := p.flow(settings, req.RedirectURI).ExchangeIDToken(ctx, req.Code, req.CodeVerifier)
	if err != nil {
		return nil, err
	}
	return p.connection(ctx, settings, tok, idToken)
}

// Connect checks a refresh token by redeeming it once and reads the
// profile behind it. Microsoft accounts have no passwords here: a password
// is CodeInvalid, a refused refresh token CodeUnauthorized.
func (p *Provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	if params.RefreshToken == "" {
		if params.Password != "" {
			return nil, unical.FieldError("password", "Microsoft accounts connect with a refresh token, not a password.")
		}
		return nil, unical.FieldError("refreshToken", "refreshToken is required for Microsoft accounts.")
	}
	tok, idToken, err := p.flow(settings, "").RefreshIDToken(ctx, params.RefreshToken, unical.CodeUnauthorized)
	if err != nil {
		return nil, err
	}
	return p.connection(ctx, settings, tok, idToken)
}

// ConnectDelegated implements [unical.DelegatedConnector]: it connects
// params.Email through the tenant credential in params.Delegation,
// minting the app-only token (client credentials
// grant, https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow)
// and reading the user (GET /users/{userPrincipalName}, which needs
// User.Read.All) for the object id every later call names, and its
// calendar. A user or mailbox the tenant does not have is CodeInvalid
// naming email; a credential refused or without the administrator's
// consent, naming providerType.
func (p *Provider) ConnectDelegated(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	c := p.client(&unical.Session{Email: params.Email, Settings: settings, Delegation: params.Delegation})
	var u user
	err := c.do(ctx, request{method: "GET", target: "/me"}, &u)
	if err == nil {
		// A user without a mailbox has no calendar to work with.
		err = c.do(ctx, request{method: "GET", target: "/me/calendar"}, nil)
	}
	switch code := unical.ErrorCode(err); {
	case code == "":
	case code == unical.CodeNotFound:
		return nil, &unical.Error{Code: unical.CodeInvalid, Field: "email", Message: "Microsoft 365 has no such user, or no mailbox for it, in the tenant.", Err: err}
	case code == unical.CodeInvalid || errors.Is(err, errConsentWithdrawn):
		return nil, &unical.Error{Code: unical.CodeInvalid, Field: "providerType", Err: err,
			Message: "Microsoft Graph refused the application's delegation credential: a tenant administrator must grant its permissions (Calendars.ReadWrite, User.Read.All)."}
	default:
		return nil, delegation.ConnectError(err)
	}
	if u.ID == "" {
		return nil, unical.Errorf(unical.CodeUpstream, "Microsoft Graph answered without the user's id.")
	}
	// The tenant's own directory answered for its user principal name.
	return &unical.Connection{Email: params.Email, ProviderAccountID: u.ID, VerifiedNames: []string{u.UserPrincipalName},
		Scopes: []string{delegation.GraphScope}}, nil
}

// RefreshToken implements [unical.TokenRefresher]: it always refreshes,
// persists the result (a rotated refresh token included) through
// s.OnTokenRefresh and returns it. A refused grant is CodeAccountExpired.
func (p *Provider) RefreshToken(ctx context.Context, s *unical.Session) (unical.Token, error) {
	return p.flow(s.Settings, "").RefreshSession(ctx, s, s.Token)
}

// microsoftErrors is Microsoft's part of the token endpoint
// classification. The identity platform answers invalid_grant for revoked,
// expired and unknown refresh tokens, and interaction_required or
// consent_required when the user or an administrator withdrew consent or a
// policy demands a new sign-in (v2-oauth2-auth-code-flow.md, "Error
// codes for token endpoint errors"): the account must be connected again.
// invalid_client and unauthorized_client refuse the application itself.
var microsoftErrors = oauthflow.Errors{
	Revoked: []string{"interaction_required", "consent_required"},
	Client: map[string]unical.Code{
		"invalid_client":      unical.CodeUnauthorized,
		"unauthorized_client": unical.CodeUnauthorized,
	},
	Reason: microsoftReason,
}

// aadstsReasons maps the Microsoft Entra STS error codes that end a
// refresh token to a status reason. The numbers are from "Microsoft Entra
// authentication and authorization error codes"
// (learn.microsoft.com/entra/identity-platform/reference-error-codes);
// the token endpoint puts the code at the start of error_description
// ("AADSTS700082: The refresh token has expired due to inactivity...").
// Microsoft warns that the codes may change; an unknown one is simply
// "unknown", and the account expires all the same.
var aadstsReasons = map[string]unical.StatusReason{
	"AADSTS70008":  unical.StatusReasonRefreshTokenExpired, // ExpiredOrRevokedGrant: expired for inactivity
	"AADSTS700082": unical.StatusReasonRefreshTokenExpired, // ExpiredOrRevokedGrantInactiveToken: expired for inactivity
	"AADSTS50173":  unical.StatusReasonRefreshTokenRevoked, // FreshTokenNeeded: the grant was revoked (an admin or the user revoked tokens, a password reset)
	"AADSTS50133":  unical.StatusReasonRefreshTokenRevoked, // SsoArtifactInvalidOrExpired: session invalid after a password change
	"AADSTS65001":  unical.StatusReasonConsentRevoked,      // DelegationDoesNotExist: the user or administrator has not consented
	"AADSTS65004":  unical.StatusReasonConsentRevoked,      // UserDeclinedConsent
	"AADSTS50076":  unical.StatusReasonPolicy,              // UserStrongAuthClientAuthNRequired: an admin now requires MFA
	"AADSTS50079":  unical.StatusReasonPolicy,              // UserStrongAuthEnrollmentRequired: MFA registration required
	"AADSTS53003":  unical.StatusReasonPolicy,              // BlockedByConditionalAccess
	"AADSTS70043":  unical.StatusReasonPolicy,              // BadTokenDueToInteractionRequired: conditional access sign-in frequency
}

// microsoftReason classifies Microsoft's refused grants by the AADSTS
// code at the start of error_description; without one, consent_required
// is consent_revoked and interaction_required is policy (the identity
// platform's token endpoint error table, v2-oauth2-auth-code-flow).
func microsoftReason(code, description string) unical.StatusReason {
	aadsts, _, _ := strings.Cut(description, ":")
	if r, ok := aadstsReasons[strings.TrimSpace(aadsts)]; ok {
		return r
	}
	switch code {
	case "consent_required":
		return unical.StatusReasonConsentRevoked
	case "interaction_required":
		return unical.StatusReasonPolicy
	}
	return unical.StatusReasonUnknown
}

// flow is the shared OAuth token path for one application's settings.
func (p *Provider) flow(settings unical.ProviderSettings, redirectURI string) *oauthflow.Flow {
	return &oauthflow.Flow{
		Config:     oauthConfig(settings, redirectURI),
		HTTPClient: p.httpClient,
		Now:        p.now,
		Retry:      p.policy(),
		Name:       "Microsoft",
		Errors:     microsoftErrors,
	}
}

// connection reads /me with tok: the account's email is mail, or the
// userPrincipalName when the mailbox has no mail address; the provider
// account id is the user's object id, and the tenant the ID token's tid.
// mail is whatever the user's tenant administrator set, so only the
// userPrincipalName (in a domain the tenant verified) and the ID token's
// preferred_username are verified names. Without an ID token (settings
// whose scopes lack openid, a refresh token granted without it) the
// tenant is unknown and the account is bound to the object id alone.
func (p *Provider) connection(ctx context.Context, settings unical.ProviderSettings, tok unical.Token, idToken string) (*unical.Connection, error) {
	s := &unical.Session{Settings: settings, Token: tok}
	c := p.client(s)
	var u user
	if err := c.do(ctx, request{method: "GET", target: "/me"}, &u); err != nil {
		if unical.ErrorCode(err) == unical.CodeAccountExpired {
			return nil, unical.WrapError(unical.CodeUnauthorized, err, "Microsoft Graph refused the new access token.")
		}
		return nil, err
	}
	email := u.Mail
	if email == "" {
		email = u.UserPrincipalName
	}
	if c.tokens.Refreshed {
		tok = c.tokens.Current
	}
	conn := &unical.Connection{Email: email, ProviderAccountID: u.ID, VerifiedNames: []string{u.UserPrincipalName}, Scopes: tok.Scopes, Token: tok}
	if idToken != "" {
		claims, err := identity.DecodeIDToken(idToken, settings.ClientID)
		if err != nil {
			return nil, unical.WrapError(unical.CodeUpstream, err, "Microsoft's token endpoint answered with an ID token unical cannot read.")
		}
		conn.TenantID = claims.TenantID
		if claims.PreferredUsername != "" {
			conn.VerifiedNames = append(conn.VerifiedNames, claims.PreferredUsername)
		}
	}
	return conn, nil
}

// oauthConfig returns the x/oauth2 configuration of settings. The token
// endpoint is told the client authenticates with form parameters, which
// both confidential and public Microsoft clients accept.
func oauthConfig(settings unical.ProviderSettings, redirectURI string) *oauth2.Config {
	tenant := settings.Tenant
	if tenant == "" {
		tenant = DefaultTenant
	}
	ep := oauthms.AzureADEndpoint(tenant)
	if settings.AuthURL != "" {
		ep.AuthURL = settings.AuthURL
	}
	if settings.TokenURL != "" {
		ep.TokenURL = settings.TokenURL
	}
	ep.AuthStyle = oauth2.AuthStyleInParams
	scopes := settings.Scopes
	if len(scopes) == 0 {
		scopes = DefaultScopes
	}
	// openid brings the ID token with the tenant (tid) the account is
	// bound to, profile its preferred_username (id-token-claims-reference);
	// both are asked for whatever the application's scopes say.
	for _, sc := range []string{"openid", "profile"} {
		if !slices.Contains(scopes, sc) {
			scopes = append(slices.Clip(scopes), sc)
		}
	}
	return &oauth2.Config{
		ClientID:     settings.ClientID,
		ClientSecret: settings.ClientSecret,
		Endpoint:     ep,
		RedirectURL:  redirectURI,
		Scopes:       scopes,
	}
}
