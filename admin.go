package unical

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/unical/unical/internal/seal"
)

// This file holds the operator's operations: what the admin API
// (/admin/v1), the dashboard and unicald's admin commands do to
// applications, as opposed to what an application does with its own data
// through [App]. They take the application id as an argument; the caller
// must have checked the operator token ([Client.VerifyAdminToken]) first.

// The operator token is kept only as its SHA-256 hash, as a blob of the
// reserved application id of the master key check, with an expiry no
// sweep reaches.
const (
	adminTokenBlob = "admin-token-hash"
	// adminTokenPrefix starts the tokens NewAdminToken makes, so that a
	// leaked one is recognisable (and told apart from an API key, uk_).
	adminTokenPrefix = "uat_"
	// MinAdminTokenLength is the shortest operator token accepted from
	// the operator (UNICAL_ADMIN_TOKEN): its hash is only as strong as
	// the token is hard to guess.
	MinAdminTokenLength = 32
)

// NewAdminToken returns a new random operator token: "uat_" and 32
// random bytes in base32.
func NewAdminToken() string { return adminTokenPrefix + randomString(32) }

// SetAdminToken makes token the operator token, replacing any earlier
// one. Only its SHA-256 hash is stored. Returns CodeInvalid naming
// adminToken when it is shorter than MinAdminTokenLength or holds spaces
// or control characters (it travels in an Authorization header).
func (c *Client) SetAdminToken(ctx context.Context, token string) error {
	if len(token) < MinAdminTokenLength {
		return invalidf("adminToken", "The admin token must be at least %d characters long.", MinAdminTokenLength)
	}
	if strings.IndexFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f || r > unicode.MaxASCII }) >= 0 {
		return invalidf("adminToken", "The admin token must be printable ASCII without spaces.")
	}
	return c.store.PutBlob(ctx, keyCheckApp, adminTokenBlob, seal.HashSecret(token), keyCheckExpires)
}

// EnsureAdminToken creates the operator token when the Store has none and
// returns it, to be shown once; it returns "" when one exists already.
func (c *Client) EnsureAdminToken(ctx context.Context) (string, error) {
	_, err := c.store.GetBlob(ctx, keyCheckApp, adminTokenBlob, c.now())
	if err == nil {
		return "", nil
	}
	if ErrorCode(err) != CodeNotFound {
		return "", err
	}
	token := NewAdminToken()
	if err := c.SetAdminToken(ctx, token); err != nil {
		return "", err
	}
	return token, nil
}

// VerifyAdminToken checks an operator token against the stored hash in
// constant time. A missing, wrong or unset token, and an application API
// key, are CodeUnauthorized naming Authorization.
func (c *Client) VerifyAdminToken(ctx context.Context, token string) error {
	if token == "" {
		return &Error{Code: CodeUnauthorized, Field: "Authorization", Message: "Admin routes need the operator token: Authorization: Bearer <admin token>."}
	}
	if strings.HasPrefix(token, apiKeyPrefix) {
		return &Error{Code: CodeUnauthorized, Field: "Authorization", Message: "This is an application API key; admin routes take only the operator token."}
	}
	hash, err := c.store.GetBlob(ctx, keyCheckApp, adminTokenBlob, c.now())
	if ErrorCode(err) == CodeNotFound {
		return &Error{Code: CodeUnauthorized, Field: "Authorization", Message: "No admin token is set on this server; start unicald serve once, or set UNICAL_ADMIN_TOKEN."}
	}
	if err != nil {
		return err
	}
	if !seal.Equal(hash, seal.HashSecret(token)) {
		return &Error{Code: CodeUnauthorized, Field: "Authorization", Message: "The admin token is wrong."}
	}
	return nil
}

