//go:build pprof

package main

import (
	"net"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on http.DefaultServeMux
	"os"
)

// A binary built with -tags pprof serves Go's profiler on the loopback
// address in UNICALD_PPROF_ADDR (for example 127.0.0.1:6060), to profile
// the server under load (scripts/bench-http.sh). Release builds leave it
// out.
func init() {
	addr := os.Getenv("UNICALD_PPROF_ADDR")
	if addr == "" {
		return
	}
	if host, _, err := net.SplitHostPort(addr); err != nil || !net.ParseIP(host).IsLoopback() {
		panic("UNICALD_PPROF_ADDR must be a loopback address with a port, not " + addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		panic(err)
	}
	go http.Serve(ln, nil)
}
