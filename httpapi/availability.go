package httpapi

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/scopedtoken"
)

func (h *handler) registerAvailabilityRoutes() {
	h.mux.HandleFunc("POST /v1/availability", h.api(h.handleAvailability))
}

// handleAvailability handles POST /v1/availability.
func (h *handler) handleAvailability(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params availability.Params
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	if err := scopedtoken.Availability(grantOf(r), &params); err != nil {
		return err
	}
	res, err := availability.Find(r.Context(), app, h.client.Config().Now(), &params)
	if err != nil {
		return err
	}
	return ok(w, res)
}
