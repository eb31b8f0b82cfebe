package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/apidocs"
	"github.com/unical/unical/dashboard"
)

// TestAPIFirst checks that apiFirst answers every request as the root
// ServeMux alone does: the same handler, or the same redirect.
func TestAPIFirst(t *testing.T) {
	t.Parallel()
	named := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Handler", name) })
	}
	api := named("api")
	root := http.NewServeMux()
	root.Handle(apidocs.Prefix, named("docs"))
	root.Handle(adminapi.Prefix, named("admin"))
	root.Handle(dashboard.Prefix, named("dashboard"))
	root.Handle("/", api)
	first := apiFirst(api, root)
	for _, target := range []string{
		"/v1/endUserAccounts/acc_1", "/v1/endUserAccounts?limit=50", "/v1/", "/v1", "/",
		"/v1//endUserAccounts", "/v1/../admin/v1/apps", "/v1/./x", "/v1/x/..", "/v1/a%2Fb",
		"/docs", "/admin/v1/apps", "/admin/v1", "/dashboard/", "/dashboard", "/v2/x",
	} {
		for _, method := range []string{"GET", "POST", "CONNECT"} {
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			root.ServeHTTP(want, httptest.NewRequest(method, target, nil))
			first.ServeHTTP(got, httptest.NewRequest(method, target, nil))
			if got.Code != want.Code || got.Header().Get("Handler") != want.Header().Get("Handler") || got.Header().Get("Location") != want.Header().Get("Location") {
				t.Errorf("%s %s: apiFirst answered %d by %q (Location %q), root %d by %q (Location %q)", method, target,
					got.Code, got.Header().Get("Handler"), got.Header().Get("Location"),
					want.Code, want.Header().Get("Handler"), want.Header().Get("Location"))
			}
		}
	}
}
