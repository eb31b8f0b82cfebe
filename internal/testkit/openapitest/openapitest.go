// Package openapitest checks API exchanges against the OpenAPI document
// httpapi serves: Handler wraps a server's handler so that every request a
// test sends, and every answer, is validated, and a mismatch fails the
// test. That keeps the hand-written document true to the server.
package openapitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/unical/unical/httpapi"
)

// Load parses httpapi.OpenAPIDocument and validates it as OpenAPI 3.1.
func Load() (*openapi3.T, error) { return LoadDocument(httpapi.OpenAPIDocument) }

// LoadDocument parses another OpenAPI document of the same server (the
// admin API's) and validates it as OpenAPI 3.1.
func LoadDocument(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("the document is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid: %w", err)
	}
	return doc, nil
}

// loaded keeps each document's checker, by the document's first byte's
// address: documents are embedded package variables, so that is stable.
var (
	loadMu           sync.Mutex
	loaded           = map[*byte]*loadResult{}
	registerDecoders sync.Once
)

type loadResult struct {
	c   *checker
	err error
}

type checker struct {
	doc    *openapi3.T
	router *router
}

func load(data []byte) (*checker, error) {
	// iCalendar bodies (the /ics routes) and mail messages (/v1/imip) are
	// text; the document declares them as strings. The decoder table is
	// global, so it is filled once, before the first checker exists and so
	// before any validation reads it.
	registerDecoders.Do(func() {
		openapi3filter.RegisterBodyDecoder("text/calendar", openapi3filter.PlainBodyDecoder)
		openapi3filter.RegisterBodyDecoder("message/rfc822", openapi3filter.PlainBodyDecoder)
	})
	loadMu.Lock()
	defer loadMu.Unlock()
	key := &data[0]
	if r, ok := loaded[key]; ok {
		return r.c, r.err
	}
	doc, err := LoadDocument(data)
	r := &loadResult{err: err}
	if err == nil {
		r.c = &checker{doc: doc, router: newRouter(doc)}
	}
	loaded[key] = r
	return r.c, r.err
}

// maxRecorded bounds the request and answer bytes kept for validation;
// an exchange past it is checked without its body.
const maxRecorded = 4 << 20

// Handler returns next wrapped so that each exchange is validated against
// the document once next has answered:
//   - a request the document allows must get an answer the document
//     declares for its operation, status, headers and body included;
//   - a request the document refuses must get a 4xx the operation
//     declares (the server refused it too);
//   - a request no path of the document takes must get the error body
//     with 404, 405 (with Allow) or the front door's 429.
//
// A mismatch is reported with tb.Errorf. The request body is never read
// ahead of next (a server that answers without reading it, as ours does
// for refused keys, must not wait for it): the bytes next read are
// recorded, and the body is validated only when next read all of it.
func Handler(tb testing.TB, next http.Handler) http.Handler {
	return HandlerFor(tb, httpapi.OpenAPIDocument, next)
}

// HandlerFor is Handler against another document of the same server (the
// admin API's), which must have an Error schema.
func HandlerFor(tb testing.TB, document []byte, next http.Handler) http.Handler {
	c, err := load(document)
	if err != nil {
		tb.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := &recordingBody{ReadCloser: r.Body}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = body
		} else {
			body.eof = true
		}
		rec := &recorder{ResponseWriter: w, header: w.Header()}
		// The request as sent: the handler may change r's URL or context.
		sent := r.Clone(context.WithoutCancel(r.Context()))
		next.ServeHTTP(rec, r)
		if rec.hijacked != nil {
			if err := rec.readHijacked(); err != nil {
				tb.Errorf("OpenAPI: %s %s: %v", sent.Method, sent.URL.RequestURI(), err)
				return
			}
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		if err := c.check(sent, body, rec); err != nil {
			tb.Errorf("OpenAPI: %s %s answered %d: %v\nrequest body: %.500s\nanswer: %.1000s", sent.Method, sent.URL.RequestURI(), rec.status, err, body.buf.Bytes(), rec.body.Bytes())
		}
	})
}

