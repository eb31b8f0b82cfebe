package main

import "runtime/debug"

// serveGCPercent is the garbage collector's target (GOGC) of unicald serve
// when the environment sets none. The server's live heap is about 1 MB,
// so at Go's default of 100 the collector's minimum heap of 4 MB starts a
// collection every 2-3 MB allocated: about fifty a second under load,
// each waking both cores' threads, which measured 2 µs of CPU per cached
// read, more than the handlers' own work (BENCHMARKS.md, "Garbage
// collection target"). At 200 the minimum heap is 8 MB: half the collections for
// about 4 MB more resident memory. A larger live heap (many accounts
// cached) grows its headroom in proportion, as GOGC always does.
const serveGCPercent = 200

// setServeGC applies serveGCPercent unless the environment sets GOGC,
// which the Go runtime has then applied already ("off" included).
func (m *Main) setServeGC() {
	if m.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
}
