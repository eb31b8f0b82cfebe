package admin

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

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
	// Mail is the invitation mail settings; null when not set.
	Mail *MailView `json:"mail"`
}

// WebhookView is an application's own webhook endpoint, which receives
// its enduseraccount.* messages.
type WebhookView struct {
	// URL is "" when the application has none.
	URL string `json:"url"`
	// SecretSet says whether a signing secret exists; the secret itself
	// is shown only when it is made.
	SecretSet bool `json:"secretSet"`
	outbox.EndpointState
}

// applicationView builds the operator's view of app.
func (s *Service) applicationView(app *unical.Application) *ApplicationView {
	v := &ApplicationView{
		ID: app.ID, Name: app.Name, CreatedAt: app.CreatedAt, UpdatedAt: app.UpdatedAt,
		RedirectURLs: slices.Clone(app.RedirectURLs),
		Webhook:      &WebhookView{URL: app.WebhookURL, SecretSet: app.SealedWebhookSecret != nil, EndpointState: app.CurrentWebhookState()},
		Mail:         s.mailView(app),
	}
	if v.RedirectURLs == nil {
		v.RedirectURLs = []string{}
	}
	for _, info := range s.SettingsProviders() {
		v.Providers = append(v.Providers, s.providerView(app, info))
	}
	return v
}

// ListApplicationViews returns every application, oldest first, as the
// operator sees it.
func (s *Service) ListApplicationViews(ctx context.Context) ([]*ApplicationView, error) {
	apps, err := s.store.ListApplications(ctx)
	if err != nil {
		return nil, err
	}
	views := make([]*ApplicationView, len(apps))
	for i, app := range apps {
		views[i] = s.applicationView(app)
	}
	return views, nil
}

// GetApplicationView returns one application as the operator sees it, or
// CodeNotFound.
func (s *Service) GetApplicationView(ctx context.Context, id string) (*ApplicationView, error) {
	app, err := s.store.GetApplication(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.applicationView(app), nil
}

// GetApplication returns an application as stored, its secrets sealed.
func (s *Service) GetApplication(ctx context.Context, id string) (*unical.Application, error) {
	return s.store.GetApplication(ctx, id)
}

// ListApplications returns every application as stored, oldest first.
func (s *Service) ListApplications(ctx context.Context) ([]*unical.Application, error) {
	return s.store.ListApplications(ctx)
}

// ApplicationParams are the settings of an application for
// [Service.CreateApplication] and [Service.UpdateApplication]. Absent
// fields are left alone on update.
type ApplicationParams struct {
	Name         unical.Optional[string]   `json:"name,omitzero"`
	RedirectURLs unical.Optional[[]string] `json:"redirectUrls,omitzero"`
	// Providers replaces the settings of the provider types it names; a
	// ClientSecret left empty keeps the stored one.
	Providers  map[unical.ProviderType]unical.ProviderSettings `json:"providers,omitempty"`
	WebhookURL unical.Optional[string]                         `json:"webhookUrl,omitzero"`
}

// CreatedApplication is a new application with its first API key, which is
// shown only here.
type CreatedApplication struct {
	ApplicationID string `json:"applicationId"`
	APIKey        string `json:"apiKey"`
	// WebhookSecret verifies the application's own webhook messages; shown
	// only when the application has a webhook URL.
	WebhookSecret string `json:"webhookSecret,omitempty"`
}

// CreateApplication creates an application and its first API key.
// Returns CodeInvalid naming the field at fault; nothing is stored then.
func (s *Service) CreateApplication(ctx context.Context, params *ApplicationParams) (*CreatedApplication, error) {
	name, _ := params.Name.Get()
	if strings.TrimSpace(name) == "" {
		return nil, unical.FieldError("name", "name is required.")
	}
	now := s.now().UTC()
	app := &unical.Application{ID: ids.New("app"), Name: name, CreatedAt: now, UpdatedAt: now, RedirectURLs: []string{}}
	secret, err := s.applyApplicationParams(app, params)
	if err != nil {
		return nil, err
	}
	if err := s.store.CreateApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "application.create", app.ID, "")
	_, key, err := s.createAPIKey(ctx, app.ID, "")
	if err != nil {
		return nil, err
	}
	return &CreatedApplication{ApplicationID: app.ID, APIKey: key, WebhookSecret: secret}, nil
}

// UpdateApplication changes an application's settings. It returns a new
// webhook secret when the webhook URL was set for the first time.
func (s *Service) UpdateApplication(ctx context.Context, id string, params *ApplicationParams) (*unical.Application, string, error) {
	app, err := s.store.GetApplication(ctx, id)
	if err != nil {
		return nil, "", err
	}
	secret, err := s.applyApplicationParams(app, params)
	if err != nil {
		return nil, "", err
	}
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, "", err
	}
	s.record(ctx, "application.update", id, "")
	return app, secret, nil
}