func (c *checker) check(req *http.Request, body *recordingBody, rec *recorder) error {
	req.Body = io.NopCloser(bytes.NewReader(body.buf.Bytes()))
	// Route on the escaped path, as ServeMux does: an id holding an
	// escaped slash (primary%2Fada@example.com) is one segment.
	routed := req.Clone(req.Context())
	routed.URL.Path, routed.URL.RawPath = req.URL.EscapedPath(), ""
	route, params, err := c.router.FindRoute(routed)
	if err != nil {
		return c.checkUnrouted(routed, err, rec)
	}
	for k, v := range params {
		if u, err := url.PathUnescape(v); err == nil {
			params[k] = u
		}
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		ExcludeRequestBody:    !body.eof || body.truncated,
		SkipSettingDefaults:   true,
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	reqErr := openapi3filter.ValidateRequest(req.Context(), in)
	if reqErr != nil && (rec.status < 400 || rec.status > 499) {
		return fmt.Errorf("the document refuses the request (%v), but the server answered %d", reqErr, rec.status)
	}
	skipBody := rec.truncated
	// An empty answer without a Content-Type where the document declares
	// no JSON (a provider push acknowledged with a bare 200) has no body
	// to check; a JSON answer must always have one.
	if resp := route.Operation.Responses.Status(rec.status); resp != nil && resp.Value != nil &&
		resp.Value.Content.Get("application/json") == nil && rec.body.Len() == 0 && rec.header.Get("Content-Type") == "" {
		skipBody = true
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 rec.status,
		Header:                 rec.header,
		Body:                   io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: skipBody},
	}
	if err := openapi3filter.ValidateResponse(req.Context(), out); err != nil {
		return fmt.Errorf("the answer does not match the document: %w", err)
	}
	return nil
}

// checkUnrouted checks the answer to a request no path of the document
// takes: the server must refuse it with the error body.
func (c *checker) checkUnrouted(req *http.Request, routeErr error, rec *recorder) error {
	// The methods the document has for this path, if any: then the
	// answer must be 405 with exactly those in Allow.
	var allowed []string
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		probe := req.Clone(req.Context())
		probe.Method = m
		if _, _, err := c.router.FindRoute(probe); err == nil {
			allowed = append(allowed, m)
		}
	}
	want := http.StatusNotFound
	if len(allowed) > 0 {
		want = http.StatusMethodNotAllowed
	}
	if rec.status != want && rec.status != http.StatusTooManyRequests {
		return fmt.Errorf("no operation of the document takes it (%v; documented methods %v), so want %d, but the server answered %d", routeErr, allowed, want, rec.status)
	}
	if rec.status == http.StatusMethodNotAllowed {
		if got := rec.header.Get("Allow"); got != strings.Join(allowed, ", ") {
			return fmt.Errorf("405 with Allow %q, but the document has %v", got, allowed)
		}
	}
	var v any
	if err := json.Unmarshal(rec.body.Bytes(), &v); err != nil {
		return fmt.Errorf("the error body is not JSON: %w", err)
	}
	schema := c.doc.Components.Schemas["Error"].Value
	if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("the error body does not match the Error schema: %w", err)
	}
	return nil
}

// recordingBody keeps the bytes a handler reads from a request body.
type recordingBody struct {
	io.ReadCloser
	buf       bytes.Buffer
	eof       bool
	truncated bool
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	room := maxRecorded - b.buf.Len()
	if n > room {
		b.truncated = true
	}
	b.buf.Write(p[:min(n, room)])
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// recorder passes an answer through and keeps its status, headers and
// (up to maxRecorded) body.
type recorder struct {
	http.ResponseWriter
	header    http.Header
	status    int
	body      bytes.Buffer
	truncated bool
	hijacked  *bytes.Buffer // what was written on a hijacked connection
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
		// The headers as sent: a later change to the map is not on the wire.
		r.header = r.ResponseWriter.Header().Clone()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if room := maxRecorded - r.body.Len(); room >= len(p) {
		r.body.Write(p)
	} else {
		r.truncated = true
	}
	return r.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Hijack hands over the connection, keeping a copy of what is written to
// it: the server answers some refusals on the raw connection.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	r.hijacked = new(bytes.Buffer)
	w := bufio.NewWriter(io.MultiWriter(conn, r.hijacked))
	return conn, bufio.NewReadWriter(rw.Reader, w), nil
}

// readHijacked parses the answer written on a hijacked connection.
func (r *recorder) readHijacked() error {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(r.hijacked.Bytes())), nil)
	if err != nil {
		return fmt.Errorf("the answer on the hijacked connection is not HTTP: %w", err)
	}
	defer resp.Body.Close()
	r.status, r.header = resp.StatusCode, resp.Header
	r.body.Reset()
	_, err = io.Copy(&r.body, resp.Body)
	return err
}

// router finds the operation of a request the way ServeMux does: a path
// parameter is one whole, non-empty segment of the escaped path, and a
// literal segment beats a parameter. (kin-openapi's legacy router lets a
// parameter match a missing last segment.)
type router struct {
	doc   *openapi3.T
	paths []routePath
}

