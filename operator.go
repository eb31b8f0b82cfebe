package unical

import (
	"strings"
)

// This file holds what the operator side (package admin, which the admin
// API, the dashboard and unicald's commands use) needs of the Client: the
// dropping of cached applications and keys after a change. The operator's
// operations themselves, the operator token and the settings check
// (provider/kit's SettingsChecker) live beside the root.

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
