package davtest

import (
	"crypto/rand"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server kinds accepted by [Start] and [Shared]. Each is also the name of the
// Debian package and of the binary it installs.
const (
	Radicale = "radicale"
	Xandikos = "xandikos"
	// Cyrus is Cyrus IMAP's CalDAV (Debian's cyrus-imapd and
	// cyrus-caldav), the server Fastmail runs. Its binary is master.
	Cyrus = "cyrus"
	// DAViCal is Debian's davical, a PHP CalDAV server keeping its data
	// in PostgreSQL, served here through php-cgi. Its binary is php-cgi.
	DAViCal = "davical"
)

// Kinds returns Radicale and Xandikos, in a fixed order, for tests that
// run the same cases against each server: the kinds whose behaviour this
// package records (see the package documentation).
func Kinds() []string { return []string{Radicale, Xandikos} }

// AllKinds is [Kinds], [Cyrus] and [DAViCal], for suites every server
// must pass (provider/providertest).
func AllKinds() []string { return []string{Radicale, Xandikos, Cyrus, DAViCal} }

// installHint is the command printed when a server binary is missing.
const installHint = "scripts/install-test-deps.sh (apt-get install radicale xandikos cyrus-imapd cyrus-caldav sasl2-bin davical php-cgi postgresql)"

const (
	// startTimeout bounds how long a server may take to answer its first
	// request; both start in well under a second on an idle machine.
	startTimeout = 20 * time.Second
	// pollInterval is the pause between readiness probes.
	pollInterval = 50 * time.Millisecond
	// stopGrace is how long a server gets to exit after SIGTERM before it is
	// killed. Both normally exit within about a second.
	stopGrace = 10 * time.Second
	// requestTimeout bounds every request made through [Server.Do].
	requestTimeout = 30 * time.Second
	// maxBody caps how much of a response body [Server.Do] keeps.
	maxBody = 8 << 20
	// logTailMax caps how much server log is printed for a failed test.
	logTailMax = 64 << 10
)

// errNotInstalled marks a start failure caused by a missing server binary,
// which is a skip outside CI and a failure in CI.
var errNotInstalled = errors.New("server binary not found")

// Server is a CalDAV server running on 127.0.0.1 for the duration of a test
// (from [Start]) or of a test binary (from [Shared]). Its methods are safe
// for concurrent use.
type Server struct {
	// Kind is [Radicale], [Xandikos], [Cyrus] or [DAViCal].
	Kind string
	// URL is the server's root, "http://127.0.0.1:PORT", without a trailing
	// slash, so that URL+path is the absolute URL of a server path.
	URL string
	// Username and Password are the test user's HTTP Basic credentials. The
	// password is random per server, so a wrong one is easy to make.
	Username, Password string
	// PrincipalPath is the test user's principal, as current-user-principal
	// reports it ("/unical/" on both kinds).
	PrincipalPath string
	// HomePath is the test user's calendar-home-set ("/unical/" on
	// Radicale, "/unical/calendars/" on Xandikos).
	HomePath string
	// Dir holds the server's configuration, storage and log.
	Dir string
	// LogPath is the file that receives the server's stdout and stderr.
	LogPath string

	proc     *proc
	proxy    *authProxy // Xandikos only: it has no authentication of its own
	logFile  *os.File
	client   *http.Client
	seq      atomic.Int64
	stopOnce sync.Once
	cleanup  []func() // extra teardown, run after the process has exited
}

// Start starts a fresh server of the given kind for tb alone and stops it
// when tb's cleanup runs. Its configuration, storage and log live in
// tb.TempDir(); the log is printed if tb failed.
//
// If the server's binary is not installed, Start skips tb with the install
// command, unless the environment variable CI is "true": there a missing
// server fails tb, so that CI never passes by skipping.
//
// Starting and stopping costs up to a second; tests that can share a server
// should use [Shared].
func Start(tb testing.TB, kind string) *Server {
	tb.Helper()
	s, err := start(kind, tb.TempDir())
	if err != nil {
		reportStartError(tb, kind, err, os.Getenv("CI") == "true")
		return nil
	}
	tb.Cleanup(func() {
		s.stop()
		if tb.Failed() {
			tb.Logf("davtest: %s log (%s):\n%s", s.Kind, s.LogPath, s.logSince(0))
		}
	})
	return s
}

// StartUser is [Start] with a test user of the given name instead of
// "unical", for tests that need the name to be an email address, as
// unical's account API requires. The principal is "/<username>/".
func StartUser(tb testing.TB, kind, username string) *Server {
	tb.Helper()
	s, err := startAs(kind, tb.TempDir(), username)
	if err != nil {
		reportStartError(tb, kind, err, os.Getenv("CI") == "true")
		return nil
	}
	tb.Cleanup(func() {
		s.stop()
		if tb.Failed() {
			tb.Logf("davtest: %s log (%s):\n%s", s.Kind, s.LogPath, s.logSince(0))
		}
	})
	return s
}

// reportStartError skips or fails tb for a server that did not start. It
// takes ci as an argument so that both paths can be tested.
func reportStartError(tb testing.TB, kind string, err error, ci bool) {
	tb.Helper()
	if errors.Is(err, errNotInstalled) {
		if ci {
			tb.Fatalf("davtest: %s is required when CI=true: %v; install it with %s", kind, err, installHint)
			return
		}
		tb.Skipf("davtest: skipping, %s is not installed: %v; install it with %s", kind, err, installHint)
		return
	}
	tb.Fatalf("davtest: start %s: %v", kind, err)
}

// start starts a server of the given kind with its files in dir and waits
// until it answers.
func start(kind, dir string) (*Server, error) { return startAs(kind, dir, "unical") }

// startAs is start with the test user called username.
func startAs(kind, dir, username string) (*Server, error) {
	var launch func(s *Server, bin string) error
	switch kind {
	case Radicale:
		launch = (*Server).startRadicale
	case Xandikos:
		launch = (*Server).startXandikos
	case Cyrus:
		launch = (*Server).startCyrus
	case DAViCal:
		launch = (*Server).startDAViCal
	default:
		return nil, fmt.Errorf("unknown server kind %q (want one of %q)", kind, AllKinds())
	}
	binary := kind
	switch kind {
	case Cyrus:
		binary = cyrusBin + "/master"
	case DAViCal:
		binary = "php-cgi"
	}
	bin, err := findBinary(binary)
	if err != nil {
		return nil, err
	}
	s := &Server{
		Kind:          kind,
		Username:      username,
		Password:      rand.Text(),
		PrincipalPath: "/" + username + "/",
		Dir:           dir,
		LogPath:       dir + string(os.PathSeparator) + kind + ".log",
		client: &http.Client{
			Timeout: requestTimeout,
			// Tests assert on redirects themselves (/.well-known/caldav), so
			// they must see them rather than have them followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	s.logFile, err = os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if err := launch(s, bin); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w\n--- %s log (%s) ---\n%s", err, kind, s.LogPath, s.logSince(0))
	}
	return s, nil
}

// stop ends the server process and everything start set up for it. It is
// safe to call more than once.
func (s *Server) stop() {
	s.stopOnce.Do(func() {
		if s.proxy != nil {
			s.proxy.close()
		}
		if s.proc != nil {
			s.proc.stop()
		}
		for _, f := range s.cleanup {
			f()
		}
		if s.logFile != nil {
			_ = s.logFile.Close()
		}
		s.client.CloseIdleConnections()
	})
}

// logSince returns what the server logged from byte offset off on, cut to
// its last logTailMax bytes.
func (s *Server) logSince(off int64) string {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	b = b[off:]
	if len(b) > logTailMax {
		return "...\n" + string(b[len(b)-logTailMax:])
	}
	return string(b)
}

// logSize returns the current size of the server's log.
func (s *Server) logSize() int64 {
	fi, err := os.Stat(s.LogPath)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// PrincipalURL returns the absolute URL of the test user's principal.
func (s *Server) PrincipalURL() string { return s.URL + s.PrincipalPath }

// HomeURL returns the absolute URL of the test user's calendar home set.
func (s *Server) HomeURL() string { return s.URL + s.HomePath }

// Response is a server response read in full by [Server.Do].
type Response struct {
	// StatusCode is the HTTP status code.
	StatusCode int
	// Header holds the response headers.
	Header http.Header
	// Body is the response body, cut at 8 MiB.
	Body []byte
}

// Do sends one raw request to the server as the test user and returns the
// response read in full; it fails tb if the request cannot be made. path is
// a server path ("/unical/calendars/") or an absolute URL. Redirects are
// returned, not followed. header entries are added to the request; if they
// include Authorization, it replaces the test user's credentials.
//
// Do uses tb.Context(), so it must run in the test itself, not in a
// tb.Cleanup function.
func (s *Server) Do(tb testing.TB, method, path, body string, header http.Header) *Response {
	tb.Helper()
	target := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		target = s.URL + path
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, target, strings.NewReader(body))
	if err != nil {
		tb.Fatalf("davtest: %s %s: %v", method, path, err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if req.Header.Get("Authorization") == "" {
		req.SetBasicAuth(s.Username, s.Password)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		tb.Fatalf("davtest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		tb.Fatalf("davtest: %s %s: read body: %v", method, path, err)
	}
	return &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: b}
}

// NewCalendar creates a new, empty calendar collection in the test user's
// home with a raw MKCALENDAR and returns its path, which ends in a slash.
// The path is derived from name and made unique on this server, so tests
// sharing a server never share a calendar. The calendar's display name is
// name and it is created for VEVENT components (Xandikos ignores that and
// always allows VEVENT, VTODO, VJOURNAL and VFREEBUSY).
func (s *Server) NewCalendar(tb testing.TB, name string) string {
	tb.Helper()
	path := s.HomePath + slug(name) + "-" + strconv.FormatInt(s.seq.Add(1), 10) + "/"
	var displayName strings.Builder
	_ = xml.EscapeText(&displayName, []byte(name)) // a strings.Builder never fails
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>` +
		`<D:displayname>` + displayName.String() + `</D:displayname>` +
		`<C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>` +
		`</D:prop></D:set></C:mkcalendar>`
	resp := s.Do(tb, "MKCALENDAR", path, body, http.Header{"Content-Type": {"application/xml; charset=utf-8"}})
	if resp.StatusCode != http.StatusCreated {
		tb.Fatalf("davtest: MKCALENDAR %s: status %d, want 201:\n%s", path, resp.StatusCode, resp.Body)
	}
	return path
}

// PutObject creates the calendar object resource at path with the given
// iCalendar text (PUT with If-None-Match: *) and returns its ETag as sent
// on the wire, quotes included. It fails tb unless the server answers 201.
func (s *Server) PutObject(tb testing.TB, path, ics string) string {
	tb.Helper()
	resp := s.Do(tb, http.MethodPut, path, ics, http.Header{
		"Content-Type":  {"text/calendar; charset=utf-8"},
		"If-None-Match": {"*"},
	})
	if resp.StatusCode != http.StatusCreated {
		tb.Fatalf("davtest: PUT %s: status %d, want 201:\n%s", path, resp.StatusCode, resp.Body)
	}
	if etag := resp.Header.Get("ETag"); etag != "" {
		return etag
	}
	return s.ETag(tb, path)
}

// ETag returns the current ETag of the resource at path, quotes included,
// or "" if there is no such resource. Tests use it to check what the server
// holds, for example that a refused write changed nothing.
func (s *Server) ETag(tb testing.TB, path string) string {
	tb.Helper()
	resp := s.Do(tb, http.MethodGet, path, "", nil)
	switch resp.StatusCode {
	case http.StatusOK:
		return resp.Header.Get("ETag")
	case http.StatusNotFound:
		return ""
	default:
		tb.Fatalf("davtest: GET %s: status %d, want 200 or 404:\n%s", path, resp.StatusCode, resp.Body)
		return ""
	}
}

// slug turns name into a short path segment of [a-z0-9-].
func slug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 32 {
			break
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		return "cal"
	}
	return out
}
