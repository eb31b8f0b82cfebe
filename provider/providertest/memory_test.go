package providertest_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/provider/providertest"
)

// TestMemProvider runs the suite against the in-memory provider, which
// keeps the suite itself honest.
func TestMemProvider(t *testing.T) {
	t.Parallel()
	providertest.Run(t, func(t *testing.T) *providertest.Harness {
		p := memory.New(unical.ProviderGoogle)
		p.AddUser("ada@example.com", "rt", "")
		s := &unical.Session{Email: "ada@example.com"}
		return &providertest.Harness{
			Provider: p,
			Session:  s,
			NewCalendar: func(t *testing.T) string {
				cal, err := p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some(t.Name())})
				if err != nil {
					t.Fatal(err)
				}
				return cal.ID
			},
			ExpireSyncCursors: func(*testing.T) { p.ExpireSyncCursors() },
		}
	})
}
