package oauthkit_test

import (
	"fmt"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/kit/oauthkit"
)

// ExampleFresh shows when a provider call refreshes an account's access
// token before using it: a token about to expire counts as stale, so that
// it does not expire on the way to the provider.
func ExampleFresh() {
	now := time.Date(2030, 6, 3, 9, 0, 0, 0, time.UTC)
	for _, left := range []time.Duration{time.Hour, 10 * time.Second, -time.Minute} {
		tok := unical.Token{AccessToken: "ya29.example", Expiry: now.Add(left)}
		fmt.Printf("expires in %v: fresh %v\n", left, oauthkit.Fresh(tok, now))
	}
	// Output:
	// expires in 1h0m0s: fresh true
	// expires in 10s: fresh false
	// expires in -1m0s: fresh false
}
