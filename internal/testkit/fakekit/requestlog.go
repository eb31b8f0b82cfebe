package fakekit

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// RequestLog records the method, path and query of every request a fake
// server receives, so that a test can count calls to an endpoint or read
// what a write asked for. The zero value is empty and safe for concurrent
// use.
type RequestLog struct {
	mu   sync.Mutex
	reqs []loggedRequest
}

type loggedRequest struct {
	method, path string
	query        url.Values
}

// Record adds r to the log.
func (l *RequestLog) Record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, loggedRequest{method: r.Method, path: r.URL.Path, query: r.URL.Query()})
}

// Count returns how many logged requests have the method (empty: any) and
// a path starting with pathPrefix.
func (l *RequestLog) Count(method, pathPrefix string) int {
	return len(l.Queries(method, pathPrefix))
}

// Queries returns the query parameters of the requests Count counts, in
// the order they came.
func (l *RequestLog) Queries(method, pathPrefix string) []url.Values {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []url.Values
	for _, r := range l.reqs {
		if (method == "" || r.method == method) && strings.HasPrefix(r.path, pathPrefix) {
			out = append(out, r.query)
		}
	}
	return out
}
