package unical_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

// TestCreateAccount_DelegationWithoutConnector: an application with a
// delegation credential asks a provider that cannot connect through one
// (here the memory provider standing in for PROVIDER_A) to connect a user
// by email alone. The answer is a 400 naming providerType, and nothing is
// stored.
func TestCreateAccount_DelegationWithoutConnector(t *testing.T) {
	client, store, appID := mustOpenMemoryGoogle(t, "delegated")
	ctx := t.Context()
	rec, err := store.GetApplication(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	rec.Delegations = map[unical.ProviderType]unical.Delegation{unical.ProviderGoogle: {
		ClientID: "sa@corp.example.com", Domains: []string{"corp.example.com"},
		Sealed: client.Keys().SealDelegation(rec.ID, string(unical.ProviderGoogle), []byte(`{}`)),
	}}
	if err := store.UpdateApplication(ctx, rec); err != nil {
		t.Fatal(err)
	}
	client.Invalidate(rec.ID)
	app, err := client.App(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}

	_, err = app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@corp.example.com", ProviderType: unical.ProviderGoogle})
	var got unical.Error
	if e := (*unical.Error)(nil); errors.As(err, &e) {
		got = unical.Error{Code: e.Code, Field: e.Field}
	}
	want := unical.Error{Code: unical.CodeInvalid, Field: "providerType"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreateAccount(email only, provider without ConnectDelegated) = %v (-want +got):\n%s", err, diff)
	}
	accounts, err := app.ListAccounts(ctx, &unical.AccountListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(accounts.Data) != 0 {
		t.Errorf("ListAccounts() after the refused connect = %d accounts, want none", len(accounts.Data))
	}
}

// mustOpenMemoryGoogle opens a Client over a bolt Store in a temporary
// folder whose one provider is the memory provider standing in for
// PROVIDER_A, and creates an application called name; all is closed in
// Cleanup.
func mustOpenMemoryGoogle(t *testing.T, name string) (*unical.Client, *bolt.Store, string) {
	t.Helper()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{memory.New(memory.Config{Type: unical.ProviderGoogle})}, MasterKey: seal.NewKey()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	created, err := admin.Of(client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some(name)})
	if err != nil {
		t.Fatal(err)
	}
	return client, store, created.ApplicationID
}
