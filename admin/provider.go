package admin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/unical/unical"
	"github.com/unical/unical/keys"
	"github.com/unical/unical/provider/kit"
)

// ProviderSettingsView is one provider type's settings of an application.
// The client secret is write-only: only ClientSecretSet says whether
// there is one.
type ProviderSettingsView struct {
	Provider unical.ProviderType `json:"provider"`
	// DisplayName and Settings are the provider's [kit.ProviderInfo]:
	// its name for people and the settings it takes.
	DisplayName string   `json:"displayName"`
	Settings    []string `json:"settings"`
	// Configured says whether the application has settings for it.
	Configured      bool     `json:"configured"`
	ClientID        string   `json:"clientId"`
	ClientSecretSet bool     `json:"clientSecretSet"`
	Scopes          []string `json:"scopes"`
	AuthURL         string   `json:"authUrl"`
	TokenURL        string   `json:"tokenUrl"`
	UserInfoURL     string   `json:"userInfoUrl"`
	APIBaseURL      string   `json:"apiBaseUrl"`
	RevokeURL       string   `json:"revokeUrl"`
	ServerURL       string   `json:"serverUrl"`
	Tenant          string   `json:"tenant"`
	// CallbackURL is the OAuth redirect URI to register at the provider
	// (Google's and Microsoft's consoles), built from the server's public
	// URL; "" for CalDAV, or when the server has no public URL.
	CallbackURL string `json:"callbackUrl,omitempty"`
}

// providerView builds the view of app's settings for t.
func (s *Service) providerView(app *unical.Application, info kit.ProviderInfo) *ProviderSettingsView {
	t := info.Type
	set, ok := app.Providers[t]
	v := &ProviderSettingsView{
		Provider: t, DisplayName: info.DisplayName, Settings: info.Settings, Configured: ok, ClientID: set.ClientID, ClientSecretSet: app.SealedSecrets[t] != nil,
		Scopes: slices.Clone(set.Scopes), AuthURL: set.AuthURL, TokenURL: set.TokenURL, UserInfoURL: set.UserInfoURL,
		APIBaseURL: set.APIBaseURL, RevokeURL: set.RevokeURL, ServerURL: set.ServerURL, Tenant: set.Tenant,
	}
	if v.Scopes == nil {
		v.Scopes = []string{}
	}
	if info.Credential == unical.CredentialOAuth {
		v.CallbackURL = s.client.Config().OAuthCallbackURL()
	}
	return v
}

// ProviderSettingsParams replace one provider type's settings of an
// application. ClientSecret is write-only: absent keeps the stored
// secret, null removes it, a string replaces it.
type ProviderSettingsParams struct {
	ClientID     string                  `json:"clientId"`
	ClientSecret unical.Optional[string] `json:"clientSecret,omitzero"`
	Scopes       []string                `json:"scopes"`
	AuthURL      string                  `json:"authUrl"`
	TokenURL     string                  `json:"tokenUrl"`
	UserInfoURL  string                  `json:"userInfoUrl"`
	APIBaseURL   string                  `json:"apiBaseUrl"`
	RevokeURL    string                  `json:"revokeUrl"`
	ServerURL    string                  `json:"serverUrl"`
	Tenant       string                  `json:"tenant"`
}

// settings are p as the provider reads them, with the client secret
// when p sets one.
func (p *ProviderSettingsParams) settings() unical.ProviderSettings {
	return unical.ProviderSettings{
		ClientID: p.ClientID, ClientSecret: p.ClientSecret.Value(), Scopes: slices.Clone(p.Scopes), AuthURL: p.AuthURL, TokenURL: p.TokenURL,
		UserInfoURL: p.UserInfoURL, APIBaseURL: p.APIBaseURL, RevokeURL: p.RevokeURL, ServerURL: p.ServerURL, Tenant: p.Tenant,
	}
}

