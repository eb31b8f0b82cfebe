package virtual

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/providertest"
	"github.com/unical/unical/store/bolt"
)

// newTestAccount opens a bolt Store with one VIRTUAL account and returns
// the provider on it and the account's session.
func newTestAccount(t testing.TB) (*Provider, *bolt.Store, *unical.Session) {
	t.Helper()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	now := time.Now().UTC()
	rec := &unical.AccountRecord{Account: unical.Account{
		ID: "acc_room", ApplicationID: "app_1", Email: "room-4b@rooms.example.com", ProviderType: unical.ProviderVirtual,
		Status: unical.AccountStatusActive, CreatedAt: now, UpdatedAt: now,
	}}
	if err := store.CreateAccount(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	s := &unical.Session{AccountID: rec.ID, ApplicationID: rec.ApplicationID, Email: rec.Email}
	return New(Config{Store: store}), store, s
}

// TestConformance runs the provider suite against the VIRTUAL provider on
// a bolt Store.
func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, func(t *testing.T) *providertest.Harness {
		p, _, s := newTestAccount(t)
		var calendars []string
		return &providertest.Harness{
			Provider: p,
			Session:  s,
			NewCalendar: func(t *testing.T) string {
				cal, err := p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some(t.Name())})
				if err != nil {
					t.Fatal(err)
				}
				calendars = append(calendars, cal.ID)
				return cal.ID
			},
			ExpireSyncCursors: func(t *testing.T) {
				for _, id := range append(calendars, PrimaryCalendarID) {
					if err := p.expireSyncCursors(t.Context(), s, id); err != nil {
						t.Fatal(err)
					}
				}
			},
		}
	})
}
