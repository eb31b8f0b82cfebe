package scopedtoken_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/scopedtoken"
)

// ruleGrant covers acc_a whole and cal_1 of acc_b, booking type bt_1,
// for free/busy, holds and bookings.
func ruleGrant() *scopedtoken.Grant {
	return &scopedtoken.Grant{
		Accounts:     []string{"acc_a", "acc_b"},
		Calendars:    map[string][]string{"acc_b": {"cal_1"}},
		BookingTypes: []string{"bt_1"},
		Scopes:       []scopedtoken.Scope{scopedtoken.FreeBusyRead, scopedtoken.HoldsWrite, scopedtoken.BookingsRead, scopedtoken.BookingsWrite},
	}
}

// bookingsByID is a BookingGetter over a map; an id it lacks is not
// found, and "broken" fails.
type bookingsByID map[string]*booking.Booking

func (m bookingsByID) GetBooking(_ context.Context, id string) (*booking.Booking, error) {
	if id == "broken" {
		return nil, unical.Errorf(unical.CodeUnavailable, "The store is down.")
	}
	if b, ok := m[id]; ok {
		return b, nil
	}
	return nil, unical.Errorf(unical.CodeNotFound, "No booking %s.", id)
}

// TestRules checks each rule of the resources a request names in its
// body or query: what a token may name passes, anything else is the 403
// naming the field, and the API key (no grant) passes every rule.
func TestRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bookings := bookingsByID{"bk_1": {ID: "bk_1", BookingTypeID: "bt_1"}, "bk_2": {ID: "bk_2", BookingTypeID: "bt_2"}}
	type refusal struct {
		Code  unical.Code
		Field string
	}
	tests := []struct {
		name string
		rule func(g *scopedtoken.Grant) error
		want *refusal // nil when allowed
	}{
		{"free/busy of a whole account", func(g *scopedtoken.Grant) error { return scopedtoken.FreeBusy(g, "acc_a", nil) }, nil},
		{"free/busy of a covered calendar", func(g *scopedtoken.Grant) error { return scopedtoken.FreeBusy(g, "acc_b", []string{"cal_1"}) }, nil},
		{"free/busy of a calendar outside", func(g *scopedtoken.Grant) error { return scopedtoken.FreeBusy(g, "acc_b", []string{"cal_1", "cal_2"}) },
			&refusal{scopedtoken.CodeForbidden, "calendarIds"}},
		{"free/busy of a narrowed account's default calendars", func(g *scopedtoken.Grant) error { return scopedtoken.FreeBusy(g, "acc_b", nil) },
			&refusal{scopedtoken.CodeForbidden, "calendarIds"}},
		{"free/busy of an account outside", func(g *scopedtoken.Grant) error { return scopedtoken.FreeBusy(g, "acc_c", nil) },
			&refusal{scopedtoken.CodeForbidden, "endUserAccountId"}},
		{"availability of covered participants", func(g *scopedtoken.Grant) error {
			return scopedtoken.Availability(g, &availability.Params{Participants: []availability.Participant{
				{EndUserAccountID: "acc_a"}, {EndUserAccountID: "acc_b", CalendarIDs: []string{"cal_1"}}}})
		}, nil},
		{"availability of a calendar outside", func(g *scopedtoken.Grant) error {
			return scopedtoken.Availability(g, &availability.Params{Participants: []availability.Participant{
				{EndUserAccountID: "acc_a"}, {EndUserAccountID: "acc_b", CalendarIDs: []string{"cal_2"}}}})
		}, &refusal{scopedtoken.CodeForbidden, "participants[1].calendarIds"}},
		{"a hold of a covered booking type", func(g *scopedtoken.Grant) error {
			return scopedtoken.BookingBody(g, &booking.HoldParams{BookingTypeID: "bt_1"})
		}, nil},
		{"a booking of another booking type", func(g *scopedtoken.Grant) error {
			return scopedtoken.BookingBody(g, &booking.BookingParams{BookingTypeID: "bt_2"})
		}, &refusal{scopedtoken.CodeForbidden, "bookingTypeId"}},
		{"a body that names no booking type", func(g *scopedtoken.Grant) error {
			return scopedtoken.BookingBody(g, &booking.RescheduleParams{})
		}, nil},
		{"the bookings of a covered booking type", func(g *scopedtoken.Grant) error { return scopedtoken.BookingList(g, "bt_1") }, nil},
		{"the bookings of every booking type", func(g *scopedtoken.Grant) error { return scopedtoken.BookingList(g, "") },
			&refusal{scopedtoken.CodeForbidden, "bookingTypeId"}},
		{"the bookings of another booking type", func(g *scopedtoken.Grant) error { return scopedtoken.BookingList(g, "bt_2") },
			&refusal{scopedtoken.CodeForbidden, "bookingTypeId"}},
		{"a booking of a covered type", func(g *scopedtoken.Grant) error {
			return scopedtoken.Booking(ctx, g, scopedtoken.BookingsRead, bookings, "bk_1")
		}, nil},
		{"a booking of another type", func(g *scopedtoken.Grant) error {
			return scopedtoken.Booking(ctx, g, scopedtoken.BookingsRead, bookings, "bk_2")
		}, &refusal{scopedtoken.CodeForbidden, "id"}},
		{"a booking that does not exist", func(g *scopedtoken.Grant) error {
			return scopedtoken.Booking(ctx, g, scopedtoken.BookingsRead, bookings, "bk_9")
		}, &refusal{scopedtoken.CodeForbidden, "id"}},
		{"a booking that cannot be read", func(g *scopedtoken.Grant) error {
			return scopedtoken.Booking(ctx, g, scopedtoken.BookingsRead, bookings, "broken")
		}, &refusal{unical.CodeUnavailable, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.rule(ruleGrant())
			var got *refusal
			if err != nil {
				got = &refusal{Code: unical.ErrorCode(err)}
				var e *unical.Error
				if errors.As(err, &e) {
					got.Field = e.Field
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("with the token (-want +got):\n%s\nerror: %v", diff, err)
			}
			if err := tt.rule(nil); err != nil {
				t.Errorf("with the API key = %v, want nil", err)
			}
		})
	}
}

func TestCoveredCalendars(t *testing.T) {
	t.Parallel()
	cals := func(ids ...string) []*unical.Calendar {
		var out []*unical.Calendar
		for _, id := range ids {
			out = append(out, &unical.Calendar{ID: id})
		}
		return out
	}
	tests := []struct {
		name    string
		grant   *scopedtoken.Grant
		account string
		want    []*unical.Calendar
	}{
		{"a narrowed account keeps its covered calendars", ruleGrant(), "acc_b", cals("cal_1")},
		{"a whole account keeps all", ruleGrant(), "acc_a", cals("cal_1", "cal_2", "cal_3")},
		{"the API key keeps all", nil, "acc_b", cals("cal_1", "cal_2", "cal_3")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := scopedtoken.CoveredCalendars(tt.grant, tt.account, cals("cal_1", "cal_2", "cal_3"))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CoveredCalendars (-want +got):\n%s", diff)
			}
		})
	}
}
