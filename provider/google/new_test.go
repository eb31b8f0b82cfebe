package google

import "testing"

// newProvider is New for a test: a Config it refuses ends the test.
func newProvider(t testing.TB, cfg Config) *Provider {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("google.New: %v", err)
	}
	return p
}
