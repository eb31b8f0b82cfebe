package adminapi

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/internal/adapter/openapienum"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/kit"
	"github.com/unical/unical/subscriptions"
)

// routes mounts every admin route. Each handler decodes the request, makes
// one Service call and encodes the answer.
func (h *handler) routes() {
	h.patterns = append(h.patterns, "GET /admin/v1/openapi.json")
	h.mux.HandleFunc("GET /admin/v1/openapi.json", h.openAPIHandler())
	h.handle("GET /admin/v1/providers", h.handleProviderInfos)

	h.handle("GET /admin/v1/applications", h.handleApplicationList)
	h.handle("POST /admin/v1/applications", h.handleApplicationCreate)
	h.handle("GET /admin/v1/applications/{appId}", h.handleApplicationGet)
	h.handle("PUT /admin/v1/applications/{appId}", h.handleApplicationRename)
	h.handle("DELETE /admin/v1/applications/{appId}", h.handleApplicationDelete)

	h.handle("GET /admin/v1/applications/{appId}/keys", h.handleKeyList)
	h.handle("POST /admin/v1/applications/{appId}/keys", h.handleKeyCreate)
	h.handle("PUT /admin/v1/applications/{appId}/keys/{keyId}", h.handleKeyLabel)
	h.handle("DELETE /admin/v1/applications/{appId}/keys/{keyId}", h.handleKeyRevoke)

	h.handle("GET /admin/v1/applications/{appId}/redirectUrls", h.handleRedirectList)
	h.handle("POST /admin/v1/applications/{appId}/redirectUrls", h.handleRedirectAdd)
	h.handle("DELETE /admin/v1/applications/{appId}/redirectUrls", h.handleRedirectRemove)

	h.handle("GET /admin/v1/applications/{appId}/providers", h.handleProviderList)
	h.handle("GET /admin/v1/applications/{appId}/providers/{provider}", h.handleProviderGet)
	h.handle("PUT /admin/v1/applications/{appId}/providers/{provider}", h.handleProviderSet)
	h.handle("DELETE /admin/v1/applications/{appId}/providers/{provider}", h.handleProviderRemove)
	h.handle("POST /admin/v1/applications/{appId}/providers/{provider}/check", h.handleProviderCheck)

	h.handle("GET /admin/v1/applications/{appId}/delegations/{provider}", h.handleDelegationGet)
	h.handle("PUT /admin/v1/applications/{appId}/delegations/{provider}", h.handleDelegationSet)
	h.handle("DELETE /admin/v1/applications/{appId}/delegations/{provider}", h.handleDelegationRemove)
	h.handle("POST /admin/v1/applications/{appId}/delegations/{provider}/verify", h.handleDelegationVerify)

	h.handle("GET /admin/v1/applications/{appId}/webhook", h.handleWebhookGet)
	h.handle("PUT /admin/v1/applications/{appId}/webhook", h.handleWebhookSet)
	h.handle("POST /admin/v1/applications/{appId}/webhook/rotate", h.handleWebhookRotate)
	h.handle("GET /admin/v1/applications/{appId}/webhook/deliveries", h.handleWebhookDeliveries)
	h.handle("POST /admin/v1/applications/{appId}/webhook/test", h.handleWebhookTest)

	h.handle("GET /admin/v1/applications/{appId}/mail", h.handleMailGet)
	h.handle("PUT /admin/v1/applications/{appId}/mail", h.handleMailSet)
	h.handle("DELETE /admin/v1/applications/{appId}/mail", h.handleMailRemove)
	h.handle("POST /admin/v1/applications/{appId}/mail/verify", h.handleMailVerify)

	h.handle("GET /admin/v1/applications/{appId}/accounts", h.handleAccountList)
	h.handle("GET /admin/v1/applications/{appId}/accounts/{accountId}", h.handleAccountGet)
	h.handle("DELETE /admin/v1/applications/{appId}/accounts/{accountId}", h.handleAccountDelete)

	h.handle("GET /admin/v1/applications/{appId}/subscriptions", h.handleSubscriptionList)
	h.handle("GET /admin/v1/applications/{appId}/subscriptions/{subscriptionId}/deliveries", h.handleSubscriptionDeliveries)
	h.handle("POST /admin/v1/applications/{appId}/subscriptions/{subscriptionId}/test", h.handleSubscriptionTest)
	h.handle("POST /admin/v1/applications/{appId}/messages/{messageId}/resend", h.handleMessageResend)
	h.handle("GET /admin/v1/applications/{appId}/requests", h.handleRequestList)

	h.handle("GET /admin/v1/outbox", h.handleOutbox)
	h.handle("GET /admin/v1/audit", h.handleAuditList)
	h.handle("GET /admin/v1/applications/{appId}/audit", h.handleApplicationAudit)
}

