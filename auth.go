package unical

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"slices"
)

// OAuthCallbackPath is where providers send the browser back after
// consent, under the Client's PublicURL.
const OAuthCallbackPath = "/v1/oauth/callback"

// AuthorizeParams are the query parameters of
// GET /v1/oauth/authorize/{app_id}/{provider}.
type AuthorizeParams struct {
	// Prompt is "consent", "select_account" or "none".
	Prompt string
	// LoginHint is the email the user is expected to sign in with.
	LoginHint string
	// RedirectURL is where the user returns; it must be registered for the
	// application.
	RedirectURL string
	// State is returned unchanged in the redirect.
	State string
}

// OAuthCallbackParams are the query parameters a provider sends to the
// callback.
type OAuthCallbackParams struct {
	State            string
	Code             string
	Error            string
	ErrorDescription string
}

var prompts = []string{"consent", "select_account", "none"}

// Length limits of the authorize parameters, in bytes. The endpoint needs
// no API key and each accepted call stores a flow, so every parameter that
// reaches the store is bounded (see MaxPendingFlows for the count).
const (
	// maxStateLength bounds the caller's state, which travels in URLs.
	maxStateLength = 2048
	// maxLoginHintLength fits any email address (RFC 5321 allows 64
	// bytes of local part, @ and 255 of domain).
	maxLoginHintLength = 320
	// maxRedirectURLLength is the common limit of URLs in browsers and
	// servers; the URL must also be registered, so this only answers early.
	maxRedirectURLLength = 2048
	// maxPromptLength only keeps a huge prompt from being compared; the
	// value must be one of prompts anyway.
	maxPromptLength = 32
)

// DefaultMaxPendingFlows is Config.MaxPendingFlows when it is zero.
const DefaultMaxPendingFlows = 1000

// checkAuthorizeLengths refuses authorize parameters longer than their
// limits, before anything is read or written.
func checkAuthorizeLengths(params *AuthorizeParams) error {
	for _, p := range []struct {
		name  string
		value string
		max   int
	}{
		{"prompt", params.Prompt, maxPromptLength},
		{"loginHint", params.LoginHint, maxLoginHintLength},
		{"redirectUrl", params.RedirectURL, maxRedirectURLLength},
		{"state", params.State, maxStateLength},
	} {
		if len(p.value) > p.max {
			return invalidf(p.name, "%s may be at most %d bytes long.", p.name, p.max)
		}
	}
	return nil
}

// AuthorizeURL starts an OAuth 2.0 flow for an application and returns the
// provider URL to send the user's browser to. The flow uses PKCE (S256) and
// a signed, single-use, expiring state of ours; the caller's state comes
// back unchanged at the end.
//
// HTTP: GET /v1/oauth/authorize/{app_id}/{provider_a|provider_b}
//
// Returns CodeInvalid naming the parameter when prompt, loginHint,
// redirectUrl or state is longer than its limit (32, 320, 2,048 and 2,048
// bytes), CodeNotFound for an unknown application, CodeInvalid naming
// redirectUrl when it is missing or not registered for the application, or
// prompt for a bad value, CodeRateLimited (with RetryAfter) when the
// application already has Config.MaxPendingFlows flows in progress, and
// CodeNotImplemented when the provider type has no OAuth provider or the
// server has no public URL.
func (c *Client) AuthorizeURL(ctx context.Context, appID string, t ProviderType, params *AuthorizeParams) (string, error) {
	if err := checkAuthorizeLengths(params); err != nil {
		return "", err
	}
	app, err := c.application(ctx, appID)
	if err != nil {
		return "", err
	}
	p, err := c.provider(t)
	if err != nil {
		return "", err
	}
	op, ok := oauthOf(p)
	if !ok {
		return "", Errorf(CodeNotImplemented, "%s accounts do not connect through OAuth.", t)
	}
	if params.RedirectURL == "" {
		return "", invalidf("redirectUrl", "redirectUrl is required.")
	}
	if !slices.Contains(app.RedirectURLs, params.RedirectURL) {
		return "", invalidf("redirectUrl", "redirectUrl is not registered for this application.")
	}
	if err := checkEnum("prompt", params.Prompt, prompts); err != nil {
		return "", err
	}
	if c.publicURL == "" {
		return "", Errorf(CodeNotImplemented, "The server has no public URL configured, so it cannot receive OAuth callbacks.")
	}
	settings, err := c.providerSettings(app, t)
	if err != nil {
		return "", err
	}
	verifier := make([]byte, 32)
	if _, err := rand.Read(verifier); err != nil {
		panic("unical: no randomness: " + err.Error())
	}
	verifierText := base64.RawURLEncoding.EncodeToString(verifier)
	challenge := sha256.Sum256([]byte(verifierText))
	now := c.now().UTC()
	flow := &OAuthFlow{
		ID: newID("flow"), ApplicationID: appID, ProviderType: t, RedirectURL: params.RedirectURL,
		State: params.State, LoginHint: params.LoginHint, CreatedAt: now, ExpiresAt: now.Add(c.flowTTL),
	}
	flow.SealedVerifier = c.flows.Seal([]byte(verifierText), []byte("verifier/"+flow.ID))
	if err := c.store.CreateFlow(ctx, flow, c.sweep.maxPendingFlows); err != nil {
		return "", err
	}
	return op.AuthCodeURL(settings, &AuthCodeRequest{
		RedirectURI:   c.publicURL + OAuthCallbackPath,
		State:         c.flows.SealString([]byte(flow.ID), []byte("state")),
		CodeChallenge: base64.RawURLEncoding.EncodeToString(challenge[:]),
		Prompt:        params.Prompt,
		LoginHint:     params.LoginHint,
	})
}

