package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/unical/unical"
)

// notices are the messages a page shows after a successful action, chosen
// by the done query parameter of the redirect that follows the action (the
// Post/Redirect/Get pattern, so that reloading repeats nothing).
var notices = map[string]string{
	"renamed":          "The application was renamed.",
	"revoked":          "The API key was revoked: requests with it are refused from now on.",
	"redirect-added":   "The redirect URL was registered.",
	"redirect-removed": "The redirect URL was removed.",
	"provider-saved":   "The provider settings were saved.",
	"account-deleted":  "The account was deleted.",
	"webhook-saved":    "The webhook URL was saved.",
	"webhook-cleared":  "The webhook URL was removed.",
	"resent":           "The message was queued for delivery again.",
}

// appPage is one of an application's pages: its template, and load, which
// reads the page's data.
type appPage struct {
	section, template, title string
	load                     func(h *handler, r *http.Request, app *unical.Application) (any, error)
}

var (
	pageSetup     = appPage{"setup", "setup", "Set-up", (*handler).loadSetup}
	pageKeys      = appPage{"keys", "keys", "API keys", (*handler).loadKeys}
	pageRedirects = appPage{"redirects", "redirects", "Redirect URLs", (*handler).loadRedirects}
	pageProviders = appPage{"providers", "providers", "Providers", (*handler).loadProviders}
	pageAccounts  = appPage{"accounts", "accounts", "Accounts", (*handler).loadAccounts}
	pageWebhooks  = appPage{"webhooks", "webhooks", "Webhooks", (*handler).loadWebhooks}
)

// show renders one of an application's pages. status, errMsg and set
// (which fills in what only this response shows, such as a new secret)
// come from the action that led here, if any.
func (h *handler) show(w http.ResponseWriter, r *http.Request, s *session, p appPage, status int, errMsg string, set func(data any)) {
	app, err := h.admin.GetApplication(r.Context(), r.PathValue("app"))
	if err != nil {
		h.render(w, r, statusOf(err), "error", &view{Session: s, Title: "Application", Error: h.message(r, err)})
		return
	}
	data, err := p.load(h, r, app)
	if err != nil {
		if errMsg == "" {
			errMsg, status = h.message(r, err), statusOf(err)
		}
	} else if set != nil {
		set(data)
	}
	h.render(w, r, status, p.template, &view{
		Session: s, Title: p.title + " · " + app.Name, Error: errMsg, Notice: notices[r.URL.Query().Get("done")],
		App: app, Section: p.section, Data: data,
	})
}

// pageHandler is the GET handler of an application page.
func (h *handler) pageHandler(p appPage) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, s *session) { h.show(w, r, s, p, http.StatusOK, "", nil) }
}

// done ends a successful action by sending the browser to page with a notice.
func done(w http.ResponseWriter, r *http.Request, page, notice string, extra url.Values) {
	q := url.Values{"done": {notice}}
	for k, v := range extra {
		q[k] = v
	}
	http.Redirect(w, r, "/dashboard/apps/"+url.PathEscape(r.PathValue("app"))+page+"?"+q.Encode(), http.StatusSeeOther)
}

// failed shows page again with the error of a failed action.
func (h *handler) failed(w http.ResponseWriter, r *http.Request, s *session, p appPage, err error) {
	h.show(w, r, s, p, statusOf(err), h.message(r, err), nil)
}

// Applications.

func (h *handler) appsPage(w http.ResponseWriter, r *http.Request, s *session) {
	h.renderApps(w, r, s, http.StatusOK, "")
}

func (h *handler) renderApps(w http.ResponseWriter, r *http.Request, s *session, status int, errMsg string) {
	apps, err := h.admin.ListApplications(r.Context())
	if err != nil && errMsg == "" {
		errMsg, status = h.message(r, err), statusOf(err)
	}
	h.render(w, r, status, "apps", &view{Session: s, Title: "Applications", Error: errMsg, Section: "apps", Data: apps})
}

func (h *handler) createApp(w http.ResponseWriter, r *http.Request, s *session) {
	created, err := h.admin.CreateApplication(r.Context(), &unical.ApplicationParams{Name: unical.Some(strings.TrimSpace(r.PostFormValue("name")))})
	if err != nil {
		h.renderApps(w, r, s, statusOf(err), h.message(r, err))
		return
	}
	app, err := h.admin.GetApplication(r.Context(), created.ApplicationID)
	if err != nil {
		h.renderApps(w, r, s, statusOf(err), h.message(r, err))
		return
	}
	// Rendered here, not redirected to, so that the key is never in a URL
	// and a reload cannot show it again.
	h.render(w, r, http.StatusOK, "created", &view{Session: s, Title: "Application created", App: app, Section: "setup", Data: created})
}

