package availability_test

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
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
)

// ExampleFind finds the hours two rooms are both free on a working day:
// one room is busy from 10:00 to 12:00, and both open 09:00 to 14:00.
func ExampleFind() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "unical-availability")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(dir, "unical.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{virtual.New(virtual.Config{Store: store})}, MasterKey: admin.NewMasterKey()})
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
	var rooms []availability.Participant
	hours := &availability.WorkingHours{TimeZone: "Europe/Berlin", Intervals: []availability.WorkingInterval{{Day: "monday", Start: "09:00", End: "14:00"}}}
	for _, email := range []string{"orion@rooms.example.com", "lyra@rooms.example.com"} {
		room, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: email, ProviderType: unical.ProviderVirtual})
		if err != nil {
			log.Fatal(err)
		}
		rooms = append(rooms, availability.Participant{EndUserAccountID: room.ID, WorkingHours: hours})
	}
	_, err = app.CreateEvent(ctx, rooms[0].EndUserAccountID, "primary", &unical.EventParams{
		Title: unical.Some("Board meeting"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2030-06-03T10:00:00", TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2030-06-03T12:00:00", TimeZone: "Europe/Berlin"}),
	})
	if err != nil {
		log.Fatal(err)
	}

	// Find works over any unical.API: this in-process App, or an
	// httpclient.Client of a remote server.
	now := time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)
	found, err := availability.Find(ctx, app, now, &availability.Params{
		Participants:  rooms,
		StartDateTime: "2030-06-03T00:00:00", EndDateTime: "2030-06-04T00:00:00", TimeZone: "Europe/Berlin",
		DurationMinutes: 60, IntervalMinutes: 60,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, slot := range found.Data {
		fmt.Println(slot.Start.DateTime, "to", slot.End.DateTime)
	}
	// Output:
	// 2030-06-03T09:00:00+02:00 to 2030-06-03T10:00:00+02:00
	// 2030-06-03T12:00:00+02:00 to 2030-06-03T13:00:00+02:00
	// 2030-06-03T13:00:00+02:00 to 2030-06-03T14:00:00+02:00
}