type routePath struct {
	template string
	segments []string // "" for a parameter
	params   []string // parameter names, by segment; "" for a literal
	item     *openapi3.PathItem
}

func newRouter(doc *openapi3.T) *router {
	r := &router{doc: doc}
	for template, item := range doc.Paths.Map() {
		p := routePath{template: template, item: item}
		for _, seg := range strings.Split(strings.TrimPrefix(template, "/"), "/") {
			if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
				p.segments, p.params = append(p.segments, ""), append(p.params, seg[1:len(seg)-1])
			} else {
				p.segments, p.params = append(p.segments, seg), append(p.params, "")
			}
		}
		r.paths = append(r.paths, p)
	}
	return r
}

// FindRoute returns the operation of req, whose URL.Path must be the
// escaped path; the parameters it returns are escaped too.
func (r *router) FindRoute(req *http.Request) (*routers.Route, map[string]string, error) {
	segs := strings.Split(strings.TrimPrefix(req.URL.Path, "/"), "/")
	var best *routePath
	bestLiterals := -1
	var bestParams map[string]string
	for i := range r.paths {
		p := &r.paths[i]
		if len(p.segments) != len(segs) {
			continue
		}
		params, literals, ok := map[string]string{}, 0, true
		for j, seg := range segs {
			switch {
			case p.params[j] != "" && seg != "":
				params[p.params[j]] = seg
			case p.params[j] == "" && p.segments[j] == seg:
				literals++
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok && literals > bestLiterals {
			best, bestLiterals, bestParams = p, literals, params
		}
	}
	if best == nil {
		return nil, nil, routers.ErrPathNotFound
	}
	op := best.item.GetOperation(req.Method)
	if op == nil {
		return nil, nil, routers.ErrMethodNotAllowed
	}
	return &routers.Route{Spec: r.doc, Path: best.template, PathItem: best.item, Method: req.Method, Operation: op}, bestParams, nil
}

// CheckWebhook validates the body of a webhook message unical sent
// against the request body schema of the document's webhook named by the
// body's eventType, so that the message types generated clients get from
// the webhooks section are the messages receivers get.
func CheckWebhook(body []byte) error {
	c, err := load(httpapi.OpenAPIDocument)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("the webhook body is not JSON: %w", err)
	}
	m, _ := v.(map[string]any)
	eventType, _ := m["eventType"].(string)
	hook := c.doc.Webhooks[eventType]
	if hook == nil || hook.Post == nil || hook.Post.RequestBody == nil {
		return fmt.Errorf("the document has no webhook %q", eventType)
	}
	media := hook.Post.RequestBody.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil {
		return fmt.Errorf("the document's webhook %q has no JSON body", eventType)
	}
	if err := media.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("the %s body does not match the document's webhook: %w", eventType, err)
	}
	return nil
}

// RequestDefaults lists, as JSON pointers, the schemas reachable from the
// request bodies of an OpenAPI document (operations and webhooks) that
// carry "default". Client generators read such a default as a promise of
// the answer and make the field required in the request type
// (openapi-typescript 7, whose defaultNonNullable is on by default), so a
// request default is said in the description instead.
func RequestDefaults(data []byte) ([]string, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var found []string
	seen := map[string]bool{}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if !seen[ref] {
					seen[ref] = true
					walk(pointer(doc, ref), ref)
				}
				return
			}
			if _, ok := v["default"]; ok && !strings.HasSuffix(at, "/properties") {
				found = append(found, at)
			}
			for k, child := range v {
				if k != "description" && k != "example" && k != "examples" {
					walk(child, at+"/"+k)
				}
			}
		case []any:
			for i, child := range v {
				walk(child, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	for _, section := range []string{"paths", "webhooks"} {
		items, _ := doc[section].(map[string]any)
		for path, item := range items {
			ops, _ := item.(map[string]any)
			for method, op := range ops {
				if op, ok := op.(map[string]any); ok && op["requestBody"] != nil {
					walk(op["requestBody"], "#/"+section+"/"+strings.ReplaceAll(path, "/", "~1")+"/"+method+"/requestBody")
				}
			}
		}
	}
	sort.Strings(found)
	return found, nil
}

// pointer resolves a local JSON pointer (#/components/schemas/X) in doc.
func pointer(doc map[string]any, ref string) any {
	var v any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := v.(map[string]any)
		v = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
	}
	return v
}
