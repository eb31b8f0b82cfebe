package google

import (
	"testing"

	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/provider/providertest"
)

// TestConformance runs the provider conformance suite against the fake
// Google.
func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, func(t *testing.T) *providertest.Harness {
		f := newFixture(t)
		s := f.session(t, alice)
		return &providertest.Harness{
			Provider: f.p,
			Session:  s,
			NewCalendar: func(t *testing.T) string {
				return f.srv.AddCalendar(alice, googletest.Calendar{Summary: t.Name(), TimeZone: "Europe/Paris"})
			},
			ExpireSyncCursors: func(*testing.T) { f.srv.ExpireSyncTokens() },
			OAuth: &providertest.OAuthHarness{
				FailTokenEndpoint: func(t *testing.T, n, status int) {
					f.srv.InjectFault(googletest.Fault{PathPrefix: "/token", Times: n, Status: status})
				},
				RevokeGrant: func(*testing.T) { f.srv.RevokeRefreshToken(s.Token.RefreshToken) },
				Attempts:    1 + 3,
			},
		}
	})
}
