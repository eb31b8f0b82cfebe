package microsoft

import (
	"context"

	"golang.org/x/oauth2"

	"github.com/unical/unical"
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
// the signed-in user's profile. A refused code is CodeUnauthorized.
func (p *Provider) Exchange(ctx context.Context, settings unical.ProviderSettings, req *unical.CodeExchange) (*unical.Connection, error) {
	cfg := oauthConfig(settings, req.RedirectURI)
	ot, err := cfg.Exchange(p.withClient(ctx), req.Code, oauth2.VerifierOption(req.CodeVerifier))
	if err != nil {
		return nil, tokenError(err, unical.CodeUnauthorized)
	}
	return p.connection(ctx, settings, fromOAuth(ot))
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
	tok, err := refresh(p.withClient(ctx), settings, params.RefreshToken, unical.CodeUnauthorized)
	if err != nil {
		return nil, err
	}
	return p.connection(ctx, settings, tok)
}

// connection reads /me with tok: the account's email is mail, or the
// userPrincipalName when the mailbox has no mail address; the provider
// account id is the user's object id.
func (p *Provider) connection(ctx context.Context, settings unical.ProviderSettings, tok unical.Token) (*unical.Connection, error) {
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
	if c.refreshed {
		tok = c.token
	}
	return &unical.Connection{Email: email, ProviderAccountID: u.ID, Scopes: tok.Scopes, Token: tok}, nil
}
