package apidocs

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/unical/unical/adminapi"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/openapitest"
)

// TestExamples_MatchTheirSchemas: every route of both documents shows an
// example request line, and each example body (request and answer) is
// valid against the schema it was made from, so the page never shows a
// request the server would refuse for its shape.
func TestExamples_MatchTheirSchemas(t *testing.T) {
	for name, raw := range map[string][]byte{"v1": httpapi.OpenAPIDocument, "admin": adminapi.OpenAPIDocument} {
		t.Run(name, func(t *testing.T) {
			p, err := build(raw)
			if err != nil {
				t.Fatal(err)
			}
			views := map[string]op{}
			for _, g := range p.Groups {
				for _, o := range g.Operations {
					views[o.Method+" "+o.Path] = o
				}
			}
			doc, err := openapitest.LoadDocument(raw)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for path, item := range doc.Paths.Map() {
				for method, o := range item.Operations() {
					view, ok := views[method+" "+path]
					if !ok {
						t.Errorf("%s %s: not on the page", method, path)
						continue
					}
					if view.Example.Request == "" {
						t.Errorf("%s %s: no example request", method, path)
					}
					if o.RequestBody != nil && o.RequestBody.Value != nil {
						if mt := o.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
							checked++
							checkExample(t, method+" "+path+" request", view.Example.RequestBody, mt.Schema.Value)
						}
					}
					if view.Example.AnswerBody == "" {
						continue
					}
					answer := o.Responses.Value(view.Example.AnswerStatus)
					if answer == nil || answer.Value == nil {
						t.Errorf("%s %s: example answer %s is not in the document", method, path, view.Example.AnswerStatus)
						continue
					}
					if mt := answer.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
						checked++
						checkExample(t, method+" "+path+" answer "+view.Example.AnswerStatus, view.Example.AnswerBody, mt.Schema.Value)
					}
				}
			}
			if checked < 20 {
				t.Errorf("only %d example bodies checked", checked)
			}
		})
	}
}

func checkExample(t *testing.T, what, body string, s *openapi3.Schema) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Errorf("%s: example is not JSON: %v\n%s", what, err, body)
		return
	}
	if err := s.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("%s: example does not match its schema: %v\n%s", what, err, body)
	}
}
