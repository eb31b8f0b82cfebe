package unical_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestCreateAccount_MissingProviderSaysHowToAddIt: a program embedding the
// library without the provider a request names is told which constructor
// adds it, not only that it is missing.
func TestCreateAccount_MissingProviderSaysHowToAddIt(t *testing.T) {
	client, _, appID := mustOpenMemoryGoogle(t, "hint")
	ctx := t.Context()
	app, err := client.App(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = app.CreateAccount(ctx, &unical.AccountCreateParams{ProviderType: unical.ProviderVirtual, Email: "room@example.com"})
	got := []any{unical.ErrorCode(err), unical.ErrorMessage(err)}
	want := []any{unical.CodeNotImplemented, "This server has no provider configured for VIRTUAL. Add virtual.New(virtual.Config{...}) from package provider/virtual to unical.Config.Providers."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreateAccount(VIRTUAL) without the provider (-want +got):\n%s", diff)
	}
}
