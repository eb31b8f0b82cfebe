package unical

import (
	"context"
	"strings"

	"github.com/unical/unical/internal/seal"
)

// This file holds what the operator side (package admin, which the admin
// API, the dashboard and unicald's commands use) needs of the Client: the
// sealing of an application's secrets with the Client's key, the dropping
// of cached applications and keys after a change, and the provider part
// of a settings check. The operator's operations themselves, and the
// operator token, live in package admin.

// SettingsChecker is a Provider that can try an application's settings
// without an account: that its token endpoint answers and takes the
// client id and secret, or that its CalDAV server is found. The admin
// API's check action uses it.
type SettingsChecker interface {
	// CheckSettings tries settings (client secret included) and returns
	// what is wrong, each problem naming the setting at fault, and what
	// was found to work. redirectURI is the OAuth callback URL.
	CheckSettings(ctx context.Context, settings ProviderSettings, redirectURI string) (ok []string, problems []SettingsProblem)
}

// settingsCheckerOf returns the provider p wraps as a SettingsChecker:
// the check is not a call on an account, so it is not measured.
func settingsCheckerOf(p Provider) (SettingsChecker, bool) {
	sc, ok := unwrapped(p).(SettingsChecker)
	return sc, ok
}

// SettingsProblem is one thing wrong with an application's provider
// settings or the server's set-up, with the field or setting at fault
// (clientId, clientSecret, tokenUrl, serverUrl, tenant, redirectUrls,
// publicUrl) and a sentence saying what to do.
type SettingsProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// APIKeyPrefix starts every API key: "uk_<key id>_<secret>".
const APIKeyPrefix = apiKeyPrefix

// Invalidate drops an application and API keys from this Client's caches
// after the operator side changed or deleted them in the Store, so that
// the change takes effect here at once (and on other replicas once the
// Store's version moves, within Config.CacheTTL at most).
func (c *Client) Invalidate(appID string, keyIDs ...string) {
	if appID != "" {
		c.apps.Drop(appID)
	}
	for _, id := range keyIDs {
		c.apiKeys.Drop(strings.TrimPrefix(id, storedKeyPrefix))
		c.keysUsed.Forget(id)
	}
}

// SealClientSecret seals an OAuth client secret of app for provider type
// t into app.SealedSecrets; an empty secret removes it.
func (c *Client) SealClientSecret(app *Application, t ProviderType, secret string) {
	if secret == "" {
		delete(app.SealedSecrets, t)
		return
	}
	if app.SealedSecrets == nil {
		app.SealedSecrets = map[ProviderType][]byte{}
	}
	app.SealedSecrets[t] = c.credentials.Seal([]byte(secret), seal.ClientSecretBinding(app.ID, string(t)))
}

// SealDelegation seals the secret of app's delegation credential for
// provider type t, bound to both.
func (c *Client) SealDelegation(app *Application, t ProviderType, secret []byte) []byte {
	return c.credentials.Seal(secret, seal.DelegationBinding(app.ID, string(t)))
}

// OpenDelegation opens what SealDelegation sealed for app and t.
func (c *Client) OpenDelegation(app *Application, t ProviderType, sealed []byte) ([]byte, error) {
	return c.credentials.Open(sealed, seal.DelegationBinding(app.ID, string(t)))
}

// NewWebhookSecret gives app's own webhook endpoint a new whsec_ signing
// secret, sealed into app.SealedWebhookSecret, and returns it to be shown
// once.
func (c *Client) NewWebhookSecret(app *Application) string {
	secret := newEndpointSecret()
	app.SealedWebhookSecret = c.credentials.Seal([]byte(secret), seal.WebhookSecretBinding(app.ID))
	return secret
}

// CheckWebhookURL checks a webhook URL as subscriptions' URLs are
// checked: absolute https, and no private address unless
// Config.AllowPrivateTargets. Returns CodeInvalid naming field.
func (c *Client) CheckWebhookURL(field, raw string) error { return c.checkWebhookURL(field, raw) }

// CheckTargetHost refuses a URL whose host is a loopback, private or
// link-local IP literal, or localhost, unless Config.AllowPrivateTargets,
// with the webhook URL's CodeInvalid naming field.
func (c *Client) CheckTargetHost(field, raw string) error { return c.checkTargetHost(field, raw) }

// CurrentWebhookState is the delivery state of the application's current
// webhook URL.
func (app *Application) CurrentWebhookState() EndpointState { return app.webhookState() }

// OAuthCallbackURL is the OAuth redirect URI to register at Google and
// Microsoft, built from Config.PublicURL; "" when there is none.
func (c *Client) OAuthCallbackURL() string {
	if c.publicURL == "" {
		return ""
	}
	return c.publicURL + OAuthCallbackPath
}

// CheckProviderOnline tries app's settings for provider type t at the
// provider, when this Client has a provider of that type that is a
// [SettingsChecker]; available says whether it has one of that type at
// all. OAuth settings without a client id and secret are not tried.
func (c *Client) CheckProviderOnline(ctx context.Context, app *Application, t ProviderType) (available bool, passed []string, problems []SettingsProblem, err error) {
	p, ok := c.providers[t]
	if !ok {
		return false, nil, nil, nil
	}
	sc, isChecker := settingsCheckerOf(p)
	if !isChecker || (t.UsesOAuth() && (app.Providers[t].ClientID == "" || app.SealedSecrets[t] == nil)) {
		return true, nil, nil, nil
	}
	settings, err := c.providerSettings(app, t)
	if err != nil {
		return true, nil, nil, err
	}
	passed, problems = sc.CheckSettings(ctx, settings, c.OAuthCallbackURL())
	return true, passed, problems, nil
}

// PurgeAccount deletes an account with its subscriptions, stopping their
// provider watches, without sending enduseraccount.deleted: it is for an
// application that is being deleted, so nobody would receive it.
// Returns CodeNotFound when the account is already gone.
func (a *App) PurgeAccount(ctx context.Context, accountID string) error {
	subs, err := a.c.store.ListSubscriptions(ctx, a.id, accountID, "", 0)
	if err != nil {
		return err
	}
	for _, sub := range subs {
		a.stopWatch(ctx, sub)
	}
	return a.c.store.DeleteAccount(ctx, a.id, accountID)
}
