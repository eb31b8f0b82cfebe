package unical

import (
	"context"
	"strings"
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

// SettingsCheckerOf returns p (as [Client.Provider] returns it, wrapped or
// not) as a SettingsChecker, nil when it is none. The check is not a call
// on an account, so it is not measured.
func SettingsCheckerOf(p Provider) SettingsChecker {
	sc, _ := unwrapped(p).(SettingsChecker)
	return sc
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
