package httpclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
)

// ExampleNew calls a unicald server through the typed client. Here the
// server runs in the same process; a real program names its URL and the
// application's API key.
func ExampleNew() {
	ctx := context.Background()
	serverURL, apiKey, stop := startServer()
	defer stop()

	api, err := httpclient.New(httpclient.Config{BaseURL: serverURL, APIKey: apiKey})
	if err != nil {
		log.Fatal(err)
	}
	room, err := api.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room@rooms.example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(room.Status, room.ProviderType)

	// Failures are *unical.Error values, read back from the server's
	// error body: the code and the field at fault.
	_, err = api.CreateAccount(ctx, &unical.AccountCreateParams{ProviderType: unical.ProviderVirtual})
	var e *unical.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field)
	}
	// Output:
	// ACTIVE VIRTUAL
	// invalid email
}

// startServer runs /v1 over a temporary store and returns its URL and an
// API key of a new application.
func startServer() (url, apiKey string, stop func()) {
	dir, err := os.MkdirTemp("", "unical-httpclient")
	if err != nil {
		log.Fatal(err)
	}
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(dir, "unical.db")})
	if err != nil {
		log.Fatal(err)
	}
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{virtual.New(virtual.Config{Store: store})}, MasterKey: admin.NewMasterKey()})
	if err != nil {
		log.Fatal(err)
	}
	created, err := admin.Of(client).CreateApplication(context.Background(), &admin.ApplicationParams{Name: unical.Some("example")})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.NewHandler(httpapi.Config{Client: client}))
	return srv.URL, created.APIKey, func() {
		srv.Close()
		client.Close()
		store.Close()
		os.RemoveAll(dir)
	}
}
