package httpapi

import (
	"net/http"
	"strings"
	"sync"
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
	// routes caches the recorder of each pattern and method. Patterns
	// are the registered ones and methods a fixed few, so it stays small.
	routes sync.Map // routeKey → func(int, time.Duration)
}

type routeKey struct{ pattern, method string }

// knownMethods are the methods that are label values as they are; any
// other is "OTHER", so that a client cannot grow the label set.
var knownMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// recorder returns the recorder of r's pattern and method.
func (m *requestMetrics) recorder(pattern, method string) func(int, time.Duration) {
	key := routeKey{pattern, method}
	if rec, ok := m.routes.Load(key); ok {
		return rec.(func(int, time.Duration))
	}
	if !knownMethods[method] {
		method = "OTHER"
		key.method = method
		if rec, ok := m.routes.Load(key); ok {
			return rec.(func(int, time.Duration))
		}
	}
	route := pattern
	if _, path, ok := strings.Cut(pattern, " "); ok {
		route = path // "GET /v1/x" → "/v1/x"; the method is its own label
	}
	if route == "" {
		route = "unmatched"
	}
	rec, _ := m.routes.LoadOrStore(key, m.obs.ObserveRoute(route, method))
	return rec.(func(int, time.Duration))
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