// openAPIHandler handles GET /admin/v1/openapi.json, the one route
// without the admin token: the document with its provider type enums
// naming the server's providers (OpenAPIDocumentFor).
func (h *handler) openAPIHandler() http.HandlerFunc {
	doc := sync.OnceValue(func() []byte { return OpenAPIDocumentFor(h.svc) })
	return func(w http.ResponseWriter, r *http.Request) {
		doc := doc()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
		_, _ = w.Write(doc)
	}
}

// OpenAPIDocumentFor is [OpenAPIDocument] with its provider type enums
// naming the providers of svc's client.
func OpenAPIDocumentFor(svc *admin.Service) []byte {
	lists := openapienum.ProviderLists(svc.Client())
	lists["settingsProviderTypes"] = []string{}
	for _, info := range svc.SettingsProviders() {
		lists["settingsProviderTypes"] = append(lists["settingsProviderTypes"], string(info.Type))
	}
	doc, err := openapienum.Fill(OpenAPIDocument, lists)
	if err != nil {
		panic("adminapi: openapi.json: " + err.Error()) // the embedded document is tested to parse
	}
	return doc
}

// handleProviderInfos handles GET /admin/v1/providers: the server's
// providers, each with its display name, settings and credential.
func (h *handler) handleProviderInfos(w http.ResponseWriter, r *http.Request) error {
	return ok(w, list[kit.ProviderInfo]{Data: h.svc.ProviderInfos()})
}

// handleApplicationList handles GET /admin/v1/applications.
func (h *handler) handleApplicationList(w http.ResponseWriter, r *http.Request) error {
	apps, err := h.svc.ListApplicationViews(r.Context())
	if err != nil {
		return err
	}
	return ok(w, list[*admin.ApplicationView]{Data: apps})
}

// applicationCreated is the answer of POST /admin/v1/applications.
type applicationCreated struct {
	Application *admin.ApplicationView `json:"application"`
	APIKey      string                 `json:"apiKey"`
}

// handleApplicationCreate handles POST /admin/v1/applications.
func (h *handler) handleApplicationCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name string `json:"name"`
	}
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	created, err := h.svc.CreateApplication(r.Context(), &admin.ApplicationParams{Name: unical.Some(body.Name)})
	if err != nil {
		return err
	}
	app, err := h.svc.GetApplicationView(r.Context(), created.ApplicationID)
	if err != nil {
		return err
	}
	return ok(w, applicationCreated{app, created.APIKey})
}

// handleApplicationGet handles GET /admin/v1/applications/{appId}.
func (h *handler) handleApplicationGet(w http.ResponseWriter, r *http.Request) error {
	app, err := h.svc.GetApplicationView(r.Context(), r.PathValue("appId"))
	if err != nil {
		return err
	}
	return ok(w, app)
}

// handleApplicationRename handles PUT /admin/v1/applications/{appId}.
func (h *handler) handleApplicationRename(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name string `json:"name"`
	}
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	app, err := h.svc.RenameApplication(r.Context(), r.PathValue("appId"), body.Name)
	if err != nil {
		return err
	}
	return ok(w, app)
}

// handleApplicationDelete handles DELETE /admin/v1/applications/{appId}.
func (h *handler) handleApplicationDelete(w http.ResponseWriter, r *http.Request) error {
	cascade, err := boolParam(r, "cascade")
	if err != nil {
		return err
	}
	deleted, err := h.svc.DeleteApplication(r.Context(), r.PathValue("appId"), cascade)
	if err != nil {
		return err
	}
	return ok(w, deleted)
}

// handleKeyList handles GET /admin/v1/applications/{appId}/keys.
func (h *handler) handleKeyList(w http.ResponseWriter, r *http.Request) error {
	keys, err := h.svc.ListAPIKeyViews(r.Context(), r.PathValue("appId"))
	if err != nil {
		return err
	}
	return ok(w, list[*admin.APIKeyView]{Data: keys})
}

