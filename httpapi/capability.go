package httpapi

import (
	"net/http"

	"github.com/unical/unical"
)

func (h *handler) registerCapabilityRoutes() {
	h.mux.HandleFunc("GET /v1/capabilities", h.api(h.handleCapabilities))
}

// handleCapabilities handles GET /v1/capabilities.
func (h *handler) handleCapabilities(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	res, err := app.Capabilities(r.Context())
	if err != nil {
		return err
	}
	return ok(w, res)
}
