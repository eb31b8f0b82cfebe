package scopedtoken

import (
	"context"
	"slices"
	"strconv"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
)

// The rules for the resources a request names in its body or query (the
// routes whose path does not tell them all). Each takes the request's
// grant, nil for a request made with the application's API key (which
// every rule lets through), and the names the request gave once decoded,
// and returns nil or the 403 naming the field at fault.

// FreeBusy checks the calendars a free/busy query names for account
// (its calendarIds).
func FreeBusy(g *Grant, account string, calendarIDs []string) error {
	return calendars(g, FreeBusyRead, "calendarIds", account, calendarIDs)
}

// Availability checks the participants of an availability query: each
// participant's account and calendars, named at
// participants[i].calendarIds.
func Availability(g *Grant, p *availability.Params) error {
	for i, part := range p.Participants {
		field := "participants[" + strconv.Itoa(i) + "].calendarIds"
		if err := calendars(g, FreeBusyRead, field, part.EndUserAccountID, part.CalendarIDs); err != nil {
			return err
		}
	}
	return nil
}

// calendars checks that the calendars a request names for account are
// covered, at field; when the token narrows the account's calendars, the
// request must name them (the default calendars the API would otherwise
// pick may lie outside the token).
func calendars(g *Grant, scope Scope, field, account string, calendarIDs []string) error {
	if g == nil {
		return nil
	}
	if err := g.Allow(Use{Scope: scope, AccountID: account}); err != nil {
		return err
	}
	if _, narrowed := g.Calendars[account]; narrowed && len(calendarIDs) == 0 {
		return forbidden(field, "This token covers some calendars of the account %s only: name them in %s.", account, field)
	}
	for _, c := range calendarIDs {
		if err := g.Allow(Use{Scope: scope, AccountID: account, CalendarID: c}); err != nil {
			return &unical.Error{Code: CodeForbidden, Field: field, Message: unical.ErrorMessage(err)}
		}
	}
	return nil
}

// BookingBody checks the booking type a booking write names in its body:
// a hold's (holds:write) or a booking's (bookings:write). Other bodies
// (booking types, schedules, a reschedule) name none and pass.
func BookingBody(g *Grant, params any) error {
	if g == nil {
		return nil
	}
	switch p := params.(type) {
	case *booking.HoldParams:
		return g.Allow(Use{Scope: HoldsWrite, BookingType: p.BookingTypeID})
	case *booking.BookingParams:
		return g.Allow(Use{Scope: BookingsWrite, BookingType: p.BookingTypeID})
	}
	return nil
}

// BookingList checks the bookingTypeId of a booking list: a token lists
// the bookings of one booking type it covers.
func BookingList(g *Grant, bookingTypeID string) error {
	if g == nil {
		return nil
	}
	if bookingTypeID == "" {
		return forbidden("bookingTypeId", "A scoped token lists the bookings of one booking type: give bookingTypeId.")
	}
	return g.Allow(Use{Scope: BookingsRead, BookingType: bookingTypeID})
}

// A BookingGetter reads one booking: booking.Service is one.
type BookingGetter interface {
	GetBooking(ctx context.Context, id string) (*booking.Booking, error)
}

// Booking checks the booking a route names by id for scope: it must be
// of a booking type the token covers. A booking that does not exist is
// refused the same way (403 naming id), so that the answer tells nothing
// of bookings outside the token. Only a token's request reads the
// booking.
func Booking(ctx context.Context, g *Grant, scope Scope, bookings BookingGetter, id string) error {
	if g == nil {
		return nil
	}
	refused := forbidden("id", "This token does not cover the booking %s.", id)
	b, err := bookings.GetBooking(ctx, id)
	switch {
	case unical.ErrorCode(err) == unical.CodeNotFound:
		return refused
	case err != nil:
		return err
	}
	if g.Allow(Use{Scope: scope, BookingType: b.BookingTypeID}) != nil {
		return refused
	}
	return nil
}

// CoveredCalendars keeps, of account's calendars, those the token covers:
// all of them for a token that does not narrow the account's calendars
// (and for the API key, g nil).
func CoveredCalendars(g *Grant, account string, cals []*unical.Calendar) []*unical.Calendar {
	if g == nil {
		return cals
	}
	allowed, narrowed := g.Calendars[account]
	if !narrowed {
		return cals
	}
	return slices.DeleteFunc(cals, func(c *unical.Calendar) bool { return !slices.Contains(allowed, c.ID) })
}