// keyLabelBody is the optional body of creating a key, and the body of
// labelling one.
type keyLabelBody struct {
	Label string `json:"label"`
}

// handleKeyCreate handles POST /admin/v1/applications/{appId}/keys. The
// body, with a label, is optional.
func (h *handler) handleKeyCreate(w http.ResponseWriter, r *http.Request) error {
	var body keyLabelBody
	if r.ContentLength != 0 {
		if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
			return err
		}
	}
	created, err := h.svc.CreateAPIKey(r.Context(), r.PathValue("appId"), body.Label)
	if err != nil {
		return err
	}
	return ok(w, created)
}

// handleKeyLabel handles PUT /admin/v1/applications/{appId}/keys/{keyId}.
func (h *handler) handleKeyLabel(w http.ResponseWriter, r *http.Request) error {
	var body keyLabelBody
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	key, err := h.svc.LabelAPIKey(r.Context(), r.PathValue("appId"), r.PathValue("keyId"), body.Label)
	if err != nil {
		return err
	}
	return ok(w, key)
}

// handleKeyRevoke handles DELETE /admin/v1/applications/{appId}/keys/{keyId}.
func (h *handler) handleKeyRevoke(w http.ResponseWriter, r *http.Request) error {
	if err := h.svc.RevokeAPIKey(r.Context(), r.PathValue("appId"), r.PathValue("keyId")); err != nil {
		return err
	}
	return ok(w, unical.Success{Success: true})
}

// handleRedirectList handles GET /admin/v1/applications/{appId}/redirectUrls.
func (h *handler) handleRedirectList(w http.ResponseWriter, r *http.Request) error {
	urls, err := h.svc.ListRedirectURLs(r.Context(), r.PathValue("appId"))
	if err != nil {
		return err
	}
	return ok(w, list[string]{Data: urls})
}

// handleRedirectAdd handles POST /admin/v1/applications/{appId}/redirectUrls.
func (h *handler) handleRedirectAdd(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		URL string `json:"url"`
	}
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	urls, err := h.svc.AddRedirectURL(r.Context(), r.PathValue("appId"), body.URL)
	if err != nil {
		return err
	}
	return ok(w, list[string]{Data: urls})
}

// handleRedirectRemove handles DELETE
// /admin/v1/applications/{appId}/redirectUrls?url=...
func (h *handler) handleRedirectRemove(w http.ResponseWriter, r *http.Request) error {
	raw := r.URL.Query().Get("url")
	if raw == "" {
		return unical.FieldError("url", "url is required: the redirect URL to remove.")
	}
	urls, err := h.svc.RemoveRedirectURL(r.Context(), r.PathValue("appId"), raw)
	if err != nil {
		return err
	}
	return ok(w, list[string]{Data: urls})
}

// handleProviderList handles GET /admin/v1/applications/{appId}/providers.
func (h *handler) handleProviderList(w http.ResponseWriter, r *http.Request) error {
	app, err := h.svc.GetApplicationView(r.Context(), r.PathValue("appId"))
	if err != nil {
		return err
	}
	return ok(w, list[*admin.ProviderSettingsView]{Data: app.Providers})
}