func (h *handler) renameApp(w http.ResponseWriter, r *http.Request, s *session) {
	_, _, err := h.admin.UpdateApplication(r.Context(), r.PathValue("app"), &unical.ApplicationParams{Name: unical.Some(strings.TrimSpace(r.PostFormValue("name")))})
	if err != nil {
		h.failed(w, r, s, pageSetup, err)
		return
	}
	done(w, r, "", "renamed", nil)
}

// Set-up.

// setupItem is one step before OAuth works, done or not.
type setupItem struct {
	Done   bool
	Title  string
	Detail string
	// Link is the page where the step is done.
	Link string
}

type setupData struct {
	Items       []setupItem
	Missing     int
	PublicURL   string
	CallbackURL string
	// AuthorizeURL is an example start of the OAuth flow, shown when
	// everything is in place.
	AuthorizeURL string
}

func (h *handler) loadSetup(r *http.Request, app *unical.Application) (any, error) {
	base := "/dashboard/apps/" + url.PathEscape(app.ID)
	d := &setupData{PublicURL: h.publicURL}
	if h.publicURL != "" {
		d.CallbackURL = h.publicURL + unical.OAuthCallbackPath
	}
	d.Items = append(d.Items, setupItem{
		Done:   h.publicURL != "",
		Title:  "Public URL",
		Detail: "unicald needs the public https address browsers and providers reach it at (--public-url or UNICAL_PUBLIC_URL); it builds the OAuth callback URL from it. Restart unicald after setting it.",
	})
	var oauth []string
	for _, t := range []unical.ProviderType{unical.ProviderGoogle, unical.ProviderMicrosoft} {
		if s := app.Providers[t]; s.ClientID != "" && len(app.SealedSecrets[t]) > 0 {
			oauth = append(oauth, providerName(t))
		}
	}
	detail := "Enter the client id and client secret of your OAuth client at Google or Microsoft on the Providers page."
	if len(oauth) > 0 {
		detail = "Configured: " + strings.Join(oauth, ", ") + "."
	}
	d.Items = append(d.Items, setupItem{Done: len(oauth) > 0, Title: "An OAuth provider", Detail: detail, Link: base + "/providers"})
	detail = "Register the address of your application that users return to after connecting their calendar."
	if len(app.RedirectURLs) > 0 {
		detail = "Registered: " + strings.Join(app.RedirectURLs, ", ")
	}
	d.Items = append(d.Items, setupItem{Done: len(app.RedirectURLs) > 0, Title: "A redirect URL", Detail: detail, Link: base + "/redirects"})
	for _, it := range d.Items {
		if !it.Done {
			d.Missing++
		}
	}
	if d.Missing == 0 {
		t := unical.ProviderGoogle
		if len(oauth) == 1 && oauth[0] == providerName(unical.ProviderMicrosoft) {
			t = unical.ProviderMicrosoft
		}
		d.AuthorizeURL = h.publicURL + "/v1/oauth/authorize/" + url.PathEscape(app.ID) + "/" + t.PathName() + "?" + url.Values{"redirectUrl": {app.RedirectURLs[0]}}.Encode()
	}
	return d, nil
}

// API keys.

type keysData struct {
	Keys []*unical.APIKey
	// NewKey and NewKeyID are the key just created, shown only in the
	// answer to its creation.
	NewKey, NewKeyID string
}

func (h *handler) loadKeys(r *http.Request, app *unical.Application) (any, error) {
	keys, err := h.admin.ListAPIKeys(r.Context(), app.ID)
	return &keysData{Keys: keys}, err
}

func (h *handler) createKey(w http.ResponseWriter, r *http.Request, s *session) {
	id, key, err := h.admin.CreateAPIKey(r.Context(), r.PathValue("app"))
	if err != nil {
		h.failed(w, r, s, pageKeys, err)
		return
	}
	h.show(w, r, s, pageKeys, http.StatusOK, "", func(data any) {
		d := data.(*keysData)
		d.NewKey, d.NewKeyID = key, id
	})
}

