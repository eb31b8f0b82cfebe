package httpapi

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

func (h *handler) registerFreeBusyRoutes() {
	h.mux.HandleFunc("POST /v1/freeBusy/{accountID}", h.api(h.handleFreeBusy))
}

// handleFreeBusy handles POST /v1/freeBusy/{endUserAccountId}.
func (h *handler) handleFreeBusy(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params unical.FreeBusyParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	if err := scopedtoken.FreeBusy(grantOf(r), r.PathValue("accountID"), params.CalendarIDs); err != nil {
		return err
	}
	res, err := app.QueryFreeBusy(r.Context(), r.PathValue("accountID"), &params)
	if err != nil {
		return err
	}
	return ok(w, res)
}
