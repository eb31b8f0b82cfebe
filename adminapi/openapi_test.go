package adminapi_test

import (
	"regexp"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/internal/openapitest"
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
