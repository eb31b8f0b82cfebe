// Command embedded shows unical used as a library, in-process, with the
// embedded bbolt store: create an application, connect an account, create
// an event and list the week's instances. The in-memory provider of
// provider/memory stands in for a real calendar server so that the example
// runs anywhere; a real program passes the providers from provider/
// instead.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "unical-embedded")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(dir, "unical.db")})
	if err != nil {
		return err
	}
	defer store.Close()
	key, _, err := admin.LoadOrCreateMasterKeyFile(filepath.Join(dir, "master.key"))
	if err != nil {
		return err
	}
	calendars := memory.New(memory.Config{Type: unical.ProviderCalDAV})
	calendarID := calendars.AddUser("alan@example.com", "", "app-specific-password")

	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{calendars}, MasterKey: key})
	if err != nil {
		return err
	}
	defer client.Close()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("example")})
	if err != nil {
		return err
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		return err
	}
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{
		Email: "alan@example.com", ProviderType: unical.ProviderCalDAV, Password: unical.Some("app-specific-password"),
	})
	if err != nil {
		return err
	}
	_, err = app.CreateEvent(ctx, acct.ID, calendarID, &unical.EventParams{
		Title:      unical.Some("Standup"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2026-01-05T09:00:00+01:00", TimeZone: "Europe/Berlin"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2026-01-05T09:15:00+01:00", TimeZone: "Europe/Berlin"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"}),
	})
	if err != nil {
		return err
	}
	page, err := app.ListEvents(ctx, acct.ID, calendarID, &unical.EventListParams{
		Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC),
		ExpandRecurrences: true, OrderBy: unical.OrderByStartTime, TimeZone: "Europe/Berlin",
	})
	if err != nil {
		return err
	}
	for _, e := range page.Data {
		fmt.Println(e.Start.DateTime, e.Title)
	}
	return nil
}
