package unical_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
)

// accountReadsStore counts the Store's account reads.
type accountReadsStore struct {
	unical.Store
	reads atomic.Int64
}

func (s *accountReadsStore) GetAccount(ctx context.Context, appID, id string) (*unical.AccountRecord, error) {
	s.reads.Add(1)
	return s.Store.GetAccount(ctx, appID, id)
}

// readsApp is an application with one Google account on the memory
// provider, over a Store that counts account reads.
func readsApp(t *testing.T) (*unical.App, *memory.Provider, *accountReadsStore, string, string) {
	t.Helper()
	prov := memory.New(memory.Config{Type: unical.ProviderGoogle})
	cal := prov.AddUser("ada@example.com", "refresh-ada", "")
	var store *accountReadsStore
	st := apitest.Start(t, []unical.Provider{prov}, func(cfg *apitest.Config) {
		store = &accountReadsStore{Store: cfg.Store}
		cfg.Store = store
	})
	st.CreateApp(t, &admin.ApplicationParams{Providers: map[unical.ProviderType]unical.ProviderSettings{
		unical.ProviderGoogle: {ClientID: "client-1", ClientSecret: "client-secret-1"}}})
	app, err := st.Client.App(t.Context(), st.AppID)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		t.Fatal(err)
	}
	return app, prov, store, acct.ID, cal
}

// TestReadingAccountsOnce checks that the calls of a ReadingAccountsOnce
// handle read the account from the Store once, and that an App's calls
// each read it.
func TestReadingAccountsOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		handle func(*unical.App) *unical.App
		reads  int64
	}{
		{"each call reads", func(a *unical.App) *unical.App { return a }, 3},
		{"ReadingAccountsOnce reads once", (*unical.App).ReadingAccountsOnce, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, _, store, acct, cal := readsApp(t)
			app = tc.handle(app)
			ctx := t.Context()
			start := time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)
			store.reads.Store(0)
			if _, err := app.ListCalendars(ctx, acct, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := app.QueryFreeBusy(ctx, acct, &unical.FreeBusyParams{CalendarIDs: []string{cal}, TimeZone: "UTC",
				StartDateTime: start.Format(time.RFC3339), EndDateTime: start.Add(time.Hour).Format(time.RFC3339)}); err != nil {
				t.Fatal(err)
			}
			if _, err := app.CreateEvent(ctx, acct, cal, &unical.EventParams{Title: unical.Some("Call"),
				Start: unical.Some(unical.EventDateTime{DateTime: start.Format(time.RFC3339)}),
				End:   unical.Some(unical.EventDateTime{DateTime: start.Add(time.Hour).Format(time.RFC3339)})}); err != nil {
				t.Fatal(err)
			}
			if got := store.reads.Load(); got != tc.reads {
				t.Errorf("account reads = %d, want %d", got, tc.reads)
			}
		})
	}
}

// TestReadingAccountsOnce_SeesExpiry checks that an account the
// provider expires during a ReadingAccountsOnce handle's calls is read
// again: the next call answers that the account is EXPIRED, as the App
// does, instead of trying the provider with the credentials read before.
func TestReadingAccountsOnce_SeesExpiry(t *testing.T) {
	app, prov, _, acct, _ := readsApp(t)
	once := app.ReadingAccountsOnce()
	if _, err := once.ListCalendars(t.Context(), acct, nil); err != nil {
		t.Fatal(err)
	}
	prov.Revoke("ada@example.com")
	if _, err := once.ListCalendars(t.Context(), acct, nil); unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Fatalf("ListCalendars after revoke = %v, want %s", err, unical.CodeAccountExpired)
	}
	_, within := once.ListCalendars(t.Context(), acct, nil)
	_, without := app.ListCalendars(t.Context(), acct, nil)
	var got, want *unical.Error
	if !errors.As(within, &got) || !errors.As(without, &want) {
		t.Fatalf("ListCalendars = %v; without the context %v; want *unical.Error", within, without)
	}
	if diff := cmp.Diff([]string{string(want.Code), want.Message}, []string{string(got.Code), got.Message}); diff != "" {
		t.Errorf("the handle's error differs from the App's (-App +handle):\n%s", diff)
	}
}
