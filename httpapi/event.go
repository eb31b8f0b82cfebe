package httpapi

import (
	"net/http"

	"github.com/unical/unical"
)

func (h *handler) registerEventRoutes() {
	const event = "/v1/events/{accountID}/{calendarID}/{eventID}"
	h.mux.HandleFunc("GET /v1/events/{accountID}/{calendarID}", h.api(h.handleEventList))
	h.mux.HandleFunc("POST /v1/events/{accountID}/{calendarID}", h.api(h.handleEventCreate))
	h.mux.HandleFunc("GET "+event, h.api(h.handleEventGet))
	h.mux.HandleFunc("PUT "+event, h.api(h.handleEventUpdate))
	h.mux.HandleFunc("DELETE "+event, h.api(h.handleEventDelete))
	h.mux.HandleFunc("GET "+event+"/occurrences", h.api(h.handleOccurrenceList))
	h.mux.HandleFunc("POST "+event+"/rsvp", h.api(h.handleEventRSVP))
}

// handleEventList handles GET /v1/events/{endUserAccountId}/{calendarId}.
func (h *handler) handleEventList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &unical.EventListParams{
		SyncToken: q.str("syncToken"), Start: q.dateTime("startDateTime"), End: q.dateTime("endDateTime"),
		TimeZone: q.str("timeZone"), MetadataFilters: q.metadata("metadataFilters"),
		ExpandRecurrences: q.boolean("expandRecurrences"), Search: q.str("search"), OrderBy: q.str("orderBy"),
		PageToken: q.str("pageToken"), Limit: q.integer("limit"),
	}
	if q.err != nil {
		return q.err
	}
	page, err := app.ListEvents(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleOccurrenceList handles
// GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}/occurrences.
func (h *handler) handleOccurrenceList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &unical.OccurrenceListParams{
		SyncToken: q.str("syncToken"), Start: q.dateTime("startDateTime"), End: q.dateTime("endDateTime"),
		TimeZone: q.str("timeZone"), MetadataFilters: q.metadata("metadataFilters"), Search: q.str("search"),
		OrderBy: q.str("orderBy"), PageToken: q.str("pageToken"), Limit: q.integer("limit"),
	}
	if q.err != nil {
		return q.err
	}
	page, err := app.ListOccurrences(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleEventGet handles GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}.
func (h *handler) handleEventGet(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	e, err := app.GetEvent(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"))
	if err != nil {
		return err
	}
	return ok(w, e)
}

// handleEventCreate handles POST /v1/events/{endUserAccountId}/{calendarId}.
func (h *handler) handleEventCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params unical.EventParams
	if err := decodeBody(w, r, &params, unical.EventReadOnlyFields); err != nil {
		return err
	}
	q := &query{r: r}
	ctx := q.withBoolOption(r.Context(), unical.NotifyAttendeesParameter, unical.WithNotifyAttendees)
	if q.err != nil {
		return q.err
	}
	e, err := app.CreateEvent(ctx, r.PathValue("accountID"), r.PathValue("calendarID"), &params)
	if err != nil {
		return err
	}
	return ok(w, e)
}

// handleEventUpdate handles PUT /v1/events/{endUserAccountId}/{calendarId}/{eventId}.
func (h *handler) handleEventUpdate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params unical.EventParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	q := &query{r: r}
	scope := unical.EditScope(q.str("scope"))
	ctx := q.withBoolOption(r.Context(), unical.NotifyAttendeesParameter, unical.WithNotifyAttendees)
	if q.err != nil {
		return q.err
	}
	e, err := app.UpdateEventWithScope(ctx, r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"), scope, &params)
	if err != nil {
		return err
	}
	return ok(w, e)
}

// handleEventDelete handles DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}.
func (h *handler) handleEventDelete(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	scope := unical.EditScope(q.str("scope"))
	ctx := q.withBoolOption(r.Context(), unical.NotifyAttendeesParameter, unical.WithNotifyAttendees)
	if q.err != nil {
		return q.err
	}
	res, err := app.DeleteEventWithScope(ctx, r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"), scope)
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleEventRSVP handles POST /v1/events/{endUserAccountId}/{calendarId}/{eventId}/rsvp.
func (h *handler) handleEventRSVP(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params unical.RSVPParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	res, err := app.RSVP(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"), &params)
	if err != nil {
		return err
	}
	return ok(w, res)
}