// CompleteOAuth finishes a flow at the callback: it checks our state, takes
// the flow (so it cannot be replayed), exchanges the code, creates or
// updates the account, and returns the application URL to redirect the
// browser to, with endUserAccountId and the caller's state. A denied consent
// or a failed exchange also returns a redirect, with error and
// error_description instead of endUserAccountId.
//
// HTTP: GET /v1/oauth/callback
//
// Returns CodeInvalid naming state when the state is forged, replayed or
// expired: then there is nowhere trustworthy to redirect to.
func (c *Client) CompleteOAuth(ctx context.Context, params *OAuthCallbackParams) (string, error) {
	if params.State == "" {
		return "", invalidf("state", "state is required.")
	}
	id, err := c.flows.OpenString(params.State, []byte("state"))
	if err != nil {
		return "", invalidf("state", "state was not issued by this server.")
	}
	flow, err := c.store.ConsumeFlow(ctx, string(id), c.now())
	if ErrorCode(err) == CodeNotFound {
		return "", invalidf("state", "This sign-in link was already used or has expired; start again.")
	}
	if err != nil {
		return "", err
	}
	fail := func(code, description string) (string, error) {
		return withQuery(flow.RedirectURL, url.Values{"error": {code}, "error_description": {description}, "state": {flow.State}}), nil
	}
	if params.Error != "" {
		if params.Error == "access_denied" {
			return fail("access_denied", "The user did not grant access.")
		}
		return fail(params.Error, "The provider refused the sign-in.")
	}
	if params.Code == "" {
		return fail("invalid_request", "The provider sent no authorization code.")
	}
	app, err := c.application(ctx, flow.ApplicationID)
	if err != nil {
		return "", err
	}
	p, err := c.provider(flow.ProviderType)
	if err != nil {
		return "", err
	}
	op, ok := oauthOf(p)
	if !ok {
		return "", Errorf(CodeNotImplemented, "%s accounts do not connect through OAuth.", flow.ProviderType)
	}
	settings, err := c.providerSettings(app, flow.ProviderType)
	if err != nil {
		return "", err
	}
	verifier, err := c.flows.Open(flow.SealedVerifier, []byte("verifier/"+flow.ID))
	if err != nil {
		return "", WrapError(CodeInternal, err, "Internal error.")
	}
	conn, err := op.Exchange(ctx, settings, &CodeExchange{Code: params.Code, RedirectURI: c.publicURL + OAuthCallbackPath, CodeVerifier: string(verifier)})
	if err != nil {
		c.log.WarnContext(ctx, "oauth code exchange failed", "app", flow.ApplicationID, "provider", flow.ProviderType, "err", err)
		return fail("exchange_failed", "The authorization code could not be exchanged for tokens.")
	}
	if conn.Email == "" {
		return fail("exchange_failed", "The provider did not tell the account's email address.")
	}
	a := &App{c: c, id: flow.ApplicationID}
	acct, err := a.saveConnection(ctx, flow.ProviderType, conn.Email, Optional[string]{}, conn, "")
	if err != nil {
		return "", err
	}
	return withQuery(flow.RedirectURL, url.Values{"endUserAccountId": {acct.ID}, "state": {flow.State}}), nil
}

// withQuery adds values to a URL's query, keeping what it has.
func withQuery(raw string, values url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for k, vs := range values {
		if len(vs) == 1 && vs[0] == "" && k == "state" {
			continue
		}
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}
