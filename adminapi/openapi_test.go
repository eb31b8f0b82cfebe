package adminapi_test

import (
	"regexp"
	"sort"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/internal/testkit/openapitest"
)

var parameterName = regexp.MustCompile(`\{[^}]*\}`)

// TestOpenAPIDocumentsEveryRoute compares the mounted admin routes with
// the operations of the admin document, both ways, and checks that the
// document is valid OpenAPI 3.1 with unique operation ids.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc, err := openapitest.LoadDocument(adminapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	var mounted, documented []string
	for _, p := range adminapi.MountedRoutes() {
		mounted = append(mounted, parameterName.ReplaceAllString(p, "{}"))
	}
	ids := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented = append(documented, method+" "+parameterName.ReplaceAllString(path, "{}"))
			if op.OperationID == "" || ids[op.OperationID] {
				t.Errorf("%s %s: operationId %q missing or repeated", method, path, op.OperationID)
			}
			ids[op.OperationID] = true
		}
	}
	sort.Strings(mounted)
	sort.Strings(documented)
	if len(mounted) < 25 {
		t.Fatalf("only %d routes mounted", len(mounted))
	}
	if d := cmp.Diff(mounted, documented); d != "" {
		t.Errorf("mounted routes (-) and documented operations (+) differ:\n%s", d)
	}
}

// TestOpenAPIQueryParameters holds the admin document to the query
// parameters each route takes, both ways.
func TestOpenAPIQueryParameters(t *testing.T) {
	t.Parallel()
	doc, err := openapitest.LoadDocument(adminapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var names []string
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p.Value.In == "query" {
					names = append(names, p.Value.Name)
				}
			}
			sort.Strings(names)
			documented[method+" "+parameterName.ReplaceAllString(path, "{}")] = names
		}
	}
	for _, pattern := range adminapi.MountedRoutes() {
		got := append([]string(nil), adminapi.QueryParameters(pattern)...)
		sort.Strings(got)
		if d := cmp.Diff(documented[parameterName.ReplaceAllString(pattern, "{}")], got, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: documented (-) and accepted (+) query parameters differ:\n%s", pattern, d)
		}
	}
}

// TestOpenAPIRequestDefaults: no request body schema carries "default",
// which client generators (openapi-typescript 7) turn into a required
// field; request defaults are said in descriptions.
func TestOpenAPIRequestDefaults(t *testing.T) {
	got, err := openapitest.RequestDefaults(adminapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("request schemas with a default: %q", got)
	}
}
