package booking_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
)

// Example publishes a 30-minute consultation on a host's Monday morning,
// books the first free slot for a guest, and shows the slot gone from
// the slots the next guest sees. The same calls are /v1/bookingTypes,
// /v1/bookingTypes/{id}/slots and /v1/bookings over HTTP.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "unical-booking")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(dir, "unical.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// A fixed clock, so that the example's 2030 dates are inside the
	// booking type's horizon.
	now := func() time.Time { return time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC) }
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{virtual.New(virtual.Config{Store: store})}, MasterKey: admin.NewMasterKey(), Now: now})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("example")})
	if err != nil {
		log.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		log.Fatal(err)
	}
	host, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "host@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		log.Fatal(err)
	}

	bookings := booking.New(client, app)
	consultation, err := bookings.CreateBookingType(ctx, &booking.BookingTypeParams{
		Name:            unical.Some("Consultation"),
		DurationMinutes: unical.Some(30),
		IntervalMinutes: unical.Some(30),
		TimeZone:        unical.Some("Europe/Berlin"),
		HorizonDays:     unical.Some(30),
		Participants: unical.Some([]booking.Participant{{Participant: availability.Participant{
			EndUserAccountID: host.ID,
			WorkingHours:     &availability.WorkingHours{TimeZone: "Europe/Berlin", Intervals: []availability.WorkingInterval{{Day: "monday", Start: "09:00", End: "10:30"}}},
		}}}),
		Event: unical.Some(booking.EventTemplate{Title: "Consultation"}),
	})
	if err != nil {
		log.Fatal(err)
	}
	monday := &booking.SlotParams{StartDateTime: "2030-06-03T00:00:00", EndDateTime: "2030-06-04T00:00:00", TimeZone: "Europe/Berlin"}
	slots, err := bookings.ListSlots(ctx, consultation.ID, monday)
	if err != nil {
		log.Fatal(err)
	}
	for _, slot := range slots.Data {
		fmt.Println("free:", slot.Start.DateTime)
	}

	booked, err := bookings.CreateBooking(ctx, &booking.BookingParams{
		BookingTypeID: consultation.ID,
		StartDateTime: slots.Data[0].Start.DateTime,
		Guest:         booking.Guest{Email: "guest@example.org", Name: "Ada"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("booked:", booked.Status, booked.Start.DateTime)

	slots, err = bookings.ListSlots(ctx, consultation.ID, monday)
	if err != nil {
		log.Fatal(err)
	}
	for _, slot := range slots.Data {
		fmt.Println("still free:", slot.Start.DateTime)
	}
	// Output:
	// free: 2030-06-03T09:00:00+02:00
	// free: 2030-06-03T09:30:00+02:00
	// free: 2030-06-03T10:00:00+02:00
	// booked: confirmed 2030-06-03T09:00:00+02:00
	// still free: 2030-06-03T09:30:00+02:00
	// still free: 2030-06-03T10:00:00+02:00
}
