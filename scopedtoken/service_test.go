package scopedtoken_test

import (
	"path/filepath"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/scopedtoken"
	"github.com/unical/unical/store/bolt"
)

// plainStore hides the GrantStore of the Store it wraps: a third-party
// Store that keeps no grants.
type plainStore struct{ unical.Store }

// mustApp returns a Client over a bolt file, wrapped by wrap, and an
// application of it with one VIRTUAL account.
func mustApp(t *testing.T, wrap func(*bolt.Store) unical.Store) (*unical.Client, *unical.App, string) {
	t.Helper()
	s, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, err := unical.New(unical.Config{Store: wrap(s), Providers: virtual.Add(nil, virtual.Config{Store: s}), MasterKey: seal.NewKey()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	created, err := admin.Of(c).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("tokens")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := c.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "room@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	return c, app, acct.ID
}

// In process, a Service issues a token its own Authenticate takes, names
// the application, and refuses at once once revoked; a token of a
// deleted application is refused too.
func TestService_IssueAuthenticateRevoke(t *testing.T) {
	t.Parallel()
	c, app, acct := mustApp(t, func(s *bolt.Store) unical.Store { return s })
	svc := scopedtoken.NewService(c)
	issued, err := svc.Issue(t.Context(), app, &scopedtoken.Params{EndUserAccountIDs: []string{acct}, Scopes: []scopedtoken.Scope{scopedtoken.EventsRead}, TTLSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	g, got, err := svc.Authenticate(t.Context(), issued.Token)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID() != app.ID() || g.ID != issued.ID {
		t.Errorf("Authenticate() = grant %s of %s, want %s of %s", g.ID, got.ID(), issued.ID, app.ID())
	}
	if err := svc.Revoke(t.Context(), app, issued.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Authenticate(t.Context(), issued.Token); unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("Authenticate(revoked) = %v, want CodeUnauthorized", err)
	}
	if err := svc.Revoke(t.Context(), app, issued.ID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("Revoke(again) = %v, want CodeNotFound", err)
	}

	kept, err := svc.Issue(t.Context(), app, &scopedtoken.Params{EndUserAccountIDs: []string{acct}, Scopes: []scopedtoken.Scope{scopedtoken.EventsRead}, TTLSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Of(c).DeleteApplication(t.Context(), app.ID(), true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Authenticate(t.Context(), kept.Token); unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("Authenticate(token of a deleted application) = %v, want CodeUnauthorized", err)
	}
}

// Over a Store that keeps no grants, issuing is not implemented and every
// token is refused.
func TestService_StoreWithoutGrants(t *testing.T) {
	t.Parallel()
	c, app, acct := mustApp(t, func(s *bolt.Store) unical.Store { return plainStore{s} })
	svc := scopedtoken.NewService(c)
	_, err := svc.Issue(t.Context(), app, &scopedtoken.Params{EndUserAccountIDs: []string{acct}, Scopes: []scopedtoken.Scope{scopedtoken.EventsRead}, TTLSeconds: 60})
	if unical.ErrorCode(err) != unical.CodeNotImplemented {
		t.Errorf("Issue() = %v, want CodeNotImplemented", err)
	}
	if _, _, err := svc.Authenticate(t.Context(), "ust_tok_1_secret"); unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("Authenticate() = %v, want CodeUnauthorized", err)
	}
}