// ApplicationView is an application as the operator sees it: its
// settings with every secret replaced by whether it is set.
type ApplicationView struct {
	ID           string    `json:"applicationId"`
	Name         string    `json:"name"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	RedirectURLs []string  `json:"redirectUrls"`
	// Providers has the settings of every provider type, configured or not.
	Providers []*ProviderSettingsView `json:"providers"`
	Webhook   *WebhookView            `json:"webhook"`
}

// WebhookView is an application's own webhook endpoint, which receives
// its enduseraccount.* messages.
type WebhookView struct {
	// URL is "" when the application has none.
	URL string `json:"url"`
	// SecretSet says whether a signing secret exists; the secret itself
	// is shown only when it is made.
	SecretSet bool `json:"secretSet"`
	EndpointState
}

// ProviderSettingsView is one provider type's settings of an application.
// The client secret is write-only: only ClientSecretSet says whether
// there is one.
type ProviderSettingsView struct {
	Provider ProviderType `json:"provider"`
	// Configured says whether the application has settings for it.
	Configured      bool     `json:"configured"`
	ClientID        string   `json:"clientId"`
	ClientSecretSet bool     `json:"clientSecretSet"`
	Scopes          []string `json:"scopes"`
	AuthURL         string   `json:"authUrl"`
	TokenURL        string   `json:"tokenUrl"`
	UserInfoURL     string   `json:"userInfoUrl"`
	APIBaseURL      string   `json:"apiBaseUrl"`
	ServerURL       string   `json:"serverUrl"`
	Tenant          string   `json:"tenant"`
	// CallbackURL is the OAuth redirect URI to register at the provider
	// (Google's and Microsoft's consoles), built from the server's public
	// URL; "" for CalDAV, or when the server has no public URL.
	CallbackURL string `json:"callbackUrl,omitempty"`
}

// applicationView builds the operator's view of app.
func (c *Client) applicationView(app *Application) *ApplicationView {
	v := &ApplicationView{
		ID: app.ID, Name: app.Name, CreatedAt: app.CreatedAt, UpdatedAt: app.UpdatedAt,
		RedirectURLs: slices.Clone(app.RedirectURLs),
		Webhook:      &WebhookView{URL: app.WebhookURL, SecretSet: app.SealedWebhookSecret != nil, EndpointState: app.webhookState()},
	}
	if v.RedirectURLs == nil {
		v.RedirectURLs = []string{}
	}
	for _, t := range settingsProviderTypes {
		v.Providers = append(v.Providers, c.providerView(app, t))
	}
	return v
}

// providerView builds the view of app's settings for t.
func (c *Client) providerView(app *Application, t ProviderType) *ProviderSettingsView {
	s, ok := app.Providers[t]
	v := &ProviderSettingsView{
		Provider: t, Configured: ok, ClientID: s.ClientID, ClientSecretSet: app.SealedSecrets[t] != nil,
		Scopes: slices.Clone(s.Scopes), AuthURL: s.AuthURL, TokenURL: s.TokenURL, UserInfoURL: s.UserInfoURL,
		APIBaseURL: s.APIBaseURL, ServerURL: s.ServerURL, Tenant: s.Tenant,
	}
	if v.Scopes == nil {
		v.Scopes = []string{}
	}
	if t.UsesOAuth() && c.publicURL != "" {
		v.CallbackURL = c.publicURL + OAuthCallbackPath
	}
	return v
}

// ListApplicationViews returns every application, oldest first, as the
// operator sees it.
func (c *Client) ListApplicationViews(ctx context.Context) ([]*ApplicationView, error) {
	apps, err := c.store.ListApplications(ctx)
	if err != nil {
		return nil, err
	}
	views := make([]*ApplicationView, len(apps))
	for i, app := range apps {
		views[i] = c.applicationView(app)
	}
	return views, nil
}

// GetApplicationView returns one application as the operator sees it, or
// CodeNotFound.
func (c *Client) GetApplicationView(ctx context.Context, id string) (*ApplicationView, error) {
	app, err := c.store.GetApplication(ctx, id)
	if err != nil {
		return nil, err
	}
	return c.applicationView(app), nil
}

// RenameApplication changes an application's name. Returns CodeInvalid
// naming name when it is empty, CodeNotFound for an unknown application.
func (c *Client) RenameApplication(ctx context.Context, id, name string) (*ApplicationView, error) {
	if strings.TrimSpace(name) == "" {
		return nil, invalidf("name", "name cannot be empty.")
	}
	app, _, err := c.UpdateApplication(ctx, id, &ApplicationParams{Name: Some(name)})
	if err != nil {
		return nil, err
	}
	return c.applicationView(app), nil
}

// ApplicationDeleted is the result of [Client.DeleteApplication].
type ApplicationDeleted struct {
	ApplicationID string `json:"applicationId"`
	// AccountsDeleted counts the accounts a cascade removed.
	AccountsDeleted int `json:"accountsDeleted"`
}

// DeleteApplication removes an application with its API keys. While the
// application has accounts it refuses with CodeConflict, unless cascade:
// then it first deletes every account (with its subscriptions, stopping
// their provider watches) without sending enduseraccount.deleted
// messages, since the application that would receive them is going too.
// Returns CodeNotFound for an unknown application.
//
// A key of the application stops working at once on this Client, and
// within Config.CacheTTL on the others.
func (c *Client) DeleteApplication(ctx context.Context, id string, cascade bool) (*ApplicationDeleted, error) {
	a, err := c.App(ctx, id)
	if err != nil {
		return nil, err
	}
	keys, err := c.store.ListAPIKeys(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &ApplicationDeleted{ApplicationID: id}
	if cascade {
		for {
			recs, err := c.store.ListAccounts(ctx, id, AccountFilter{Limit: 100})
			if err != nil {
				return out, err
			}
			if len(recs) == 0 {
				break
			}
			for _, rec := range recs {
				subs, err := c.store.ListSubscriptions(ctx, id, rec.ID, "", 0)
				if err != nil {
					return out, err
				}
				for _, sub := range subs {
					a.stopWatch(ctx, sub)
				}
				if err := c.store.DeleteAccount(ctx, id, rec.ID); err != nil && ErrorCode(err) != CodeNotFound {
					return out, err
				}
				out.AccountsDeleted++
			}
		}
	}
	if err := c.store.DeleteApplication(ctx, id); err != nil {
		if ErrorCode(err) == CodeConflict {
			return nil, &Error{Code: CodeConflict, Field: "cascade", Message: "The application still has accounts; delete them first, or delete with cascade=true to delete them too.", Err: err}
		}
		return out, err
	}
	c.apps.drop(id)
	for _, k := range keys {
		c.apiKeys.drop(k.ID)
		c.keysUsed.forget(k.ID)
	}
	return out, nil
}

// APIKeyView is an API key as listed: never its secret.
type APIKeyView struct {
	ID string `json:"id"`
	// Prefix is how the key begins (its public part), to tell keys apart.
	Prefix    string    `json:"prefix"`
	CreatedAt time.Time `json:"createdAt"`
	// LastUsedAt is when a request last authenticated with it, to within
	// APIKeyUsedEvery; null when never.
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// APIKeyUsedEvery is how often, at most, a Client records that a key was
// used: APIKey.LastUsedAt is exact to within it, and a busy key costs
// one Store write per this period and Client.
const APIKeyUsedEvery = time.Minute

// keyUsage remembers when this Client last recorded each key's use. A
// map under a mutex, not a sync.Map, so that the check on every request
// allocates nothing.
type keyUsage struct {
	mu   sync.Mutex
	last map[string]time.Time // key id -> last recorded use
}

// due reports whether a use of key id at now should be recorded, and if
// so remembers now as its last recorded use.
func (u *keyUsage) due(id string, now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if last, ok := u.last[id]; ok && now.Sub(last) < APIKeyUsedEvery {
		return false
	}
	if u.last == nil {
		u.last = map[string]time.Time{}
	}
	u.last[id] = now
	return true
}

// forget drops key id, once it is revoked.
func (u *keyUsage) forget(id string) {
	u.mu.Lock()
	delete(u.last, id)
	u.mu.Unlock()
}

// markKeyUsed records a use of key at now, at most once per
// APIKeyUsedEvery per key and Client. A failure is only logged: a request
// must not fail for its bookkeeping.
func (c *Client) markKeyUsed(ctx context.Context, key *APIKey) {
	now := c.now()
	if !c.keysUsed.due(key.ID, now) {
		return
	}
	if err := c.store.MarkAPIKeyUsed(ctx, key.ID, now.UTC()); err != nil && ErrorCode(err) != CodeNotFound {
		c.log.WarnContext(ctx, "record API key use", "key", key.ID, "err", err)
	}
}

// ListAPIKeyViews lists an application's API keys, oldest first.
// Returns CodeNotFound for an unknown application.
func (c *Client) ListAPIKeyViews(ctx context.Context, appID string) ([]*APIKeyView, error) {
	if _, err := c.store.GetApplication(ctx, appID); err != nil {
		return nil, err
	}
	keys, err := c.store.ListAPIKeys(ctx, appID)
	if err != nil {
		return nil, err
	}
	views := make([]*APIKeyView, len(keys))
	for i, k := range keys {
		views[i] = apiKeyView(k)
	}
	return views, nil
}

func apiKeyView(k *APIKey) *APIKeyView {
	v := &APIKeyView{ID: k.ID, Prefix: apiKeyPrefix + strings.TrimPrefix(k.ID, "key_") + "_", CreatedAt: k.CreatedAt}
	if !k.LastUsedAt.IsZero() {
		t := k.LastUsedAt
		v.LastUsedAt = &t
	}
	return v
}

// maxRedirectURLs bounds an application's registered redirect URLs.
const maxRedirectURLs = 100

// checkRedirectURL requires an absolute URL with a host and no fragment,
// as OAuth 2.0 does of redirect URIs; http is allowed, for development
// on localhost.
func checkRedirectURL(field, raw string) error {
	if raw == "" {
		return invalidf(field, "%s is required.", field)
	}
	if len(raw) > maxRedirectURLLength {
		return invalidf(field, "%s may be at most %d bytes long.", field, maxRedirectURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return invalidf(field, "%s must be an absolute http or https URL without a fragment.", field)
	}
	return nil
}

// ListRedirectURLs returns an application's registered OAuth redirect
// URLs, or CodeNotFound.
func (c *Client) ListRedirectURLs(ctx context.Context, appID string) ([]string, error) {
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	if app.RedirectURLs == nil {
		return []string{}, nil
	}
	return app.RedirectURLs, nil
}

// AddRedirectURL registers an OAuth redirect URL for an application and
// returns the registered URLs; adding one already there changes nothing.
// Returns CodeInvalid naming url for a malformed URL or past 100 URLs,
// CodeNotFound for an unknown application.
func (c *Client) AddRedirectURL(ctx context.Context, appID, raw string) ([]string, error) {
	if err := checkRedirectURL("url", raw); err != nil {
		return nil, err
	}
	return c.changeRedirectURLs(ctx, appID, func(urls []string) ([]string, error) {
		if slices.Contains(urls, raw) {
			return urls, nil
		}
		if len(urls) >= maxRedirectURLs {
			return nil, invalidf("url", "An application may register at most %d redirect URLs.", maxRedirectURLs)
		}
		return append(urls, raw), nil
	})
}

// RemoveRedirectURL unregisters an OAuth redirect URL and returns the
// URLs left. Returns CodeNotFound naming url when it is not registered.
func (c *Client) RemoveRedirectURL(ctx context.Context, appID, raw string) ([]string, error) {
	return c.changeRedirectURLs(ctx, appID, func(urls []string) ([]string, error) {
		i := slices.Index(urls, raw)
		if i < 0 {
			return nil, &Error{Code: CodeNotFound, Field: "url", Message: "This redirect URL is not registered for the application."}
		}
		return slices.Delete(urls, i, i+1), nil
	})
}

// changeRedirectURLs reads an application's redirect URLs, changes them
// with fn and writes them back. Two operators changing the same
// application at the same instant may undo each other's change; the
// answer shows what was written.
func (c *Client) changeRedirectURLs(ctx context.Context, appID string, fn func([]string) ([]string, error)) ([]string, error) {
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	urls, err := fn(slices.Clone(app.RedirectURLs))
	if err != nil {
		return nil, err
	}
	if urls == nil {
		urls = []string{}
	}
	app.RedirectURLs = urls
	app.UpdatedAt = c.now().UTC()
	if err := c.store.UpdateApplication(ctx, app); err != nil {
		return nil, err
	}
	c.apps.drop(appID)
	return urls, nil
}

// ProviderSettingsParams replace one provider type's settings of an
// application. ClientSecret is write-only: absent keeps the stored
// secret, null removes it, a string replaces it.
type ProviderSettingsParams struct {
	ClientID     string           `json:"clientId"`
	ClientSecret Optional[string] `json:"clientSecret,omitzero"`
	Scopes       []string         `json:"scopes"`
	AuthURL      string           `json:"authUrl"`
	TokenURL     string           `json:"tokenUrl"`
	UserInfoURL  string           `json:"userInfoUrl"`
	APIBaseURL   string           `json:"apiBaseUrl"`
	ServerURL    string           `json:"serverUrl"`
	Tenant       string           `json:"tenant"`
}

// checkProviderParams validates settings for t, naming the field at fault.
func checkProviderParams(t ProviderType, p *ProviderSettingsParams) error {
	if !slices.Contains(settingsProviderTypes, t) {
		return &Error{Code: CodeInvalid, Field: "provider", Allowed: providerPaths(), Message: "provider must be a provider type."}
	}
	for _, f := range []struct{ name, value string }{
		{"authUrl", p.AuthURL}, {"tokenUrl", p.TokenURL}, {"userInfoUrl", p.UserInfoURL},
		{"apiBaseUrl", p.APIBaseURL}, {"serverUrl", p.ServerURL},
	} {
		if f.value == "" {
			continue
		}
		u, err := url.Parse(f.value)
		if err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.Fragment != "" {
			return invalidf(f.name, "%s must be an absolute http or https URL without credentials or a fragment.", f.name)
		}
	}
	if strings.IndexFunc(p.ClientID, unicode.IsSpace) >= 0 || strings.IndexFunc(p.ClientID, unicode.IsControl) >= 0 {
		return invalidf("clientId", "clientId must not hold spaces or control characters.")
	}
	if s, ok := p.ClientSecret.Get(); ok && (s == "" || strings.IndexFunc(s, unicode.IsControl) >= 0) {
		return invalidf("clientSecret", "clientSecret must not be empty or hold control characters; send null to remove it.")
	}
	for i, s := range p.Scopes {
		if s == "" || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			return invalidf("scopes", "scopes[%d] must be a scope name without spaces.", i)
		}
	}
	if p.Tenant != "" && strings.IndexFunc(p.Tenant, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.'))
	}) >= 0 {
		return invalidf("tenant", "tenant must be common, organizations, consumers, a tenant id or a domain name.")
	}
	return nil
}

// settingsProviderTypes are the provider types an application configures:
// VIRTUAL calendars live in the store and have no settings.
var settingsProviderTypes = []ProviderType{ProviderGoogle, ProviderMicrosoft, ProviderCalDAV}

// providerPaths lists the path names of the provider types with settings.
func providerPaths() []string {
	out := make([]string, len(settingsProviderTypes))
	for i, t := range settingsProviderTypes {
		out[i] = t.PathName()
	}
	return out
}

// GetProviderSettings returns an application's settings for one
// provider type, the client secret as ClientSecretSet only.
func (c *Client) GetProviderSettings(ctx context.Context, appID string, t ProviderType) (*ProviderSettingsView, error) {
	if !slices.Contains(settingsProviderTypes, t) {
		return nil, &Error{Code: CodeInvalid, Field: "provider", Allowed: providerPaths(), Message: "provider must be a provider type."}
	}
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	return c.providerView(app, t), nil
}

// SetProviderSettings replaces an application's settings for one
// provider type (see [ProviderSettingsParams] for the client secret).
// Without Config.AllowPrivateTargets a serverUrl on a loopback, private
// or link-local address, or localhost, is refused as a webhook URL is.
// Returns CodeInvalid naming the field at fault, CodeNotFound for an
// unknown application; nothing changes on error.
func (c *Client) SetProviderSettings(ctx context.Context, appID string, t ProviderType, p *ProviderSettingsParams) (*ProviderSettingsView, error) {
	if err := checkProviderParams(t, p); err != nil {
		return nil, err
	}
	if err := c.checkTargetHost("serverUrl", p.ServerURL); err != nil {
		return nil, err
	}
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	if app.Providers == nil {
		app.Providers = map[ProviderType]ProviderSettings{}
	}
	if app.SealedSecrets == nil {
		app.SealedSecrets = map[ProviderType][]byte{}
	}
	app.Providers[t] = ProviderSettings{
		ClientID: p.ClientID, Scopes: slices.Clone(p.Scopes), AuthURL: p.AuthURL, TokenURL: p.TokenURL,
		UserInfoURL: p.UserInfoURL, APIBaseURL: p.APIBaseURL, ServerURL: p.ServerURL, Tenant: p.Tenant,
	}
	if secret, ok := p.ClientSecret.Get(); ok {
		app.SealedSecrets[t] = c.credentials.Seal([]byte(secret), []byte("client-secret/"+app.ID+"/"+string(t)))
	} else if p.ClientSecret.IsNull() {
		delete(app.SealedSecrets, t)
	}
	app.UpdatedAt = c.now().UTC()
	if err := c.store.UpdateApplication(ctx, app); err != nil {
		return nil, err
	}
	c.apps.drop(appID)
	return c.providerView(app, t), nil
}

// RemoveProviderSettings removes an application's settings (and client
// secret) for one provider type; removing absent settings changes nothing.
func (c *Client) RemoveProviderSettings(ctx context.Context, appID string, t ProviderType) (*ProviderSettingsView, error) {
	if !slices.Contains(settingsProviderTypes, t) {
		return nil, &Error{Code: CodeInvalid, Field: "provider", Allowed: providerPaths(), Message: "provider must be a provider type."}
	}
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	delete(app.Providers, t)
	delete(app.SealedSecrets, t)
	app.UpdatedAt = c.now().UTC()
	if err := c.store.UpdateApplication(ctx, app); err != nil {
		return nil, err
	}
	c.apps.drop(appID)
	return c.providerView(app, t), nil
}

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

// settingsCheckerOf returns p as a SettingsChecker, seeing through the
// Observer's wrapper (the check is not a call on an account, so it is
// not measured).
func settingsCheckerOf(p Provider) (SettingsChecker, bool) {
	if o, ok := p.(*observedProvider); ok {
		p = o.p
	}
	sc, ok := p.(SettingsChecker)
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

// ProviderCheck is the result of [Client.CheckProviderSettings].
type ProviderCheck struct {
	Provider ProviderType `json:"provider"`
	// OK is true when no problem was found.
	OK bool `json:"ok"`
	// Passed lists what was tried and worked.
	Passed   []string          `json:"passed"`
	Problems []SettingsProblem `json:"problems"`
	// CallbackURL is the redirect URI to register at the provider.
	CallbackURL string `json:"callbackUrl,omitempty"`
}

// CheckProviderSettings tries an application's settings for one provider
// type and says precisely what is wrong: for Google and Microsoft, a
// missing client id or secret, no public URL (so no callback URL), no
// registered redirect URL, and what the token endpoint says of the client
// id and secret; for CalDAV, whether the server is found. The network
// part runs when the provider is a [SettingsChecker]. A found problem is
// part of a successful answer; the error is for an unknown application or
// provider type.
func (c *Client) CheckProviderSettings(ctx context.Context, appID string, t ProviderType) (*ProviderCheck, error) {
	if !slices.Contains(settingsProviderTypes, t) {
		return nil, &Error{Code: CodeInvalid, Field: "provider", Allowed: providerPaths(), Message: "provider must be a provider type."}
	}
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	view := c.providerView(app, t)
	check := &ProviderCheck{Provider: t, Passed: []string{}, Problems: []SettingsProblem{}, CallbackURL: view.CallbackURL}
	problem := func(field, format string, args ...any) {
		check.Problems = append(check.Problems, SettingsProblem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	p, ok := c.providers[t]
	if !ok {
		problem("provider", "This server runs without a %s provider, so no account of that type can connect.", t)
	}
	if t.UsesOAuth() {
		if view.ClientID == "" {
			problem("clientId", "No OAuth client id is set; copy it from the provider's console.")
		}
		if !view.ClientSecretSet {
			problem("clientSecret", "No OAuth client secret is set; copy it from the provider's console.")
		}
		if c.publicURL == "" {
			problem("publicUrl", "The server has no public URL (--public-url, UNICAL_PUBLIC_URL), so it cannot receive OAuth callbacks.")
		} else {
			check.Passed = append(check.Passed, "Register this redirect URI at the provider: "+view.CallbackURL)
		}
		if len(app.RedirectURLs) == 0 {
			problem("redirectUrls", "The application has no redirect URL registered, so the authorize endpoint refuses every sign-in; add the URL of your app's page that users return to.")
		}
	}
	if sc, isChecker := settingsCheckerOf(p); ok && isChecker && (!t.UsesOAuth() || (view.ClientID != "" && view.ClientSecretSet)) {
		settings, err := c.providerSettings(app, t)
		if err != nil {
			return nil, err
		}
		redirect := ""
		if c.publicURL != "" {
			redirect = c.publicURL + OAuthCallbackPath
		}
		passed, problems := sc.CheckSettings(ctx, settings, redirect)
		check.Passed = append(check.Passed, passed...)
		check.Problems = append(check.Problems, problems...)
	}
	check.OK = len(check.Problems) == 0
	return check, nil
}

// ApplicationWebhook returns an application's own webhook endpoint.
func (c *Client) ApplicationWebhook(ctx context.Context, appID string) (*WebhookView, error) {
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	return c.applicationView(app).Webhook, nil
}

// WebhookSet is the answer to setting or rotating an application's
// webhook: the endpoint and, when one was made, its new signing secret,
// shown only here.
type WebhookSet struct {
	Webhook *WebhookView `json:"webhook"`
	// Secret is the new whsec_ secret; "" when the secret did not change.
	Secret string `json:"secret,omitempty"`
}

// SetApplicationWebhook sets the URL of an application's own webhook
// endpoint ("" removes it with its secret). A first URL gets a new
// signing secret, returned once; a changed URL keeps the secret. Returns
// CodeInvalid naming url for a URL that is not absolute https (or points
// at a private address without Config.AllowPrivateTargets).
func (c *Client) SetApplicationWebhook(ctx context.Context, appID, raw string) (*WebhookSet, error) {
	if raw != "" {
		if err := c.checkWebhookURL("url", raw); err != nil {
			return nil, err
		}
	}
	app, secret, err := c.UpdateApplication(ctx, appID, &ApplicationParams{WebhookURL: Some(raw)})
	if err != nil {
		return nil, err
	}
	return &WebhookSet{Webhook: c.applicationView(app).Webhook, Secret: secret}, nil
}

// RotateWebhookSecret gives an application's webhook endpoint a new
// signing secret, returned once; messages are signed with it from then
// on. Returns CodeConflict naming url when the application has no
// webhook URL.
func (c *Client) RotateWebhookSecret(ctx context.Context, appID string) (*WebhookSet, error) {
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	if app.WebhookURL == "" {
		return nil, &Error{Code: CodeConflict, Field: "url", Message: "The application has no webhook URL; set one first."}
	}
	secret := newEndpointSecret()
	app.SealedWebhookSecret = c.credentials.Seal([]byte(secret), []byte("webhook-secret/"+app.ID))
	app.UpdatedAt = c.now().UTC()
	if err := c.store.UpdateApplication(ctx, app); err != nil {
		return nil, err
	}
	c.apps.drop(appID)
	return &WebhookSet{Webhook: c.applicationView(app).Webhook, Secret: secret}, nil
}

// AdminListAccounts lists an application's accounts, oldest first, with
// their status and statusReason; params filter by search text and status
// as GET /v1/endUserAccounts does.
func (c *Client) AdminListAccounts(ctx context.Context, appID string, params *AccountListParams) (*Page[*Account], error) {
	a, err := c.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.ListAccounts(ctx, params)
}

// AdminGetAccount returns one account of an application, with its status
// and statusReason.
func (c *Client) AdminGetAccount(ctx context.Context, appID, accountID string) (*Account, error) {
	a, err := c.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.GetAccount(ctx, accountID)
}

// AdminDeleteAccount deletes an account of an application as DELETE
// /v1/endUserAccounts/{id} does: its subscriptions go, their watches are
// stopped, and enduseraccount.deleted is sent.
func (c *Client) AdminDeleteAccount(ctx context.Context, appID, accountID string) (*AccountDeleted, error) {
	a, err := c.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.DeleteAccount(ctx, accountID)
}

// AdminListSubscriptions lists the webhook subscriptions of every account
// of an application, in id order.
func (c *Client) AdminListSubscriptions(ctx context.Context, appID string, params *SubscriptionListParams) (*Page[*Subscription], error) {
	a, err := c.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = &SubscriptionListParams{}
	}
	return listPage(ctx, a, storeListing{kind: "adminSubscriptions", pageToken: params.PageToken, limit: params.Limit},
		func(after string, limit int) ([]*SubscriptionRecord, error) {
			return c.store.ListSubscriptions(ctx, appID, "", after, limit)
		},
		func(rec *SubscriptionRecord) string { return rec.ID },
		func(rec *SubscriptionRecord) *Subscription { return &rec.Subscription })
}

// AdminListDeliveries lists the delivery log of one subscription of an
// application, or with subscriptionID "" of the application's own
// webhook endpoint, oldest first.
func (c *Client) AdminListDeliveries(ctx context.Context, appID, subscriptionID string, params *DeliveryListParams) (*Page[*DeliveryAttempt], error) {
	a, accountID, err := c.subscriptionAccount(ctx, appID, subscriptionID)
	if err != nil {
		return nil, err
	}
	return a.ListDeliveries(ctx, accountID, subscriptionID, params)
}

// AdminResendMessage queues a failed message of an application for
// delivery again, as [App.ResendMessage] does; the message names its
// subscription. Returns CodeNotFound for an unknown message, CodeConflict
// when it has not failed.
func (c *Client) AdminResendMessage(ctx context.Context, appID, messageID string) (*Success, error) {
	a, err := c.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	msg, err := c.store.GetMessage(ctx, appID, messageID)
	if err != nil {
		return nil, err
	}
	_, accountID, err := c.subscriptionAccount(ctx, appID, msg.SubscriptionID)
	if err != nil {
		return nil, err
	}
	return a.ResendMessage(ctx, accountID, msg.SubscriptionID, messageID)
}

// subscriptionAccount returns the App and the account id of one of its
// subscriptions ("" for "").
func (c *Client) subscriptionAccount(ctx context.Context, appID, subscriptionID string) (*App, string, error) {
	a, err := c.App(ctx, appID)
	if err != nil {
		return nil, "", err
	}
	if subscriptionID == "" {
		return a, "", nil
	}
	sub, err := c.store.GetSubscription(ctx, appID, subscriptionID)
	if err != nil {
		return nil, "", err
	}
	return a, sub.EndUserAccountID, nil
}

// OutboxStatus counts the webhook messages waiting for delivery, across
// every application.
type OutboxStatus struct {
	Pending int `json:"pending"`
	// OldestPendingAt is when the oldest pending message was made; null
	// when none is pending.
	OldestPendingAt *time.Time `json:"oldestPendingAt"`
}

// Outbox returns the outbox's pending count. Returns CodeNotImplemented
// when the Store keeps no statistics.
func (c *Client) Outbox(ctx context.Context) (*OutboxStatus, error) {
	st, err := c.StoreStats(ctx)
	if err != nil {
		return nil, err
	}
	out := &OutboxStatus{Pending: st.PendingMessages}
	if !st.OldestPending.IsZero() {
		t := st.OldestPending.UTC()
		out.OldestPendingAt = &t
	}
	return out, nil
}
