package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/ics"
)

// registerICSRoutes mounts iCalendar export and import. The literal last
// segment wins over the event routes' {eventID} (net/http's most specific
// pattern), so an event whose id is "ics" is not reachable with GET here;
// no provider issues such an id.
func (h *handler) registerICSRoutes() {
	const path = "/v1/events/{accountID}/{calendarID}/ics"
	h.mux.HandleFunc("GET "+path, h.api(h.handleICSExport))
	h.mux.HandleFunc("POST "+path, h.api(h.handleICSImport))
}

// handleICSExport handles GET /v1/events/{endUserAccountId}/{calendarId}/ics.
func (h *handler) handleICSExport(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &ics.ExportParams{Start: q.dateTime("startDateTime"), End: q.dateTime("endDateTime")}
	if q.err != nil {
		return q.err
	}
	body, err := ics.Export(r.Context(), app, r.PathValue("accountID"), r.PathValue("calendarID"), params)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// handleICSImport handles POST /v1/events/{endUserAccountId}/{calendarId}/ics.
func (h *handler) handleICSImport(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "text/calendar") {
		return unical.FieldError("Content-Type", "Send the body as text/calendar.")
	}
	body := http.MaxBytesReader(w, r.Body, ics.MaxImportBytes)
	res, err := ics.Import(r.Context(), app, r.PathValue("accountID"), r.PathValue("calendarID"), body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return &unical.Error{Code: unical.CodeTooLarge, Field: "body", Message: "An iCalendar import is at most 4 MiB."}
		}
		return err
	}
	return ok(w, res)
}
