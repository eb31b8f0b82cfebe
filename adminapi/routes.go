package adminapi

import (
	"net/http"
	"strconv"

	"github.com/unical/unical"
	"github.com/unical/unical/httpapi"
)

// routes mounts every admin route. Each handler decodes the request, makes
// one Client call and encodes the answer.
func (h *handler) routes() {
	h.patterns = append(h.patterns, "GET /admin/v1/openapi.json")
	h.mux.HandleFunc("GET /admin/v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(OpenAPIDocument)))
		_, _ = w.Write(OpenAPIDocument)
	})

	h.handle("GET /admin/v1/applications", func(w http.ResponseWriter, r *http.Request) error {
		apps, err := h.client.ListApplicationViews(r.Context())
		if err != nil {
			return err
		}
		return ok(w, list[*unical.ApplicationView]{Data: apps})
	})
	h.handle("POST /admin/v1/applications", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name string `json:"name"`
		}
		if err := httpapi.DecodeJSON(w, r, &body); err != nil {
			return err
		}
		created, err := h.client.CreateApplication(r.Context(), &unical.ApplicationParams{Name: unical.Some(body.Name)})
		if err != nil {
			return err
		}
		app, err := h.client.GetApplicationView(r.Context(), created.ApplicationID)
		if err != nil {
			return err
		}
		return ok(w, struct {
			Application *unical.ApplicationView `json:"application"`
			APIKey      string                  `json:"apiKey"`
		}{app, created.APIKey})
	})
	h.handle("GET /admin/v1/applications/{appId}", func(w http.ResponseWriter, r *http.Request) error {
		app, err := h.client.GetApplicationView(r.Context(), r.PathValue("appId"))
		if err != nil {
			return err
		}
		return ok(w, app)
	})
	h.handle("PUT /admin/v1/applications/{appId}", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name string `json:"name"`
		}
		if err := httpapi.DecodeJSON(w, r, &body); err != nil {
			return err
		}
		app, err := h.client.RenameApplication(r.Context(), r.PathValue("appId"), body.Name)
		if err != nil {
			return err
		}
		return ok(w, app)
	})
	h.handle("DELETE /admin/v1/applications/{appId}", func(w http.ResponseWriter, r *http.Request) error {
		cascade, err := boolParam(r, "cascade")
		if err != nil {
			return err
		}
		deleted, err := h.client.DeleteApplication(r.Context(), r.PathValue("appId"), cascade)
		if err != nil {
			return err
		}
		return ok(w, deleted)
	})

	h.handle("GET /admin/v1/applications/{appId}/keys", func(w http.ResponseWriter, r *http.Request) error {
		keys, err := h.client.ListAPIKeyViews(r.Context(), r.PathValue("appId"))
		if err != nil {
			return err
		}
		return ok(w, list[*unical.APIKeyView]{Data: keys})
	})
	h.handle("POST /admin/v1/applications/{appId}/keys", func(w http.ResponseWriter, r *http.Request) error {
		appID := r.PathValue("appId")
		id, key, err := h.client.CreateAPIKey(r.Context(), appID)
		if err != nil {
			return err
		}
		keys, err := h.client.ListAPIKeyViews(r.Context(), appID)
		if err != nil {
			return err
		}
		answer := struct {
			Key    *unical.APIKeyView `json:"key"`
			APIKey string             `json:"apiKey"`
		}{APIKey: key}
		for _, k := range keys {
			if k.ID == id {
				answer.Key = k
			}
		}
		return ok(w, answer)
	})
	h.handle("DELETE /admin/v1/applications/{appId}/keys/{keyId}", func(w http.ResponseWriter, r *http.Request) error {
		if err := h.client.RevokeAPIKey(r.Context(), r.PathValue("appId"), r.PathValue("keyId")); err != nil {
			return err
		}
		return ok(w, unical.Success{Success: true})
	})

	h.handle("GET /admin/v1/applications/{appId}/redirectUrls", func(w http.ResponseWriter, r *http.Request) error {
		urls, err := h.client.ListRedirectURLs(r.Context(), r.PathValue("appId"))
		if err != nil {
			return err
		}
		return ok(w, list[string]{Data: urls})
	})
	h.handle("POST /admin/v1/applications/{appId}/redirectUrls", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			URL string `json:"url"`
		}
		if err := httpapi.DecodeJSON(w, r, &body); err != nil {
			return err
		}
		urls, err := h.client.AddRedirectURL(r.Context(), r.PathValue("appId"), body.URL)
		if err != nil {
			return err
		}
		return ok(w, list[string]{Data: urls})
	})
	h.handle("DELETE /admin/v1/applications/{appId}/redirectUrls", func(w http.ResponseWriter, r *http.Request) error {
		raw := r.URL.Query().Get("url")
		if raw == "" {
			return unical.FieldError("url", "url is required: the redirect URL to remove.")
		}
		urls, err := h.client.RemoveRedirectURL(r.Context(), r.PathValue("appId"), raw)
		if err != nil {
			return err
		}
		return ok(w, list[string]{Data: urls})
	})

	h.handle("GET /admin/v1/applications/{appId}/providers", func(w http.ResponseWriter, r *http.Request) error {
		app, err := h.client.GetApplicationView(r.Context(), r.PathValue("appId"))
		if err != nil {
			return err
		}
		return ok(w, list[*unical.ProviderSettingsView]{Data: app.Providers})
	})
	h.handle("GET /admin/v1/applications/{appId}/providers/{provider}", func(w http.ResponseWriter, r *http.Request) error {
		t, err := provider(r)
		if err != nil {
			return err
		}
		v, err := h.client.GetProviderSettings(r.Context(), r.PathValue("appId"), t)
		if err != nil {
			return err
		}
		return ok(w, v)
	})
	h.handle("PUT /admin/v1/applications/{appId}/providers/{provider}", func(w http.ResponseWriter, r *http.Request) error {
		t, err := provider(r)
		if err != nil {
			return err
		}
		var body unical.ProviderSettingsParams
		if err := httpapi.DecodeJSON(w, r, &body); err != nil {
			return err
		}
		v, err := h.client.SetProviderSettings(r.Context(), r.PathValue("appId"), t, &body)
		if err != nil {
			return err
		}
		return ok(w, v)
	})
	h.handle("DELETE /admin/v1/applications/{appId}/providers/{provider}", func(w http.ResponseWriter, r *http.Request) error {
		t, err := provider(r)
		if err != nil {
			return err
		}
		v, err := h.client.RemoveProviderSettings(r.Context(), r.PathValue("appId"), t)
		if err != nil {
			return err
		}
		return ok(w, v)
	})
	h.handle("POST /admin/v1/applications/{appId}/providers/{provider}/check", func(w http.ResponseWriter, r *http.Request) error {
		t, err := provider(r)
		if err != nil {
			return err
		}
		check, err := h.client.CheckProviderSettings(r.Context(), r.PathValue("appId"), t)
		if err != nil {
			return err
		}
		return ok(w, check)
	})

	h.handle("GET /admin/v1/applications/{appId}/webhook", func(w http.ResponseWriter, r *http.Request) error {
		v, err := h.client.ApplicationWebhook(r.Context(), r.PathValue("appId"))
		if err != nil {
			return err
		}
		return ok(w, v)
	})
	h.handle("PUT /admin/v1/applications/{appId}/webhook", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			URL string `json:"url"`
		}
		if err := httpapi.DecodeJSON(w, r, &body); err != nil {
			return err
		}
		set, err := h.client.SetApplicationWebhook(r.Context(), r.PathValue("appId"), body.URL)
		if err != nil {
			return err
		}
		return ok(w, set)
	})
	h.handle("POST /admin/v1/applications/{appId}/webhook/rotate", func(w http.ResponseWriter, r *http.Request) error {
		set, err := h.client.RotateWebhookSecret(r.Context(), r.PathValue("appId"))
		if err != nil {
			return err
		}
		return ok(w, set)
	})
	h.handle("GET /admin/v1/applications/{appId}/webhook/deliveries", func(w http.ResponseWriter, r *http.Request) error {
		token, limit, err := pageParams(r)
		if err != nil {
			return err
		}
		page, err := h.client.AdminListDeliveries(r.Context(), r.PathValue("appId"), "", &unical.DeliveryListParams{PageToken: token, Limit: limit})
		if err != nil {
			return err
		}
		return ok(w, page)
	})

	h.handle("GET /admin/v1/applications/{appId}/accounts", func(w http.ResponseWriter, r *http.Request) error {
		token, limit, err := pageParams(r)
		if err != nil {
			return err
		}
		q := r.URL.Query()
		page, err := h.client.AdminListAccounts(r.Context(), r.PathValue("appId"), &unical.AccountListParams{
			Search: q.Get("search"), StatusFilter: q.Get("statusFilter"), PageToken: token, Limit: limit,
		})
		if err != nil {
			return err
		}
		return ok(w, page)
	})
	h.handle("GET /admin/v1/applications/{appId}/accounts/{accountId}", func(w http.ResponseWriter, r *http.Request) error {
		acct, err := h.client.AdminGetAccount(r.Context(), r.PathValue("appId"), r.PathValue("accountId"))
		if err != nil {
			return err
		}
		return ok(w, acct)
	})
	h.handle("DELETE /admin/v1/applications/{appId}/accounts/{accountId}", func(w http.ResponseWriter, r *http.Request) error {
		deleted, err := h.client.AdminDeleteAccount(r.Context(), r.PathValue("appId"), r.PathValue("accountId"))
		if err != nil {
			return err
		}
		return ok(w, deleted)
	})

	h.handle("GET /admin/v1/applications/{appId}/subscriptions", func(w http.ResponseWriter, r *http.Request) error {
		token, limit, err := pageParams(r)
		if err != nil {
			return err
		}
		page, err := h.client.AdminListSubscriptions(r.Context(), r.PathValue("appId"), &unical.SubscriptionListParams{PageToken: token, Limit: limit})
		if err != nil {
			return err
		}
		return ok(w, page)
	})
	h.handle("GET /admin/v1/applications/{appId}/subscriptions/{subscriptionId}/deliveries", func(w http.ResponseWriter, r *http.Request) error {
		token, limit, err := pageParams(r)
		if err != nil {
			return err
		}
		page, err := h.client.AdminListDeliveries(r.Context(), r.PathValue("appId"), r.PathValue("subscriptionId"), &unical.DeliveryListParams{PageToken: token, Limit: limit})
		if err != nil {
			return err
		}
		return ok(w, page)
	})
	h.handle("POST /admin/v1/applications/{appId}/messages/{messageId}/resend", func(w http.ResponseWriter, r *http.Request) error {
		done, err := h.client.AdminResendMessage(r.Context(), r.PathValue("appId"), r.PathValue("messageId"))
		if err != nil {
			return err
		}
		return ok(w, done)
	})

	h.handle("GET /admin/v1/outbox", func(w http.ResponseWriter, r *http.Request) error {
		st, err := h.client.Outbox(r.Context())
		if err != nil {
			return err
		}
		return ok(w, st)
	})
}
