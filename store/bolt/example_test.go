package bolt_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
)

// ExampleOpen opens (or creates) the embedded store and serves a Client
// from it. One process holds the file at a time: a second Open waits up to
// Config.Timeout and then fails with CodeUnavailable.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "unical-bolt")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "unical.db")
	store, err := bolt.Open(bolt.Config{Path: path})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{virtual.New(virtual.Config{Store: store})}, MasterKey: admin.NewMasterKey()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	if _, err := admin.Of(client).CreateApplication(context.Background(), &admin.ApplicationParams{Name: unical.Some("shop")}); err != nil {
		log.Fatal(err)
	}
	apps, err := store.ListApplications(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(apps), apps[0].Name)

	_, err = bolt.Open(bolt.Config{Path: path, Timeout: 1}) // the file is in use
	fmt.Println(unical.ErrorCode(err))
	// Output:
	// 1 shop
	// unavailable
}
