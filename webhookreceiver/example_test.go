package webhookreceiver_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/unical/unical"
	"github.com/unical/unical/webhookreceiver"
)

// A receiver for the application's own endpoint and one subscription,
// each with the secret unical showed when it was set up.
func ExampleHandler() {
	v, err := webhookreceiver.NewVerifier(webhookreceiver.Config{
		Secrets: []string{os.Getenv("APP_WEBHOOK_SECRET"), os.Getenv("SUBSCRIPTION_SECRET")},
	})
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /unical", &webhookreceiver.Handler{
		Verifier: v,
		Receive: func(ctx context.Context, msg *webhookreceiver.Message) error {
			// Delivery is at least once: a program that must act once
			// records msg.ID with what it did.
			switch e := msg.Event.(type) {
			case *webhookreceiver.CalendarEvent:
				if e.Type == unical.EventTypeCalendarEventUnknown {
					log.Printf("resynchronise calendar %s of %s", e.CalendarID, e.EndUserAccountID)
				} else {
					log.Printf("calendar %s of %s changed", e.CalendarID, e.EndUserAccountID)
				}
			case *webhookreceiver.AccountEvent:
				log.Printf("%s: %s is %s", e.Type, e.Account.Email, e.Account.Status)
			}
			return nil
		},
	})
}
