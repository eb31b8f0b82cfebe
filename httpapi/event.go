package httpapi

import (
	"net/http"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/series"
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
	opts, err := (&query{r: r}).writeOptions(unical.OptionNotifyAttendees)
	if err != nil {
		return err
	}
	e, err := app.CreateEvent(r.Context(), r.PathValue("accountID"), r.PathValue("calendarID"), &params, opts)
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
	scope := series.EditScope(q.str("scope"))
	opts, err := q.writeOptions(unical.OptionNotifyAttendees, unical.OptionIfMatch)
	if err != nil {
		return err
	}
	e, err := series.Update(r.Context(), app, r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"), scope, &params, opts)
	if err != nil {
		return err
	}
	return ok(w, e)
}

// handleEventDelete handles DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}.
func (h *handler) handleEventDelete(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	scope := series.EditScope(q.str("scope"))
	opts, err := q.writeOptions(unical.OptionNotifyAttendees, unical.OptionIfMatch)
	if err != nil {
		return err
	}
	res, err := series.Delete(r.Context(), app, r.PathValue("accountID"), r.PathValue("calendarID"), r.PathValue("eventID"), scope, opts)
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

// ifMatch returns the request's If-Match, "" when it has none: one
// entity tag, the etag of the event as read. "*" (any current version) is
// what a write asks anyway and adds nothing; a list of tags is a 400
// naming If-Match, as unical keeps one version of an event.
func ifMatch(r *http.Request) (string, error) {
	values := r.Header.Values("If-Match")
	if len(values) == 0 {
		return "", nil
	}
	v := strings.TrimSpace(values[0])
	if len(values) > 1 || v == "" || (strings.Contains(v, ",") && v != "*") {
		return "", unical.FieldError("If-Match", "If-Match takes one etag, the event's etag as read.")
	}
	if v == "*" {
		return "", nil
	}
	return v, nil
}
