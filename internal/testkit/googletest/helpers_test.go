package googletest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical/internal/testkit/googletest"
)

// clock is a controllable Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const (
	testClientID     = "client-1.apps.googleusercontent.com"
	testClientSecret = "secret-1"
	testRedirect     = "http://127.0.0.1/callback"
	aliceEmail       = "alice@example.com"
	bobEmail         = "bob@example.com"
)

// fixture is a server with one client and two users.
type fixture struct {
	srv   *googletest.Server
	clock *clock
	token string // alice's access token (calendar, openid, email)
}

// MustNewFixture starts a fake with a fixed clock at 2025-01-06 09:00 UTC,
// client testClientID, users alice (Europe/Berlin) and bob (UTC).
func MustNewFixture(tb testing.TB, opts googletest.Options) *fixture {
	tb.Helper()
	clk := &clock{t: time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)}
	if opts.Now == nil {
		opts.Now = clk.Now
	}
	srv := googletest.NewServer(tb, opts)
	srv.AddClient(googletest.Client{ID: testClientID, Secret: testClientSecret, RedirectURIs: []string{testRedirect}})
	srv.AddUser(googletest.User{Email: aliceEmail, Name: "Alice", TimeZone: "Europe/Berlin"})
	srv.AddUser(googletest.User{Email: bobEmail, Name: "Bob"})
	return &fixture{srv: srv, clock: clk, token: srv.IssueAccessToken(testClientID, aliceEmail)}
}

// response is a decoded HTTP response.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// call sends a request to the fake with a bearer token and a JSON body
// (nil for none), and decodes a JSON object response.
func call(tb testing.TB, method, url, token string, body any, header ...string) response {
	tb.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			tb.Fatalf("marshal: %v", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, url, rd)
	if err != nil {
		tb.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("read body: %v", err)
	}
	out := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(raw) > 0 {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			tb.Fatalf("decode %s: %v", raw, err)
		}
	}
	return out
}

// errorReason extracts error.errors[0].reason and error.code from a Google
// error body, checking the documented envelope on the way.
func errorReason(tb testing.TB, r response) (int, string) {
	tb.Helper()
	e, ok := r.body["error"].(map[string]any)
	if !ok {
		tb.Fatalf("no error object in %s", r.raw)
	}
	errs, ok := e["errors"].([]any)
	if !ok || len(errs) == 0 {
		tb.Fatalf("no error.errors in %s", r.raw)
	}
	first := errs[0].(map[string]any)
	for _, k := range []string{"domain", "reason", "message"} {
		if _, ok := first[k].(string); !ok {
			tb.Fatalf("error.errors[0].%s missing in %s", k, r.raw)
		}
	}
	if _, ok := e["message"].(string); !ok {
		tb.Fatalf("error.message missing in %s", r.raw)
	}
	code, _ := e["code"].(float64)
	if int(code) != r.status {
		tb.Fatalf("error.code %v != HTTP status %d", e["code"], r.status)
	}
	return int(code), first["reason"].(string)
}

func items(tb testing.TB, r response) []map[string]any {
	tb.Helper()
	raw, ok := r.body["items"].([]any)
	if !ok {
		tb.Fatalf("no items array in %s", r.raw)
	}
	out := make([]map[string]any, len(raw))
	for i, it := range raw {
		out[i] = it.(map[string]any)
	}
	return out
}

func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[p]
	}
	s, _ := cur.(string)
	return s
}

// MustInsertEvent creates an event through the API and returns it.
func MustInsertEvent(tb testing.TB, f *fixture, calendarID string, body map[string]any) map[string]any {
	tb.Helper()
	r := call(tb, "POST", f.srv.APIBaseURL()+"/calendars/"+calendarID+"/events", f.token, body)
	if r.status != http.StatusOK {
		tb.Fatalf("insert event: %d %s", r.status, r.raw)
	}
	return r.body
}

func timed(summary, start, end string) map[string]any {
	return map[string]any{
		"summary": summary,
		"start":   map[string]any{"dateTime": start},
		"end":     map[string]any{"dateTime": end},
	}
}

func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
