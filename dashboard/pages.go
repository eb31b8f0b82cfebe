package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/kit"
	"github.com/unical/unical/subscriptions"
)

// notices are the messages a page shows after a successful action, chosen
// by the done query parameter of the redirect that follows the action (the
// Post/Redirect/Get pattern, so that reloading repeats nothing).
var notices = map[string]string{
	"renamed":              "The application was renamed.",
	"revoked":              "The API key was revoked: requests with it are refused from now on.",
	"labelled":             "The API key's label was saved.",
	"account-created":      "The VIRTUAL account was created.",
	"account-connected":    "The CalDAV account was connected.",
	"subscription-paused":  "The subscription was paused: nothing is delivered to it until it is resumed.",
	"subscription-resumed": "The subscription was resumed.",
	"subscription-deleted": "The subscription was deleted.",
	"redirect-added":       "The redirect URL was registered.",
	"redirect-removed":     "The redirect URL was removed.",
	"provider-saved":       "The provider settings were saved.",
	"delegation-saved":     "The delegation credential was saved; verify it with a mailbox of its domains.",
	"delegation-verified":  "The delegation credential was tried; its status is below.",
	"delegation-removed":   "The delegation credential was removed.",
	"account-deleted":      "The account was deleted.",
	"webhook-saved":        "The webhook URL was saved.",
	"webhook-cleared":      "The webhook URL was removed.",
	"app-deleted":          "The application was deleted.",
	"resent":               "The message was queued for delivery again.",
	"retried":              "The message's next attempt was brought forward to now.",
	"test-queued":          "A webhook.test message was queued; its attempt shows in the delivery log below.",
	"mail-saved":           "The mail settings were saved; send a test message to check them.",
	"mail-removed":         "The mail settings were removed: no invitation is mailed or received from now on.",
}

// appPage is one of an application's pages: its template, and load, which
// reads the page's data.
type appPage struct {
	section, template, title string
	load                     func(h *handler, r *http.Request, app *admin.ApplicationView) (any, error)
}

var (
	pageSetup     = appPage{"setup", "setup", "Set-up", (*handler).loadSetup}
	pageKeys      = appPage{"keys", "keys", "API keys", (*handler).loadKeys}
	pageRedirects = appPage{"redirects", "redirects", "Redirect URLs", (*handler).loadRedirects}
	pageProviders = appPage{"providers", "providers", "Providers", (*handler).loadProviders}
	pageAccounts  = appPage{"accounts", "accounts", "Accounts", (*handler).loadAccounts}
	pageWebhooks  = appPage{"webhooks", "webhooks", "Webhooks", (*handler).loadWebhooks}
	pageBookings  = appPage{"bookings", "bookings", "Bookings", (*handler).loadBookings}
	pageRequests  = appPage{"requests", "requests", "Requests", (*handler).loadRequests}
)

