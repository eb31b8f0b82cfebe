package httpapi

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

func (h *handler) registerWebhookRoutes() {
	h.mux.HandleFunc("GET /v1/calendarSubscriptions/{accountID}", h.api(h.handleSubscriptionList))
	h.mux.HandleFunc("POST /v1/calendarSubscriptions/{accountID}", h.api(h.handleSubscriptionCreate))
	h.mux.HandleFunc("DELETE /v1/calendarSubscriptions/{accountID}", h.api(h.handleSubscriptionDelete))
	// Extensions of the spec: the delivery log and re-sending.
	h.mux.HandleFunc("GET /v1/calendarSubscriptions/{accountID}/{subscriptionID}/deliveries", h.api(h.handleDeliveryList))
	h.mux.HandleFunc("POST /v1/calendarSubscriptions/{accountID}/{subscriptionID}/messages/{messageID}/resend", h.api(h.handleMessageResend))
	h.mux.HandleFunc("GET /v1/applicationWebhook/deliveries", h.api(h.handleAppDeliveryList))
	h.mux.HandleFunc("POST /v1/applicationWebhook/messages/{messageID}/resend", h.api(h.handleAppMessageResend))
	h.registerNotificationRoutes()
}

// handleAppDeliveryList handles GET /v1/applicationWebhook/deliveries: the
// delivery log of the application's own endpoint (enduseraccount.*).
func (h *handler) handleAppDeliveryList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &outbox.ListParams{PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	page, err := engine.ListDeliveries(r.Context(), app, "", "", params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleAppMessageResend handles
// POST /v1/applicationWebhook/messages/{messageId}/resend.
func (h *handler) handleAppMessageResend(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	res, err := engine.ResendMessage(r.Context(), app, "", "", r.PathValue("messageID"))
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleDeliveryList handles
// GET /v1/calendarSubscriptions/{endUserAccountId}/{subscriptionId}/deliveries.
func (h *handler) handleDeliveryList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &outbox.ListParams{PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	page, err := engine.ListDeliveries(r.Context(), app, r.PathValue("accountID"), r.PathValue("subscriptionID"), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleMessageResend handles
// POST /v1/calendarSubscriptions/{endUserAccountId}/{subscriptionId}/messages/{messageId}/resend.
func (h *handler) handleMessageResend(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	res, err := engine.ResendMessage(r.Context(), app, r.PathValue("accountID"), r.PathValue("subscriptionID"), r.PathValue("messageID"))
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleSubscriptionList handles GET /v1/calendarSubscriptions/{endUserAccountId}.
func (h *handler) handleSubscriptionList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &subscriptions.ListParams{PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	page, err := subscriptions.List(r.Context(), app, r.PathValue("accountID"), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleSubscriptionCreate handles POST /v1/calendarSubscriptions/{endUserAccountId}.
func (h *handler) handleSubscriptionCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params subscriptions.CreateParams
	if err := decodeBody(w, r, &params, []string{"webhookSubscriptionId", "endpointSecret", "id"}); err != nil {
		return err
	}
	res, err := subscriptions.Create(r.Context(), app, r.PathValue("accountID"), &params)
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleSubscriptionDelete handles DELETE /v1/calendarSubscriptions/{endUserAccountId}.
func (h *handler) handleSubscriptionDelete(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params subscriptions.DeleteParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	res, err := subscriptions.Delete(r.Context(), app, r.PathValue("accountID"), &params)
	if err != nil {
		return err
	}
	return ok(w, res)
}
