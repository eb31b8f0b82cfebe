package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// delegationForm is one provider's delegation credential on the Providers
// page: the stored one, if any, and the result of a verification.
type delegationForm struct {
	Provider unical.ProviderType
	View     *admin.DelegationView
}

// loadDelegations reads the application's delegation credentials for the
// Providers page, one for each provider with delegation
// (admin.DelegationProviders).
func (h *handler) loadDelegations(r *http.Request, appID string) ([]delegationForm, error) {
	var out []delegationForm
	for _, info := range h.admin.DelegationProviders() {
		v, err := h.admin.GetDelegation(r.Context(), appID, info.Type)
		if err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
			return nil, err
		}
		out = append(out, delegationForm{Provider: info.Type, View: v})
	}
	return out, nil
}

// saveDelegation sets one provider's delegation credential from the form:
// the key file's text for Google, tenant, client and secret for Microsoft.
func (h *handler) saveDelegation(w http.ResponseWriter, r *http.Request, s *session) {
	t, err := h.providerOf(r)
	if err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	f := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	p := &admin.DelegationParams{
		TenantID: f("tenantId"), ClientID: f("clientId"), ClientSecret: f("clientSecret"), Domains: strings.Fields(r.PostFormValue("domains")),
		TokenURL: f("tokenUrl"), APIBaseURL: f("apiBaseUrl"), DirectoryURL: f("directoryUrl"),
		AdminEmail: f("adminEmail"),
	}
	if key := f("serviceAccountKey"); key != "" {
		if !json.Valid([]byte(key)) {
			h.failed(w, r, s, pageProviders, unical.FieldError("serviceAccountKey", "serviceAccountKey must be the service account's JSON key file, pasted whole."))
			return
		}
		p.ServiceAccountKey = json.RawMessage(key)
	}
	if _, err := h.admin.SetDelegation(r.Context(), r.PathValue("app"), t, p); err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	done(w, r, "/providers", "delegation-saved", nil)
}

// verifyDelegation tries one provider's credential on the form's mailbox;
// the page then shows the status it found.
func (h *handler) verifyDelegation(w http.ResponseWriter, r *http.Request, s *session) {
	t, err := h.providerOf(r)
	if err == nil {
		_, err = h.admin.VerifyDelegation(r.Context(), r.PathValue("app"), t, &admin.VerifyParams{Email: r.PostFormValue("email")})
	}
	if err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	done(w, r, "/providers", "delegation-verified", nil)
}

// removeDelegation removes one provider's credential.
func (h *handler) removeDelegation(w http.ResponseWriter, r *http.Request, s *session) {
	t, err := h.providerOf(r)
	if err == nil {
		err = h.admin.RemoveDelegation(r.Context(), r.PathValue("app"), t)
	}
	if err != nil {
		h.failed(w, r, s, pageProviders, err)
		return
	}
	done(w, r, "/providers", "delegation-removed", nil)
}
