package davtest

import (
	"os"
	"path/filepath"
	"testing"
)

// SetPassword changes the test user's password at the server, as a user
// who revokes an app-specific password would, so that tests can see how a
// client handles credentials that stop working. Only Radicale supports it
// (it reads its htpasswd file on every request); on Xandikos, whose
// credentials live in davtest's proxy, it fails tb. Use it on a server from
// [Start]: changing a [Shared] server's password breaks every other test.
func (s *Server) SetPassword(tb testing.TB, password string) {
	tb.Helper()
	if s.Kind != Radicale {
		tb.Fatalf("davtest: SetPassword is only for %s, not %s", Radicale, s.Kind)
	}
	users := filepath.Join(s.Dir, "users")
	if err := os.WriteFile(users, []byte(s.Username+":"+password+"\n"), 0o600); err != nil {
		tb.Fatalf("davtest: SetPassword: %v", err)
	}
	s.Password = password
}
