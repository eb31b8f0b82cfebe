package admin

import (
	"slices"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/kit"
)

// ProviderSetting is one field of [unical.ProviderSettings] as the admin
// API ([ProviderSettingsParams]), the dashboard's provider form and the
// flags of `unicald apps create|update` name it. A provider lists the
// ones it takes in its [kit.ProviderInfo] Settings; the tests of this
// package, the dashboard and cmd/unicald hold each of them to
// [ProviderSettings], so a new setting cannot be forgotten in one.
type ProviderSetting struct {
	// Name is the JSON name in the admin API and the form field's name.
	Name string
	// Flag is the flag of `unicald apps`; a secret's flag names a file.
	Flag string
	// Label is what the form and the flag's help say.
	Label string
	// Kind is how the value is written and checked.
	Kind SettingKind
}

// SettingKind says how a setting's value is written and checked.
type SettingKind string

// Setting kinds.
const (
	SettingText SettingKind = "text"
	// SettingURL: an absolute http or https URL.
	SettingURL SettingKind = "url"
	// SettingSecret: write-only, sealed at rest (the client secret).
	SettingSecret SettingKind = "secret"
	// SettingList: space-separated words (scopes).
	SettingList SettingKind = "list"
)

// ProviderSettings is every setting an application can give a provider,
// in the order forms show them.
var ProviderSettings = []ProviderSetting{
	{"clientId", "client-id", "OAuth client id", SettingText},
	{"clientSecret", "client-secret-file", "OAuth client secret (the flag names a file holding it)", SettingSecret},
	{"scopes", "scopes", "OAuth scopes, space-separated (empty for the default)", SettingList},
	{"tenant", "tenant", `Microsoft tenant (empty for "common")`, SettingText},
	{"serverUrl", "server-url", "CalDAV server URL (empty for iCloud)", SettingURL},
	{"authUrl", "auth-url", "Authorization endpoint override", SettingURL},
	{"tokenUrl", "token-url", "Token endpoint override", SettingURL},
	{"userInfoUrl", "userinfo-url", "User info endpoint override", SettingURL},
	{"apiBaseUrl", "api-base-url", "Calendar API base URL override", SettingURL},
	{"revokeUrl", "revoke-url", "Token revocation endpoint override", SettingURL},
}

// SettingNamed returns the setting called name.
func SettingNamed(name string) (ProviderSetting, bool) {
	i := slices.IndexFunc(ProviderSettings, func(s ProviderSetting) bool { return s.Name == name })
	if i < 0 {
		return ProviderSetting{}, false
	}
	return ProviderSettings[i], true
}

// field returns the string field of ps the setting is, nil for the
// secret and the list.
func (s ProviderSetting) field(ps *unical.ProviderSettings) *string {
	return map[string]*string{
		"clientId": &ps.ClientID, "tenant": &ps.Tenant, "serverUrl": &ps.ServerURL, "authUrl": &ps.AuthURL,
		"tokenUrl": &ps.TokenURL, "userInfoUrl": &ps.UserInfoURL, "apiBaseUrl": &ps.APIBaseURL, "revokeUrl": &ps.RevokeURL,
	}[s.Name]
}

// Get returns the setting's value in ps as a form shows it ("" for the
// secret, which is never shown).
func (s ProviderSetting) Get(ps *unical.ProviderSettings) string {
	if s.Kind == SettingList {
		return strings.Join(ps.Scopes, " ")
	}
	if f := s.field(ps); f != nil {
		return *f
	}
	return ""
}

// Set writes v, as a form or flag gives it, into ps.
func (s ProviderSetting) Set(ps *unical.ProviderSettings, v string) {
	switch f := s.field(ps); {
	case s.Kind == SettingList:
		ps.Scopes = strings.Fields(v)
	case s.Kind == SettingSecret:
		ps.ClientSecret = strings.TrimSpace(v)
	case f != nil:
		*f = strings.TrimSpace(v)
	}
}

