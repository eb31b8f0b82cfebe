// Package apidocs renders an OpenAPI 3.1 document as one HTML page: every
// path with its operations, parameters, request bodies and answers. unicald
// serves the /v1 reference at [Prefix], built from the same document as
// /v1/openapi.json, so the page a newcomer reads is the contract the tests
// check. The page is self-contained (no script, no font, no file from
// elsewhere), so it works on a machine without network access.
package apidocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Prefix is where unicald mounts the reference.
const Prefix = "/docs"

// document is the part of an OpenAPI document the page shows.
type document struct {
	Info struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	} `json:"info"`
	Tags []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tags"`
	Paths map[string]map[string]json.RawMessage `json:"paths"`
	// Webhooks are the messages the server posts (OpenAPI 3.1), shown as
	// POST operations named by their key.
	Webhooks   map[string]map[string]json.RawMessage `json:"webhooks"`
	Components struct {
		Schemas    map[string]*schema         `json:"schemas"`
		Responses  map[string]*response       `json:"responses"`
		Parameters map[string]*parameter      `json:"parameters"`
		Headers    map[string]json.RawMessage `json:"headers"`
	} `json:"components"`
}

type operation struct {
	OperationID string       `json:"operationId"`
	Summary     string       `json:"summary"`
	Description string       `json:"description"`
	Tags        []string     `json:"tags"`
	Security    *[]any       `json:"security"`
	Parameters  []*parameter `json:"parameters"`
	RequestBody *struct {
		Ref         string               `json:"$ref"`
		Description string               `json:"description"`
		Required    bool                 `json:"required"`
		Content     map[string]mediaType `json:"content"`
	} `json:"requestBody"`
	Responses map[string]*response `json:"responses"`
}

type parameter struct {
	Ref         string  `json:"$ref"`
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Required    bool    `json:"required"`
	Description string  `json:"description"`
	Schema      *schema `json:"schema"`
}

type response struct {
	Ref         string               `json:"$ref"`
	Description string               `json:"description"`
	Content     map[string]mediaType `json:"content"`
}

type mediaType struct {
	Schema *schema `json:"schema"`
}

type schema struct {
	Ref                  string             `json:"$ref"`
	Type                 json.RawMessage    `json:"type"`
	Format               string             `json:"format"`
	Description          string             `json:"description"`
	Enum                 []any              `json:"enum"`
	Const                any                `json:"const"`
	Required             []string           `json:"required"`
	Properties           map[string]*schema `json:"properties"`
	Items                *schema            `json:"items"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
	OneOf                []*schema          `json:"oneOf"`
	AnyOf                []*schema          `json:"anyOf"`
	AllOf                []*schema          `json:"allOf"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	MaxLength            *int               `json:"maxLength"`
	MinLength            *int               `json:"minLength"`
	MaxItems             *int               `json:"maxItems"`
	Example              json.RawMessage    `json:"example"`
	Default              json.RawMessage    `json:"default"`
	ReadOnly             bool               `json:"readOnly"`
}

// The page's model: what the template walks.
type (
	page struct {
		Title, Version, Description string
		Groups                      []group
		// Errors are the shared error answers, each described once;
		// an operation links to them instead of repeating them.
		Errors []errorView
		// Query and Results are a search's: what was asked and the
		// operations that match it (nil Results: no search).
		Query    string
		Results  []op
		Searched bool
	}
	errorView struct {
		Anchor, Status, Name, Description string
	}
	group struct {
		Name       string
		Operations []op
	}
	op struct {
		Anchor, Method, Path, Summary, Description string
		NoKey                                      bool
		Parameters                                 []paramRow
		Body                                       *bodyView
		Answers                                    []answerRow
		// SharedErrors link to the page's one description of each.
		SharedErrors []errorView
		// Example is a request and its answer, made from the schemas.
		Example exampleView
		// Tag is the operation's group, for search.
		Tag string
	}
	exampleView struct {
		Request, RequestBody, AnswerStatus, AnswerBody string
	}
	paramRow struct {
		Name, In, Type, Description string
		Required                    bool
	}
	bodyView struct {
		ContentType, Schema, Description string
		Fields                           []fieldRow
	}
	fieldRow struct {
		Path, Type, Description string
		Required                bool
	}
	answerRow struct {
		Status, Description, Schema string
	}
)

