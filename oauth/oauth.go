// Package oauth runs the browser leg of connecting an account through
// OAuth 2.0 (RFC 6749 §4.1, with PKCE, RFC 7636): [AuthorizeURL] sends the
// user to the provider, [Complete] takes the provider's callback, saves
// the account and sends the user back to the application.
//
// The flow is sealed into the state sent to the provider
// (internal/oauthstate), so that starting one writes nothing and no
// number of callers can use up anything another caller's sign-in needs.
// The Client supplies the provider, the application's settings and the
// sealing key ([unical.Client.OAuthProvider], [unical.Client.OAuthStates]);
// the account is saved by [unical.App.SaveOAuthConnection]. Package httpapi
// serves both legs.
package oauth

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/identity"
	"github.com/unical/unical/internal/oauthstate"
)

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

// CallbackParams are the query parameters a provider sends to the
// callback.
type CallbackParams struct {
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

// checkLengths refuses authorize parameters longer than their limits,
// before anything is read or written.
func checkLengths(params *AuthorizeParams) error {
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
			return unical.FieldError(p.name, "%s may be at most %d bytes long.", p.name, p.max)
		}
	}
	return nil
}

// AuthorizeURL starts an OAuth 2.0 flow for an application and returns the
// provider URL to send the user's browser to. The caller's state comes
// back unchanged at the end.
//
// HTTP: GET /v1/oauth/authorize/{app_id}/{provider_a|provider_b}
//
// Returns CodeInvalid naming the parameter when prompt, loginHint,
// redirectUrl or state is longer than its limit (32, 320, 2,048 and 2,048
// bytes), CodeNotFound for an unknown application, CodeInvalid naming
// redirectUrl when it is missing or not registered for the application, or
// prompt for a bad value, and CodeNotImplemented when the provider type has
// no OAuth provider or the server has no public URL.
func AuthorizeURL(ctx context.Context, c *unical.Client, appID string, t unical.ProviderType, params *AuthorizeParams) (string, error) {
	if err := checkLengths(params); err != nil {
		return "", err
	}
	app, op, settings, err := oauthProvider(ctx, c, appID, t)
	if err != nil {
		return "", err
	}
	if params.RedirectURL == "" {
		return "", unical.FieldError("redirectUrl", "redirectUrl is required.")
	}
	if !slices.Contains(app.RedirectURLs, params.RedirectURL) {
		return "", unical.FieldError("redirectUrl", "redirectUrl is not registered for this application.")
	}
	if params.Prompt != "" && !slices.Contains(prompts, params.Prompt) {
		return "", &unical.Error{Code: unical.CodeInvalid, Field: "prompt", Allowed: prompts,
			Message: "prompt must be one of " + strings.Join(prompts, ", ") + "."}
	}
	callback := c.Config().OAuthCallbackURL()
	if callback == "" {
		return "", unical.Errorf(unical.CodeNotImplemented, "The server has no public URL configured, so it cannot receive OAuth callbacks.")
	}
	flow := oauthstate.New()
	flow.ApplicationID, flow.ProviderType, flow.RedirectHash = appID, string(t), oauthstate.RedirectHash(params.RedirectURL)
	flow.State, flow.LoginHint, flow.ExpiresAt = params.State, params.LoginHint, c.Config().Now().Add(c.Config().FlowTTL)
	return op.AuthCodeURL(settings, &unical.AuthCodeRequest{
		RedirectURI:   callback,
		State:         oauthstate.Seal(c.Keys().OAuthStates(), flow),
		CodeChallenge: flow.Challenge(),
		Prompt:        params.Prompt,
		LoginHint:     params.LoginHint,
	})
}

