package unical_test

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

// engineEnv is a Client over bolt with one Google account in memprovider.
type engineEnv struct {
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

// mustNewEngineEnv builds the environment; configure may change the
// Config first.
func mustNewEngineEnv(tb testing.TB, configure func(*unical.Config)) *engineEnv {
	tb.Helper()
	store, err := bolt.Open(filepath.Join(tb.TempDir(), "unical.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	return mustNewEngineEnvOn(tb, store, configure)
}

// mustNewEngineEnvOn is mustNewEngineEnv over a given Store.
func mustNewEngineEnvOn(tb testing.TB, store unical.Store, configure func(*unical.Config)) *engineEnv {
	tb.Helper()
	var err error
	env := &engineEnv{Store: store, Mem: memprovider.New(unical.ProviderGoogle), Dav: memprovider.New(unical.ProviderCalDAV)}
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
	ctx := context.Background()
	created, err := admin.Of(env.Client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("engine test")})
	if err != nil {
		tb.Fatal(err)
	}
	env.App, err = env.Client.App(ctx, created.ApplicationID)
	if err != nil {
		tb.Fatal(err)
	}
	acct, err := env.App.CreateAccount(ctx, &unical.AccountCreateParams{
		Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada"),
	})
	if err != nil {
		tb.Fatal(err)
	}
	env.AccountID = acct.ID
	dav, err := env.App.CreateAccount(ctx, &unical.AccountCreateParams{
		Email: "alan@example.com", ProviderType: unical.ProviderCalDAV, Password: unical.Some("app-password"),
	})
	if err != nil {
		tb.Fatal(err)
	}
	env.DavAccountID = dav.ID
	return env
}
