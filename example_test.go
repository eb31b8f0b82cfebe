package unical_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

// Example connects a CalDAV account in-process and creates an event. The
// in-memory provider stands in for a real CalDAV server.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "unical-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := bolt.Open(bolt.Config{Path: filepath.Join(dir, "unical.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	caldav := memory.New(memory.Config{Type: unical.ProviderCalDAV})
	calendarID := caldav.AddUser("alan@example.com", "", "abcd-efgh")

	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{caldav}, MasterKey: admin.NewMasterKey()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("shop")})
	if err != nil {
		log.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		log.Fatal(err)
	}
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{
		Email: "alan@example.com", ProviderType: unical.ProviderCalDAV, Password: unical.Some("abcd-efgh"),
	})
	if err != nil {
		log.Fatal(err)
	}
	event, err := app.CreateEvent(ctx, acct.ID, calendarID, &unical.EventParams{
		Title: unical.Some("Lunch"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-05T12:00:00+01:00", TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-01-05T13:00:00+01:00", TimeZone: "Europe/Berlin"}),
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = app.CreateEvent(ctx, acct.ID, calendarID, &unical.EventParams{Title: unical.Some("No start")})
	fmt.Println(acct.Status, event.Title, unical.ErrorCode(err))
	// Output: ACTIVE Lunch invalid
}
