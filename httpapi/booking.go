package httpapi

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
)

func (h *handler) registerBookingRoutes() {
	h.mux.HandleFunc("GET /v1/bookingTypes", h.api(h.handleBookingTypeList))
	h.mux.HandleFunc("POST /v1/bookingTypes", h.api(h.handleBookingTypeCreate))
	h.mux.HandleFunc("GET /v1/bookingTypes/{id}", h.api(h.handleBookingTypeGet))
	h.mux.HandleFunc("PUT /v1/bookingTypes/{id}", h.api(h.handleBookingTypeUpdate))
	h.mux.HandleFunc("DELETE /v1/bookingTypes/{id}", h.api(h.handleBookingTypeDelete))
	h.mux.HandleFunc("GET /v1/bookingTypes/{id}/slots", h.api(h.handleSlotList))
	h.mux.HandleFunc("GET /v1/schedules", h.api(h.handleScheduleList))
	h.mux.HandleFunc("POST /v1/schedules", h.api(h.handleScheduleCreate))
	h.mux.HandleFunc("GET /v1/schedules/{id}", h.api(h.handleScheduleGet))
	h.mux.HandleFunc("PUT /v1/schedules/{id}", h.api(h.handleScheduleUpdate))
	h.mux.HandleFunc("DELETE /v1/schedules/{id}", h.api(h.handleScheduleDelete))
	h.mux.HandleFunc("POST /v1/holds", h.api(h.handleHoldCreate))
	h.mux.HandleFunc("GET /v1/bookings", h.api(h.handleBookingList))
	h.mux.HandleFunc("POST /v1/bookings", h.api(h.handleBookingCreate))
	h.mux.HandleFunc("GET /v1/bookings/{id}", h.api(h.handleBookingGet))
	h.mux.HandleFunc("DELETE /v1/bookings/{id}", h.api(h.handleBookingCancel))
	h.mux.HandleFunc("POST /v1/bookings/{id}/reschedule", h.api(h.handleBookingReschedule))
}

// bookings is the booking layer of app.
func (h *handler) bookings(app *unical.App) *booking.Service { return booking.New(h.client, app) }

// created writes v with 201 Created: a hold or booking made.
func created(w http.ResponseWriter, v any) error {
	writeJSON(w, http.StatusCreated, v)
	return nil
}

// listParams reads pageToken and limit.
func listParams(q *query) *booking.ListParams {
	return &booking.ListParams{PageToken: q.str("pageToken"), Limit: q.integer("limit")}
}

// handleBookingTypeList handles GET /v1/bookingTypes.
func (h *handler) handleBookingTypeList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := listParams(q)
	if q.err != nil {
		return q.err
	}
	page, err := h.bookings(app).ListBookingTypes(r.Context(), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// bookingTypeReadOnly are the fields of a booking type the server sets.
var bookingTypeReadOnly = []string{"id", "createdAt", "updatedAt"}

// handleBookingTypeCreate handles POST /v1/bookingTypes.
func (h *handler) handleBookingTypeCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params booking.BookingTypeParams
	if err := decodeBody(w, r, &params, bookingTypeReadOnly); err != nil {
		return err
	}
	t, err := h.bookings(app).CreateBookingType(r.Context(), &params)
	if err != nil {
		return err
	}
	return ok(w, t)
}

// handleBookingTypeGet handles GET /v1/bookingTypes/{id}.
func (h *handler) handleBookingTypeGet(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	t, err := h.bookings(app).GetBookingType(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return ok(w, t)
}

// handleBookingTypeUpdate handles PUT /v1/bookingTypes/{id}.
func (h *handler) handleBookingTypeUpdate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params booking.BookingTypeParams
	if err := decodeBody(w, r, &params, bookingTypeReadOnly); err != nil {
		return err
	}
	t, err := h.bookings(app).UpdateBookingType(r.Context(), r.PathValue("id"), &params)
	if err != nil {
		return err
	}
	return ok(w, t)
}

