package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical/scopedtoken"
)

// TestRouteAccesses holds routeAccesses complete: every route NewHandler
// mounts has an entry and every entry a route, so a new route cannot be
// left out of what scoped tokens may do. Each entry's wildcards must be
// its pattern's, and each scope a known one.
func TestRouteAccesses(t *testing.T) {
	h, _ := newHandler(nil, Options{Metrics: http.NotFoundHandler()})
	var mounted []string
	for _, p := range h.mux.registered() {
		if p != "/" {
			mounted = append(mounted, p)
		}
	}
	var listed []string
	for p := range routeAccesses {
		listed = append(listed, p)
	}
	if diff := cmp.Diff(mounted, listed, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("routeAccesses and the mounted routes differ (-mounted +listed):\n%s", diff)
	}
	for pattern, a := range routeAccesses {
		if a.open && (a.scope != "" || a.inBody) {
			t.Errorf("%s: an open route takes no token, yet has a scope", pattern)
		}
		if a.scope != "" && !slices.Contains(scopedtoken.Scopes, a.scope) {
			t.Errorf("%s: unknown scope %q", pattern, a.scope)
		}
		if a.scope == "" && (a.account != "" || a.calendar != "" || a.bookingType != "" || a.inBody) {
			t.Errorf("%s: names resources but grants no scope", pattern)
		}
		for _, w := range []string{a.account, a.calendar, a.bookingType} {
			if w != "" && !strings.Contains(pattern, "{"+w+"}") {
				t.Errorf("%s: no wildcard {%s}", pattern, w)
			}
		}
		if a.calendar != "" && a.account == "" {
			t.Errorf("%s: a calendar is checked within its account, which the entry does not name", pattern)
		}
	}
}

// TestRouteAccesses_Scopes checks that every scope a token can be given
// opens at least one route: a scope that opens none would be accepted and
// do nothing.
func TestRouteAccesses_Scopes(t *testing.T) {
	used := map[scopedtoken.Scope]bool{}
	for _, a := range routeAccesses {
		used[a.scope] = true
	}
	for _, s := range scopedtoken.Scopes {
		if !used[s] {
			t.Errorf("scope %s opens no route", s)
		}
	}
}
