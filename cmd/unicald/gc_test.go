package main

import (
	"runtime/debug"
	"testing"
)

// TestServe_GCPercent starts unicald serve and reads the collector's target
// it left: serveGCPercent without GOGC in the environment, and the
// runtime's own with one (which the runtime applied at start). Not
// parallel: the target is the process's.
func TestServe_GCPercent(t *testing.T) {
	const before = 123 // neither Go's default nor serveGCPercent
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"no GOGC", nil, serveGCPercent},
		{"GOGC set", map[string]string{"GOGC": "50"}, before},
		{"GOGC off", map[string]string{"GOGC": "off"}, before},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := debug.SetGCPercent(before)
			defer debug.SetGCPercent(old)
			srv := mustRunMainEnv(t, t.TempDir(), nil, tc.env)
			srv.stop()
			if got := debug.SetGCPercent(before); got != tc.want {
				t.Errorf("GC percent after serve = %d, want %d", got, tc.want)
			}
		})
	}
}
