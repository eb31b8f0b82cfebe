package httpapi

import (
	"context"
	"net/http"

	"github.com/unical/unical"
)

func (h *handler) registerAccountRoutes() {
	h.mux.HandleReadFunc("GET /v1/endUserAccounts", h.api(h.handleAccountList))
	h.mux.HandleFunc("POST /v1/endUserAccounts", h.api(h.handleAccountCreate))
	h.mux.HandleReadFunc("GET /v1/endUserAccounts/{id}", h.api(h.handleAccountGet))
	h.mux.HandleFunc("DELETE /v1/endUserAccounts/{id}", h.api(h.handleAccountDelete))
	h.mux.HandleFunc("GET /v1/endUserAccounts/{id}/credentials", h.api(h.handleCredentialsGet))
}

// handleAccountList handles GET /v1/endUserAccounts. Like handleAccountGet
// it is a route of HandleReadFunc: its r does not carry the deadline.
func (h *handler) handleAccountList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &unical.AccountListParams{Search: q.str("search"), StatusFilter: q.str("statusFilter"), PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	return h.cachedRead(w, r, app, func(ctx context.Context) (any, error) { return app.ListAccounts(ctx, params) })
}

// handleAccountCreate handles POST /v1/endUserAccounts.
func (h *handler) handleAccountCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params unical.AccountCreateParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	acct, err := app.CreateAccount(r.Context(), &params)
	if err != nil {
		return err
	}
	return ok(w, acct)
}

// handleAccountGet handles GET /v1/endUserAccounts/{id}.
func (h *handler) handleAccountGet(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	return h.cachedRead(w, r, app, func(ctx context.Context) (any, error) { return app.GetAccount(ctx, pathValue(r, "id")) })
}

// handleAccountDelete handles DELETE /v1/endUserAccounts/{id}.
func (h *handler) handleAccountDelete(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	opts, err := (&query{r: r}).writeOptions(unical.OptionRevokeGrant)
	if err != nil {
		return err
	}
	res, err := app.DeleteAccount(r.Context(), r.PathValue("id"), opts)
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleCredentialsGet handles GET /v1/endUserAccounts/{id}/credentials.
func (h *handler) handleCredentialsGet(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	creds, err := app.GetCredentials(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return ok(w, creds)
}
