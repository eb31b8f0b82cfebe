package httpclient

import (
	"context"
	"net/url"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
)

// The booking layer (package booking answers the same methods in
// process).

func pageQuery(params *booking.ListParams) url.Values {
	q := queryBuilder{}
	if params != nil {
		q.str("pageToken", params.PageToken)
		q.integer("limit", params.Limit)
	}
	return url.Values(q)
}

// ListBookingTypes lists booking types: GET /v1/bookingTypes.
func (c *Client) ListBookingTypes(ctx context.Context, params *booking.ListParams) (*unical.Page[*booking.BookingType], error) {
	return call[unical.Page[*booking.BookingType]](ctx, c, "GET", pageQuery(params), nil, "/v1/bookingTypes")
}

// GetBookingType returns a booking type: GET /v1/bookingTypes/{id}.
func (c *Client) GetBookingType(ctx context.Context, id string) (*booking.BookingType, error) {
	return call[booking.BookingType](ctx, c, "GET", nil, nil, "/v1/bookingTypes/", id)
}

// CreateBookingType creates a booking type: POST /v1/bookingTypes.
func (c *Client) CreateBookingType(ctx context.Context, params *booking.BookingTypeParams) (*booking.BookingType, error) {
	return call[booking.BookingType](ctx, c, "POST", nil, orEmpty(params), "/v1/bookingTypes")
}

// UpdateBookingType changes a booking type: PUT /v1/bookingTypes/{id}.
func (c *Client) UpdateBookingType(ctx context.Context, id string, params *booking.BookingTypeParams) (*booking.BookingType, error) {
	return call[booking.BookingType](ctx, c, "PUT", nil, orEmpty(params), "/v1/bookingTypes/", id)
}

// DeleteBookingType deletes a booking type: DELETE /v1/bookingTypes/{id}.
func (c *Client) DeleteBookingType(ctx context.Context, id string) (*unical.Success, error) {
	return call[unical.Success](ctx, c, "DELETE", nil, nil, "/v1/bookingTypes/", id)
}

// ListSchedules lists schedules: GET /v1/schedules.
func (c *Client) ListSchedules(ctx context.Context, params *booking.ListParams) (*unical.Page[*booking.Schedule], error) {
	return call[unical.Page[*booking.Schedule]](ctx, c, "GET", pageQuery(params), nil, "/v1/schedules")
}

// GetSchedule returns a schedule: GET /v1/schedules/{id}.
func (c *Client) GetSchedule(ctx context.Context, id string) (*booking.Schedule, error) {
	return call[booking.Schedule](ctx, c, "GET", nil, nil, "/v1/schedules/", id)
}

// CreateSchedule creates a schedule: POST /v1/schedules.
func (c *Client) CreateSchedule(ctx context.Context, params *booking.ScheduleParams) (*booking.Schedule, error) {
	return call[booking.Schedule](ctx, c, "POST", nil, orEmpty(params), "/v1/schedules")
}

// UpdateSchedule changes a schedule: PUT /v1/schedules/{id}.
func (c *Client) UpdateSchedule(ctx context.Context, id string, params *booking.ScheduleParams) (*booking.Schedule, error) {
	return call[booking.Schedule](ctx, c, "PUT", nil, orEmpty(params), "/v1/schedules/", id)
}

// DeleteSchedule deletes a schedule: DELETE /v1/schedules/{id}.
func (c *Client) DeleteSchedule(ctx context.Context, id string) (*unical.Success, error) {
	return call[unical.Success](ctx, c, "DELETE", nil, nil, "/v1/schedules/", id)
}

// ListSlots lists a booking type's free slots: GET /v1/bookingTypes/{id}/slots.
func (c *Client) ListSlots(ctx context.Context, bookingTypeID string, params *booking.SlotParams) (*availability.Result, error) {
	q := queryBuilder{}
	if params != nil {
		q.str("startDateTime", params.StartDateTime)
		q.str("endDateTime", params.EndDateTime)
		q.str("timeZone", params.TimeZone)
	}
	return call[availability.Result](ctx, c, "GET", url.Values(q), nil, "/v1/bookingTypes/", bookingTypeID, "/slots")
}

// CreateHold holds a slot: POST /v1/holds.
func (c *Client) CreateHold(ctx context.Context, params *booking.HoldParams, opts ...unical.WriteOptions) (*booking.Hold, error) {
	return write[booking.Hold](ctx, c, opts, nil, "POST", nil, orEmpty(params), "/v1/holds")
}

// CreateBooking books a slot: POST /v1/bookings.
func (c *Client) CreateBooking(ctx context.Context, params *booking.BookingParams, opts ...unical.WriteOptions) (*booking.Booking, error) {
	return write[booking.Booking](ctx, c, opts, notifyOnly, "POST", nil, orEmpty(params), "/v1/bookings")
}

// ListBookings lists bookings: GET /v1/bookings.
func (c *Client) ListBookings(ctx context.Context, params *booking.BookingListParams) (*unical.Page[*booking.Booking], error) {
	q := queryBuilder{}
	if params != nil {
		q.str("bookingTypeId", params.BookingTypeID)
		q.str("startDateTime", params.StartDateTime)
		q.str("endDateTime", params.EndDateTime)
		q.str("pageToken", params.PageToken)
		q.integer("limit", params.Limit)
	}
	return call[unical.Page[*booking.Booking]](ctx, c, "GET", url.Values(q), nil, "/v1/bookings")
}

// GetBooking returns a booking: GET /v1/bookings/{id}.
func (c *Client) GetBooking(ctx context.Context, id string) (*booking.Booking, error) {
	return call[booking.Booking](ctx, c, "GET", nil, nil, "/v1/bookings/", id)
}

// CancelBooking cancels a booking: DELETE /v1/bookings/{id}.
func (c *Client) CancelBooking(ctx context.Context, id string, opts ...unical.WriteOptions) (*booking.Booking, error) {
	return write[booking.Booking](ctx, c, opts, notifyOnly, "DELETE", nil, nil, "/v1/bookings/", id)
}

// RescheduleBooking moves a booking: POST /v1/bookings/{id}/reschedule.
func (c *Client) RescheduleBooking(ctx context.Context, id string, params *booking.RescheduleParams, opts ...unical.WriteOptions) (*booking.Booking, error) {
	return write[booking.Booking](ctx, c, opts, notifyOnly, "POST", nil, orEmpty(params), "/v1/bookings/", id, "/reschedule")
}