// Shipped describes the providers unical ships that take settings, as
// their own Info does (TestShippedProviders in cmd/unicald holds them
// to it): an operator may set an application's settings for one that
// this server runs without, and the check then says it is missing.
var Shipped = []kit.ProviderInfo{
	{Type: unical.ProviderGoogle, DisplayName: "Google Calendar", Credential: unical.CredentialOAuth, Delegation: true,
		Settings: []string{"clientId", "clientSecret", "scopes", "authUrl", "tokenUrl", "userInfoUrl", "apiBaseUrl", "revokeUrl"}},
	{Type: unical.ProviderMicrosoft, DisplayName: "Microsoft Outlook", Credential: unical.CredentialOAuth, Delegation: true,
		Settings: []string{"clientId", "clientSecret", "scopes", "tenant", "authUrl", "tokenUrl", "apiBaseUrl"}},
	{Type: unical.ProviderCalDAV, DisplayName: "CalDAV", Credential: unical.CredentialPassword, Settings: []string{"serverUrl"}},
}

// SettingsProviders are the providers an application configures: the
// client's that take settings, and the Shipped ones it lacks, in the
// order of unical.ProviderTypes, then the client's others.
func (s *Service) SettingsProviders() []kit.ProviderInfo {
	return slices.DeleteFunc(s.knownProviders(), func(in kit.ProviderInfo) bool { return len(in.Settings) == 0 })
}

// DelegationProviders are the providers an application may keep a
// delegation credential for: the client's whose accounts connect through
// one (kit.ProviderInfo.Delegation), and the Shipped ones it lacks, in
// the order of SettingsProviders.
func (s *Service) DelegationProviders() []kit.ProviderInfo {
	return slices.DeleteFunc(s.knownProviders(), func(in kit.ProviderInfo) bool { return !in.Delegation })
}

// knownProviders describes the client's providers and the Shipped ones
// it lacks, in the order of unical.ProviderTypes, then the client's
// others.
func (s *Service) knownProviders() []kit.ProviderInfo {
	infos := kit.Providers(s.client)
	for _, info := range Shipped {
		// A stand-in of a shipped type that declares nothing (a test
		// double) is described as the provider it stands in for; what
		// its accounts connect with is still the Client's to say.
		i := slices.IndexFunc(infos, func(in kit.ProviderInfo) bool { return in.Type == info.Type })
		switch {
		case i < 0:
			infos = append(infos, info)
		case len(infos[i].Settings) == 0:
			info.Credential, info.Delegation = infos[i].Credential, info.Delegation || infos[i].Delegation
			infos[i] = info
		}
	}
	rank := func(t unical.ProviderType) int {
		if i := slices.Index(unical.ProviderTypes, t); i >= 0 {
			return i
		}
		return len(unical.ProviderTypes)
	}
	slices.SortStableFunc(infos, func(a, b kit.ProviderInfo) int { return rank(a.Type) - rank(b.Type) })
	return infos
}

// settingsInfo is t's description when t takes settings, else the
// CodeInvalid naming provider that the admin API answers.
func (s *Service) settingsInfo(t unical.ProviderType) (kit.ProviderInfo, error) {
	var allowed []string
	for _, info := range s.SettingsProviders() {
		if info.Type == t {
			return info, nil
		}
		allowed = append(allowed, info.Type.PathName())
	}
	return kit.ProviderInfo{}, &unical.Error{Code: unical.CodeInvalid, Field: "provider", Allowed: allowed,
		Message: "provider must be a provider type that takes settings: " + strings.Join(allowed, ", ") + "."}
}

// ProviderInfos describes the server's providers.
//
// HTTP: GET /admin/v1/providers
func (s *Service) ProviderInfos() []kit.ProviderInfo { return kit.Providers(s.client) }

// ParamsOf returns the admin API's body that sets ps: its client secret,
// when not empty, replaces the stored one.
func ParamsOf(ps unical.ProviderSettings) *ProviderSettingsParams {
	p := &ProviderSettingsParams{
		ClientID: ps.ClientID, Scopes: ps.Scopes, AuthURL: ps.AuthURL, TokenURL: ps.TokenURL, UserInfoURL: ps.UserInfoURL,
		APIBaseURL: ps.APIBaseURL, RevokeURL: ps.RevokeURL, ServerURL: ps.ServerURL, Tenant: ps.Tenant,
	}
	if ps.ClientSecret != "" {
		p.ClientSecret = unical.Some(ps.ClientSecret)
	}
	return p
}
