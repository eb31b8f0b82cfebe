package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/ics"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/openapitest"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/store/bolt"
)

// writeGate is a reverse proxy in front of a provider that counts the
// provider's event creations and, while holding, keeps each one waiting
// until release, so that a test knows the write reached the provider and
// can act (hang up, send more) while it is in flight.
type writeGate struct {
	URL     string
	isWrite func(*http.Request) bool
	// arrived receives once for every creation that reaches the gate.
	arrived chan struct{}

	mu        sync.Mutex
	writes    int
	held      chan struct{} // closed by release; nil when not holding
	cancelled bool          // a held creation's caller gave up on it
}

func newWriteGate(t *testing.T, target string, isWrite func(*http.Request) bool) *writeGate {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	g := &writeGate{isWrite: isWrite, arrived: make(chan struct{}, 64)}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.isWrite(r) {
			g.mu.Lock()
			g.writes++
			held := g.held
			g.mu.Unlock()
			g.arrived <- struct{}{}
			if held != nil {
				select {
				case <-held:
				case <-r.Context().Done():
					g.mu.Lock()
					g.cancelled = true
					g.mu.Unlock()
					return
				}
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(g.release) // before srv.Close: a held request must not block it
	g.URL = srv.URL
	return g
}

// hold makes the next creations wait for release. It forgets the
// arrivals of earlier creations, so that waitArrived waits for a new one.
func (g *writeGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held = make(chan struct{})
	for {
		select {
		case <-g.arrived:
		default:
			return
		}
	}
}

func (g *writeGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held != nil {
		close(g.held)
		g.held = nil
	}
}

// waitArrived waits for one creation to reach the gate.
func (g *writeGate) waitArrived(t *testing.T) {
	t.Helper()
	select {
	case <-g.arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("no event creation reached the provider")
	}
}

func (g *writeGate) count() (writes int, cancelled bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writes, g.cancelled
}

// idemRequest sends a request with an API key and, unless idemKey is "",
// an Idempotency-Key.
func idemRequest(t *testing.T, baseURL, apiKey, idemKey, method, path string, body []byte) *apitest.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, baseURL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", apiKey)
	req.Header.Set("Content-Type", "application/json")
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// sendAndHangUp writes a whole request on a raw connection and returns it
// unread: closing it loses the answer, as a client's timeout would.
func sendAndHangUp(t *testing.T, baseURL, apiKey, idemKey, method, path string, body []byte) net.Conn {
	t.Helper()
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, baseURL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", apiKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idemKey)
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

func eventBody(t *testing.T, title string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"title": title,
		"start": map[string]string{"dateTime": "2026-05-04T09:00:00Z"}, "end": map[string]string{"dateTime": "2026-05-04T09:30:00Z"}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantKeyError fails t unless r is the error status and code naming
// Idempotency-Key.
func wantKeyError(t *testing.T, what string, r *apitest.Response, status int, code string) {
	t.Helper()
	if e := r.Error(t); r.Status != status || e.Code != code || e.Field != "Idempotency-Key" {
		t.Errorf("%s = %d %s (field %q), want %d %s naming Idempotency-Key\n%s", what, r.Status, e.Code, e.Field, status, code, r.Body)
	}
}

// idemSetup is an application with an account and a calendar at a
// provider behind a writeGate.
type idemSetup struct {
	st     *apitest.Stack
	gate   *writeGate
	events string // the calendar's events path
}

// titled counts the calendar's events with the title, as the API lists
// them from the provider.
func (s *idemSetup) titled(t *testing.T, title string) int {
	t.Helper()
	var page struct {
		Data []struct {
			Title string `json:"title"`
		} `json:"data"`
	}
	q := url.Values{"startDateTime": {"2026-05-01T00:00:00Z"}, "endDateTime": {"2026-05-10T00:00:00Z"}}
	s.st.Must(t, "GET", s.events+"?"+q.Encode(), nil).Into(t, &page)
	n := 0
	for _, e := range page.Data {
		if e.Title == title {
			n++
		}
	}
	return n
}

// testIdempotency runs issue 16's Idempotency-Key checks through the API
// on s's provider.
func testIdempotency(t *testing.T, s *idemSetup) {
	st := s.st
	do := func(key, method, path string, body []byte) *apitest.Response {
		t.Helper()
		return idemRequest(t, st.URL, st.APIKey, key, method, path, body)
	}
	wantWrites := func(want int) {
		t.Helper()
		if got, cancelled := s.gate.count(); got != want || cancelled {
			t.Errorf("event creations at the provider = %d (a held one cancelled: %v), want %d", got, cancelled, want)
		}
	}

	// A retry answers the first answer byte for byte, marked as replayed,
	// and writes nothing.
	standup := eventBody(t, "Standup")
	first := do("key-standup", "POST", s.events, standup)
	if first.Status != http.StatusOK || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first create = %d, Idempotent-Replayed %q\n%s", first.Status, first.Header.Get("Idempotent-Replayed"), first.Body)
	}
	replay := do("key-standup", "POST", s.events, standup)
	if replay.Status != first.Status || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry = %d, Idempotent-Replayed %q; want %d, true", replay.Status, replay.Header.Get("Idempotent-Replayed"), first.Status)
	}
	if d := cmp.Diff(string(first.Body), string(replay.Body)); d != "" {
		t.Errorf("replayed body differs from the first (-first +replay):\n%s", d)
	}
	wantWrites(1)
	if n := s.titled(t, "Standup"); n != 1 {
		t.Errorf("%d Standup events at the provider, want 1", n)
	}

	// The same key with another body, method or path is a 422; a bad key
	// is a 400. Neither writes.
	var created struct {
		ID string `json:"id"`
	}
	first.Into(t, &created)
	wantKeyError(t, "other body", do("key-standup", "POST", s.events, eventBody(t, "Other")), http.StatusUnprocessableEntity, "idempotency_key_reused")
	wantKeyError(t, "other method and path", do("key-standup", "PUT", s.events+"/"+url.PathEscape(created.ID), standup), http.StatusUnprocessableEntity, "idempotency_key_reused")
	wantKeyError(t, "other query", do("key-standup", "POST", s.events+"?x=1", standup), http.StatusUnprocessableEntity, "idempotency_key_reused")
	wantKeyError(t, "key with a space", do("key standup", "POST", s.events, standup), http.StatusBadRequest, "invalid_request")
	wantKeyError(t, "key too long", do(strings.Repeat("k", 256), "POST", s.events, standup), http.StatusBadRequest, "invalid_request")
	wantWrites(1)

	// Another application's same key is its own: no replay of this one's
	// answer (the account is not that application's, so 404).
	_, otherKey := st.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("other")})
	other := idemRequest(t, st.URL, otherKey, "key-standup", "POST", s.events, standup)
	if other.Status != http.StatusNotFound || other.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("another application's request with the same key = %d, Idempotent-Replayed %q; want 404, none\n%s",
			other.Status, other.Header.Get("Idempotent-Replayed"), other.Body)
	}
	if again := do("key-standup", "POST", s.events, standup); again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
		t.Errorf("after another application used the key, retry = %d %s, want the replay", again.Status, again.Body)
	}

	// A delete with a key: its retry is the kept success, not a 404.
	del := do("key-delete", "DELETE", s.events+"/"+url.PathEscape(created.ID), nil)
	delAgain := do("key-delete", "DELETE", s.events+"/"+url.PathEscape(created.ID), nil)
	if del.Status != http.StatusOK || delAgain.Status != http.StatusOK || delAgain.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(del.Body, delAgain.Body) {
		t.Errorf("delete and its retry = %d %s, %d %s (replayed %q); want the same 200 twice",
			del.Status, del.Body, delAgain.Status, delAgain.Body, delAgain.Header.Get("Idempotent-Replayed"))
	}

	// The answer is lost: the client hangs up while the creation is at the
	// provider. The server finishes and keeps the answer; the retry gets
	// it, and the provider has one event.
	lost := eventBody(t, "Lost")
	s.gate.hold()
	conn := sendAndHangUp(t, st.URL, st.APIKey, "key-lost", "POST", s.events, lost)
	s.gate.waitArrived(t)
	conn.Close()
	// Give the server time to see the hang-up before the provider answers,
	// so that a server that cancels the creation with the connection would
	// be caught (the gate records the cancellation).
	time.Sleep(300 * time.Millisecond)
	s.gate.release()
	var retry *apitest.Response
	for range 200 {
		retry = do("key-lost", "POST", s.events, lost)
		if retry.Status != http.StatusConflict {
			break
		}
		wantKeyError(t, "retry while the first runs", retry, http.StatusConflict, "conflict")
		time.Sleep(25 * time.Millisecond)
	}
	if retry.Status != http.StatusOK || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry after the lost answer = %d, Idempotent-Replayed %q; want 200, true\n%s", retry.Status, retry.Header.Get("Idempotent-Replayed"), retry.Body)
	}
	wantWrites(2)
	if n := s.titled(t, "Lost"); n != 1 {
		t.Errorf("%d Lost events at the provider, want 1", n)
	}

	// Concurrent requests with one key: one reaches the provider; those
	// that come while it runs are 409 with Retry-After.
	conc := eventBody(t, "Concurrent")
	s.gate.hold()
	const n = 4
	answers := make(chan *apitest.Response, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { answers <- do("key-concurrent", "POST", s.events, conc) })
	}
	s.gate.waitArrived(t)
	var got []*apitest.Response
	for range n - 1 {
		got = append(got, <-answers)
	}
	s.gate.release()
	wg.Wait()
	close(answers)
	for r := range answers {
		got = append(got, r)
	}
	fresh := 0
	for _, r := range got {
		switch {
		case r.Status == http.StatusOK && r.Header.Get("Idempotent-Replayed") == "":
			fresh++
		case r.Status == http.StatusOK:
		case r.Status == http.StatusConflict && r.Header.Get("Retry-After") != "":
			wantKeyError(t, "concurrent retry", r, http.StatusConflict, "conflict")
		default:
			t.Errorf("concurrent request = %d (Retry-After %q) %s", r.Status, r.Header.Get("Retry-After"), r.Body)
		}
	}
	if fresh != 1 {
		t.Errorf("%d of %d concurrent requests ran, want 1", fresh, n)
	}
	wantWrites(3)
	if n := s.titled(t, "Concurrent"); n != 1 {
		t.Errorf("%d Concurrent events at the provider, want 1", n)
	}
}

