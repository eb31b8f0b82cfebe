package httpapi

import (
	"net/http"
	"strings"
	"sync"

	"github.com/unical/unical/internal/muxpath"
)

// routeMux is a ServeMux that remembers the patterns registered on it, so
// that a test can compare the mounted routes with the OpenAPI document,
// and that routes the simplest GET patterns itself: a literal path
// ("GET /v1/endUserAccounts") or literal segments and one wildcard last
// ("GET /v1/endUserAccounts/{id}"). For a plain path (muxpath.Plain) such
// a route is found with one map lookup, where the ServeMux escapes,
// cleans and unescapes the path and walks its tree (about 3,500
// instructions of a cached account read's 67,000).
// Every other request goes to the ServeMux.
//
// The answer is the ServeMux's own: of the patterns matching a GET of a
// plain path, a literal one is the most specific there can be, and any
// other pattern that matches what "GET /a/b/{w}" matches is either "GET
// /a/b/lit", which is literal, or less specific, or conflicts with it and
// so could not have been registered. TestRouteMux_AsServeMux checks it for
// every registered route. Patterns are registered before the first
// request, as for a ServeMux.
type routeMux struct {
	*http.ServeMux
	mu       sync.Mutex
	patterns []string
	// exact and last hold the GET routes routeMux finds itself: by the
	// whole path, and by the path up to and including its last "/".
	exact, last map[string]getRoute
	// anyHost is set once a pattern names a host: host patterns take
	// precedence over the others, so routeMux leaves all to the ServeMux.
	anyHost bool
}

// getRoute is a GET pattern and its handler.
type getRoute struct {
	pattern  string
	wildcard string // name of the last segment's wildcard; "" for a literal path
	// readsPath is set for a handler that reads the wildcard with
	// pathValue (HandleLastFunc), so that routeMux need not set it.
	readsPath bool
	// readsDeadline is set for a handler that takes the request's
	// deadline from requestContext (HandleReadFunc), so that routeMux
	// need not put it into the request's context.
	readsDeadline bool
	handler       http.Handler
}

func newRouteMux() *routeMux {
	return &routeMux{ServeMux: http.NewServeMux(), exact: map[string]getRoute{}, last: map[string]getRoute{}}
}

// Handle registers handler for pattern and remembers pattern.
func (m *routeMux) Handle(pattern string, handler http.Handler) {
	m.ServeMux.Handle(pattern, handler)
	m.remember(pattern, handler)
}

// HandleFunc registers handler for pattern and remembers pattern.
func (m *routeMux) HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(handler))
}

// HandleLastFunc is HandleFunc for a GET pattern whose one wildcard is
// its last segment, and whose handler reads it with pathValue: routeMux
// then routes it without Request.SetPathValue, which allocates a map (320
// bytes) on every request. It is for the most frequent reads.
func (m *routeMux) HandleLastFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	m.HandleFunc(pattern, handler)
	m.mark("HandleLastFunc", pattern, m.last, func(route *getRoute) { route.readsPath = true })
}

// HandleReadFunc is HandleFunc for a read usually answered from memory
// (cachedRead): a GET pattern with a literal path, or with one wildcard,
// last, that its handler reads with pathValue (as with HandleLastFunc).
// Its handler takes the request's deadline from requestContext, never
// from r.Context(): routeMux then serves it without copying the request
// to carry the deadline (Request.WithContext, 320 bytes).
func (m *routeMux) HandleReadFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	m.HandleFunc(pattern, handler)
	m.mu.Lock()
	_, literal := m.exact[strings.TrimPrefix(pattern, "GET ")]
	m.mu.Unlock()
	if literal {
		m.mark("HandleReadFunc", pattern, m.exact, func(route *getRoute) { route.readsDeadline = true })
		return
	}
	m.mark("HandleReadFunc", pattern, m.last, func(route *getRoute) { route.readsPath, route.readsDeadline = true, true })
}

// mark changes the route of pattern in routes, or panics naming method
// when routeMux does not route pattern itself.
func (m *routeMux) mark(method, pattern string, routes map[string]getRoute, change func(*getRoute)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, route := range routes {
		if route.pattern == pattern {
			change(&route)
			routes[key] = route
			return
		}
	}
	panic("httpapi: " + method + "(" + pattern + "): not a GET pattern that routeMux routes itself")
}

func (m *routeMux) remember(pattern string, handler http.Handler) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.patterns = append(m.patterns, pattern)
	// A pattern is "[METHOD ][HOST]/[PATH]".
	method, path := "", pattern
	if i := strings.IndexAny(pattern, " \t"); i >= 0 {
		method, path = pattern[:i], strings.TrimLeft(pattern[i+1:], " \t")
	}
	if !strings.HasPrefix(path, "/") {
		m.anyHost = true
		return
	}
	if method != http.MethodGet {
		return
	}
	i := strings.LastIndexByte(path, '/')
	dir, name := path[:i+1], path[i+1:]
	switch {
	case strings.ContainsAny(dir, "{}"):
	case name != "" && !strings.ContainsAny(name, "{}"):
		m.exact[path] = getRoute{pattern: pattern, handler: handler}
	case len(name) > 2 && name[0] == '{' && name[len(name)-1] == '}' && !strings.ContainsAny(name[1:len(name)-1], "{}.$"):
		// Not {name...} nor {$}, which match otherwise.
		m.last[dir] = getRoute{pattern: pattern, wildcard: name[1 : len(name)-1], handler: handler}
	}
}

// ServeHTTP serves r by a route routeMux finds itself, or else by the
// ServeMux.
func (m *routeMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if route, value, ok := m.get(r); ok {
		// What the ServeMux would set: the pattern (the request metrics'
		// route label, checkQuery's table) and the wildcard's value.
		r.Pattern = route.pattern
		if route.wildcard != "" && !route.readsPath {
			r.SetPathValue(route.wildcard, value)
		}
		if !route.readsDeadline {
			r = withDeadline(w, r)
		}
		route.handler.ServeHTTP(w, r)
		return
	}
	timed := withDeadline(w, r)
	if timed != r {
		// The request metrics read the pattern the ServeMux sets from
		// the request they passed on.
		defer func() { r.Pattern = timed.Pattern }()
	}
	m.ServeMux.ServeHTTP(w, timed)
}

// get returns the route of a GET of a plain path, and the value of its
// wildcard, when it is one routeMux finds itself.
func (m *routeMux) get(r *http.Request) (getRoute, string, bool) {
	if r.Method != http.MethodGet || m.anyHost {
		return getRoute{}, "", false
	}
	p, ok := muxpath.Plain(r)
	if !ok {
		return getRoute{}, "", false
	}
	if route, ok := m.exact[p]; ok {
		return route, "", true
	}
	i := strings.LastIndexByte(p, '/')
	if value := p[i+1:]; value != "" {
		if route, ok := m.last[p[:i+1]]; ok {
			return route, value, true
		}
	}
	return getRoute{}, "", false
}

// pathValue is r.PathValue(name) for the handler of a route registered with
// HandleLastFunc. When routeMux routed r itself it set no value (the
// ServeMux's are never empty): r's path is then plain and the wildcard,
// name, is its last segment.
func pathValue(r *http.Request, name string) string {
	if v := r.PathValue(name); v != "" || !strings.HasSuffix(r.Pattern, "/{"+name+"}") {
		return v
	}
	return r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
}

// registered returns the patterns in the order they were registered.
func (m *routeMux) registered() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.patterns...)
}