// checkProviderParams validates settings for the provider info describes,
// naming the field at fault: a setting it does not take is refused rather
// than kept unused.
func checkProviderParams(info kit.ProviderInfo, p *ProviderSettingsParams) error {
	set := p.settings()
	for _, setting := range ProviderSettings {
		given := setting.Get(&set) != ""
		if setting.Kind == SettingSecret {
			_, given = p.ClientSecret.Get()
		}
		if given && !slices.Contains(info.Settings, setting.Name) {
			return unical.FieldError(setting.Name, "%s is not a setting of %s; its settings are %s.", setting.Name, info.Type.PathName(), strings.Join(info.Settings, ", "))
		}
	}
	if strings.IndexFunc(p.ClientID, unicode.IsSpace) >= 0 || strings.IndexFunc(p.ClientID, unicode.IsControl) >= 0 {
		return unical.FieldError("clientId", "clientId must not hold spaces or control characters.")
	}
	if s, ok := p.ClientSecret.Get(); ok && (s == "" || strings.IndexFunc(s, unicode.IsControl) >= 0) {
		return unical.FieldError("clientSecret", "clientSecret must not be empty or hold control characters; send null to remove it.")
	}
	for i, s := range p.Scopes {
		if s == "" || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			return unical.FieldError("scopes", "scopes[%d] must be a scope name without spaces.", i)
		}
	}
	if p.Tenant != "" && strings.IndexFunc(p.Tenant, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.'))
	}) >= 0 {
		return unical.FieldError("tenant", "tenant must be common, organizations, consumers, a tenant id or a domain name.")
	}
	return nil
}