// handleBookingTypeDelete handles DELETE /v1/bookingTypes/{id}.
func (h *handler) handleBookingTypeDelete(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	res, err := h.bookings(app).DeleteBookingType(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleSlotList handles GET /v1/bookingTypes/{id}/slots.
func (h *handler) handleSlotList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &booking.SlotParams{StartDateTime: q.str("startDateTime"), EndDateTime: q.str("endDateTime"), TimeZone: q.str("timeZone")}
	if q.err != nil {
		return q.err
	}
	res, err := h.bookings(app).ListSlots(r.Context(), r.PathValue("id"), params)
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleScheduleList handles GET /v1/schedules.
func (h *handler) handleScheduleList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := listParams(q)
	if q.err != nil {
		return q.err
	}
	page, err := h.bookings(app).ListSchedules(r.Context(), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleScheduleCreate handles POST /v1/schedules.
func (h *handler) handleScheduleCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params booking.ScheduleParams
	if err := decodeBody(w, r, &params, bookingTypeReadOnly); err != nil {
		return err
	}
	sch, err := h.bookings(app).CreateSchedule(r.Context(), &params)
	if err != nil {
		return err
	}
	return ok(w, sch)
}

// handleScheduleGet handles GET /v1/schedules/{id}.
func (h *handler) handleScheduleGet(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	sch, err := h.bookings(app).GetSchedule(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return ok(w, sch)
}

// handleScheduleUpdate handles PUT /v1/schedules/{id}.
func (h *handler) handleScheduleUpdate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params booking.ScheduleParams
	if err := decodeBody(w, r, &params, bookingTypeReadOnly); err != nil {
		return err
	}
	sch, err := h.bookings(app).UpdateSchedule(r.Context(), r.PathValue("id"), &params)
	if err != nil {
		return err
	}
	return ok(w, sch)
}

// handleScheduleDelete handles DELETE /v1/schedules/{id}.
func (h *handler) handleScheduleDelete(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	res, err := h.bookings(app).DeleteSchedule(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return ok(w, res)
}

// handleHoldCreate handles POST /v1/holds.
func (h *handler) handleHoldCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params booking.HoldParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	hold, err := h.bookings(app).CreateHold(r.Context(), &params)
	if err != nil {
		return err
	}
	return created(w, hold)
}

// handleBookingList handles GET /v1/bookings.
func (h *handler) handleBookingList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &booking.BookingListParams{BookingTypeID: q.str("bookingTypeId"), StartDateTime: q.str("startDateTime"),
		EndDateTime: q.str("endDateTime"), PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	page, err := h.bookings(app).ListBookings(r.Context(), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}

// handleBookingCreate handles POST /v1/bookings.
func (h *handler) handleBookingCreate(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params booking.BookingParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	q := &query{r: r}
	ctx := q.withBoolOption(r.Context(), unical.NotifyAttendeesParameter, unical.WithNotifyAttendees)
	if q.err != nil {
		return q.err
	}
	b, err := h.bookings(app).CreateBooking(ctx, &params)
	if err != nil {
		return err
	}
	return created(w, b)
}

// handleBookingGet handles GET /v1/bookings/{id}.
func (h *handler) handleBookingGet(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	b, err := h.bookings(app).GetBooking(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return ok(w, b)
}

// handleBookingCancel handles DELETE /v1/bookings/{id}.
func (h *handler) handleBookingCancel(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	ctx := q.withBoolOption(r.Context(), unical.NotifyAttendeesParameter, unical.WithNotifyAttendees)
	if q.err != nil {
		return q.err
	}
	b, err := h.bookings(app).CancelBooking(ctx, r.PathValue("id"))
	if err != nil {
		return err
	}
	return ok(w, b)
}

// handleBookingReschedule handles POST /v1/bookings/{id}/reschedule.
func (h *handler) handleBookingReschedule(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	var params booking.RescheduleParams
	if err := decodeBody(w, r, &params, nil); err != nil {
		return err
	}
	q := &query{r: r}
	ctx := q.withBoolOption(r.Context(), unical.NotifyAttendeesParameter, unical.WithNotifyAttendees)
	if q.err != nil {
		return q.err
	}
	b, err := h.bookings(app).RescheduleBooking(ctx, r.PathValue("id"), &params)
	if err != nil {
		return err
	}
	return ok(w, b)
}
