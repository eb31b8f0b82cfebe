package caldav_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// TestConnect_RedirectToAnotherOrigin: a server that redirects to another
// host (here another loopback port, another origin) moves the request but
// not the password, while a redirect within the origin keeps it.
func TestConnect_RedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		got []string // what the second server saw: path and credentials
	)
	// Both https: an https target is no reason to hand over the password.
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth := "no credentials"
		if r.Header.Get("Authorization") != "" {
			auth = "credentials"
		}
		got = append(got, r.URL.Path+" "+auth)
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(other.Close)
	var frontAuth atomic.Int32
	front := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, p, ok := r.BasicAuth(); ok && p == "app-pw" {
			frontAuth.Add(1)
		}
		switch r.URL.Path {
		case "/.well-known/caldav":
			w.Header().Set("Location", "/dav/")
		default:
			w.Header().Set("Location", other.URL+"/elsewhere/")
		}
		w.WriteHeader(http.StatusPermanentRedirect)
	}))
	t.Cleanup(front.Close)

	// httptest's servers share one certificate, so front's client trusts both.
	p := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: front.Client()})
	_, err := p.Connect(t.Context(), unical.ProviderSettings{ServerURL: front.URL},
		unical.ConnectParams{Email: "me@example.com", Password: "app-pw"})
	if code := unical.ErrorCode(err); code != unical.CodeUnauthorized {
		t.Fatalf("Connect = %v; want %s from the other server", err, unical.CodeUnauthorized)
	}
	// Both hops on the first origin (/.well-known/caldav and /dav/) had
	// the password.
	if n := frontAuth.Load(); n != 2 {
		t.Errorf("requests with the password at the first server = %d, want 2", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"/elsewhere/ no credentials"}, got); diff != "" {
		t.Errorf("requests at the other server (-want +got):\n%s", diff)
	}
}

// TestConnect_PrivateServerRefused: without AllowPrivateTargets a server
// URL on a loopback or private address, or an http URL, is a CodeInvalid
// error naming serverUrl, and the server is never reached.
func TestConnect_PrivateServerRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(plain.Close)
	tests := []struct {
		name string
		cfg  caldav.Config
		url  string
	}{
		{"loopback literal", caldav.Config{}, srv.URL},
		{"localhost", caldav.Config{}, "https://localhost:1/"},
		{"metadata address", caldav.Config{}, "https://169.254.169.254/"},
		{"NAT64 of loopback", caldav.Config{}, "https://[64:ff9b::7f00:1]/"},
		{"http URL", caldav.Config{}, plain.URL},
		{"http URL of a public name", caldav.Config{}, "http://caldav.example.com/"},
		// A client of the caller's own with no transport still gets the policy.
		{"own client", caldav.Config{HTTPClient: &http.Client{}}, srv.URL},
	}
	for _, tt := range tests {
		p := newProvider(t, tt.cfg)
		_, err := p.Connect(t.Context(), unical.ProviderSettings{ServerURL: tt.url},
			unical.ConnectParams{Email: "me@example.com", Password: "app-pw"})
		var e *unical.Error
		if !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != "serverUrl" {
			t.Errorf("%s: Connect(%s) = %v; want %s naming serverUrl", tt.name, tt.url, err, unical.CodeInvalid)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the refused servers were reached %d times", n)
	}
}

// escapingIDs are calendar and event ids that would leave the calendar
// home (or the calendar) if they reached the path as they decode.
var escapingIDs = []string{"..", ".", "%2e%2e", "%2E%2E", "%252e%252e", "..%2f..", "a/b", `..\..`, "%5c", "a\x00b", ""}

// TestIDsStayInTheHome: every escaping calendar or event id is a
// CodeInvalid error naming calendarId or eventId, and no request for it
// reaches the server.
func TestIDsStayInTheHome(t *testing.T) {
	t.Parallel()
	srvURL, others := davtest.FakeHome(t)
	p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
	settings := unical.ProviderSettings{ServerURL: srvURL}
	c, err := p.Connect(t.Context(), settings, unical.ConnectParams{Email: "me@example.com", Password: "pw"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	sess := &unical.Session{Email: c.Email, Password: "pw", Settings: settings, State: c.State}
	ctx := t.Context()
	check := func(what, field string, err error) {
		t.Helper()
		var e *unical.Error
		if !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != field {
			t.Errorf("%s = %v; want %s naming %s", what, err, unical.CodeInvalid, field)
		}
	}
	for _, id := range escapingIDs {
		if id == "" {
			continue // an empty calendar id is the Client's to refuse
		}
		_, err := p.GetCalendar(ctx, sess, id)
		check("GetCalendar("+id+")", "calendarId", err)
		_, err = p.UpdateCalendar(ctx, sess, id, &unical.CalendarParams{Name: unical.Some("x")})
		check("UpdateCalendar("+id+")", "calendarId", err)
		check("DeleteCalendar("+id+")", "calendarId", p.DeleteCalendar(ctx, sess, id))
		_, err = p.ListEvents(ctx, sess, id, &unical.EventQuery{})
		check("ListEvents("+id+")", "calendarId", err)
		_, err = p.GetEvent(ctx, sess, id, "e1")
		check("GetEvent(calendar "+id+")", "calendarId", err)
	}
	for _, id := range escapingIDs {
		_, err := p.GetEvent(ctx, sess, "cal", id)
		check("GetEvent("+id+")", "eventId", err)
		_, err = p.UpdateEvent(ctx, sess, "cal", id, &unical.EventParams{Title: unical.Some("x")})
		check("UpdateEvent("+id+")", "eventId", err)
		check("DeleteEvent("+id+")", "eventId", p.DeleteEvent(ctx, sess, "cal", id))
		check("RespondToEvent("+id+")", "eventId", p.RespondToEvent(ctx, sess, "cal", id, unical.ResponseAccepted))
		// The series part of an instance id is a resource name too.
		if id != "" { // "_20260301T090000Z" alone is a fine resource name
			_, err = p.GetEvent(ctx, sess, "cal", id+"_20260301T090000Z")
			check("GetEvent("+id+"_20260301T090000Z)", "eventId", err)
		}
	}
	if got := others(); len(got) != 0 {
		t.Errorf("requests for escaping ids reached the server: %q", got)
	}
}
