package unical

import (
	"context"
	"strings"

	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/webhook"
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

// SettingsChecker returns the Client's provider of type t as a
// SettingsChecker, nil when it is none; available says whether the Client
// has a provider of that type at all. The check is not a call on an
// account, so it is not measured.
func (c *Client) SettingsChecker(t ProviderType) (sc SettingsChecker, available bool) {
	p, available := c.providers[t]
	sc, _ = unwrapped(p).(SettingsChecker)
	return sc, available
}

// SettingsProblem is one thing wrong with an application's provider
// settings or the server's set-up, with the field or setting at fault
// (clientId, clientSecret, tokenUrl, serverUrl, tenant, redirectUrls,
// publicUrl) and a sentence saying what to do.
type SettingsProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

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

// SealDelegation seals app's delegation secret for provider type t.
func (c *Client) SealDelegation(app *Application, t ProviderType, secret []byte) []byte {
	return c.credentials.Seal(secret, seal.DelegationBinding(app.ID, string(t)))
}

// OpenDelegation opens what SealDelegation sealed for app and t.
func (c *Client) OpenDelegation(app *Application, t ProviderType, sealed []byte) ([]byte, error) {
	return c.credentials.Open(sealed, seal.DelegationBinding(app.ID, string(t)))
}

// MailSealer seals Application.SealedMail, bound by seal.MailBinding.
func (c *Client) MailSealer() *seal.Sealer { return c.credentials }

// RevocationSealer seals the grants of queued revocations, bound by
// internal/revocation.
func (c *Client) RevocationSealer() *seal.Sealer { return c.credentials }

// NewWebhookSecret gives app's own webhook endpoint a new whsec_ secret,
// sealed into app.SealedWebhookSecret, and returns it to be shown once.
func (c *Client) NewWebhookSecret(app *Application) string {
	secret := webhook.NewSecret()
	app.SealedWebhookSecret = c.credentials.Seal([]byte(secret), seal.WebhookSecretBinding(app.ID))
	return secret
}

// OAuthCallbackURL is the OAuth redirect URI to register at Google and
// Microsoft, built from Config.PublicURL; "" when there is none.
func (c *Client) OAuthCallbackURL() string {
	if c.publicURL == "" {
		return ""
	}
	return c.publicURL + OAuthCallbackPath
}
