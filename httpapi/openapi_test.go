package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/openapitest"
	"github.com/unical/unical/metrics"
)

// TestOpenAPIDocumentIsValid checks that the served document is OpenAPI
// 3.1 and valid as such: every $ref resolves, every schema is a JSON
// Schema 2020-12 schema, every operation has responses.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc, err := openapitest.Load()
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	ids := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
			}
			if other, dup := ids[op.OperationID]; dup {
				t.Errorf("operationId %q of %s %s is also %s", op.OperationID, method, path, other)
			}
			ids[op.OperationID] = method + " " + path
		}
	}
}

// parameterName matches a path parameter of a mux pattern or the document.
var parameterName = regexp.MustCompile(`\{[^}]*\}`)

// TestOpenAPIDocumentsEveryRoute compares the routes NewHandler mounts
// with the operations of the document, both ways. Parameter names differ
// on purpose (the document uses the spec's), so they are compared as {}.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc, err := openapitest.Load()
	if err != nil {
		t.Fatal(err)
	}
	// With Metrics set, so that /metrics is mounted too.
	var mounted []string
	for _, p := range httpapi.MountedRoutes(httpapi.Config{Metrics: http.NotFoundHandler()}) {
		mounted = append(mounted, parameterName.ReplaceAllString(p, "{}"))
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+parameterName.ReplaceAllString(path, "{}"))
		}
	}
	sort.Strings(mounted)
	sort.Strings(documented)
	if len(mounted) < 30 {
		t.Fatalf("only %d routes mounted: %v", len(mounted), mounted)
	}
	if diff := cmp.Diff(mounted, documented); diff != "" {
		t.Errorf("mounted routes (-) and documented operations (+) differ:\n%s", diff)
	}
}

// TestOpenAPIServed fetches the document without an API key.
func TestOpenAPIServed(t *testing.T) {
	ts := MustNewServer(t)
	r := ts.doKey(t, "", "GET", "/v1/openapi.json", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /v1/openapi.json = %d, want 200\n%s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if !bytes.Equal(r.Body, httpapi.OpenAPIDocument) {
		t.Errorf("served %d bytes, not the %d of httpapi.OpenAPIDocument", len(r.Body), len(httpapi.OpenAPIDocument))
	}
	// Another method is still refused like everywhere else.
	if r := ts.doKey(t, "", "POST", "/v1/openapi.json", "{}"); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST /v1/openapi.json = %d, want 405", r.Status)
	}
}

// TestOpenAPIMetricsRoute checks the one route the apitest servers do not
// mount: /metrics with a metrics handler, as unicald serves it.
func TestOpenAPIMetricsRoute(t *testing.T) {
	ts := MustNewServer(t)
	h := openapitest.Handler(t, httpapi.NewHandler(httpapi.Config{Client: ts.Client, Metrics: metrics.New().Handler()}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "go_goroutines") {
		t.Errorf("GET /metrics = %d\n%.300s", w.Code, w.Body)
	}
}

// TestOpenAPIRequestDefaults: no request body schema carries "default",
// which client generators (openapi-typescript 7) turn into a required
// field; request defaults are said in descriptions.
func TestOpenAPIRequestDefaults(t *testing.T) {
	got, err := openapitest.RequestDefaults(httpapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Errorf("request schemas with a default: %q", got)
	}
}