func (h *handler) revokeKey(w http.ResponseWriter, r *http.Request, s *session) {
	if err := h.admin.RevokeAPIKey(r.Context(), r.PathValue("app"), r.PathValue("key")); err != nil {
		h.failed(w, r, s, pageKeys, err)
		return
	}
	done(w, r, "/keys", "revoked", nil)
}

// Redirect URLs.

func (h *handler) loadRedirects(r *http.Request, app *unical.Application) (any, error) {
	return app.RedirectURLs, nil
}

// editRedirects applies edit to the application's redirect URLs and saves them.
func (h *handler) editRedirects(w http.ResponseWriter, r *http.Request, s *session, notice string, edit func([]string) []string) {
	app, err := h.admin.GetApplication(r.Context(), r.PathValue("app"))
	if err != nil {
		h.failed(w, r, s, pageRedirects, err)
		return
	}
	urls := edit(slices.Clone(app.RedirectURLs))
	if _, _, err := h.admin.UpdateApplication(r.Context(), app.ID, &unical.ApplicationParams{RedirectURLs: unical.Some(urls)}); err != nil {
		h.failed(w, r, s, pageRedirects, err)
		return
	}
	done(w, r, "/redirects", notice, nil)
}

func (h *handler) addRedirect(w http.ResponseWriter, r *http.Request, s *session) {
	u := strings.TrimSpace(r.PostFormValue("url"))
	if u == "" {
		h.failed(w, r, s, pageRedirects, &unical.Error{Code: unical.CodeInvalid, Field: "url", Message: "Enter the redirect URL to register."})
		return
	}
	h.editRedirects(w, r, s, "redirect-added", func(urls []string) []string {
		if slices.Contains(urls, u) {
			return urls
		}
		return append(urls, u)
	})
}

func (h *handler) removeRedirect(w http.ResponseWriter, r *http.Request, s *session) {
	u := r.PostFormValue("url")
	h.editRedirects(w, r, s, "redirect-removed", func(urls []string) []string {
		return slices.DeleteFunc(urls, func(v string) bool { return v == u })
	})
}

// Providers.

type providerView struct {
	Type      unical.ProviderType
	Settings  unical.ProviderSettings
	SecretSet bool
	OAuth     bool
}

type providersData struct {
	Providers   []providerView
	CallbackURL string
}

func (h *handler) loadProviders(r *http.Request, app *unical.Application) (any, error) {
	d := &providersData{}
	if h.publicURL != "" {
		d.CallbackURL = h.publicURL + unical.OAuthCallbackPath
	}
	for _, t := range unical.ProviderTypes {
		s := app.Providers[t]
		s.ClientSecret = "" // never rendered, even if a caller left it in
		d.Providers = append(d.Providers, providerView{Type: t, Settings: s, SecretSet: len(app.SealedSecrets[t]) > 0, OAuth: t.UsesOAuth()})
	}
	return d, nil
}

func (h *handler) saveProvider(w http.ResponseWriter, r *http.Request, s *session) {
	t, ok := unical.ParseProviderPath(r.PathValue("provider"))
	if !ok {
		h.failed(w, r, s, pageProviders, unical.Errorf(unical.CodeNotFound, "No provider %q.", r.PathValue("provider")))
		return
	}
	f := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	settings := unical.ProviderSettings{
		ClientID: f("clientId"), ClientSecret: f("clientSecret"),
		AuthURL: f("authUrl"), TokenURL: f("tokenUrl"), UserInfoURL: f("userInfoUrl"), APIBaseURL: f("apiBaseUrl"),
		ServerURL: f("serverUrl"), Tenant: f("tenant"), Scopes: strings.Fields(r.PostFormValue("scopes")),
	}
	if _, _, err := h.admin.UpdateApplication(r.Context(), r.PathValue("app"), &unical.ApplicationParams{Providers: map[unical.ProviderType]unical.ProviderSettings{t: settings}}); err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	done(w, r, "/providers", "provider-saved", nil)
}

// Accounts.

type accountsData struct {
	Accounts       []*unical.Account
	Search, Status string
	NextPage       string
}

// accountsPageSize is how many accounts one page lists.
const accountsPageSize = 50

func (h *handler) loadAccounts(r *http.Request, app *unical.Application) (any, error) {
	q := r.URL.Query()
	d := &accountsData{Search: q.Get("q"), Status: q.Get("status")}
	a, err := h.admin.App(r.Context(), app.ID)
	if err != nil {
		return d, err
	}
	page, err := a.ListAccounts(r.Context(), &unical.AccountListParams{Search: d.Search, StatusFilter: d.Status, PageToken: q.Get("page"), Limit: accountsPageSize})
	if err != nil {
		return d, err
	}
	d.Accounts = page.Data
	if page.NextPageToken != nil {
		d.NextPage = "?" + url.Values{"q": {d.Search}, "status": {d.Status}, "page": {*page.NextPageToken}}.Encode()
	}
	return d, nil
}

