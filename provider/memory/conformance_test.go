package memory_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/provider/providertest"
)

// TestConformance runs the provider suite against the in-memory provider:
// it must behave like the real ones for tests built on it to mean
// anything, and it keeps the suite itself honest without a server.
func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, func(t *testing.T) *providertest.Harness {
		p := memory.New(memory.Config{Type: unical.ProviderGoogle})
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
