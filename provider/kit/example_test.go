package kit_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/icsfeed"
	"github.com/unical/unical/provider/kit"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
)

// ExampleProviders lists what a Client's providers declare: the list the
// admin API, the dashboard, the CLI and both OpenAPI documents show. A
// provider from outside this module appears the same way once it is in
// unical.Config.Providers.
func ExampleProviders() {
	dir, err := os.MkdirTemp("", "unical-kit")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(dir, "unical.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	feeds, err := icsfeed.New(icsfeed.Config{})
	if err != nil {
		log.Fatal(err)
	}
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{virtual.New(virtual.Config{Store: store}), feeds}, MasterKey: admin.NewMasterKey()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	for _, info := range kit.Providers(client) {
		fmt.Printf("%s (%s): credential %s, delegation %v\n", info.Type, info.DisplayName, info.Credential, info.Delegation)
	}
	// Output:
	// VIRTUAL (Virtual calendars): credential none, delegation false
	// ICS_FEED (ICS feed): credential url, delegation false
}
