package davtest

import (
	"os"
	"sync"
	"testing"
)

// shared holds the servers started by [Shared], one per kind, for the
// whole test binary.
var shared struct {
	mu      sync.Mutex
	enabled bool // set by Main; Shared refuses to start servers without it
	entries map[string]*sharedEntry
}

// sharedEntry is one kind's shared server, started at most once.
type sharedEntry struct {
	once sync.Once
	srv  *Server
	dir  string
	err  error
}

// Main runs the tests of a package that uses [Shared] and then stops the
// shared servers and removes their files. Call it from TestMain:
//
//	func TestMain(m *testing.M) { davtest.Main(m) }
//
// Main returns m.Run's exit code. TestMain may pass it to os.Exit or just
// return, as the test wrapper exits with m.Run's code either way.
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.enabled = true
	shared.mu.Unlock()
	defer stopShared()
	return m.Run()
}

// Shared returns the test binary's server of the given kind, starting it
// on first use. Tests on a shared server run against the same storage, so
// each should work in calendars of its own from [Server.NewCalendar]. If a
// test fails, what the server logged while it ran (and, for parallel tests,
// while others ran) is printed.
//
// Shared needs [Main] to be called from the package's TestMain, which stops
// the servers when the tests are done; without it Shared fails tb rather
// than leave a server running. A missing binary skips or fails tb as in
// [Start], for every caller.
func Shared(tb testing.TB, kind string) *Server {
	tb.Helper()
	shared.mu.Lock()
	if !shared.enabled {
		shared.mu.Unlock()
		tb.Fatalf("davtest: Shared(%q) needs the package's TestMain to call davtest.Main(m)", kind)
		return nil
	}
	if shared.entries == nil {
		shared.entries = make(map[string]*sharedEntry)
	}
	e := shared.entries[kind]
	if e == nil {
		e = &sharedEntry{}
		shared.entries[kind] = e
	}
	shared.mu.Unlock()

	// Concurrent first callers wait here until the one start has finished.
	e.once.Do(func() {
		e.dir, e.err = os.MkdirTemp("", "davtest-"+kind+"-") //nolint:usetesting // shared by every test of the process, so it outlives any one test
		if e.err != nil {
			return
		}
		e.srv, e.err = start(kind, e.dir)
	})
	if e.err != nil {
		reportStartError(tb, kind, e.err, os.Getenv("CI") == "true")
		return nil
	}
	s := e.srv
	logOff := s.logSize()
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("davtest: shared %s log while this test ran (%s):\n%s", s.Kind, s.LogPath, s.logSince(logOff))
		}
	})
	return s
}

// stopShared stops every shared server, in parallel since each may take up
// to a second to exit, and removes their directories.
func stopShared() {
	shared.mu.Lock()
	entries := shared.entries
	shared.entries = nil
	shared.enabled = false
	shared.mu.Unlock()

	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Go(func() {
			// Once.Do waits for a start still in progress, and marks an
			// entry never started as done so nothing starts it later.
			e.once.Do(func() {})
			if e.srv != nil {
				e.srv.stop()
			}
			if e.dir != "" {
				_ = os.RemoveAll(e.dir)
			}
		})
	}
	wg.Wait()
}
