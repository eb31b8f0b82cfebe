// Command restclient lists the accounts of an application through a
// running unicald with the typed HTTP client, walking every page, and the
// calendars of each. The same code runs in-process: unical.AllAccounts and
// unical.AllCalendars take any unical.API, which *unical.App implements
// too.
//
//	UNICAL_URL=http://127.0.0.1:8080 UNICAL_API_KEY=uk_... go run ./examples/restclient
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/httpclient"
)

func main() {
	base, key := os.Getenv("UNICAL_URL"), os.Getenv("UNICAL_API_KEY")
	if base == "" || key == "" {
		log.Fatal("set UNICAL_URL and UNICAL_API_KEY")
	}
	api, err := httpclient.New(httpclient.Config{BaseURL: base, APIKey: key, HTTPClient: &http.Client{Timeout: 30 * time.Second}})
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), api); err != nil {
		var e *unical.Error
		if errors.As(err, &e) {
			log.Fatalf("%s (field %q, retry after %v): %s", e.Code, e.Field, e.RetryAfter, e.Message)
		}
		log.Fatal(err)
	}
}

// run needs only the API: pass a *unical.App to run it in-process.
func run(ctx context.Context, api unical.API) error {
	for acct, err := range unical.AllAccounts(ctx, api, &unical.AccountListParams{Limit: 100}) {
		if err != nil {
			return err
		}
		fmt.Printf("%s\t%s\t%s\t%s\n", acct.ID, acct.ProviderType, acct.Status, acct.Email)
		if acct.Status != unical.AccountStatusActive {
			continue
		}
		for cal, err := range unical.AllCalendars(ctx, api, acct.ID, nil, nil) {
			if err != nil {
				return err
			}
			fmt.Printf("\t%s\t%s\n", cal.ID, cal.Name)
		}
	}
	return nil
}
