package unical_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
)

// ExampleAllEvents walks every occurrence of a window, page after page,
// and keeps the sync token that the last page gives for the next sync.
func ExampleAllEvents() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "unical-allevents")
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
	room, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room@rooms.example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		log.Fatal(err)
	}
	_, err = app.CreateEvent(ctx, room.ID, "primary", &unical.EventParams{
		Title:      unical.Some("Cleaning"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2030-03-01T07:00:00Z", TimeZone: "UTC"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2030-03-01T08:00:00Z", TimeZone: "UTC"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=5"}),
	})
	if err != nil {
		log.Fatal(err)
	}

	// A page of two: AllEvents asks for the next page until there is none.
	var syncToken string
	params := &unical.EventListParams{
		Start: time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2030, 3, 8, 0, 0, 0, 0, time.UTC),
		ExpandRecurrences: true, OrderBy: unical.OrderByStartTime, Limit: 2,
	}
	for e, err := range unical.AllEvents(ctx, app, room.ID, "primary", params, &syncToken) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Start.DateTime, e.Title)
	}
	fmt.Println("sync token kept:", syncToken != "")
	// Output:
	// 2030-03-01T07:00:00Z Cleaning
	// 2030-03-02T07:00:00Z Cleaning
	// 2030-03-03T07:00:00Z Cleaning
	// 2030-03-04T07:00:00Z Cleaning
	// 2030-03-05T07:00:00Z Cleaning
	// sync token kept: true
}
