package google

import (
	"context"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/kit"
)

var _ kit.SettingsChecker = (*Provider)(nil)

// CheckSettings implements [kit.SettingsChecker]: it redeems a made-up
// code at the token endpoint with the application's client id and secret
// (see oauthflow.Flow.CheckClient). Google says which of the two is
// wrong only in its description: "The OAuth client was not found." for
// the id, "Unauthorized" for the secret.
func (p *Provider) CheckSettings(ctx context.Context, settings unical.ProviderSettings, redirectURI string) ([]string, []kit.SettingsProblem) {
	return p.flow(settings, redirectURI).CheckClient(ctx, func(code, description string) string {
		if code != "invalid_client" {
			return ""
		}
		if strings.Contains(strings.ToLower(description), "not found") {
			return "clientId"
		}
		return "clientSecret"
	})
}
