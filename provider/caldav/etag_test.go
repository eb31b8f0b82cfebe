package caldav_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// etagProxy sits in front of a davtest server and changes how its ETags
// look, as a server (or a compressing proxy) that issues weak or unquoted
// ETags would: "x" becomes W/"x" or x in ETag headers and in getetag
// properties. It judges If-Match itself the way RFC 7232 §3.1 asks, with
// the strong comparison: a weak or unquoted tag never matches and is a
// 412; a quoted strong tag (or *) goes to the server as it is.
type etagProxy struct {
	*httptest.Server
	weak bool

	mu       sync.Mutex
	ifMatch  []string // If-Match values of the writes seen, "" for none
	gets     map[string]int
	onGet    func(n int) // called before the n-th GET of a path is passed on, n from 1
	onGetFor string
}

var getetagText = regexp.MustCompile(`(getetag[^>]*>)(?:"|&quot;)([^"<&]*)(?:"|&quot;)(<)`)

func newETagProxy(t *testing.T, s *davtest.Server, weak bool) *etagProxy {
	t.Helper()
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	ep := &etagProxy{weak: weak, gets: map[string]int{}}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
		// Plain bodies, so that getetag can be rewritten (Radicale gzips).
		r.Out.Header.Del("Accept-Encoding")
	}}
	rp.ModifyResponse = func(resp *http.Response) error {
		if tag := resp.Header.Get("ETag"); tag != "" {
			resp.Header.Set("ETag", ep.rewrite(tag))
		}
		if resp.StatusCode != http.StatusMultiStatus {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		repl := "${1}W/\"${2}\"${3}"
		if !weak {
			repl = "${1}${2}${3}"
		}
		b = getetagText.ReplaceAll(b, []byte(repl))
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	ep.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ep.mu.Lock()
		if r.Method == http.MethodGet {
			ep.gets[r.URL.Path]++
			if ep.onGet != nil && r.URL.Path == ep.onGetFor {
				ep.onGet(ep.gets[r.URL.Path])
			}
		}
		m := r.Header.Get("If-Match")
		if r.Method == http.MethodPut || r.Method == http.MethodDelete {
			ep.ifMatch = append(ep.ifMatch, m)
		}
		ep.mu.Unlock()
		if m != "" && m != "*" && (strings.HasPrefix(m, "W/") || !strings.HasPrefix(m, `"`)) {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ep.Server.Close)
	return ep
}

// rewrite turns the server's strong, quoted tag into the proxy's form.
func (ep *etagProxy) rewrite(tag string) string {
	opaque := strings.Trim(tag, `"`)
	if ep.weak {
		return `W/"` + opaque + `"`
	}
	return opaque
}

func (ep *etagProxy) lastIfMatch() string {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if len(ep.ifMatch) == 0 {
		return ""
	}
	return ep.ifMatch[len(ep.ifMatch)-1]
}

// TestETags_Weak checks writes to a server that sends only weak ETags:
// If-Match with a weak tag is always a 412 (RFC 7232 §3.1), so the
// provider compares the tags itself (read, weak comparison, write without
// If-Match), and a change made in between is still CodePrecondition.
func TestETags_Weak(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		ep := newETagProxy(t, s, true)
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connectVia(t, p, s, ep.URL)
		path := s.NewCalendar(t, "weak etags")
		cal := segment(path)

		e, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{Title: unical.Some("weak"),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00Z"})})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(e.ETag, `W/"`) {
			t.Errorf("created event's ETag = %q, want the server's weak tag", e.ETag)
		}
		up, err := p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Title: unical.Some("weak v2")})
		if err != nil {
			t.Fatalf("UpdateEvent with weak ETags: %v", err)
		}
		if got := ep.lastIfMatch(); got != "" {
			t.Errorf("the update was sent with If-Match %q, want none after the weak comparison", got)
		}
		if up.Title != "weak v2" || !strings.Contains(string(s.Do(t, http.MethodGet, path+e.ID+".ics", "", nil).Body), "SUMMARY:weak v2") {
			t.Errorf("the server does not hold the update (returned title %q)", up.Title)
		}
		listed, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(listed.Events) != 1 || listed.Events[0].ETag != up.ETag {
			t.Errorf("listing gives %d events, ETag %q; want the updated one, ETag %q", len(listed.Events), etagOf(listed.Events), up.ETag)
		}

		// Another client changes the event between the provider's read and
		// its write: the second GET (the check) sees the new version.
		objPath := path + e.ID + ".ics"
		ep.mu.Lock()
		ep.gets[objPath] = 0
		ep.onGetFor = objPath
		ep.onGet = func(n int) {
			if n == 2 {
				r := s.Do(t, http.MethodPut, objPath, wrapICS(eventICS(e.ICalUID, 3)), http.Header{"Content-Type": {"text/calendar"}})
				if r.StatusCode/100 != 2 {
					t.Errorf("foreign PUT: %d", r.StatusCode)
				}
			}
		}
		ep.mu.Unlock()
		_, err = p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Title: unical.Some("mine")})
		if got := unical.ErrorCode(err); got != unical.CodePrecondition {
			t.Errorf("update after a concurrent change = %v, want %s", err, unical.CodePrecondition)
		}
		if body := string(s.Do(t, http.MethodGet, objPath, "", nil).Body); !strings.Contains(body, "SUMMARY:Event 3") {
			t.Errorf("the concurrent change was overwritten:\n%s", body)
		}

		// Another client deletes it in between: the check finds nothing,
		// and the write does not bring the event back.
		ep.mu.Lock()
		ep.gets[objPath] = 0
		ep.onGet = func(n int) {
			if n == 2 {
				if r := s.Do(t, http.MethodDelete, objPath, "", nil); r.StatusCode/100 != 2 {
					t.Errorf("foreign DELETE: %d", r.StatusCode)
				}
			}
		}
		ep.mu.Unlock()
		_, err = p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Title: unical.Some("mine again")})
		if got := unical.ErrorCode(err); got != unical.CodePrecondition {
			t.Errorf("update after a concurrent delete = %v, want %s", err, unical.CodePrecondition)
		}
		if got := s.ETag(t, objPath); got != "" {
			t.Errorf("the deleted event came back (ETag %s)", got)
		}
		ep.mu.Lock()
		ep.onGet = nil
		ep.mu.Unlock()

		// An instance delete is a conditional PUT too.
		series, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{Title: unical.Some("series"),
			Start:      unical.Some(unical.EventDateTime{DateTime: "2026-05-04T10:00:00Z"}),
			Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=3"})})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.DeleteEvent(t.Context(), sess, cal, series.ID+"_20260505T100000Z"); err != nil {
			t.Errorf("deleting an instance with weak ETags: %v", err)
		}
	})
}

// TestETags_Unquoted checks a server that sends ETags without the quotes
// RFC 7232 §2.3 requires: the provider quotes them when it reads them, so
// If-Match carries a valid entity tag and listing and reading agree.
func TestETags_Unquoted(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		ep := newETagProxy(t, s, false)
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connectVia(t, p, s, ep.URL)
		cal := segment(s.NewCalendar(t, "unquoted etags"))

		e, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{Title: unical.Some("unquoted"),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00Z"})})
		if err != nil {
			t.Fatal(err)
		}
		up, err := p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Title: unical.Some("unquoted v2")})
		if err != nil {
			t.Fatalf("UpdateEvent with unquoted ETags: %v", err)
		}
		if got := ep.lastIfMatch(); !strings.HasPrefix(got, `"`) || !strings.HasSuffix(got, `"`) {
			t.Errorf("If-Match = %q, want a quoted entity tag", got)
		}
		got, err := p.GetEvent(t.Context(), sess, cal, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		listed, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got.ETag, `"`) || got.ETag != up.ETag || len(listed.Events) != 1 || listed.Events[0].ETag != got.ETag {
			t.Errorf("ETags: update %q, get %q, list %q; want one quoted tag", up.ETag, got.ETag, etagOf(listed.Events))
		}
	})
}

// connectVia connects the test user of s through serverURL, a proxy in
// front of s.
func connectVia(t *testing.T, p *caldav.Provider, s *davtest.Server, serverURL string) *unical.Session {
	t.Helper()
	settings := unical.ProviderSettings{ServerURL: serverURL}
	c, err := p.Connect(t.Context(), settings, unical.ConnectParams{Email: s.Username, Password: s.Password})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return &unical.Session{Email: c.Email, Password: s.Password, Settings: settings, State: c.State}
}

func etagOf(events []*unical.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.ETag)
	}
	return out
}
