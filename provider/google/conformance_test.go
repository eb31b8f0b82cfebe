package google

import (
	"testing"

	"github.com/unical/unical/internal/googletest"
	"github.com/unical/unical/internal/providertest"
)

// TestConformance runs the provider conformance suite against the fake
// Google.
func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, func(t *testing.T) *providertest.Harness {
		f := newFixture(t)
		return &providertest.Harness{
			Provider: f.p,
			Session:  f.session(t, alice),
			NewCalendar: func(t *testing.T) string {
				return f.srv.AddCalendar(alice, googletest.Calendar{Summary: t.Name(), TimeZone: "Europe/Paris"})
			},
			ExpireSyncCursors: func(*testing.T) { f.srv.ExpireSyncTokens() },
		}
	})
}