// Complete finishes a flow at the callback: it opens our state, records
// its id so that it works once, exchanges the code, creates or updates the
// account, and returns the application URL to redirect the browser to,
// with endUserAccountId and the caller's state. A denied consent, a failed
// exchange, an email the provider has not verified (error=email_unverified),
// a sign-in name other than the login hint (error=login_hint_mismatch) or
// another identity than the account with its email is bound to
// (error=account_conflict) also returns a redirect, with error and
// error_description instead of endUserAccountId; nothing is saved then.
//
// The used ids are the only thing the flow writes (Store.CreateFlow, kept
// until the state expires): one per callback that brings a state we made
// and a code, so nobody can fill a shared quota, and nobody can spend
// another user's state without holding it. The provider's error is passed
// on only as one of the codes of providerErrorCode.
//
// HTTP: GET /v1/oauth/callback
//
// Returns CodeInvalid naming state when the state is forged, replayed or
// expired, or its redirectUrl is no longer registered: then there is
// nowhere trustworthy to redirect to.
func Complete(ctx context.Context, c *unical.Client, params *CallbackParams) (string, error) {
	if params.State == "" {
		return "", unical.FieldError("state", "state is required.")
	}
	flow, err := oauthstate.Open(c.Keys().OAuthStates(), params.State)
	if err != nil {
		return "", unical.FieldError("state", "state was not issued by this server.")
	}
	now := c.Config().Now().UTC()
	expired := unical.FieldError("state", "This sign-in link was already used or has expired; start again.")
	if !now.Before(flow.ExpiresAt) {
		return "", expired
	}
	t := unical.ProviderType(flow.ProviderType)
	app, err := c.Application(ctx, flow.ApplicationID)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(app.RedirectURLs, func(u string) bool { return bytes.Equal(oauthstate.RedirectHash(u), flow.RedirectHash) })
	if i < 0 {
		return "", unical.FieldError("state", "The redirectUrl of this sign-in is no longer registered for the application; start again.")
	}
	redirectURL := app.RedirectURLs[i]
	fail := func(code, description string) (string, error) {
		return withQuery(redirectURL, url.Values{"error": {code}, "error_description": {description}, "state": {flow.State}}), nil
	}
	if params.Error != "" {
		if params.Error == "access_denied" {
			return fail("access_denied", "The user did not grant access.")
		}
		return fail(providerErrorCode(params.Error), "The provider refused the sign-in.")
	}
	if params.Code == "" {
		return fail("invalid_request", "The provider sent no authorization code.")
	}
	// Only a callback with a code can connect an account, so only it
	// spends the state; one that brings an error changes nothing and may
	// come again.
	used := &unical.OAuthFlow{ID: flow.ID, ApplicationID: flow.ApplicationID, ProviderType: t, CreatedAt: now, ExpiresAt: flow.ExpiresAt}
	if err := c.Store().CreateFlow(ctx, used, 0); unical.ErrorCode(err) == unical.CodeConflict {
		return "", expired
	} else if err != nil {
		return "", err
	}
	_, op, settings, err := oauthProvider(ctx, c, flow.ApplicationID, t)
	if err != nil {
		return "", err
	}
	conn, err := op.Exchange(ctx, settings, &unical.CodeExchange{Code: params.Code, RedirectURI: c.Config().OAuthCallbackURL(), CodeVerifier: flow.Verifier})
	if errors.Is(err, identity.ErrEmailUnverified) {
		return fail("email_unverified", "The provider has not verified the account's email address; nothing was connected.")
	}
	if err != nil {
		c.Config().Logger.WarnContext(ctx, "oauth code exchange failed", "app", flow.ApplicationID, "provider", t, "err", err)
		return fail("exchange_failed", "The authorization code could not be exchanged for tokens.")
	}
	if conn.Email == "" {
		return fail("exchange_failed", "The provider did not tell the account's email address.")
	}
	if flow.LoginHint != "" && !identity.HasName(conn.VerifiedNames, flow.LoginHint) {
		return fail("login_hint_mismatch", "The user signed in with another account than loginHint; nothing was connected.")
	}
	a, err := c.App(ctx, flow.ApplicationID)
	if err != nil {
		return "", err
	}
	acct, err := a.SaveOAuthConnection(ctx, t, conn)
	if errors.Is(err, identity.ErrOtherSubject) {
		c.Config().Logger.WarnContext(ctx, "oauth sign-in of another identity than the account with its email", "app", flow.ApplicationID, "provider", t)
		return fail("account_conflict", "The account with this email address belongs to another identity at the provider; nothing was changed.")
	}
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

// oauthProvider returns application appID (read through the Client's
// cache; the caller must not change it), the OAuthProvider of provider
// type t, and the application's settings for it with the client secret
// opened. Returns CodeNotFound for an unknown application and
// CodeNotImplemented when type t has no OAuth provider.
func oauthProvider(ctx context.Context, c *unical.Client, appID string, t unical.ProviderType) (*unical.Application, unical.OAuthProvider, unical.ProviderSettings, error) {
	app, err := c.Application(ctx, appID)
	if err != nil {
		return nil, nil, unical.ProviderSettings{}, err
	}
	p, err := c.Provider(t)
	if err != nil {
		return nil, nil, unical.ProviderSettings{}, err
	}
	op, ok := unical.OAuthOf(p)
	if !ok {
		return nil, nil, unical.ProviderSettings{}, unical.Errorf(unical.CodeNotImplemented, "%s accounts do not connect through OAuth.", t)
	}
	settings, err := c.ProviderSettings(app, t)
	if err != nil {
		return nil, nil, unical.ProviderSettings{}, err
	}
	return app, op, settings, nil
}

// providerErrors are the error codes an authorization endpoint may send
// back (RFC 6749 §4.1.2.1 and OpenID Connect Core 1.0 §3.1.2.6); they are
// passed on to the application as they are.
var providerErrors = []string{
	"invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type",
	"invalid_scope", "server_error", "temporarily_unavailable",
	"interaction_required", "login_required", "account_selection_required", "consent_required",
	"invalid_request_uri", "invalid_request_object", "request_not_supported",
	"request_uri_not_supported", "registration_not_supported",
}

// providerErrorCode is the error code the application's redirect carries
// for the error parameter a provider sent to the callback: one of the
// codes of RFC 6749 and OpenID Connect as it is, provider_error for
// anything else. The parameter comes through the user's browser, so
// anyone can put anything there; the application only ever sees a known
// word.
func providerErrorCode(code string) string {
	if slices.Contains(providerErrors, code) {
		return code
	}
	return "provider_error"
}