func (h *handler) deleteAccount(w http.ResponseWriter, r *http.Request, s *session) {
	a, err := h.admin.App(r.Context(), r.PathValue("app"))
	if err == nil {
		_, err = a.DeleteAccount(r.Context(), r.PathValue("account"))
	}
	if err != nil {
		h.failed(w, r, s, pageAccounts, err)
		return
	}
	done(w, r, "/accounts", "account-deleted", nil)
}

// Webhooks.

type subscriptionView struct {
	*unical.Subscription
	Email string
}

type webhooksData struct {
	WebhookURL   string
	WebhookState unical.EndpointState
	// NewSecret is the webhook secret just created, shown only in the
	// answer to setting the URL.
	NewSecret     string
	Subscriptions []subscriptionView
	// Log is the delivery log shown: of the subscription LogSubscription
	// of account LogAccount, or of the application's own endpoint when
	// both are empty.
	LogAccount, LogSubscription string
	LogTitle                    string
	Log                         []*unical.DeliveryAttempt
	NextLogPage                 string
}

// webhooksScanLimit bounds the accounts whose subscriptions the Webhooks
// page lists, so that the page stays quick on a large installation.
const webhooksScanLimit = 50

func (h *handler) loadWebhooks(r *http.Request, app *unical.Application) (any, error) {
	q := r.URL.Query()
	d := &webhooksData{WebhookURL: app.WebhookURL, WebhookState: app.WebhookState, LogAccount: q.Get("account"), LogSubscription: q.Get("sub")}
	a, err := h.admin.App(r.Context(), app.ID)
	if err != nil {
		return d, err
	}
	accounts, err := a.ListAccounts(r.Context(), &unical.AccountListParams{Limit: webhooksScanLimit})
	if err != nil {
		return d, err
	}
	for _, acct := range accounts.Data {
		subs, err := a.ListSubscriptions(r.Context(), acct.ID, &unical.SubscriptionListParams{Limit: unical.MaxPageSize})
		if err != nil {
			return d, err
		}
		for _, sub := range subs.Data {
			d.Subscriptions = append(d.Subscriptions, subscriptionView{Subscription: sub, Email: acct.Email})
		}
	}
	d.LogTitle = "the application's webhook URL"
	if d.LogSubscription != "" {
		d.LogTitle = "subscription " + d.LogSubscription
	}
	log, err := a.ListDeliveries(r.Context(), d.LogAccount, d.LogSubscription, &unical.DeliveryListParams{PageToken: q.Get("page"), Limit: unical.MaxPageSize})
	if err != nil {
		return d, err
	}
	d.Log = log.Data
	if log.NextPageToken != nil {
		d.NextLogPage = "?" + url.Values{"account": {d.LogAccount}, "sub": {d.LogSubscription}, "page": {*log.NextPageToken}}.Encode()
	}
	return d, nil
}

func (h *handler) setWebhookURL(w http.ResponseWriter, r *http.Request, s *session) {
	u := strings.TrimSpace(r.PostFormValue("url"))
	_, secret, err := h.admin.UpdateApplication(r.Context(), r.PathValue("app"), &unical.ApplicationParams{WebhookURL: unical.Some(u)})
	if err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	if secret == "" {
		notice := "webhook-saved"
		if u == "" {
			notice = "webhook-cleared"
		}
		done(w, r, "/webhooks", notice, nil)
		return
	}
	h.show(w, r, s, pageWebhooks, http.StatusOK, "", func(data any) { data.(*webhooksData).NewSecret = secret })
}

func (h *handler) resend(w http.ResponseWriter, r *http.Request, s *session) {
	account, sub := r.PostFormValue("account"), r.PostFormValue("sub")
	a, err := h.admin.App(r.Context(), r.PathValue("app"))
	if err == nil {
		_, err = a.ResendMessage(r.Context(), account, sub, r.PostFormValue("message"))
	}
	if err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	var extra url.Values
	if sub != "" {
		extra = url.Values{"account": {account}, "sub": {sub}}
	}
	done(w, r, "/webhooks", "resent", extra)
}