// methodOrder is the order operations of one path are shown in.
var methodOrder = []string{"get", "put", "post", "patch", "delete", "head", "options"}

// Render returns the HTML page for an OpenAPI 3.x document in JSON.
func Render(openapi []byte) ([]byte, error) {
	p, err := build(openapi)
	if err != nil {
		return nil, err
	}
	return p.render()
}

// render executes the page template for p.
func (p *page) render() ([]byte, error) {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("apidocs: %w", err)
	}
	// The buffer grew by doubling; the page is kept for as long as the
	// server runs, so it keeps only its own bytes.
	return bytes.Clone(buf.Bytes()), nil
}

// build reads the document into the page's model.
func build(openapi []byte) (*page, error) {
	var doc document
	if err := json.Unmarshal(openapi, &doc); err != nil {
		return nil, fmt.Errorf("apidocs: reading the OpenAPI document: %w", err)
	}
	p := &page{Title: doc.Info.Title, Version: doc.Info.Version, Description: doc.Info.Description}
	sharedUsed := map[string]errorView{}
	byTag := map[string]*group{}
	var order []string
	for _, t := range doc.Tags {
		byTag[t.Name] = &group{Name: t.Name}
		order = append(order, t.Name)
	}
	for _, path := range append(sortedKeys(doc.Paths), sortedKeys(doc.Webhooks)...) {
		item, ok := doc.Paths[path]
		if !ok {
			item = doc.Webhooks[path]
		}
		// Parameters of the path item apply to each of its operations,
		// before the operation's own (OpenAPI 3.1 §4.8.9.1).
		var shared []*parameter
		if raw, ok := item["parameters"]; ok {
			if err := json.Unmarshal(raw, &shared); err != nil {
				return nil, fmt.Errorf("apidocs: %s parameters: %w", path, err)
			}
		}
		for _, method := range methodOrder {
			raw, ok := item[method]
			if !ok {
				continue
			}
			var o operation
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("apidocs: %s %s: %w", strings.ToUpper(method), path, err)
			}
			o.Parameters = append(append([]*parameter(nil), shared...), o.Parameters...)
			view, err := doc.operationView(method, path, &o)
			if err != nil {
				return nil, err
			}
			tag := "Other"
			if len(o.Tags) > 0 {
				tag = o.Tags[0]
			}
			g, ok := byTag[tag]
			if !ok {
				g = &group{Name: tag}
				byTag[tag] = g
				order = append(order, tag)
			}
			view.Tag = tag
			for _, e := range view.SharedErrors {
				sharedUsed[e.Name] = e
			}
			g.Operations = append(g.Operations, view)
		}
	}
	for _, name := range order {
		if g := byTag[name]; len(g.Operations) > 0 {
			p.Groups = append(p.Groups, *g)
		}
	}
	for _, e := range sharedUsed {
		p.Errors = append(p.Errors, e)
	}
	sort.Slice(p.Errors, func(i, j int) bool {
		if p.Errors[i].Status != p.Errors[j].Status {
			return p.Errors[i].Status < p.Errors[j].Status
		}
		return p.Errors[i].Name < p.Errors[j].Name
	})
	return p, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxQuery bounds a search's text.
const maxQuery = 200

// search returns a copy of p that lists the operations matching q: each
// word of q, ignoring case, must appear in the operation's method, path,
// summary, description, group or id.
func (p *page) search(q string) *page {
	if len(q) > maxQuery {
		q = q[:maxQuery]
	}
	found := *p
	found.Query, found.Searched, found.Results = q, true, nil
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return &found
	}
	for _, g := range p.Groups {
		for _, o := range g.Operations {
			hay := strings.ToLower(strings.Join([]string{o.Method, o.Path, o.Summary, o.Description, o.Tag, o.Anchor}, " "))
			all := true
			for _, w := range words {
				if !strings.Contains(hay, w) {
					all = false
					break
				}
			}
			if all {
				found.Results = append(found.Results, o)
			}
		}
	}
	return &found
}

