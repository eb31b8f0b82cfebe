package apidocs_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical/apidocs"
	"github.com/unical/unical/httpapi"
)

// TestRender_NamesEveryRoute: the reference lists every operation of the
// /v1 document, and every webhook message, with a heading of its own, so a
// route added to the contract cannot be missing from the page.
func TestRender_NamesEveryRoute(t *testing.T) {
	page, err := apidocs.Render(httpapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths    map[string]map[string]json.RawMessage `json:"paths"`
		Webhooks map[string]map[string]json.RawMessage `json:"webhooks"`
	}
	if err := json.Unmarshal(httpapi.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`<h3><span class="method [a-z]+">([A-Z]+)</span> ([^<]+)</h3>`).FindAllStringSubmatch(string(page), -1) {
		headings[m[1]+" "+html.UnescapeString(m[2])] = true
	}
	var want, missing []string
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "patch", "delete":
			default:
				continue
			}
			op := strings.ToUpper(method) + " " + path
			want = append(want, op)
			if !headings[op] {
				missing = append(missing, op)
			}
		}
	}
	// Each webhook message is shown as the POST it is, named by its key.
	for name := range doc.Webhooks {
		op := "POST " + name
		want = append(want, op)
		if !headings[op] {
			missing = append(missing, op)
		}
	}
	if len(want) < 25 {
		t.Fatalf("only %d operations in the document", len(want))
	}
	if len(missing) > 0 {
		t.Errorf("the page has no heading for %v", missing)
	}
	if len(headings) != len(want) {
		t.Errorf("the page has %d operation headings, the document %d operations", len(headings), len(want))
	}
}

// TestRender_ShowsParametersBodiesAndAnswers renders a small document and
// reads back the rows a reader sees: parameters resolved through
// components, nested and array body fields with their required marks, and
// answers resolved through components.
func TestRender_ShowsParametersBodiesAndAnswers(t *testing.T) {
	doc := `{
	  "openapi": "3.1.0",
	  "info": {"title": "demo", "version": "v1"},
	  "tags": [{"name": "Things"}],
	  "paths": {
	    "/v1/things/{id}": {
	      "put": {
	        "operationId": "putThing", "tags": ["Things"], "summary": "Replace a thing",
	        "parameters": [{"$ref": "#/components/parameters/Id"},
	          {"name": "mode", "in": "query", "schema": {"type": "string", "enum": ["fast", "safe"]}, "description": "How."}],
	        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
	        "responses": {"200": {"description": "The thing.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
	                      "400": {"$ref": "#/components/responses/Bad"}}
	      }
	    }
	  },
	  "components": {
	    "parameters": {"Id": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The id."}},
	    "responses": {"Bad": {"description": "invalid_request: the field is named."}},
	    "schemas": {
	      "Thing": {"type": "object", "required": ["name"], "properties": {
	        "name": {"type": "string", "maxLength": 10, "description": "Its name."},
	        "parts": {"type": "array", "items": {"$ref": "#/components/schemas/Part"}},
	        "next": {"$ref": "#/components/schemas/Thing"}}},
	      "Part": {"type": "object", "required": ["size"], "properties": {"size": {"type": "integer", "minimum": 1, "maximum": 9}}}
	    }
	  }
	}`
	page, err := apidocs.Render([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := tableRows(string(page))
	want := [][]string{
		{"Name", "In", "Type", "Description"},
		{"id (required)", "path", "string", "The id."},
		{"mode", "query", "one of fast, safe", "How."},
		{"Field", "Type", "Description"},
		{"name (required)", "string at most 10 characters", "Its name."},
		{"next", "Thing", ""},
		{"parts", "array of Part", ""},
		{"parts[].size (required)", "integer 1 to 9", ""},
		{"Status", "Body", "Meaning"},
		{"200", "Thing", "The thing."},
		// Shared error answers are described once, after every route.
		{"Status", "Meaning"},
		{"400", "invalid_request: the field is named."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table rows (-want +got):\n%s", diff)
	}
}

func TestRender_RefusesBrokenDocument(t *testing.T) {
	for name, doc := range map[string]string{
		"not json":          `{`,
		"unknown parameter": `{"paths": {"/x": {"get": {"parameters": [{"$ref": "#/components/parameters/Nope"}], "responses": {}}}}}`,
		"unknown response":  `{"paths": {"/x": {"get": {"responses": {"400": {"$ref": "#/components/responses/Nope"}}}}}}`,
	} {
		if _, err := apidocs.Render([]byte(doc)); err == nil {
			t.Errorf("%s: rendered without error", name)
		}
	}
}

func TestHandler(t *testing.T) {
	h, err := apidocs.Handler(httpapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := http.Get(srv.URL + apidocs.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(body), "POST</span> /v1/endUserAccounts</h3>") {
		t.Errorf("the page does not show POST /v1/endUserAccounts")
	}
	res, err = http.Post(srv.URL+apidocs.Prefix, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", res.StatusCode)
	}
}

// tableRows returns the text of every table row of page, cell by cell.
func tableRows(page string) [][]string {
	rowRE := regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE := regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	tagRE := regexp.MustCompile(`<[^>]+>`)
	var rows [][]string
	for _, r := range rowRE.FindAllStringSubmatch(page, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(c[1], ""))))
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestHandler_Search: ?q= answers the page with the routes that match
// every word listed first, each linking to its section; the query is
// shown escaped, and a query that matches nothing says so.
func TestHandler_Search(t *testing.T) {
	h, err := apidocs.Handler(httpapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(q string) string {
		t.Helper()
		res, err := http.Get(srv.URL + apidocs.Prefix + "?q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET ?q=%s: %d", q, res.StatusCode)
		}
		return string(body)
	}
	resultRE := regexp.MustCompile(`(?s)<section class="results".*?</section>`)
	linkRE := regexp.MustCompile(`<a href="#([^"]+)"><span class="mono">([A-Z]+ [^<]+)</span></a>`)
	results := func(page string) []string {
		var got []string
		for _, m := range linkRE.FindAllStringSubmatch(resultRE.FindString(page), -1) {
			got = append(got, html.UnescapeString(m[2]))
		}
		return got
	}
	page := get("post freebusy")
	if diff := cmp.Diff([]string{"POST /v1/freeBusy/{endUserAccountId}"}, results(page)); diff != "" {
		t.Errorf("results for 'post freebusy' (-want +got):\n%s", diff)
	}
	if !strings.Contains(page, `id="`+linkRE.FindStringSubmatch(resultRE.FindString(page))[1]+`"`) {
		t.Errorf("the result's link has no section on the page")
	}
	page = get(`<script>alert(1)</script>`)
	if strings.Contains(page, "<script>") || !strings.Contains(page, "No route matches every word") {
		t.Errorf("a query matching nothing: the page shows it unescaped or does not say nothing matched")
	}
	if got := results(get("")); len(got) != 0 {
		t.Errorf("an empty query lists %v", got)
	}
}

// TestRender_ErrorsOnce: the shared error answers are described once,
// after the routes, and each route links to them instead of repeating the
// table.
func TestRender_ErrorsOnce(t *testing.T) {
	page, err := apidocs.Render(httpapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if n := strings.Count(s, "rate_limited"); n != 1 {
		t.Errorf("the 429 answer's description stands %d times on the page, want once", n)
	}
	if n := strings.Count(s, `<a href="#error-RateLimited">429</a>`); n < 25 {
		t.Errorf("%d routes link to the 429 description, want every route that answers it", n)
	}
}
