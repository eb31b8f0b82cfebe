package graphtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical/internal/testkit/graphtest"
)

// fixture is a server with one user and an access token for it.
type fixture struct {
	srv   *graphtest.Server
	user  string
	token string
	clock *graphtest.Clock
}

var epoch = time.Date(2025, 3, 3, 8, 0, 0, 0, time.UTC) // a Monday

func mustSetup(tb testing.TB, opts graphtest.Options) *fixture {
	tb.Helper()
	clock := graphtest.NewClock(epoch)
	if opts.Now == nil {
		opts.Now = clock.Now
	}
	srv := graphtest.NewServer(tb, opts)
	uid := srv.AddUser(graphtest.User{DisplayName: "Ada Lovelace", UserPrincipalName: "ada@contoso.test", TimeZone: "W. Europe Standard Time"})
	srv.AddClient(graphtest.Client{ID: "app", Secret: "s3cret", RedirectURIs: []string{"http://127.0.0.1/callback"}})
	return &fixture{srv: srv, user: uid, token: srv.IssueAccessToken("app", uid), clock: clock}
}

// response is a decoded Graph answer.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// do sends a Graph request; path is relative to the server URL (or absolute)
// and body is marshalled to JSON unless it is a string.
func (f *fixture) do(tb testing.TB, method, path string, body any, headers ...string) response {
	tb.Helper()
	return doWith(tb, f.srv, f.token, method, path, body, headers...)
}

func doWith(tb testing.TB, srv *graphtest.Server, token, method, path string, body any, headers ...string) response {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	url := path
	if !strings.HasPrefix(path, "http") {
		url = srv.URL + path
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	r := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(raw) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			tb.Fatalf("%s %s: decoding %s: %v", method, path, raw, err)
		}
	}
	return r
}

// errorCode returns error.code of a Graph error body.
func (r response) errorCode() string {
	e, _ := r.body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// values returns the "value" array of a collection.
func (r response) values() []map[string]any {
	list, _ := r.body["value"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, v := range list {
		out = append(out, v.(map[string]any))
	}
	return out
}

func (r response) str(key string) string {
	s, _ := r.body[key].(string)
	return s
}

func mustStatus(tb testing.TB, r response, want int) {
	tb.Helper()
	if r.status != want {
		tb.Fatalf("status = %d, want %d; body %s", r.status, want, r.raw)
	}
}

// field walks a JSON path such as "start.dateTime".
func field(m map[string]any, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

// collect follows @odata.nextLink and returns every item and the number of
// pages.
func (f *fixture) collect(tb testing.TB, path string, headers ...string) ([]map[string]any, int) {
	tb.Helper()
	var all []map[string]any
	pages := 0
	for path != "" && pages < 100 {
		r := f.do(tb, http.MethodGet, path, nil, headers...)
		mustStatus(tb, r, http.StatusOK)
		all = append(all, r.values()...)
		pages++
		path = r.str("@odata.nextLink")
	}
	return all, pages
}
