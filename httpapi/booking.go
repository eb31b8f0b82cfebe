package httpapi

import (
	"context"
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/scopedtoken"
)

// The booking layer's routes: each is decode, one call of package
// booking's Service, encode. Booking types and schedules share their
// five handlers through the generic ones below.

func (h *handler) registerBookingRoutes() {
	type svc = booking.Service
	h.mux.HandleFunc("GET /v1/bookingTypes", h.api(bookingList(h, (*svc).ListBookingTypes)))
	h.mux.HandleFunc("POST /v1/bookingTypes", h.api(bookingWrite(h, http.StatusOK, false, func(s *svc, ctx context.Context, _ string, p *booking.BookingTypeParams, _ unical.WriteOptions) (*booking.BookingType, error) {
		return s.CreateBookingType(ctx, p)
	})))
	h.mux.HandleFunc("GET /v1/bookingTypes/{id}", h.api(bookingByID(h, false, withoutOptions((*svc).GetBookingType))))
	h.mux.HandleFunc("PUT /v1/bookingTypes/{id}", h.api(bookingWrite(h, http.StatusOK, false, withoutOptionsBody((*svc).UpdateBookingType))))
	h.mux.HandleFunc("DELETE /v1/bookingTypes/{id}", h.api(bookingByID(h, false, withoutOptions((*svc).DeleteBookingType))))
	h.mux.HandleFunc("GET /v1/bookingTypes/{id}/slots", h.api(h.handleSlotList))
	h.mux.HandleFunc("GET /v1/schedules", h.api(bookingList(h, (*svc).ListSchedules)))
	h.mux.HandleFunc("POST /v1/schedules", h.api(bookingWrite(h, http.StatusOK, false, func(s *svc, ctx context.Context, _ string, p *booking.ScheduleParams, _ unical.WriteOptions) (*booking.Schedule, error) {
		return s.CreateSchedule(ctx, p)
	})))
	h.mux.HandleFunc("GET /v1/schedules/{id}", h.api(bookingByID(h, false, withoutOptions((*svc).GetSchedule))))
	h.mux.HandleFunc("PUT /v1/schedules/{id}", h.api(bookingWrite(h, http.StatusOK, false, withoutOptionsBody((*svc).UpdateSchedule))))
	h.mux.HandleFunc("DELETE /v1/schedules/{id}", h.api(bookingByID(h, false, withoutOptions((*svc).DeleteSchedule))))
	h.mux.HandleFunc("POST /v1/holds", h.api(bookingWrite(h, http.StatusCreated, false, func(s *svc, ctx context.Context, _ string, p *booking.HoldParams, _ unical.WriteOptions) (*booking.Hold, error) {
		return s.CreateHold(ctx, p)
	})))
	h.mux.HandleFunc("GET /v1/bookings", h.api(h.handleBookingList))
	h.mux.HandleFunc("POST /v1/bookings", h.api(bookingWrite(h, http.StatusCreated, true, func(s *svc, ctx context.Context, _ string, p *booking.BookingParams, opts unical.WriteOptions) (*booking.Booking, error) {
		return s.CreateBooking(ctx, p, opts)
	})))
	h.mux.HandleFunc("GET /v1/bookings/{id}", h.api(bookingByID(h, false, withoutOptions((*svc).GetBooking))))
	h.mux.HandleFunc("DELETE /v1/bookings/{id}", h.api(bookingByID(h, true, func(s *svc, ctx context.Context, id string, opts unical.WriteOptions) (*booking.Booking, error) {
		return s.CancelBooking(ctx, id, opts)
	})))
	h.mux.HandleFunc("POST /v1/bookings/{id}/reschedule", h.api(bookingWrite(h, http.StatusOK, true, func(s *svc, ctx context.Context, id string, p *booking.RescheduleParams, opts unical.WriteOptions) (*booking.Booking, error) {
		return s.RescheduleBooking(ctx, id, p, opts)
	})))
}

// bookings is the booking layer of app.
func (h *handler) bookings(app *unical.App) *booking.Service { return booking.New(h.client, app) }

// serverSet are the fields of booking types and schedules the server
// sets, refused in a body.
var serverSet = []string{"id", "createdAt", "updatedAt"}

