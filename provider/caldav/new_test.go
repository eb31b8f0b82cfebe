package caldav_test

import (
	"testing"

	"github.com/unical/unical/provider/caldav"
)

// newProvider is caldav.New for a test: a Config it refuses ends the test.
func newProvider(t testing.TB, cfg caldav.Config) *caldav.Provider {
	t.Helper()
	p, err := caldav.New(cfg)
	if err != nil {
		t.Fatalf("caldav.New: %v", err)
	}
	return p
}
