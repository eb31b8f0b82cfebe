package kit

import (
	"context"

	"github.com/unical/unical"
)

// SettingsChecker is a Provider that can try an application's settings
// without an account: that its token endpoint answers and takes the
// client id and secret, or that its CalDAV server is found. The admin
// API's check action (package admin) uses it.
type SettingsChecker interface {
	// CheckSettings tries settings (client secret included) and returns
	// what is wrong, each problem naming the setting at fault, and what
	// was found to work. redirectURI is the OAuth callback URL.
	CheckSettings(ctx context.Context, settings unical.ProviderSettings, redirectURI string) (ok []string, problems []SettingsProblem)
}

// SettingsCheckerOf returns p (as [unical.Client.Provider] returns it,
// wrapped or not) as a SettingsChecker, nil when it is none. The check is
// not a call on an account, so it is not measured.
func SettingsCheckerOf(p unical.Provider) SettingsChecker {
	sc, _ := unwrap(p).(SettingsChecker)
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
