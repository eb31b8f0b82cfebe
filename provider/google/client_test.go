package google_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/store/bolt"
)

// TestThroughClient wires the provider into a unical.Client (a test may
// wire concrete implementations) and walks an account from connect to
// EXPIRED and back.
func TestThroughClient(t *testing.T) {
	ctx := context.Background()
	srv := googletest.NewServer(t, googletest.Options{})
	srv.AddClient(googletest.Client{ID: "cid", Secret: "secret"})
	srv.AddUser(googletest.User{Email: "carol@example.com", TimeZone: "Europe/Rome"})

	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	p, err := google.New(google.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// The fake listens on loopback: save its URLs as a development server does.
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{p}, MasterKey: seal.NewKey(), AllowPrivateTargets: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{
		Name: unical.Some("app"),
		Providers: map[unical.ProviderType]unical.ProviderSettings{google.ProviderType: {
			ClientID: "cid", ClientSecret: "secret",
			AuthURL: srv.AuthURL(), TokenURL: srv.TokenURL(), UserInfoURL: srv.UserinfoURL(), APIBaseURL: srv.APIBaseURL(),
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}

	rt := srv.IssueRefreshToken("cid", "carol@example.com")
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "carol@example.com", ProviderType: google.ProviderType, RefreshToken: unical.Some(rt)})
	if err != nil {
		t.Fatal(err)
	}
	if acct.Status != unical.AccountStatusActive || acct.ProviderAccountID == nil || *acct.ProviderAccountID == "" {
		t.Errorf("account = %+v", acct)
	}
	cals, err := app.ListCalendars(ctx, acct.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cals.Data) != 1 || !cals.Data[0].IsPrimary || cals.Data[0].TimeZone != "Europe/Rome" {
		t.Errorf("calendars = %+v", cals.Data)
	}
	cred, err := app.GetCredentials(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cred.AccessToken == "" || cred.RefreshToken != rt {
		t.Errorf("credentials = %+v", cred)
	}

	// A revoked grant: the next call that needs a refresh expires the
	// account.
	srv.RevokeRefreshToken(rt)
	_, err = app.ListCalendars(ctx, acct.ID, nil)
	if unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Fatalf("after revocation: %v, want %s", err, unical.CodeAccountExpired)
	}
	if got, err := app.GetAccount(ctx, acct.ID); err != nil || got.Status != unical.AccountStatusExpired {
		t.Errorf("account after revocation = %+v, %v", got, err)
	}

	// A revoked refresh token cannot reconnect it; a new one can.
	_, err = app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "carol@example.com", ProviderType: google.ProviderType, RefreshToken: unical.Some(rt)})
	if unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("reconnect with the revoked token: %v, want %s", err, unical.CodeInvalid)
	}
	rt2 := srv.IssueRefreshToken("cid", "carol@example.com")
	acct2, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "carol@example.com", ProviderType: google.ProviderType, RefreshToken: unical.Some(rt2)})
	if err != nil {
		t.Fatal(err)
	}
	if acct2.ID != acct.ID || acct2.Status != unical.AccountStatusActive {
		t.Errorf("reconnected account = %+v", acct2)
	}
	if _, err := app.ListCalendars(ctx, acct.ID, nil); err != nil {
		t.Errorf("after reconnect: %v", err)
	}
}
