// Package clientenv builds the Client that the root's and the engine's
// tests share: a Client over a Store with two accounts in
// provider/memory, one PROVIDER_A (OAuth) and one PROVIDER_C
// (password), under one application. Only tests import it.
package clientenv

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	memprovider "github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

// Env is a Client over a Store with one Google account in memprovider.
type Env struct {
	Client     *unical.Client
	Store      unical.Store
	App        *unical.App
	Mem        *memprovider.Provider
	AccountID  string
	CalendarID string
	// Dav, DavAccountID and DavCalendarID are a PROVIDER_C account.
	Dav           *memprovider.Provider
	DavAccountID  string
	DavCalendarID string
}

// New builds the environment over a bolt Store in a temporary folder;
// configure may change the Config first. The Client may send webhooks
// to loopback.
func New(tb testing.TB, configure func(*unical.Config)) *Env {
	tb.Helper()
	return NewOn(tb, OpenBolt(tb), configure)
}

// OpenBolt opens a bolt Store in a temporary folder, closed when the
// test ends.
func OpenBolt(tb testing.TB) *bolt.Store {
	tb.Helper()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(tb.TempDir(), "unical.db")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	return store
}

// NewApp creates an application named name and returns it.
func NewApp(tb testing.TB, client *unical.Client, name string) *unical.App {
	tb.Helper()
	ctx := context.Background()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some(name)})
	if err != nil {
		tb.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		tb.Fatal(err)
	}
	return app
}

// ConnectAda connects ada@example.com's PROVIDER_A account (the user a
// memprovider's AddUser("ada@example.com", "refresh-ada", "") made) to
// app and returns its account id.
func ConnectAda(tb testing.TB, app *unical.App) string {
	tb.Helper()
	acct, err := app.CreateAccount(context.Background(), &unical.AccountCreateParams{
		Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada"),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return acct.ID
}

// NewOn is New over a given Store.
func NewOn(tb testing.TB, store unical.Store, configure func(*unical.Config)) *Env {
	tb.Helper()
	var err error
	env := &Env{Store: store, Mem: memprovider.New(memprovider.Config{Type: unical.ProviderGoogle}), Dav: memprovider.New(memprovider.Config{Type: unical.ProviderCalDAV})}
	env.CalendarID = env.Mem.AddUser("ada@example.com", "refresh-ada", "")
	env.DavCalendarID = env.Dav.AddUser("alan@example.com", "", "app-password")
	cfg := unical.Config{
		Store: store, Providers: []unical.Provider{env.Mem, env.Dav}, MasterKey: seal.NewKey(),
		AllowPrivateTargets: true,
	}
	if configure != nil {
		configure(&cfg)
	}
	env.Client, err = unical.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { env.Client.Close() })
	env.App = NewApp(tb, env.Client, "engine test")
	env.AccountID = ConnectAda(tb, env.App)
	dav, err := env.App.CreateAccount(context.Background(), &unical.AccountCreateParams{
		Email: "alan@example.com", ProviderType: unical.ProviderCalDAV, Password: unical.Some("app-password"),
	})
	if err != nil {
		tb.Fatal(err)
	}
	env.DavAccountID = dav.ID
	return env
}
