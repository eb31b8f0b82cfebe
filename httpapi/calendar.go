package httpapi

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

func (h *handler) registerCalendarRoutes() {
	h.mux.HandleFunc("GET /v1/calendars/{accountID}", h.api(h.handleCalendarList))
	h.mux.HandleFunc("POST /v1/calendars/{accountID}", h.api(h.handleCalendarCreate))
	h.mux.HandleFunc("GET /v1/calendars/{accountID}/{calendarID}", h.api(h.handleCalendarGet))
	h.mux.HandleFunc("PUT /v1/calendars/{accountID}/{calendarID}", h.api(h.handleCalendarUpdate))
	h.mux.HandleFunc("DELETE /v1/calendars/{accountID}/{calendarID}", h.api(h.handleCalendarDelete))
}

// handleCalendarList handles GET /v1/calendars/{endUserAccountId}.
func (h *handler) handleCalendarList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &unical.CalendarListParams{SyncToken: q.str("syncToken"), PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	page, err := app.ListCalendars(r.Context(), r.PathValue("accountID"), params)
	if err != nil {
		return err
	}
	page.Data = scopedtoken.CoveredCalendars(grantOf(r), r.PathValue("accountID"), page.Data)
	return ok(w, page)
}

// handleCalendarCreate handles POST /v1/calendars/{endUserAccountId}.
func (h *handler) handleCalendarCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params unical.CalendarParams
	if err := decodeBody(w, r, &params, unical.CalendarReadOnlyFields); err != nil {
		return err
	}
	cal, err := app.CreateCalendar(r.Context(), r.PathValue("accountID"), &params)
	if err != nil {
		return err
	}
	return ok(w, cal)
}

// handleCalendarGet handles GET /v1/calendars/{endUserAccountId}/{calendarId}.
func (h *handler) handleCalendarGet(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	cal, err := app.GetCalendar(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"))
	if err != nil {
		return err
	}
	return ok(w, cal)
}

// handleCalendarUpdate handles PUT /v1/calendars/{endUserAccountId}/{calendarId}.
func (h *handler) handleCalendarUpdate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	if err := refuseIfMatch(r); err != nil {
		return err
	}
	var params unical.CalendarParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	cal, err := app.UpdateCalendar(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"), &params)
	if err != nil {
		return err
	}
	return ok(w, cal)
}

// handleCalendarDelete handles DELETE /v1/calendars/{endUserAccountId}/{calendarId}.
func (h *handler) handleCalendarDelete(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	if err := refuseIfMatch(r); err != nil {
		return err
	}
	res, err := app.DeleteCalendar(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"))
	if err != nil {
		return err
	}
	return ok(w, res)
}

// refuseIfMatch refuses If-Match on a calendar write: calendars carry no
// etag to condition it on, and a precondition must not be dropped.
func refuseIfMatch(r *http.Request) error {
	if len(r.Header.Values("If-Match")) > 0 {
		return unical.FieldError("If-Match", "Calendars take no If-Match; only event writes do.")
	}
	return nil
}
