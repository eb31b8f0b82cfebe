package microsoft

import (
	"context"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/kit"
)

var _ kit.SettingsChecker = (*Provider)(nil)

// aadstsFields maps the Microsoft identity platform's AADSTS error numbers
// about an application's registration to the setting at fault
// (https://learn.microsoft.com/entra/identity-platform/reference-error-codes).
var aadstsFields = map[string]string{
	"AADSTS700016":  "clientId",     // application not found in the tenant
	"AADSTS7000215": "clientSecret", // invalid client secret
	"AADSTS7000222": "clientSecret", // the client secret expired
	"AADSTS7000218": "clientSecret", // no client secret sent
	"AADSTS90002":   "tenant",       // tenant not found
	"AADSTS900023":  "tenant",       // malformed tenant
	"AADSTS90019":   "tenant",       // no tenant identifying information
	"AADSTS50011":   "callbackUrl",  // redirect URI not registered
	"AADSTS70011":   "scopes",       // invalid scope
}

// CheckSettings implements [kit.SettingsChecker]: it redeems a made-up
// code at the tenant's token endpoint with the application's client id
// and secret (see oauthflow.Flow.CheckClient), and names the setting the
// answer's AADSTS number blames.
func (p *Provider) CheckSettings(ctx context.Context, settings unical.ProviderSettings, redirectURI string) ([]string, []kit.SettingsProblem) {
	return p.flow(settings, redirectURI).CheckClient(ctx, func(code, description string) string {
		if code == "invalid_grant" {
			return ""
		}
		for number, field := range aadstsFields {
			if strings.Contains(description, number+":") {
				return field
			}
		}
		return ""
	})
}
