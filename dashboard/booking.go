package dashboard

import (
	"fmt"
	"html"
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
	// Pages are the booking pages of the public types listed.
	Pages []bookingPage
}

// bookingPage is a public booking type's page: its address and the
// HTML that embeds it in another site.
type bookingPage struct {
	TypeID    string
	Name      string
	Link      string
	Embed     string
	Ancestors []string
}

// newBookingPage is t's page, its link under publicURL (a path alone
// when the server has no public URL).
func newBookingPage(t *booking.BookingType, publicURL string) bookingPage {
	link := publicURL + "/book/" + t.Slug
	embed := fmt.Sprintf(`<iframe src="%s" title="%s" width="100%%" height="760" style="border:0"></iframe>`, link, html.EscapeString(t.Name))
	return bookingPage{TypeID: t.ID, Name: t.Name, Link: link, Embed: embed, Ancestors: t.FrameAncestors}
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
	for _, t := range types.Data {
		if t.Public && t.Slug != "" {
			d.Pages = append(d.Pages, newBookingPage(t, h.publicURL))
		}
	}
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