func (s *Service) applyApplicationParams(app *unical.Application, params *ApplicationParams) (webhookSecret string, err error) {
	if name, ok := params.Name.Get(); ok {
		if strings.TrimSpace(name) == "" {
			return "", unical.FieldError("name", "name cannot be empty.")
		}
		app.Name = name
	}
	if urls, ok := params.RedirectURLs.Get(); ok {
		for i, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" {
				return "", unical.FieldError("redirectUrls", "redirectUrls[%d] must be an absolute URL without a fragment.", i)
			}
		}
		app.RedirectURLs = urls
	} else if params.RedirectURLs.IsNull() {
		app.RedirectURLs = []string{}
	}
	for t, set := range params.Providers {
		if info, err := s.settingsInfo(t); err == nil {
			if err := checkProviderParams(info, ParamsOf(set)); err != nil {
				return "", err
			}
		} else {
			var allowed []string
			for _, info := range s.SettingsProviders() {
				allowed = append(allowed, string(info.Type))
			}
			return "", &unical.Error{Code: unical.CodeInvalid, Field: "providers", Allowed: allowed, Message: "providers keys must be provider types that take settings."}
		}
		prefix := "providers." + string(t) + "."
		if err := checkURLShape(prefix+"authUrl", set.AuthURL); err != nil {
			return "", err
		}
		if err := s.checkOutboundURLs(settingsURLs(prefix, set)...); err != nil {
			return "", err
		}
		if app.Providers == nil {
			app.Providers = map[unical.ProviderType]unical.ProviderSettings{}
		}
		if set.ClientSecret != "" {
			sealClientSecret(s.client.Keys(), app, t, set.ClientSecret)
		}
		set.ClientSecret = ""
		app.Providers[t] = set
	}
	if raw, ok := params.WebhookURL.Get(); ok && raw != "" {
		if err := subscriptions.CheckWebhookURL("webhookUrl", raw, s.client.Config().AllowPrivateTargets); err != nil {
			return "", err
		}
		if app.SealedWebhookSecret == nil {
			webhookSecret, app.SealedWebhookSecret = s.client.Keys().NewWebhookSecret(app.ID)
		}
		app.WebhookURL = raw
	} else if params.WebhookURL.IsSet() {
		app.WebhookURL = ""
		app.SealedWebhookSecret = nil
	}
	return webhookSecret, nil
}

// RenameApplication changes an application's name. Returns CodeInvalid
// naming name when it is empty, CodeNotFound for an unknown application.
func (s *Service) RenameApplication(ctx context.Context, id, name string) (*ApplicationView, error) {
	if strings.TrimSpace(name) == "" {
		return nil, unical.FieldError("name", "name cannot be empty.")
	}
	app, err := s.store.GetApplication(ctx, id)
	if err != nil {
		return nil, err
	}
	app.Name = name
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "application.rename", id, "")
	return s.applicationView(app), nil
}

// ApplicationDeleted is the result of [Service.DeleteApplication].
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
// A key of the application stops working at once on this Client, and on
// the others once the Store's version moves (the PostgreSQL store's
// notification), within Config.CacheTTL at most.
func (s *Service) DeleteApplication(ctx context.Context, id string, cascade bool) (*ApplicationDeleted, error) {
	a, err := s.app(ctx, id)
	if err != nil {
		return nil, err
	}
	keys, err := s.store.ListAPIKeys(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &ApplicationDeleted{ApplicationID: id}
	if cascade {
		for {
			recs, err := s.store.ListAccounts(ctx, id, unical.AccountFilter{Limit: 100})
			if err != nil {
				return out, err
			}
			if len(recs) == 0 {
				break
			}
			for _, rec := range recs {
				if err := s.purgeAccount(ctx, a, rec.ID); err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
					return out, err
				}
				out.AccountsDeleted++
			}
		}
	}
	if err := s.store.DeleteApplication(ctx, id); err != nil {
		if unical.ErrorCode(err) == unical.CodeConflict {
			return nil, &unical.Error{Code: unical.CodeConflict, Field: "cascade", Message: "The application still has accounts; delete them first, or delete with cascade=true to delete them too.", Err: err}
		}
		return out, err
	}
	keyIDs := make([]string, len(keys))
	for i, k := range keys {
		keyIDs[i] = k.ID
	}
	s.client.Invalidate(id, keyIDs...)
	s.record(ctx, "application.delete", id, "")
	return out, nil
}

