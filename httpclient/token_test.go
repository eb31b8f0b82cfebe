package httpclient_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/scopedtoken"
)

// An application's Client issues a token; a Client made with the token
// reads free/busy within it, is refused (CodeForbidden naming the scope)
// outside it, sees its own grant, and is refused everything once the
// token is revoked.
func TestTokens(t *testing.T) {
	t.Parallel()
	st, app := stack(t)
	ctx := t.Context()
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := app.CreateCalendar(ctx, acct.ID, &unical.CalendarParams{Name: unical.Some("Room")})
	if err != nil {
		t.Fatal(err)
	}
	keyClient := newClient(t, st.URL, st.APIKey, httpclient.Config{})
	issued, err := keyClient.CreateToken(ctx, &scopedtoken.Params{EndUserAccountIDs: []string{acct.ID}, Scopes: []scopedtoken.Scope{scopedtoken.FreeBusyRead}, TTLSeconds: 300})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := httpclient.New(httpclient.Config{BaseURL: st.URL, Token: issued.Token})
	if err != nil {
		t.Fatal(err)
	}
	fb := &unical.FreeBusyParams{StartDateTime: "2030-01-01T00:00:00Z", EndDateTime: "2030-01-02T00:00:00Z", TimeZone: "UTC", CalendarIDs: []string{cal.ID}}
	if _, err := tc.QueryFreeBusy(ctx, acct.ID, fb); err != nil {
		t.Fatalf("QueryFreeBusy with the token: %v", err)
	}
	_, err = tc.ListEvents(ctx, acct.ID, cal.ID, nil)
	if got := errorView(t, err); got.Code != httpclient.CodeForbidden || got.Field != "scope" {
		t.Errorf("ListEvents with the token = %+v, want forbidden naming scope", got)
	}
	current, err := tc.CurrentToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&scopedtoken.Current{ID: issued.ID, Scopes: []scopedtoken.Scope{scopedtoken.FreeBusyRead}, Accounts: []string{acct.ID},
		Calendars: map[string][]string{}, BookingTypes: []string{}, AllowedOrigins: []string{}, ExpiresAt: issued.ExpiresAt}, current); d != "" {
		t.Errorf("CurrentToken() mismatch (-want +got):\n%s", d)
	}
	if _, err := keyClient.RevokeToken(ctx, issued.ID); err != nil {
		t.Fatal(err)
	}
	_, err = tc.QueryFreeBusy(ctx, acct.ID, fb)
	if got := errorView(t, err); got.Code != unical.CodeUnauthorized {
		t.Errorf("QueryFreeBusy with a revoked token = %+v, want unauthorized", got)
	}
}
