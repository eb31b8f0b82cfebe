package unical_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

// TestCreateAccount_MissingProviderSaysHowToAddIt: a program embedding the
// library without the provider a request names is told which constructor
// adds it, not only that it is missing.
func TestCreateAccount_MissingProviderSaysHowToAddIt(t *testing.T) {
	store, err := bolt.Open(filepath.Join(t.TempDir(), "unical.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{memory.New(unical.ProviderGoogle)}, MasterKey: seal.NewKey()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	ctx := t.Context()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("hint")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = app.CreateAccount(ctx, &unical.AccountCreateParams{ProviderType: unical.ProviderVirtual, Email: "room@example.com"})
	got := []any{unical.ErrorCode(err), unical.ErrorMessage(err)}
	want := []any{unical.CodeNotImplemented, "This server has no provider configured for VIRTUAL. Add virtual.New(store) from package provider/virtual to unical.Config.Providers."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreateAccount(VIRTUAL) without the provider (-want +got):\n%s", diff)
	}
}