// handleDelegationGet handles GET /admin/v1/applications/{appId}/delegations/{provider}.
func (h *handler) handleDelegationGet(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	v, err := h.svc.GetDelegation(r.Context(), r.PathValue("appId"), t)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleDelegationSet handles PUT /admin/v1/applications/{appId}/delegations/{provider}.
func (h *handler) handleDelegationSet(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	var body admin.DelegationParams
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	v, err := h.svc.SetDelegation(r.Context(), r.PathValue("appId"), t, &body)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleDelegationVerify handles POST /admin/v1/applications/{appId}/delegations/{provider}/verify.
func (h *handler) handleDelegationVerify(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	var body admin.VerifyParams
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	v, err := h.svc.VerifyDelegation(r.Context(), r.PathValue("appId"), t, &body)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleDelegationRemove handles DELETE /admin/v1/applications/{appId}/delegations/{provider}.
func (h *handler) handleDelegationRemove(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	if err := h.svc.RemoveDelegation(r.Context(), r.PathValue("appId"), t); err != nil {
		return err
	}
	return ok(w, unical.Success{Success: true})
}

// handleProviderGet handles GET /admin/v1/applications/{appId}/providers/{provider}.
func (h *handler) handleProviderGet(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	v, err := h.svc.GetProviderSettings(r.Context(), r.PathValue("appId"), t)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleProviderSet handles PUT /admin/v1/applications/{appId}/providers/{provider}.
func (h *handler) handleProviderSet(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	var body admin.ProviderSettingsParams
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	v, err := h.svc.SetProviderSettings(r.Context(), r.PathValue("appId"), t, &body)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleProviderRemove handles DELETE /admin/v1/applications/{appId}/providers/{provider}.
func (h *handler) handleProviderRemove(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	v, err := h.svc.RemoveProviderSettings(r.Context(), r.PathValue("appId"), t)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleProviderCheck handles POST /admin/v1/applications/{appId}/providers/{provider}/check.
func (h *handler) handleProviderCheck(w http.ResponseWriter, r *http.Request) error {
	t, err := provider(r)
	if err != nil {
		return err
	}
	check, err := h.svc.CheckProviderSettings(r.Context(), r.PathValue("appId"), t)
	if err != nil {
		return err
	}
	return ok(w, check)
}

// handleMailGet handles GET /admin/v1/applications/{appId}/mail.
func (h *handler) handleMailGet(w http.ResponseWriter, r *http.Request) error {
	v, err := h.svc.ApplicationMail(r.Context(), r.PathValue("appId"))
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleMailSet handles PUT /admin/v1/applications/{appId}/mail.
func (h *handler) handleMailSet(w http.ResponseWriter, r *http.Request) error {
	var body admin.MailParams
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	v, err := h.svc.SetApplicationMail(r.Context(), r.PathValue("appId"), &body)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleMailRemove handles DELETE /admin/v1/applications/{appId}/mail.
func (h *handler) handleMailRemove(w http.ResponseWriter, r *http.Request) error {
	if err := h.svc.RemoveApplicationMail(r.Context(), r.PathValue("appId")); err != nil {
		return err
	}
	return ok(w, &unical.Success{Success: true})
}

// handleMailVerify handles POST /admin/v1/applications/{appId}/mail/verify.
func (h *handler) handleMailVerify(w http.ResponseWriter, r *http.Request) error {
	var body admin.MailVerifyParams
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	v, err := h.svc.VerifyApplicationMail(r.Context(), r.PathValue("appId"), &body)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleWebhookGet handles GET /admin/v1/applications/{appId}/webhook.
func (h *handler) handleWebhookGet(w http.ResponseWriter, r *http.Request) error {
	v, err := h.svc.ApplicationWebhook(r.Context(), r.PathValue("appId"))
	if err != nil {
		return err
	}
	return ok(w, v)
}

// handleWebhookSet handles PUT /admin/v1/applications/{appId}/webhook.
func (h *handler) handleWebhookSet(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		URL string `json:"url"`
	}
	if err := httpwire.DecodeJSON(w, r, &body, nil); err != nil {
		return err
	}
	set, err := h.svc.SetApplicationWebhook(r.Context(), r.PathValue("appId"), body.URL)
	if err != nil {
		return err
	}
	return ok(w, set)
}

// handleWebhookRotate handles POST /admin/v1/applications/{appId}/webhook/rotate.
func (h *handler) handleWebhookRotate(w http.ResponseWriter, r *http.Request) error {
	set, err := h.svc.RotateWebhookSecret(r.Context(), r.PathValue("appId"))
	if err != nil {
		return err
	}
	return ok(w, set)
}

// handleWebhookDeliveries handles GET /admin/v1/applications/{appId}/webhook/deliveries.
func (h *handler) handleWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	token, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	page, err := h.svc.ListDeliveries(r.Context(), r.PathValue("appId"), "", &outbox.ListParams{PageToken: token, Limit: limit})
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleAccountList handles GET /admin/v1/applications/{appId}/accounts.
func (h *handler) handleAccountList(w http.ResponseWriter, r *http.Request) error {
	token, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	page, err := h.svc.ListAccounts(r.Context(), r.PathValue("appId"), &unical.AccountListParams{
		Search: q.Get("search"), StatusFilter: q.Get("statusFilter"), PageToken: token, Limit: limit,
	})
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleAccountGet handles GET /admin/v1/applications/{appId}/accounts/{accountId}.
func (h *handler) handleAccountGet(w http.ResponseWriter, r *http.Request) error {
	acct, err := h.svc.GetAccount(r.Context(), r.PathValue("appId"), r.PathValue("accountId"))
	if err != nil {
		return err
	}
	return ok(w, acct)
}

// handleAccountDelete handles DELETE /admin/v1/applications/{appId}/accounts/{accountId}.
func (h *handler) handleAccountDelete(w http.ResponseWriter, r *http.Request) error {
	deleted, err := h.svc.DeleteAccount(r.Context(), r.PathValue("appId"), r.PathValue("accountId"))
	if err != nil {
		return err
	}
	return ok(w, deleted)
}

// handleSubscriptionList handles GET /admin/v1/applications/{appId}/subscriptions.
func (h *handler) handleSubscriptionList(w http.ResponseWriter, r *http.Request) error {
	token, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	page, err := h.svc.ListSubscriptions(r.Context(), r.PathValue("appId"), &subscriptions.ListParams{PageToken: token, Limit: limit})
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleSubscriptionDeliveries handles GET
// /admin/v1/applications/{appId}/subscriptions/{subscriptionId}/deliveries.
func (h *handler) handleSubscriptionDeliveries(w http.ResponseWriter, r *http.Request) error {
	token, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	page, err := h.svc.ListDeliveries(r.Context(), r.PathValue("appId"), r.PathValue("subscriptionId"), &outbox.ListParams{PageToken: token, Limit: limit})
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleMessageResend handles POST /admin/v1/applications/{appId}/messages/{messageId}/resend.
func (h *handler) handleMessageResend(w http.ResponseWriter, r *http.Request) error {
	done, err := h.svc.ResendMessage(r.Context(), r.PathValue("appId"), r.PathValue("messageId"))
	if err != nil {
		return err
	}
	return ok(w, done)
}

// testMessage is the answer of the test message routes.
type testMessage struct {
	MessageID string `json:"messageId"`
}

// handleWebhookTest handles POST /admin/v1/applications/{appId}/webhook/test.
func (h *handler) handleWebhookTest(w http.ResponseWriter, r *http.Request) error {
	id, err := h.svc.SendTestMessage(r.Context(), r.PathValue("appId"), "")
	if err != nil {
		return err
	}
	return ok(w, testMessage{id})
}

// handleSubscriptionTest handles POST
// /admin/v1/applications/{appId}/subscriptions/{subscriptionId}/test.
func (h *handler) handleSubscriptionTest(w http.ResponseWriter, r *http.Request) error {
	id, err := h.svc.SendTestMessage(r.Context(), r.PathValue("appId"), r.PathValue("subscriptionId"))
	if err != nil {
		return err
	}
	return ok(w, testMessage{id})
}

// handleRequestList handles GET /admin/v1/applications/{appId}/requests.
func (h *handler) handleRequestList(w http.ResponseWriter, r *http.Request) error {
	var failed bool
	switch v := r.URL.Query().Get("failed"); v {
	case "", "false":
	case "true":
		failed = true
	default:
		return &unical.Error{Code: unical.CodeInvalid, Field: "failed", Message: "failed must be true or false."}
	}
	list, err := h.svc.ListRequests(r.Context(), r.PathValue("appId"), failed)
	if err != nil {
		return err
	}
	return ok(w, list)
}

// handleOutbox handles GET /admin/v1/outbox.
func (h *handler) handleOutbox(w http.ResponseWriter, r *http.Request) error {
	st, err := h.svc.Outbox(r.Context())
	if err != nil {
		return err
	}
	return ok(w, st)
}

// handleAuditList handles GET /admin/v1/audit.
func (h *handler) handleAuditList(w http.ResponseWriter, r *http.Request) error {
	return h.listAudit(w, r, "")
}

// handleApplicationAudit handles GET /admin/v1/applications/{appId}/audit.
func (h *handler) handleApplicationAudit(w http.ResponseWriter, r *http.Request) error {
	return h.listAudit(w, r, r.PathValue("appId"))
}

// listAudit answers one page of the audit log, of appID or ("") of all.
func (h *handler) listAudit(w http.ResponseWriter, r *http.Request, appID string) error {
	token, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	if r.URL.Query().Has("limit") && limit == 0 {
		limit = -1 // refused by ListAudit, where 0 means the default
	}
	page, err := h.svc.ListAudit(r.Context(), &admin.AuditListParams{ApplicationID: appID, PageToken: token, Limit: limit})
	if err != nil {
		return err
	}
	return ok(w, page)
}