// Handler serves the page rendered from openapi at GET requests; it is
// rendered once, here, so a broken document stops start-up instead of a
// request.
//
// A search (?q=words) answers the same page with the matching routes
// listed first: it works without script, and the page needs none.
func Handler(openapi []byte) (http.Handler, error) {
	p, err := build(openapi)
	if err != nil {
		return nil, err
	}
	full, err := p.render()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body := full
		if q, ok := r.URL.Query()["q"]; ok && len(q) > 0 {
			found, err := p.search(q[0]).render()
			if err != nil {
				http.Error(w, "The search could not be shown.", http.StatusInternalServerError)
				return
			}
			body = found
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Cache-Control", "public, max-age=300")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	}), nil
}

func (d *document) operationView(method, path string, o *operation) (op, error) {
	v := op{
		Anchor:      o.OperationID,
		Method:      strings.ToUpper(method),
		Path:        path,
		Summary:     o.Summary,
		Description: o.Description,
		NoKey:       o.Security != nil && len(*o.Security) == 0,
	}
	if v.Anchor == "" {
		v.Anchor = strings.ToLower(v.Method) + strings.NewReplacer("/", "-", "{", "", "}", "").Replace(path)
	}
	for _, prm := range o.Parameters {
		if prm.Ref != "" {
			resolved, ok := d.Components.Parameters[refName(prm.Ref)]
			if !ok {
				return op{}, fmt.Errorf("apidocs: %s %s: unknown parameter %s", v.Method, path, prm.Ref)
			}
			prm = resolved
		}
		v.Parameters = append(v.Parameters, paramRow{
			Name: prm.Name, In: prm.In, Required: prm.Required,
			Type: d.typeOf(prm.Schema), Description: prm.Description,
		})
	}
	if rb := o.RequestBody; rb != nil {
		for ct, mt := range rb.Content {
			b := &bodyView{ContentType: ct, Description: rb.Description}
			if mt.Schema != nil {
				b.Schema = d.typeOf(mt.Schema)
				b.Fields = d.fields(mt.Schema, "", 0, map[string]bool{})
			}
			v.Body = b
			break // every operation here has one body type
		}
	}
	statuses := make([]string, 0, len(o.Responses))
	for status := range o.Responses {
		statuses = append(statuses, status)
	}
	sort.Strings(statuses)
	for _, status := range statuses {
		r := o.Responses[status]
		if r.Ref != "" {
			resolved, ok := d.Components.Responses[refName(r.Ref)]
			if !ok {
				return op{}, fmt.Errorf("apidocs: %s %s: unknown response %s", v.Method, path, r.Ref)
			}
			r = resolved
		}
		if name := refName(o.Responses[status].Ref); o.Responses[status].Ref != "" && status >= "400" {
			v.SharedErrors = append(v.SharedErrors, errorView{Anchor: "error-" + name, Status: status, Name: name, Description: r.Description})
			continue
		}
		row := answerRow{Status: status, Description: r.Description}
		for _, mt := range r.Content {
			if mt.Schema != nil {
				row.Schema = d.typeOf(mt.Schema)
				if v.Example.AnswerStatus == "" && strings.HasPrefix(status, "2") {
					v.Example.AnswerStatus = status
					v.Example.AnswerBody = exampleJSON(d.example(mt.Schema, "", 0, map[string]bool{}, false))
				}
			}
		}
		if v.Example.AnswerStatus == "" && strings.HasPrefix(status, "2") {
			v.Example.AnswerStatus = status
		}
		v.Answers = append(v.Answers, row)
	}
	v.Example.Request = d.exampleRequest(v.Method, path, o)
	if rb := o.RequestBody; rb != nil {
		for _, mt := range rb.Content {
			if mt.Schema != nil {
				v.Example.RequestBody = exampleJSON(d.example(mt.Schema, "", 0, map[string]bool{}, true))
			}
			break
		}
	}
	return v, nil
}

// exampleRequest is the operation's request line with example values for
// its path parameters and its required query parameters.
func (d *document) exampleRequest(method, path string, o *operation) string {
	var query []string
	for _, prm := range o.Parameters {
		if prm.Ref != "" {
			prm = d.Components.Parameters[refName(prm.Ref)]
		}
		if prm == nil {
			continue
		}
		val := fmt.Sprint(d.example(prm.Schema, prm.Name, 0, map[string]bool{}, true))
		switch {
		case prm.In == "path":
			path = strings.ReplaceAll(path, "{"+prm.Name+"}", val)
		case prm.In == "query" && prm.Required:
			query = append(query, prm.Name+"="+val)
		}
	}
	if len(query) > 0 {
		path += "?" + strings.Join(query, "&")
	}
	return method + " " + path
}

// maxDepth bounds how far nested objects are unfolded into field rows.
const maxDepth = 4

// fields lists s's properties as dotted paths (attendees[].email), unfolding
// references and nested objects; seen stops a schema that refers to itself.
func (d *document) fields(s *schema, prefix string, depth int, seen map[string]bool) []fieldRow {
	if s == nil || depth > maxDepth {
		return nil
	}
	if s.Ref != "" {
		name := refName(s.Ref)
		if seen[name] {
			return nil
		}
		seen = with(seen, name)
		return d.fields(d.Components.Schemas[name], prefix, depth, seen)
	}
	if s.Items != nil && len(s.Properties) == 0 {
		return d.fields(s.Items, prefix+"[]", depth, seen)
	}
	var rows []fieldRow
	for _, sub := range append(append(s.AllOf, s.OneOf...), s.AnyOf...) {
		rows = append(rows, d.fields(sub, prefix, depth, seen)...)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, name := range names {
		prop := s.Properties[name]
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		rows = append(rows, fieldRow{
			Path: path, Type: d.typeOf(prop), Required: required[name],
			Description: d.descriptionOf(prop),
		})
		rows = append(rows, d.fields(prop, path, depth+1, seen)...)
	}
	return rows
}

func with(seen map[string]bool, name string) map[string]bool {
	next := make(map[string]bool, len(seen)+1)
	for k := range seen {
		next[k] = true
	}
	next[name] = true
	return next
}

func (d *document) descriptionOf(s *schema) string {
	if s.Description != "" || s.Ref == "" {
		return s.Description
	}
	if target := d.Components.Schemas[refName(s.Ref)]; target != nil {
		return target.Description
	}
	return ""
}

// typeOf says in a few words what a value of s looks like.
func (d *document) typeOf(s *schema) string {
	if s == nil {
		return ""
	}
	if s.Ref != "" {
		return refName(s.Ref)
	}
	var parts []string
	switch {
	case len(s.Enum) > 0:
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = fmt.Sprint(e)
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	case s.Const != nil:
		parts = append(parts, fmt.Sprintf("always %v", s.Const))
	default:
		t := typeNames(s.Type)
		if t == "array" && s.Items != nil {
			t = "array of " + d.typeOf(s.Items)
		}
		if t == "" && len(s.OneOf) > 0 {
			alts := make([]string, len(s.OneOf))
			for i, alt := range s.OneOf {
				alts[i] = d.typeOf(alt)
			}
			t = strings.Join(alts, " or ")
		}
		parts = append(parts, t)
	}
	if s.Format != "" {
		parts = append(parts, "("+s.Format+")")
	}
	if s.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.MaxItems != nil {
		parts = append(parts, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	if s.Minimum != nil && s.Maximum != nil {
		parts = append(parts, fmt.Sprintf("%g to %g", *s.Minimum, *s.Maximum))
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// typeNames reads a schema's "type", a string or a list of strings in 3.1.
func typeNames(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return strings.Join(many, " or ")
	}
	return ""
}

func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"lower": strings.ToLower,
	// breakable lets a long path wrap after its slashes, not inside an
	// identifier.
	"breakable": func(path string) template.HTML {
		return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(path), "/", "/<wbr>"))
	},
	// searchForm is the search box's model: the page has two (beside
	// the text and, on a narrow screen, above it), each with its own id.
	"searchForm": func(id, query string) struct{ ID, Query string } {
		return struct{ ID, Query string }{id, query}
	},
}).Parse(pageHTML))