// show renders one of an application's pages. status, errMsg and set
// (which fills in what only this response shows, such as a new secret)
// come from the action that led here, if any.
func (h *handler) show(w http.ResponseWriter, r *http.Request, s *session, p appPage, status int, errMsg string, set func(data any)) {
	app, err := h.admin.GetApplicationView(r.Context(), r.PathValue("app"))
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

type appsData struct {
	Apps []*admin.ApplicationView
	// Outbox is the webhook messages waiting across every application;
	// nil when the Store keeps no count.
	Outbox *admin.OutboxStatus
}

func (h *handler) appsPage(w http.ResponseWriter, r *http.Request, s *session) {
	h.renderApps(w, r, s, http.StatusOK, "")
}

func (h *handler) renderApps(w http.ResponseWriter, r *http.Request, s *session, status int, errMsg string) {
	d := &appsData{}
	var err error
	d.Apps, err = h.admin.ListApplicationViews(r.Context())
	if err != nil && errMsg == "" {
		errMsg, status = h.message(r, err), statusOf(err)
	}
	if out, err := h.admin.Outbox(r.Context()); err == nil {
		d.Outbox = out
	} else if unical.ErrorCode(err) != unical.CodeNotImplemented {
		h.message(r, err) // logged; the page works without the count
	}
	h.render(w, r, status, "apps", &view{Session: s, Title: "Applications", Error: errMsg, Notice: notices[r.URL.Query().Get("done")], Section: "apps", Data: d})
}

func (h *handler) createApp(w http.ResponseWriter, r *http.Request, s *session) {
	created, err := h.admin.CreateApplication(r.Context(), &admin.ApplicationParams{Name: unical.Some(strings.TrimSpace(r.PostFormValue("name")))})
	if err != nil {
		h.renderApps(w, r, s, statusOf(err), h.message(r, err))
		return
	}
	app, err := h.admin.GetApplicationView(r.Context(), created.ApplicationID)
	if err != nil {
		h.renderApps(w, r, s, statusOf(err), h.message(r, err))
		return
	}
	// Rendered here, not redirected to, so that the key is never in a URL
	// and a reload cannot show it again.
	h.render(w, r, http.StatusOK, "created", &view{Session: s, Title: "Application created", App: app, Section: "setup", Data: created})
}

func (h *handler) renameApp(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.RenameApplication(r.Context(), r.PathValue("app"), strings.TrimSpace(r.PostFormValue("name"))); err != nil {
		h.failed(w, r, s, pageSetup, err)
		return
	}
	done(w, r, "", "renamed", nil)
}

// deleteApp deletes an application, with its accounts only when the
// operator ticked the cascade box. The operator types the application's
// name to confirm, since there is no undo.
func (h *handler) deleteApp(w http.ResponseWriter, r *http.Request, s *session) {
	app, err := h.admin.GetApplicationView(r.Context(), r.PathValue("app"))
	if err != nil {
		h.failed(w, r, s, pageSetup, err)
		return
	}
	if r.PostFormValue("confirm") != app.Name {
		h.failed(w, r, s, pageSetup, &unical.Error{Code: unical.CodeInvalid, Field: "confirm", Message: "Type the application's name to confirm that it is to be deleted."})
		return
	}
	if _, err := h.admin.DeleteApplication(r.Context(), r.PathValue("app"), r.PostFormValue("cascade") == "true"); err != nil {
		h.failed(w, r, s, pageSetup, err)
		return
	}
	http.Redirect(w, r, "/dashboard/apps?done=app-deleted", http.StatusSeeOther)
}

// Set-up.

// setupItem is one step before OAuth works, done or not.
type setupItem struct {
	Done   bool
	Title  string
	Detail string
	// Link is the page where the step is done, LinkText its name.
	Link, LinkText string
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

func (h *handler) loadSetup(r *http.Request, app *admin.ApplicationView) (any, error) {
	base := "/dashboard/apps/" + url.PathEscape(app.ID)
	d := &setupData{PublicURL: h.publicURL}
	if h.publicURL != "" {
		d.CallbackURL = h.publicURL + unical.OAuthCallbackPath
	}
	detail := "unicald needs the public https address browsers and providers reach it at (--public-url or UNICAL_PUBLIC_URL); it builds the OAuth callback URL from it. Restart unicald after setting it."
	if h.publicURL != "" {
		detail = "unicald is reached at " + h.publicURL + "."
	}
	d.Items = append(d.Items, setupItem{Done: h.publicURL != "", Title: "Public URL", Detail: detail})
	var oauth []string
	for _, p := range app.Providers {
		if slices.Contains(p.Settings, "clientSecret") && p.ClientID != "" && p.ClientSecretSet {
			oauth = append(oauth, providerName(p.Provider))
		}
	}
	detail = "Enter the client id and client secret of your OAuth client at Google or Microsoft on the Providers page."
	if len(oauth) > 0 {
		detail = "Configured: " + strings.Join(oauth, ", ") + "."
	}
	d.Items = append(d.Items, setupItem{Done: len(oauth) > 0, Title: "An OAuth provider", Detail: detail, Link: base + "/providers", LinkText: "the Providers page"})
	detail = "Register the address of your application that users return to after connecting their calendar."
	if len(app.RedirectURLs) > 0 {
		detail = "Registered: " + strings.Join(app.RedirectURLs, ", ")
	}
	d.Items = append(d.Items, setupItem{Done: len(app.RedirectURLs) > 0, Title: "A redirect URL", Detail: detail, Link: base + "/redirects", LinkText: "the Redirect URLs page"})
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
	Keys []*admin.APIKeyView
	// NewKey and NewKeyID are the key just created, shown only in the
	// answer to its creation.
	NewKey, NewKeyID string
}

func (h *handler) loadKeys(r *http.Request, app *admin.ApplicationView) (any, error) {
	keys, err := h.admin.ListAPIKeyViews(r.Context(), app.ID)
	return &keysData{Keys: keys}, err
}

func (h *handler) createKey(w http.ResponseWriter, r *http.Request, s *session) {
	created, err := h.admin.CreateAPIKey(r.Context(), r.PathValue("app"), r.PostFormValue("label"))
	if err != nil {
		h.failed(w, r, s, pageKeys, err)
		return
	}
	h.show(w, r, s, pageKeys, http.StatusOK, "", func(data any) {
		d := data.(*keysData)
		d.NewKey, d.NewKeyID = created.APIKey, created.Key.ID
	})
}

func (h *handler) labelKey(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.LabelAPIKey(r.Context(), r.PathValue("app"), r.PathValue("key"), r.PostFormValue("label")); err != nil {
		h.failed(w, r, s, pageKeys, err)
		return
	}
	done(w, r, "/keys", "labelled", nil)
}

func (h *handler) revokeKey(w http.ResponseWriter, r *http.Request, s *session) {
	if err := h.admin.RevokeAPIKey(r.Context(), r.PathValue("app"), r.PathValue("key")); err != nil {
		h.failed(w, r, s, pageKeys, err)
		return
	}
	done(w, r, "/keys", "revoked", nil)
}

// Redirect URLs.

func (h *handler) loadRedirects(r *http.Request, app *admin.ApplicationView) (any, error) {
	return app.RedirectURLs, nil
}

func (h *handler) addRedirect(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.AddRedirectURL(r.Context(), r.PathValue("app"), strings.TrimSpace(r.PostFormValue("url"))); err != nil {
		h.failed(w, r, s, pageRedirects, err)
		return
	}
	done(w, r, "/redirects", "redirect-added", nil)
}

func (h *handler) removeRedirect(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.RemoveRedirectURL(r.Context(), r.PathValue("app"), r.PostFormValue("url")); err != nil {
		h.failed(w, r, s, pageRedirects, err)
		return
	}
	done(w, r, "/redirects", "redirect-removed", nil)
}

// Providers.

type providersData struct {
	Providers   []*admin.ProviderSettingsView
	CallbackURL string
	// Check is the result of the check action, shown only in its answer.
	Check *admin.ProviderCheck
	// Delegations are the credentials of the providers with delegation.
	Delegations []delegationForm
	// Others are the server's providers that take no settings.
	Others []kit.ProviderInfo
}

func (h *handler) loadProviders(r *http.Request, app *admin.ApplicationView) (any, error) {
	d := &providersData{Providers: app.Providers}
	for _, info := range h.admin.ProviderInfos() {
		if len(info.Settings) == 0 {
			d.Others = append(d.Others, info)
		}
	}
	var err error
	if d.Delegations, err = h.loadDelegations(r, app.ID); err != nil {
		return nil, err
	}
	if h.publicURL != "" {
		d.CallbackURL = h.publicURL + unical.OAuthCallbackPath
	}
	return d, nil
}

// providerOf is the provider type in the request's path, one that takes
// settings.
func (h *handler) providerOf(r *http.Request) (unical.ProviderType, error) {
	t, _ := unical.ParseProviderPath(r.PathValue("provider"))
	var names []string
	for _, info := range h.admin.SettingsProviders() {
		if info.Type == t {
			return t, nil
		}
		names = append(names, info.Type.PathName())
	}
	return "", unical.Errorf(unical.CodeNotFound, "No provider %q; use %s.", r.PathValue("provider"), strings.Join(names, ", "))
}

// saveProvider replaces one provider's settings with the form's. An empty
// client secret field keeps the stored secret; the removeSecret box
// removes it.
func (h *handler) saveProvider(w http.ResponseWriter, r *http.Request, s *session) {
	t, err := h.providerOf(r)
	if err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	var set unical.ProviderSettings
	for _, setting := range admin.ProviderSettings {
		setting.Set(&set, r.PostFormValue(setting.Name))
	}
	params := admin.ParamsOf(set)
	if set.ClientSecret == "" && r.PostFormValue("removeSecret") == "true" {
		params.ClientSecret = unical.Null[string]()
	}
	if _, err := h.admin.SetProviderSettings(r.Context(), r.PathValue("app"), t, params); err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	done(w, r, "/providers", "provider-saved", nil)
}

// checkProvider tries one provider's stored settings and shows the result.
func (h *handler) checkProvider(w http.ResponseWriter, r *http.Request, s *session) {
	t, err := h.providerOf(r)
	var check *admin.ProviderCheck
	if err == nil {
		check, err = h.admin.CheckProviderSettings(r.Context(), r.PathValue("app"), t)
	}
	if err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	h.show(w, r, s, pageProviders, http.StatusOK, "", func(data any) { data.(*providersData).Check = check })
}

// Accounts.

type accountsData struct {
	Accounts       []*unical.Account
	Search, Status string
	NextPage       string
	// CalDAV is what the CalDAV form shows again after a failed connect;
	// nil shows it empty.
	CalDAV *calDAVForm
}

// accountsPageSize is how many accounts one page lists.
const accountsPageSize = 50

func (h *handler) loadAccounts(r *http.Request, app *admin.ApplicationView) (any, error) {
	q := r.URL.Query()
	d := &accountsData{Search: q.Get("q"), Status: q.Get("status")}
	page, err := h.admin.ListAccounts(r.Context(), app.ID, &unical.AccountListParams{Search: d.Search, StatusFilter: d.Status, PageToken: q.Get("page"), Limit: accountsPageSize})
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
	if _, err := h.admin.DeleteAccount(r.Context(), r.PathValue("app"), r.PathValue("account")); err != nil {
		h.failed(w, r, s, pageAccounts, err)
		return
	}
	done(w, r, "/accounts", "account-deleted", nil)
}

// Webhooks.

type webhooksData struct {
	Webhook *admin.WebhookView
	// NewSecret is the webhook secret just made, shown only in the answer
	// to setting the URL or rotating the secret.
	NewSecret     string
	Subscriptions []*unical.Subscription
	// NextSubscriptions continues the subscription list.
	NextSubscriptions string
	// Log is the delivery log of subscription LogSubscription, or of the
	// application's own endpoint when it is empty (see logSubscription).
	LogSubscription string
	Log             []*outbox.Attempt
	NextLogPage     string
	// Status is the delivery status of each message in Log, by id;
	// absent for a message no longer kept.
	Status map[string]outbox.Status
}

// webhooksPageSize is how many subscriptions one page lists.
const webhooksPageSize = 50

func (h *handler) loadWebhooks(r *http.Request, app *admin.ApplicationView) (any, error) {
	q := r.URL.Query()
	d := &webhooksData{Webhook: app.Webhook, LogSubscription: q.Get("sub")}
	subs, err := h.admin.ListSubscriptions(r.Context(), app.ID, &subscriptions.ListParams{PageToken: q.Get("subs"), Limit: webhooksPageSize})
	if err != nil {
		return d, err
	}
	d.Subscriptions = subs.Data
	if !q.Has("sub") {
		d.LogSubscription = logSubscription(subs.Data)
	}
	if subs.NextPageToken != nil {
		d.NextSubscriptions = "?" + url.Values{"sub": {d.LogSubscription}, "subs": {*subs.NextPageToken}}.Encode()
	}
	log, err := h.admin.ListDeliveries(r.Context(), app.ID, d.LogSubscription, &outbox.ListParams{PageToken: q.Get("page"), Limit: unical.MaxPageSize})
	if err != nil {
		return d, err
	}
	d.Log = log.Data
	if log.NextPageToken != nil {
		d.NextLogPage = "?" + url.Values{"sub": {d.LogSubscription}, "page": {*log.NextPageToken}}.Encode()
	}
	// The statuses choose each row's action: "Retry now" for a pending
	// message, "Resend" for a failed one, none for a delivered one.
	d.Status = map[string]outbox.Status{}
	for _, a := range d.Log {
		if _, ok := d.Status[a.MessageID]; ok {
			continue
		}
		st, err := h.admin.MessageStatus(r.Context(), app.ID, a.MessageID)
		switch {
		case err == nil:
			d.Status[a.MessageID] = st
		case unical.ErrorCode(err) != unical.CodeNotFound:
			return d, err
		}
	}
	return d, nil
}

// logSubscription is the delivery log the Webhooks page opens on when
// the address names none (no sub parameter; sub= empty names the
// application webhook's): the first subscription listed, when there is
// one, since an application with calendar subscriptions receives most of
// its messages through them; else the application webhook's.
func logSubscription(subs []*unical.Subscription) string {
	if len(subs) == 0 {
		return ""
	}
	return subs[0].ID
}

func (h *handler) setWebhookURL(w http.ResponseWriter, r *http.Request, s *session) {
	u := strings.TrimSpace(r.PostFormValue("url"))
	set, err := h.admin.SetApplicationWebhook(r.Context(), r.PathValue("app"), u)
	if err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	h.webhookSet(w, r, s, set, u == "")
}

func (h *handler) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, s *session) {
	set, err := h.admin.RotateWebhookSecret(r.Context(), r.PathValue("app"))
	if err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	h.webhookSet(w, r, s, set, false)
}

// webhookSet answers a change of the application's webhook: the page with
// the new secret when one was made (never in a URL), else a redirect.
func (h *handler) webhookSet(w http.ResponseWriter, r *http.Request, s *session, set *admin.WebhookSet, cleared bool) {
	if set.Secret == "" {
		notice := "webhook-saved"
		if cleared {
			notice = "webhook-cleared"
		}
		done(w, r, "/webhooks", notice, nil)
		return
	}
	h.show(w, r, s, pageWebhooks, http.StatusOK, "", func(data any) { data.(*webhooksData).NewSecret = set.Secret })
}

// resend handles POST /dashboard/apps/{app}/webhooks/resend: "Resend" of
// a failed message, "Retry now" of a pending one (its next attempt
// brought forward; a message being sent at that moment is left to that
// attempt, so it is never sent twice).
func (h *handler) resend(w http.ResponseWriter, r *http.Request, s *session) {
	app, id := r.PathValue("app"), r.PostFormValue("message")
	notice := "resent"
	if st, err := h.admin.MessageStatus(r.Context(), app, id); err == nil && st == outbox.Pending {
		notice = "retried"
	}
	if _, err := h.admin.ResendMessage(r.Context(), app, id); err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	done(w, r, "/webhooks", notice, logOf(r))
}

// sendTest handles POST /dashboard/apps/{app}/webhooks/test: a
// webhook.test message to the subscription in the form's sub field, or
// to the application's own webhook when it is empty.
func (h *handler) sendTest(w http.ResponseWriter, r *http.Request, s *session) {
	if _, err := h.admin.SendTestMessage(r.Context(), r.PathValue("app"), r.PostFormValue("sub")); err != nil {
		h.failed(w, r, s, pageWebhooks, err)
		return
	}
	done(w, r, "/webhooks", "test-queued", logOf(r))
}

// logOf is the query that shows the delivery log of the form's sub field
// after an action, kept even when empty: sub= is the application
// webhook's log.
func logOf(r *http.Request) url.Values {
	return url.Values{"sub": {r.PostFormValue("sub")}}
}
