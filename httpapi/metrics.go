package httpapi

import (
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// RequestObserver receives every request's route, status and duration,
// for metrics (package metrics implements it for Prometheus). httpapi
// stays free of a metrics library; the embedding program wires one in.
type RequestObserver interface {
	// ObserveRoute returns the recorder of one route and method. route is
	// the path of the ServeMux pattern that served the request
	// ("/v1/endUserAccounts/{id}", never the request's path, so it holds
	// no id; "unmatched" when no pattern did), method the request method
	// or "OTHER" for one outside the standard few. httpapi calls it once
	// per pair and keeps the answer, so the recorder may resolve its
	// labels once.
	ObserveRoute(route, method string) func(status int, took time.Duration)
}

// requestMetrics measures requests for a RequestObserver.
type requestMetrics struct {
	obs RequestObserver
	// routes holds the recorders of each pattern, by method (methodIndex).
	// Patterns are the registered ones and methods a fixed few, so it
	// stays small; it is replaced, never changed, so that a request finds
	// its recorder with one lookup of a string and no lock (a sync.Map
	// keyed by pattern and method hashed both, 460 instructions a request).
	routes atomic.Pointer[map[string]*routeRecorders]
	mu     sync.Mutex // held to replace routes
}

type routeRecorders [len(methodLabels)]func(int, time.Duration)

// methodLabels are the method label values: the methods that are label
// values as they are, and "OTHER" for any other, so that a client cannot
// grow the label set.
var methodLabels = [...]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"}

// methodIndex is the index of method's label in methodLabels.
func methodIndex(method string) int {
	for i, m := range methodLabels[:len(methodLabels)-1] {
		if m == method {
			return i
		}
	}
	return len(methodLabels) - 1
}

// recorder returns the recorder of r's pattern and method.
func (m *requestMetrics) recorder(pattern, method string) func(int, time.Duration) {
	i := methodIndex(method)
	if routes := m.routes.Load(); routes != nil {
		if recs := (*routes)[pattern]; recs != nil && recs[i] != nil {
			return recs[i]
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	routes := map[string]*routeRecorders{}
	if old := m.routes.Load(); old != nil {
		if recs := (*old)[pattern]; recs != nil && recs[i] != nil {
			return recs[i] // added while this request waited for the lock
		}
		maps.Copy(routes, *old)
	}
	recs := new(routeRecorders)
	if old := routes[pattern]; old != nil {
		*recs = *old
	}
	route := pattern
	if _, path, ok := strings.Cut(pattern, " "); ok {
		route = path // "GET /v1/x" → "/v1/x"; the method is its own label
	}
	if route == "" {
		route = "unmatched"
	}
	recs[i] = m.obs.ObserveRoute(route, methodLabels[i])
	routes[pattern] = recs
	m.routes.Store(&routes)
	return recs[i]
}

// instrument measures each request next serves. It must wrap the router
// (routeMux) directly: the router writes the matched pattern into the
// request it is given, which is how the route is known without matching
// twice.
func (m *requestMetrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The front door's exchange records the status; without a front
		// door (no limit, no deadline) one is made here.
		x, ok := w.(*exchange)
		if !ok {
			x = &exchange{ResponseWriter: w, start: time.Now()}
		}
		served := false
		defer func() {
			status := x.status
			switch {
			case status != 0:
			case served:
				status = http.StatusOK // nothing written: net/http sends 200
			default:
				status = http.StatusInternalServerError // panicked; the recoverer answers 500
			}
			m.recorder(r.Pattern, r.Method)(status, time.Since(x.start))
		}()
		next.ServeHTTP(x, r)
		served = true
	})
}