// bookingList serves a paginated list (pageToken, limit).
func bookingList[T any](h *handler, list func(*booking.Service, context.Context, *booking.ListParams) (*unical.Page[*T], error)) appHandler {
	return func(w http.ResponseWriter, r *http.Request, app *unical.App) error {
		q := &query{r: r}
		params := &booking.ListParams{PageToken: q.str("pageToken"), Limit: q.integer("limit")}
		if q.err != nil {
			return q.err
		}
		page, err := list(h.bookings(app), r.Context(), params)
		if err != nil {
			return err
		}
		return ok(w, page)
	}
}

// bookingByID serves a call on the path's id (a read, a delete, a
// cancel); notify reads notifyAttendees into the call's options.
func bookingByID[T any](h *handler, notify bool, call func(*booking.Service, context.Context, string, unical.WriteOptions) (T, error)) appHandler {
	return func(w http.ResponseWriter, r *http.Request, app *unical.App) error {
		opts, err := bookingOptions(r, notify)
		if err != nil {
			return err
		}
		if err := h.allowBooking(r, app); err != nil {
			return err
		}
		v, err := call(h.bookings(app), r.Context(), r.PathValue("id"), opts)
		if err != nil {
			return err
		}
		return ok(w, v)
	}
}

// bookingWrite serves a write with a JSON body, on the path's id when
// the route has one, answering status; notify reads notifyAttendees into
// the call's options.
func bookingWrite[P, T any](h *handler, status int, notify bool, call func(*booking.Service, context.Context, string, *P, unical.WriteOptions) (T, error)) appHandler {
	return func(w http.ResponseWriter, r *http.Request, app *unical.App) error {
		var params P
		if err := decodeBody(w, r, &params, serverSet); err != nil {
			return err
		}
		if err := scopedtoken.BookingBody(grantOf(r), &params); err != nil {
			return err
		}
		if err := h.allowBooking(r, app); err != nil {
			return err
		}
		opts, err := bookingOptions(r, notify)
		if err != nil {
			return err
		}
		v, err := call(h.bookings(app), r.Context(), r.PathValue("id"), &params, opts)
		if err != nil {
			return err
		}
		writeJSON(w, status, v)
		return nil
	}
}

// bookingOptions decodes notifyAttendees when the route takes it (notify).
func bookingOptions(r *http.Request, notify bool) (unical.WriteOptions, error) {
	if !notify {
		return unical.WriteOptions{}, nil
	}
	return (&query{r: r}).writeOptions(unical.OptionNotifyAttendees)
}

// withoutOptions adapts a booking call on an id that takes no options.
func withoutOptions[T any](call func(*booking.Service, context.Context, string) (T, error)) func(*booking.Service, context.Context, string, unical.WriteOptions) (T, error) {
	return func(s *booking.Service, ctx context.Context, id string, _ unical.WriteOptions) (T, error) {
		return call(s, ctx, id)
	}
}

// withoutOptionsBody adapts a booking call with a body that takes no
// options.
func withoutOptionsBody[P, T any](call func(*booking.Service, context.Context, string, *P) (T, error)) func(*booking.Service, context.Context, string, *P, unical.WriteOptions) (T, error) {
	return func(s *booking.Service, ctx context.Context, id string, p *P, _ unical.WriteOptions) (T, error) {
		return call(s, ctx, id, p)
	}
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

// handleBookingList handles GET /v1/bookings.
func (h *handler) handleBookingList(w http.ResponseWriter, r *http.Request, app *unical.App) error {
	q := &query{r: r}
	params := &booking.BookingListParams{BookingTypeID: q.str("bookingTypeId"), StartDateTime: q.str("startDateTime"),
		EndDateTime: q.str("endDateTime"), PageToken: q.str("pageToken"), Limit: q.integer("limit")}
	if q.err != nil {
		return q.err
	}
	if err := scopedtoken.BookingList(grantOf(r), params.BookingTypeID); err != nil {
		return err
	}
	page, err := h.bookings(app).ListBookings(r.Context(), params)
	if err != nil {
		return err
	}
	return ok(w, page)
}
