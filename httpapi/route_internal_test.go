package httpapi

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// wildcardPattern finds the wildcards of a ServeMux pattern.
var wildcardPattern = regexp.MustCompile(`\{[^}]*\}`)

// mustMirrorRoutes returns a routeMux with the routes NewHandler mounts,
// registered alike, each answering with its pattern and its wildcards'
// values (read as the real handler reads them) in the header Route.
func mustMirrorRoutes(t *testing.T) (*routeMux, []string) {
	t.Helper()
	h, _ := newHandler(Config{Metrics: http.NotFoundHandler()})
	patterns := h.mux.registered()
	readsPath := map[string]bool{}
	for _, route := range h.mux.last {
		readsPath[route.pattern] = route.readsPath
	}
	m := newRouteMux()
	for _, p := range patterns {
		names := wildcardPattern.FindAllString(p, -1)
		handle, value := m.HandleFunc, (*http.Request).PathValue
		if readsPath[p] {
			handle, value = m.HandleLastFunc, pathValue
		}
		handle(p, func(w http.ResponseWriter, r *http.Request) {
			route := []string{r.Pattern}
			for _, name := range names {
				name = strings.TrimSuffix(strings.Trim(name, "{}"), "...")
				route = append(route, name+"="+value(r, name))
			}
			w.Header().Set("Route", strings.Join(route, " "))
		})
	}
	if !readsPath["GET /v1/endUserAccounts/{id}"] {
		t.Fatal("GET /v1/endUserAccounts/{id} is not registered with HandleReadFunc")
	}
	return m, patterns
}

// TestRouteMux_AsServeMux checks that routeMux answers every request as its
// ServeMux alone does, on paths made from every registered pattern: its
// wildcards filled in with a value and with every literal segment of the
// others, with and without a trailing slash or another segment.
func TestRouteMux_AsServeMux(t *testing.T) {
	t.Parallel()
	m, patterns := mustMirrorRoutes(t)
	var literals []string
	for _, p := range patterns {
		_, path, _ := strings.Cut(p, " ")
		for _, seg := range strings.Split(path, "/") {
			if seg != "" && !strings.Contains(seg, "{") {
				literals = append(literals, seg)
			}
		}
	}
	slices.Sort(literals)
	literals = slices.Compact(literals)
	var paths []string
	for _, p := range patterns {
		_, path, ok := strings.Cut(p, " ")
		if !ok {
			path = p
		}
		for _, value := range append([]string{"acc_1", "a%20b", "a%2Fb"}, literals...) {
			filled := wildcardPattern.ReplaceAllString(path, value)
			paths = append(paths, filled, filled+"/", filled+"/z", filled+"?limit=1")
		}
	}
	paths = append(paths, "/v1/endUserAccounts//acc_1", "/v1/./endUserAccounts", "/v1/endUserAccounts/../capabilities")
	slices.Sort(paths)
	paths = slices.Compact(paths)
	fast := 0
	for _, target := range paths {
		for _, method := range []string{"GET", "HEAD", "POST", "DELETE"} {
			r := httptest.NewRequest(method, target, nil)
			if _, _, ok := m.get(r); ok {
				fast++
			}
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			m.ServeMux.ServeHTTP(want, httptest.NewRequest(method, target, nil))
			m.ServeHTTP(got, r)
			for _, name := range []string{"Route", "Location", "Allow"} {
				if got.Code != want.Code || got.Header().Get(name) != want.Header().Get(name) {
					t.Errorf("%s %s: routeMux answered %d with %s %q, the ServeMux %d with %q",
						method, target, got.Code, name, got.Header().Get(name), want.Code, want.Header().Get(name))
				}
			}
		}
	}
	if fast == 0 {
		t.Fatal("routeMux found no route itself")
	}
}

// TestRouteMux_Finds checks which requests routeMux routes itself.
func TestRouteMux_Finds(t *testing.T) {
	t.Parallel()
	m, _ := mustMirrorRoutes(t)
	tests := []struct {
		name, method, target string
		want                 string // the pattern routeMux finds; "" for the ServeMux
	}{
		{"Account", "GET", "/v1/endUserAccounts/acc_1", "GET /v1/endUserAccounts/{id}"},
		{"AccountList", "GET", "/v1/endUserAccounts?limit=50", "GET /v1/endUserAccounts"},
		{"Calendars", "GET", "/v1/calendars/acc_1", "GET /v1/calendars/{accountID}"},
		{"Health", "GET", "/healthz", "GET /healthz"},
		{"Head", "HEAD", "/v1/endUserAccounts/acc_1", ""},
		{"Delete", "DELETE", "/v1/endUserAccounts/acc_1", ""},
		{"TwoWildcards", "GET", "/v1/calendars/acc_1/cal_1", ""},
		{"Credentials", "GET", "/v1/endUserAccounts/acc_1/credentials", ""},
		{"TrailingSlash", "GET", "/v1/endUserAccounts/", ""},
		{"EscapedSlash", "GET", "/v1/endUserAccounts/a%2Fb", ""},
		{"Unclean", "GET", "/v1//endUserAccounts/acc_1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			route, _, ok := m.get(httptest.NewRequest(tc.method, tc.target, nil))
			if got := route.pattern; got != tc.want || ok != (tc.want != "") {
				t.Errorf("get(%s %s) = %q, %t; want %q", tc.method, tc.target, got, ok, tc.want)
			}
		})
	}
}

// TestRouteMux_HostPattern checks that a pattern with a host, which takes
// precedence over those without, leaves every request to the ServeMux.
func TestRouteMux_HostPattern(t *testing.T) {
	t.Parallel()
	m := newRouteMux()
	m.HandleFunc("GET /v1/endUserAccounts/{id}", func(http.ResponseWriter, *http.Request) {})
	if _, _, ok := m.get(httptest.NewRequest("GET", "/v1/endUserAccounts/acc_1", nil)); !ok {
		t.Fatal("routeMux does not find GET /v1/endUserAccounts/{id}")
	}
	m.HandleFunc("GET example.com/v1/endUserAccounts/{id}", func(http.ResponseWriter, *http.Request) {})
	if _, _, ok := m.get(httptest.NewRequest("GET", "/v1/endUserAccounts/acc_1", nil)); ok {
		t.Error("routeMux routes by itself although a pattern names a host")
	}
}

// TestRouteMux_HandleLastFunc_NotLast checks that HandleLastFunc and
// HandleReadFunc refuse a pattern routeMux would not route itself, whose
// handler would then find no wildcard value by pathValue.
func TestRouteMux_HandleLastFunc_NotLast(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{"GET /v1/calendars/{accountID}/{calendarID}", "DELETE /v1/endUserAccounts/{id}", "GET /v1/files/{path...}"} {
		for name, register := range map[string]func(*routeMux) func(string, func(http.ResponseWriter, *http.Request)){
			"HandleLastFunc": func(m *routeMux) func(string, func(http.ResponseWriter, *http.Request)) { return m.HandleLastFunc },
			"HandleReadFunc": func(m *routeMux) func(string, func(http.ResponseWriter, *http.Request)) { return m.HandleReadFunc },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(%q) did not panic", name, pattern)
					}
				}()
				register(newRouteMux())(pattern, func(http.ResponseWriter, *http.Request) {})
			}()
		}
	}
}