// TestIdempotencyCalDAV runs the checks on Radicale.
func TestIdempotencyCalDAV(t *testing.T) {
	t.Parallel()
	dav := davtest.StartUser(t, davtest.Radicale, "ada@example.com")
	gate := newWriteGate(t, dav.URL, func(r *http.Request) bool {
		return r.Method == "PUT" && strings.HasSuffix(r.URL.Path, ".ics") && r.Header.Get("If-None-Match") == "*"
	})
	st := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{AllowPrivateTargets: true})}, nil)
	st.CreateApp(t, &admin.ApplicationParams{
		Providers: map[unical.ProviderType]unical.ProviderSettings{caldav.ProviderType: {ServerURL: gate.URL}},
	})
	var acct, cal struct {
		ID string `json:"id"`
	}
	st.Must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c", map[string]string{"email": dav.Username, "password": dav.Password}).Into(t, &acct)
	st.Must(t, "POST", "/v1/calendars/"+acct.ID, map[string]string{"name": "Idempotency"}).Into(t, &cal)
	testIdempotency(t, &idemSetup{st: st, gate: gate, events: "/v1/events/" + acct.ID + "/" + url.PathEscape(cal.ID)})
}

// newIdemGoogleStack is the server over the fake Google with the Calendar
// API behind a writeGate, and the master key it seals with, so that a
// test can restart it on the same store.
func newIdemGoogleStack(t *testing.T, key seal.Key) (*googleStack, *writeGate, func() unical.Provider) {
	t.Helper()
	g := googletest.NewServer(t, googletest.Options{})
	g.AddUser(googletest.User{Email: e2eUser, Name: "Dana", TimeZone: "Europe/Paris"})
	api, err := url.Parse(g.APIBaseURL())
	if err != nil {
		t.Fatal(err)
	}
	gate := newWriteGate(t, api.Scheme+"://"+api.Host, func(r *http.Request) bool {
		return r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/events")
	})
	newProvider := func() unical.Provider {
		p, err := google.New(google.Config{BaseBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond, MaxRetries: 3})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	st := apitest.Start(t, []unical.Provider{newProvider()}, func(cfg *apitest.Config) { cfg.MasterKey = key })
	g.AddClient(googletest.Client{ID: e2eClientID, Secret: e2eSecret, RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}})
	st.CreateApp(t, &admin.ApplicationParams{
		RedirectURLs: unical.Some([]string{e2eBack}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{google.ProviderType: {
			ClientID: e2eClientID, ClientSecret: e2eSecret,
			AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), UserInfoURL: g.UserinfoURL(),
			APIBaseURL: gate.URL + api.Path,
		}},
	})
	return &googleStack{Stack: st, google: g}, gate, newProvider
}