// GetProviderSettings returns an application's settings for one
// provider type, the client secret as ClientSecretSet only.
func (s *Service) GetProviderSettings(ctx context.Context, appID string, t unical.ProviderType) (*ProviderSettingsView, error) {
	info, err := s.settingsInfo(t)
	if err != nil {
		return nil, err
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	return s.providerView(app, info), nil
}

// SetProviderSettings replaces an application's settings for one
// provider type (see [ProviderSettingsParams] for the client secret).
// Without Config.AllowPrivateTargets a URL the server connects to
// (tokenUrl, userInfoUrl, apiBaseUrl, revokeUrl, serverUrl) on a
// loopback, private or link-local address, or localhost, is refused as a
// webhook URL is.
// Returns unical.CodeInvalid naming the field at fault, CodeNotFound for an
// unknown application; nothing changes on error.
func (s *Service) SetProviderSettings(ctx context.Context, appID string, t unical.ProviderType, p *ProviderSettingsParams) (*ProviderSettingsView, error) {
	info, err := s.settingsInfo(t)
	if err != nil {
		return nil, err
	}
	if err := checkProviderParams(info, p); err != nil {
		return nil, err
	}
	if err := checkURLShape("authUrl", p.AuthURL); err != nil {
		return nil, err
	}
	if err := s.checkOutboundURLs(settingsURLs("", unical.ProviderSettings{
		TokenURL: p.TokenURL, UserInfoURL: p.UserInfoURL, APIBaseURL: p.APIBaseURL, RevokeURL: p.RevokeURL, ServerURL: p.ServerURL,
	})...); err != nil {
		return nil, err
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	if app.Providers == nil {
		app.Providers = map[unical.ProviderType]unical.ProviderSettings{}
	}
	if app.SealedSecrets == nil {
		app.SealedSecrets = map[unical.ProviderType][]byte{}
	}
	settings := p.settings()
	settings.ClientSecret = "" // sealed apart, below
	app.Providers[t] = settings
	if secret, ok := p.ClientSecret.Get(); ok {
		sealClientSecret(s.client.Keys(), app, t, secret)
	} else if p.ClientSecret.IsNull() {
		delete(app.SealedSecrets, t)
	}
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "provider.set", appID, t.PathName())
	return s.providerView(app, info), nil
}

// RemoveProviderSettings removes an application's settings (and client
// secret) for one provider type; removing absent settings changes nothing.
func (s *Service) RemoveProviderSettings(ctx context.Context, appID string, t unical.ProviderType) (*ProviderSettingsView, error) {
	info, err := s.settingsInfo(t)
	if err != nil {
		return nil, err
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	delete(app.Providers, t)
	delete(app.SealedSecrets, t)
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "provider.remove", appID, t.PathName())
	return s.providerView(app, info), nil
}

// ProviderCheck is the result of [Service.CheckProviderSettings].
type ProviderCheck struct {
	Provider unical.ProviderType `json:"provider"`
	// OK is true when no problem was found.
	OK bool `json:"ok"`
	// Passed lists what was tried and worked.
	Passed   []string              `json:"passed"`
	Problems []kit.SettingsProblem `json:"problems"`
	// CallbackURL is the redirect URI to register at the provider.
	CallbackURL string `json:"callbackUrl,omitempty"`
}

// CheckProviderSettings tries an application's settings for one provider
// type and says precisely what is wrong: for Google and Microsoft, a
// missing client id or secret, no public URL (so no callback URL), no
// registered redirect URL, and what the token endpoint says of the client
// id and secret; for CalDAV, whether the server is found. The network
// part runs when the provider is a [kit.SettingsChecker]. A found problem is
// part of a successful answer; the error is for an unknown application or
// provider type.
func (s *Service) CheckProviderSettings(ctx context.Context, appID string, t unical.ProviderType) (*ProviderCheck, error) {
	info, err := s.settingsInfo(t)
	if err != nil {
		return nil, err
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	view := s.providerView(app, info)
	check := &ProviderCheck{Provider: t, Passed: []string{}, Problems: []kit.SettingsProblem{}, CallbackURL: view.CallbackURL}
	problem := func(field, format string, args ...any) {
		check.Problems = append(check.Problems, kit.SettingsProblem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	available, passed, problems, err := s.checkOnline(ctx, app, t)
	if err != nil {
		return nil, err
	}
	if !available {
		problem("provider", "This server runs without a %s provider, so no account of that type can connect.", t)
	}
	if info.Credential == unical.CredentialOAuth {
		if view.ClientID == "" {
			problem("clientId", "No OAuth client id is set; copy it from the provider's console.")
		}
		if !view.ClientSecretSet {
			problem("clientSecret", "No OAuth client secret is set; copy it from the provider's console.")
		}
		if view.CallbackURL == "" {
			problem("publicUrl", "The server has no public URL (--public-url, UNICAL_PUBLIC_URL), so it cannot receive OAuth callbacks.")
		} else {
			check.Passed = append(check.Passed, "Register this redirect URI at the provider: "+view.CallbackURL)
		}
		if len(app.RedirectURLs) == 0 {
			problem("redirectUrls", "The application has no redirect URL registered, so the authorize endpoint refuses every sign-in; add the URL of your app's page that users return to.")
		}
	}
	check.Passed = append(check.Passed, passed...)
	check.Problems = append(check.Problems, problems...)
	check.OK = len(check.Problems) == 0
	return check, nil
}

// checkOnline tries app's settings for provider type t at the provider,
// when the Client has a provider of that type that is a
// kit.SettingsChecker; available says whether it has one of that type
// at all. OAuth settings without a client id and secret are not tried.
func (s *Service) checkOnline(ctx context.Context, app *unical.Application, t unical.ProviderType) (available bool, passed []string, problems []kit.SettingsProblem, err error) {
	p, err := s.client.Provider(t)
	available = err == nil
	var sc kit.SettingsChecker
	if available {
		sc = kit.SettingsCheckerOf(p)
	}
	if sc == nil || (s.usesOAuth(t) && (app.Providers[t].ClientID == "" || app.SealedSecrets[t] == nil)) {
		return available, nil, nil, nil
	}
	settings, err := s.client.ProviderSettings(app, t)
	if err != nil {
		return true, nil, nil, err
	}
	passed, problems = sc.CheckSettings(ctx, settings, s.client.Config().OAuthCallbackURL())
	return true, passed, problems, nil
}

// usesOAuth says whether the client's provider of type t is an OAuth one.
func (s *Service) usesOAuth(t unical.ProviderType) bool {
	info, err := s.settingsInfo(t)
	return err == nil && info.Credential == unical.CredentialOAuth
}

// settingsURLs are the URLs of provider settings that the server
// connects to, each named by its field after prefix. authUrl is not
// among them: the server only sends it to browsers, which may well sign
// in on a private network.
func settingsURLs(prefix string, set unical.ProviderSettings) []namedURL {
	return []namedURL{
		{prefix + "tokenUrl", set.TokenURL}, {prefix + "userInfoUrl", set.UserInfoURL},
		{prefix + "apiBaseUrl", set.APIBaseURL}, {prefix + "revokeUrl", set.RevokeURL}, {prefix + "serverUrl", set.ServerURL},
	}
}

// sealClientSecret seals an OAuth client secret of app for provider type
// t into app.SealedSecrets; an empty secret removes it.
func sealClientSecret(k *keys.Keys, app *unical.Application, t unical.ProviderType, secret string) {
	if secret == "" {
		delete(app.SealedSecrets, t)
		return
	}
	if app.SealedSecrets == nil {
		app.SealedSecrets = map[unical.ProviderType][]byte{}
	}
	app.SealedSecrets[t] = k.SealClientSecret(app.ID, string(t), secret)
}
