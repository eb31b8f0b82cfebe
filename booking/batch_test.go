package booking_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/records"
)

// oneByOne is a Store without records.BatchStore: the booking layer
// writes its records one at a time on it.
type oneByOne struct{ unical.Store }

// TestBooking_WritesWithAndWithoutBatches books on a Store that writes a
// booking's records in batches (bbolt) and on one that cannot: on both, 20
// concurrent bookings of one slot of two hosts make one booking with one
// event per host, a hold keeps its slot from a booking by startDateTime
// and is booked by its id, and nothing is left of the refused requests
// and the used hold: no pending record, no hold record, one booking
// record per booking.
func TestBooking_WritesWithAndWithoutBatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		wrap    func(unical.Store) unical.Store
		batches bool
	}{
		{"batches", nil, true},
		{"one by one", func(s unical.Store) unical.Store { return oneByOne{s} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvWith(t, tc.wrap)
			if _, ok := e.st.Client.Store().(records.BatchStore); ok != tc.batches {
				t.Fatalf("the Client's Store writes batches: %v, want %v", ok, tc.batches)
			}
			a, b := e.host(t, "ann"), e.host(t, "bob")
			bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Pair"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(a, b))})
			start := monday()
			count := e.race(t, 20, &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()})
			if d := cmp.Diff(map[unical.Code]int{"created": 1, unical.CodeSlotUnavailable: 19}, count); d != "" {
				t.Errorf("answers mismatch (-want +got):\n%s", d)
			}
			later := start.Add(2 * time.Hour)
			h, err := e.svc.CreateHold(t.Context(), &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(later)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.svc.CreateHold(t.Context(), &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(later)})
			wantCode(t, "a second hold of the held slot", err, unical.CodeSlotUnavailable, "startDateTime")
			_, err = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(later), Guest: guest()})
			wantCode(t, "booking the held slot", err, unical.CodeSlotUnavailable, "startDateTime")
			if _, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, HoldID: h.ID, Guest: guest()}); err != nil {
				t.Fatalf("booking by the hold: %v", err)
			}
			for _, acc := range []string{a, b} {
				if n := len(e.events(t, acc)); n != 2 {
					t.Errorf("%s has %d events, want one per booking (2)", acc, n)
				}
			}
			for collection, want := range map[string]int{"booking.pending": 0, "booking.holds": 0, "booking.bookings": 2} {
				recs, err := e.st.Store.ListRecords(t.Context(), e.app.ID(), "", collection, "", "", 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) != want {
					t.Errorf("%s holds %d records, want %d", collection, len(recs), want)
				}
			}
		})
	}
}
