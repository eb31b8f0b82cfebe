package dashboard

import (
	"net/http"
	"net/url"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/booking"
)

// bookingsData is the bookings page of an application: its booking types
// and a page of its bookings, read through the booking layer.
type bookingsData struct {
	Types    []*booking.BookingType
	Bookings []*booking.Booking
	// NextTypes and NextBookings continue the two lists.
	NextTypes, NextBookings string
}

// bookingsPageSize is how many booking types and bookings one page lists.
const bookingsPageSize = 50

func (h *handler) loadBookings(r *http.Request, app *admin.ApplicationView) (any, error) {
	d := &bookingsData{}
	a, err := h.admin.Client().App(r.Context(), app.ID)
	if err != nil {
		return d, err
	}
	svc := booking.New(h.admin.Client(), a)
	q := r.URL.Query()
	types, err := svc.ListBookingTypes(r.Context(), &booking.ListParams{PageToken: q.Get("types"), Limit: bookingsPageSize})
	if err != nil {
		return d, err
	}
	d.Types = types.Data
	if types.NextPageToken != nil {
		d.NextTypes = "?" + url.Values{"types": {*types.NextPageToken}}.Encode()
	}
	bookings, err := svc.ListBookings(r.Context(), &booking.BookingListParams{PageToken: q.Get("page"), Limit: bookingsPageSize})
	if err != nil {
		return d, err
	}
	d.Bookings = bookings.Data
	if bookings.NextPageToken != nil {
		d.NextBookings = "?" + url.Values{"page": {*bookings.NextPageToken}}.Encode()
	}
	return d, nil
}
