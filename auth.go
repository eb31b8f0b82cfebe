package unical

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/unical/unical/internal/oauthstate"
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
// no API key and the state we send to the provider carries the caller's
// state and login hint, so every parameter is bounded.
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
// provider URL to send the user's browser to. The flow uses PKCE (S256);
// it is sealed into the state sent to the provider (internal/oauthstate),
// so that starting one writes nothing and no number of callers can use up
// anything another caller's sign-in needs. The caller's state comes back
// unchanged at the end.
//
// HTTP: GET /v1/oauth/authorize/{app_id}/{provider_a|provider_b}
//
// Returns CodeInvalid naming the parameter when prompt, loginHint,
// redirectUrl or state is longer than its limit (32, 320, 2,048 and 2,048
// bytes), CodeNotFound for an unknown application, CodeInvalid naming
// redirectUrl when it is missing or not registered for the application, or
// prompt for a bad value, and CodeNotImplemented when the provider type has
// no OAuth provider or the server has no public URL.
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
	flow := oauthstate.New()
	flow.ApplicationID, flow.ProviderType, flow.RedirectHash = appID, string(t), oauthstate.RedirectHash(params.RedirectURL)
	flow.State, flow.LoginHint, flow.ExpiresAt = params.State, params.LoginHint, c.now().Add(c.flowTTL)
	return op.AuthCodeURL(settings, &AuthCodeRequest{
		RedirectURI:   c.publicURL + OAuthCallbackPath,
		State:         oauthstate.Seal(c.flows, flow),
		CodeChallenge: flow.Challenge(),
		Prompt:        params.Prompt,
		LoginHint:     params.LoginHint,
	})
}

// CompleteOAuth finishes a flow at the callback: it opens our state,
// records its id so that it works once, exchanges the code, creates or
// updates the account, and returns the application URL to redirect the
// browser to, with endUserAccountId and the caller's state. A denied
// consent, a failed exchange or an account other than the login hint
// (error=login_hint_mismatch, nothing saved) also returns a redirect, with
// error and error_description instead of endUserAccountId.
//
// The used ids are the only thing the flow writes (Store.CreateFlow, kept
// until the state expires): one per callback that brings a state we made,
// so nobody can fill a shared quota, and nobody can spend another user's
// state without holding it.
//
// HTTP: GET /v1/oauth/callback
//
// Returns CodeInvalid naming state when the state is forged, replayed or
// expired, or its redirectUrl is no longer registered: then there is
// nowhere trustworthy to redirect to.
func (c *Client) CompleteOAuth(ctx context.Context, params *OAuthCallbackParams) (string, error) {
	if params.State == "" {
		return "", invalidf("state", "state is required.")
	}
	flow, err := oauthstate.Open(c.flows, params.State)
	if err != nil {
		return "", invalidf("state", "state was not issued by this server.")
	}
	now := c.now().UTC()
	expired := invalidf("state", "This sign-in link was already used or has expired; start again.")
	if !now.Before(flow.ExpiresAt) {
		return "", expired
	}
	t := ProviderType(flow.ProviderType)
	app, err := c.application(ctx, flow.ApplicationID)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(app.RedirectURLs, func(u string) bool { return bytes.Equal(oauthstate.RedirectHash(u), flow.RedirectHash) })
	if i < 0 {
		return "", invalidf("state", "The redirectUrl of this sign-in is no longer registered for the application; start again.")
	}
	redirectURL := app.RedirectURLs[i]
	used := &OAuthFlow{ID: flow.ID, ApplicationID: flow.ApplicationID, ProviderType: t, CreatedAt: now, ExpiresAt: flow.ExpiresAt}
	if err := c.store.CreateFlow(ctx, used, 0); ErrorCode(err) == CodeConflict {
		return "", expired
	} else if err != nil {
		return "", err
	}
	fail := func(code, description string) (string, error) {
		return withQuery(redirectURL, url.Values{"error": {code}, "error_description": {description}, "state": {flow.State}}), nil
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
	p, err := c.provider(t)
	if err != nil {
		return "", err
	}
	op, ok := oauthOf(p)
	if !ok {
		return "", Errorf(CodeNotImplemented, "%s accounts do not connect through OAuth.", t)
	}
	settings, err := c.providerSettings(app, t)
	if err != nil {
		return "", err
	}
	conn, err := op.Exchange(ctx, settings, &CodeExchange{Code: params.Code, RedirectURI: c.publicURL + OAuthCallbackPath, CodeVerifier: flow.Verifier})
	if err != nil {
		c.log.WarnContext(ctx, "oauth code exchange failed", "app", flow.ApplicationID, "provider", t, "err", err)
		return fail("exchange_failed", "The authorization code could not be exchanged for tokens.")
	}
	if conn.Email == "" {
		return fail("exchange_failed", "The provider did not tell the account's email address.")
	}
	if flow.LoginHint != "" && !strings.EqualFold(conn.Email, flow.LoginHint) {
		return fail("login_hint_mismatch", "The user signed in with another account than loginHint; nothing was connected.")
	}
	a := &App{c: c, id: flow.ApplicationID}
	acct, err := a.saveConnection(ctx, t, conn.Email, Optional[string]{}, conn, "", Optional[RoomDetails]{})
	if err != nil {
		return "", err
	}
	return withQuery(redirectURL, url.Values{"endUserAccountId": {acct.ID}, "state": {flow.State}}), nil
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