// purgeAccount deletes an account with its subscriptions, stopping their
// provider watches, without sending enduseraccount.deleted: it is for an
// application that is being deleted, so nobody would receive it.
// Returns CodeNotFound when the account is already gone.
func (s *Service) purgeAccount(ctx context.Context, a *unical.App, accountID string) error {
	subs, err := s.store.ListSubscriptions(ctx, a.ID(), accountID, "", 0)
	if err != nil {
		return err
	}
	for _, sub := range subs {
		subscriptions.StopWatch(ctx, a, sub)
	}
	return s.store.DeleteAccount(ctx, a.ID(), accountID)
}

// maxRedirectURLs bounds an application's registered redirect URLs.
const maxRedirectURLs = 100

// maxRedirectURLLength bounds one redirect URL, as the authorize
// endpoint does.
const maxRedirectURLLength = 2048

// checkRedirectURL requires an absolute URL with a host and no fragment,
// as OAuth 2.0 does of redirect URIs; http is allowed, for development
// on localhost.
func checkRedirectURL(field, raw string) error {
	if raw == "" {
		return unical.FieldError(field, "%s is required.", field)
	}
	if len(raw) > maxRedirectURLLength {
		return unical.FieldError(field, "%s may be at most %d bytes long.", field, maxRedirectURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return unical.FieldError(field, "%s must be an absolute http or https URL without a fragment.", field)
	}
	return nil
}

// ListRedirectURLs returns an application's registered OAuth redirect
// URLs, or CodeNotFound.
func (s *Service) ListRedirectURLs(ctx context.Context, appID string) ([]string, error) {
	app, err := s.store.GetApplication(ctx, appID)
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
func (s *Service) AddRedirectURL(ctx context.Context, appID, raw string) ([]string, error) {
	if err := checkRedirectURL("url", raw); err != nil {
		return nil, err
	}
	return s.changeRedirectURLs(ctx, appID, "redirectUrl.add", func(urls []string) ([]string, error) {
		if slices.Contains(urls, raw) {
			return urls, nil
		}
		if len(urls) >= maxRedirectURLs {
			return nil, unical.FieldError("url", "An application may register at most %d redirect URLs.", maxRedirectURLs)
		}
		return append(urls, raw), nil
	})
}

// RemoveRedirectURL unregisters an OAuth redirect URL and returns the
// URLs left. Returns CodeNotFound naming url when it is not registered.
func (s *Service) RemoveRedirectURL(ctx context.Context, appID, raw string) ([]string, error) {
	return s.changeRedirectURLs(ctx, appID, "redirectUrl.remove", func(urls []string) ([]string, error) {
		i := slices.Index(urls, raw)
		if i < 0 {
			return nil, &unical.Error{Code: unical.CodeNotFound, Field: "url", Message: "This redirect URL is not registered for the application."}
		}
		return slices.Delete(urls, i, i+1), nil
	})
}

// changeRedirectURLs reads an application's redirect URLs, changes them
// with fn and writes them back. Two operators changing the same
// application at the same instant may undo each other's change; the
// answer shows what was written.
func (s *Service) changeRedirectURLs(ctx context.Context, appID, operation string, fn func([]string) ([]string, error)) ([]string, error) {
	app, err := s.store.GetApplication(ctx, appID)
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
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, operation, appID, "")
	return urls, nil
}

// ApplicationWebhook returns an application's own webhook endpoint.
func (s *Service) ApplicationWebhook(ctx context.Context, appID string) (*WebhookView, error) {
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	return s.applicationView(app).Webhook, nil
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
func (s *Service) SetApplicationWebhook(ctx context.Context, appID, raw string) (*WebhookSet, error) {
	if raw != "" {
		if err := subscriptions.CheckWebhookURL("url", raw, s.client.Config().AllowPrivateTargets); err != nil {
			return nil, err
		}
	}
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	secret, err := s.applyApplicationParams(app, &ApplicationParams{WebhookURL: unical.Some(raw)})
	if err != nil {
		return nil, err
	}
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "webhook.set", appID, "")
	return &WebhookSet{Webhook: s.applicationView(app).Webhook, Secret: secret}, nil
}

// RotateWebhookSecret gives an application's webhook endpoint a new
// signing secret, returned once; messages are signed with it from then
// on. Returns CodeConflict naming url when the application has no
// webhook URL.
func (s *Service) RotateWebhookSecret(ctx context.Context, appID string) (*WebhookSet, error) {
	app, err := s.store.GetApplication(ctx, appID)
	if err != nil {
		return nil, err
	}
	if app.WebhookURL == "" {
		return nil, &unical.Error{Code: unical.CodeConflict, Field: "url", Message: "The application has no webhook URL; set one first."}
	}
	secret, sealed := s.client.Keys().NewWebhookSecret(app.ID)
	app.SealedWebhookSecret = sealed
	if err := s.saveApplication(ctx, app); err != nil {
		return nil, err
	}
	s.record(ctx, "webhook.rotate", appID, "")
	return &WebhookSet{Webhook: s.applicationView(app).Webhook, Secret: secret}, nil
}
