package unical_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/clientenv"
)

// engineEnv is the shared test Client (clientenv.Env), with this
// package's helpers as methods.
type engineEnv struct{ *clientenv.Env }

// mustNewEngineEnv builds the environment; configure may change the
// Config first.
func mustNewEngineEnv(tb testing.TB, configure func(*unical.Config)) *engineEnv {
	tb.Helper()
	return &engineEnv{clientenv.New(tb, configure)}
}
