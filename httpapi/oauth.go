package httpapi

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/oauth"
)

func (h *handler) registerOAuthRoutes() {
	// The two browser legs carry no x-api-key: the application id is in the
	// path and our signed state ties the callback to the flow.
	h.mux.HandleFunc("GET /v1/oauth/authorize/{appID}/{provider}", h.handleOAuthAuthorize)
	h.mux.HandleFunc("GET "+unical.OAuthCallbackPath, h.handleOAuthCallback)
	h.mux.HandleFunc("POST /v1/basicAuth/connect/{appID}/{provider}", h.api(h.handleBasicAuthConnect))
}

// handleOAuthAuthorize handles GET /v1/oauth/authorize/{app_id}/{provider}.
// Errors are answered as JSON; the browser is never redirected to a URL the
// application did not register.
func (h *handler) handleOAuthAuthorize(w http.ResponseWriter, r *http.Request) {
	t, _ := unical.ParseProviderPath(r.PathValue("provider"))
	if h.client.Credential(t) != unical.CredentialOAuth {
		h.writeError(w, r, unical.Errorf(unical.CodeNotFound, "No OAuth flow for provider %q; use provider_a or provider_b.", r.PathValue("provider")))
		return
	}
	if err := checkQuery(r); err != nil {
		h.writeError(w, r, err)
		return
	}
	q, err := httpwire.ParseQuery(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	target, err := oauth.AuthorizeURL(r.Context(), h.client, r.PathValue("appID"), t, &oauth.AuthorizeParams{
		Prompt: q.Get("prompt"), LoginHint: q.Get("loginHint"), RedirectURL: q.Get("redirectUrl"), State: q.Get("state"),
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusFound)
}

// handleOAuthCallback handles GET /v1/oauth/callback.
func (h *handler) handleOAuthCallback(w http.ResponseWriter, r *http.Request) {
	q, err := httpwire.ParseQuery(r.URL.RawQuery)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	target, err := oauth.Complete(r.Context(), h.client, &oauth.CallbackParams{
		State: q.Get("state"), Code: q.Get("code"), Error: q.Get("error"), ErrorDescription: q.Get("error_description"),
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusFound)
}

// handleBasicAuthConnect handles POST /v1/basicAuth/connect/{app_id}/provider_c.
func (h *handler) handleBasicAuthConnect(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	if r.PathValue("appID") != app.ID() {
		return unical.Errorf(unical.CodeNotFound, "No application %q for this API key.", r.PathValue("appID"))
	}
	if t, valid := unical.ParseProviderPath(r.PathValue("provider")); !valid || t != unical.ProviderCalDAV {
		return unical.Errorf(unical.CodeNotFound, "Basic-auth connect is only for provider_c.")
	}
	var params unical.BasicAuthConnectParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	acct, err := app.ConnectBasicAuth(r.Context(), &params)
	if err != nil {
		return err
	}
	return ok(w, acct)
}
