package httpapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

// TestRouteAccesses holds routeAccesses complete: every route NewHandler
// mounts has an entry and every entry a route, so a new route cannot be
// left out of what scoped tokens may do. Each entry's wildcards must be
// its pattern's, and each scope a known one.
func TestRouteAccesses(t *testing.T) {
	h, _ := newHandler(Config{Metrics: http.NotFoundHandler()})
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
		if a.anyToken && (a.scope != "" || a.open || a.inBody) {
			t.Errorf("%s: a route for any token names no scope, resource or openness", pattern)
		}
		if a.open && (a.scope != "" || a.inBody) {
			t.Errorf("%s: an open route takes no token, yet has a scope", pattern)
		}
		if a.anyToken && (a.open || a.scope != "" || a.inBody) {
			t.Errorf("%s: a route any token may use has no scope of its own", pattern)
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

// TestAllowToken checks the answer for a token of one account and
// freebusy.read on routes of that account, another account and routes
// that take the API key only: 403 naming the scope or resource, the same
// for an account that does not exist as for one that does.
func TestAllowToken(t *testing.T) {
	g, _ := scopedtoken.Issue("app_1", &scopedtoken.Params{
		EndUserAccountIDs: []string{"acc_a"}, Scopes: []scopedtoken.Scope{scopedtoken.FreeBusyRead}, TTLSeconds: 60,
	}, time.Now())
	tests := []struct {
		method, path string
		field        string // "" when allowed
	}{
		{"POST", "/v1/freeBusy/acc_a", ""},
		{"POST", "/v1/freeBusy/acc_b", "endUserAccountId"},
		{"POST", "/v1/freeBusy/acc_nonexistent", "endUserAccountId"},
		{"GET", "/v1/events/acc_a/primary", "scope"},
		{"GET", "/v1/calendars/acc_a", "scope"},
		{"GET", "/v1/endUserAccounts/acc_a", "Authorization"},
		{"POST", "/v1/bookingTypes", "Authorization"},
		{"GET", "/v1/tokens/current", ""},
		{"POST", "/v1/tokens", "Authorization"},
		{"DELETE", "/v1/tokens/tok_1", "Authorization"},
		{"GET", "/v1/capabilities", "Authorization"},
		// The MCP server opens to any token; its tools' calls are checked.
		{"POST", "/v1/mcp", ""},
	}
	h, _ := newHandler(Config{})
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, nil)
			_, r.Pattern = h.mux.ServeMux.Handler(r)
			// The ServeMux's Handler sets no path values: route it for real.
			var routed *http.Request
			mux := http.NewServeMux()
			mux.HandleFunc(r.Pattern, func(_ http.ResponseWriter, r *http.Request) { routed = r })
			mux.ServeHTTP(httptest.NewRecorder(), r)
			if routed == nil {
				t.Fatalf("not routed (pattern %q)", r.Pattern)
			}
			err := allowToken(g, routed)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("allowToken: %v", err)
				}
				return
			}
			var e *unical.Error
			ok := errors.As(err, &e)
			if !ok || e.Code != scopedtoken.CodeForbidden || e.Field != tt.field || statusCode(e.Code).Status != http.StatusForbidden {
				t.Fatalf("allowToken = %#v, want 403 naming %s", err, tt.field)
			}
		})
	}
}