// TestIdempotencyGoogle runs the checks on the fake Google, then restarts
// the server on the same bolt file: the kept answer is still replayed.
func TestIdempotencyGoogle(t *testing.T) {
	t.Parallel()
	key := seal.NewKey()
	gst, gate, newProvider := newIdemGoogleStack(t, key)
	st := gst.Stack
	acct := gst.connect(t)
	var cal struct {
		ID string `json:"id"`
	}
	st.Must(t, "POST", "/v1/calendars/"+acct, map[string]string{"name": "Idempotency"}).Into(t, &cal)
	setup := &idemSetup{st: st, gate: gate, events: "/v1/events/" + acct + "/" + url.PathEscape(cal.ID)}
	testIdempotency(t, setup)

	body := eventBody(t, "Before restart")
	first := idemRequest(t, st.URL, st.APIKey, "key-restart", "POST", setup.events, body)
	if first.Status != http.StatusOK {
		t.Fatalf("create = %d\n%s", first.Status, first.Body)
	}
	// The kept answer is sealed: the store holds no event data (answers
	// such as a new subscription's secret must not be in it in plaintext).
	var created struct {
		ID string `json:"id"`
	}
	first.Into(t, &created)
	if db, err := os.ReadFile(st.DBPath); err != nil || created.ID == "" || bytes.Contains(db, []byte(created.ID)) || bytes.Contains(db, []byte("Before restart")) {
		t.Errorf("the bolt file holds the kept answer in plaintext (event id %q; read error %v)", created.ID, err)
	}

	// Restart: the old server lets go of the file; a new Client and
	// handler open it with the same master key.
	st.Client.Close()
	if err := st.Store.Close(); err != nil {
		t.Fatal(err)
	}
	store, err := bolt.Open(bolt.Config{Path: st.DBPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{newProvider()}, MasterKey: key, PublicURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	h = openapitest.Handler(t, httpapi.NewHandler(httpapi.Config{Client: client}))

	replay := idemRequest(t, srv.URL, st.APIKey, "key-restart", "POST", setup.events, body)
	if replay.Status != http.StatusOK || replay.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, replay.Body) {
		t.Errorf("retry after the restart = %d (Idempotent-Replayed %q)\n%s\nwant the first answer replayed:\n%s",
			replay.Status, replay.Header.Get("Idempotent-Replayed"), replay.Body, first.Body)
	}
	if writes, _ := gate.count(); writes != 4 {
		t.Errorf("event creations at the provider = %d, want 4 (3 before, 1 for the restart check)", writes)
	}
}

// TestIdempotencyICSImport checks a keyed iCalendar import larger than the
// 1 MiB of JSON bodies: the body is fingerprinted whole and reaches the
// import whole, and the retry replays the first answer.
func TestIdempotencyICSImport(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	a := ts.mustConnect(t)[unical.ProviderGoogle]
	path := "/v1/events/" + a + "/" + primaryCalendar(t, ts, a) + "/ics"
	var events []string
	for i := range 20 {
		events = append(events, vevent(fmt.Sprintf("big-%d@example.com", i), "DESCRIPTION:"+strings.Repeat("x", 60<<10)+"\n"))
	}
	body := []byte(vcal(events...))
	if len(body) <= httpapi.MaxBodyBytes {
		t.Fatalf("the import body is %d bytes, want more than %d", len(body), httpapi.MaxBodyBytes)
	}
	do := func() *apitest.Response {
		req, err := http.NewRequestWithContext(t.Context(), "POST", ts.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "text/calendar")
		req.Header.Set("x-api-key", ts.APIKey)
		req.Header.Set("Idempotency-Key", "import-big")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	}
	first, replay := do(), do()
	var res ics.ImportResult
	first.Into(t, &res)
	if first.Status != http.StatusOK || res.Created != 20 || len(res.Errors) != 0 {
		t.Errorf("import = %d %s, want 20 created", first.Status, first.Body)
	}
	if replay.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, replay.Body) {
		t.Errorf("retried import = %d (Idempotent-Replayed %q) %s, want the first answer replayed", replay.Status, replay.Header.Get("Idempotent-Replayed"), replay.Body)
	}
}
