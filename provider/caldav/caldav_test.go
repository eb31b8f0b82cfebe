package caldav_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

func TestMain(m *testing.M) { davtest.Main(m) }

// forEachKind runs fn as a parallel subtest against each shared server.
func forEachKind(t *testing.T, fn func(t *testing.T, s *davtest.Server)) {
	t.Helper()
	forEachKindOf(t, davtest.Kinds(), fn)
}

// forEachKindOf is forEachKind for the given kinds.
func forEachKindOf(t *testing.T, kinds []string, fn func(t *testing.T, s *davtest.Server)) {
	t.Helper()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			fn(t, davtest.Shared(t, kind))
		})
	}
}

// connect connects the test user of s and returns a session for it.
func connect(t *testing.T, p *caldav.Provider, s *davtest.Server) *unical.Session {
	t.Helper()
	settings := unical.ProviderSettings{ServerURL: s.URL}
	c, err := p.Connect(t.Context(), settings, unical.ConnectParams{Email: s.Username, Password: s.Password})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return &unical.Session{Email: c.Email, Password: s.Password, Settings: settings, State: c.State}
}

type state struct {
	PrincipalURL string `json:"principalUrl"`
	HomeURL      string `json:"homeUrl"`
}

func TestConnect(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		tests := []struct {
			name      string
			serverURL string
		}{
			{"server root, through /.well-known/caldav", s.URL},
			{"server root with a slash", s.URL + "/"},
			{"principal URL given", s.PrincipalURL()},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
				c, err := p.Connect(t.Context(), unical.ProviderSettings{ServerURL: tt.serverURL},
					unical.ConnectParams{Email: s.Username, Password: s.Password})
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				var got state
				if err := json.Unmarshal(c.State, &got); err != nil {
					t.Fatalf("state %s: %v", c.State, err)
				}
				want := state{PrincipalURL: s.PrincipalURL(), HomeURL: s.HomeURL()}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("state (-want +got):\n%s", diff)
				}
				if c.Email != s.Username || c.ServerURL != tt.serverURL || c.ProviderAccountID != "" || c.Token.AccessToken != "" {
					t.Errorf("Connection = %+v, want only Email %q, ServerURL %q and State", c, s.Username, tt.serverURL)
				}
			})
		}
	})
}

func TestConnect_Errors(t *testing.T) {
	t.Parallel()
	// A closed port: connecting is refused at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	// A web server that is not a CalDAV server.
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)

	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		tests := []struct {
			name      string
			serverURL string
			params    unical.ConnectParams
			want      unical.Code
			wantField string
			// wantSaid is text the message must hold ("" for any).
			wantSaid string
		}{
			{"wrong password", s.URL, unical.ConnectParams{Email: s.Username, Password: s.Password + "x"}, unical.CodeUnauthorized, "", `refused the login "` + s.Username + `"`},
			{"wrong password with a username", s.URL, unical.ConnectParams{Email: "grace@example.org", Username: s.Username, Password: s.Password + "x"}, unical.CodeUnauthorized, "", `refused the login "` + s.Username + `"`},
			{"unknown user", s.URL, unical.ConnectParams{Email: "nobody", Password: s.Password}, unical.CodeUnauthorized, "", ""},
			{"no password", s.URL, unical.ConnectParams{Email: s.Username}, unical.CodeInvalid, "", ""},
			{"unreachable server", closed, unical.ConnectParams{Email: s.Username, Password: s.Password}, unical.CodeUnavailable, "", "The CalDAV server at " + closed + " cannot be reached."},
			{"not a CalDAV server", plain.URL, unical.ConnectParams{Email: s.Username, Password: s.Password}, unical.CodeInvalid, "serverUrl", ""},
			{"not a URL", "ftp://example.com", unical.ConnectParams{Email: s.Username, Password: s.Password}, unical.CodeInvalid, "serverUrl", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
				c, err := p.Connect(t.Context(), unical.ProviderSettings{ServerURL: tt.serverURL}, tt.params)
				var ue *unical.Error
				if got := unical.ErrorCode(err); got != tt.want || (tt.wantField != "" && (!errors.As(err, &ue) || ue.Field != tt.wantField)) {
					t.Errorf("Connect = %+v, %v; want code %q naming %q", c, err, tt.want, tt.wantField)
				}
				if msg := unical.ErrorMessage(err); !strings.Contains(msg, tt.wantSaid) {
					t.Errorf("Connect said %q; want it to hold %q", msg, tt.wantSaid)
				}
			})
		}
	})
}

// TestConnect_HomeOnAnotherHost mimics iCloud: the well-known path
// redirects with 301 (which net/http would turn into a GET), and the home
// set is an absolute URL on a partition host, which must be kept.
func TestConnect_HomeOnAnotherHost(t *testing.T) {
	t.Parallel()
	partition := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(partition.Close)
	var (
		mu      sync.Mutex
		methods []string
	)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods = append(methods, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if u, p, ok := r.BasicAuth(); !ok || u != "me@example.com" || p != "app-pw" {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Method != "PROPFIND" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		switch r.URL.Path {
		case "/.well-known/caldav":
			w.Header().Set("Location", "/")
			w.WriteHeader(http.StatusMovedPermanently)
		case "/":
			w.WriteHeader(http.StatusMultiStatus)
			w.Write([]byte(`<multistatus xmlns="DAV:"><response><href>/</href><propstat><prop>` +
				`<current-user-principal><href>/123/principal/</href></current-user-principal>` +
				`</prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`))
		case "/123/principal/":
			w.WriteHeader(http.StatusMultiStatus)
			w.Write([]byte(`<multistatus xmlns="DAV:"><response><href>/123/principal/</href><propstat><prop>` +
				`<calendar-home-set xmlns="urn:ietf:params:xml:ns:caldav"><href xmlns="DAV:">` + partition.URL + `/123/calendars/</href></calendar-home-set>` +
				`</prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(front.Close)

	p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
	c, err := p.Connect(context.Background(), unical.ProviderSettings{ServerURL: front.URL},
		unical.ConnectParams{Email: "me@example.com", Password: "app-pw"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	var got state
	if err := json.Unmarshal(c.State, &got); err != nil {
		t.Fatal(err)
	}
	want := state{PrincipalURL: front.URL + "/123/principal/", HomeURL: partition.URL + "/123/calendars/"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	wantMethods := []string{"PROPFIND /.well-known/caldav", "PROPFIND /", "PROPFIND /123/principal/"}
	if diff := cmp.Diff(wantMethods, methods); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// proppatch sets calendar properties with a raw PROPPATCH.
func proppatch(t *testing.T, s *davtest.Server, path, props string) {
	t.Helper()
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<D:propertyupdate xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">` +
		`<D:set><D:prop>` + props + `</D:prop></D:set></D:propertyupdate>`
	r := s.Do(t, "PROPPATCH", path, body, http.Header{"Content-Type": {"application/xml; charset=utf-8"}})
	if r.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPPATCH %s: %d\n%s", path, r.StatusCode, r.Body)
	}
}

// segment returns the last path segment of a collection path.
func segment(path string) string {
	path = strings.TrimSuffix(path, "/")
	return path[strings.LastIndexByte(path, '/')+1:]
}

func TestListCalendars(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		work := s.NewCalendar(t, "Work")
		proppatch(t, s, work, `<I:calendar-color>#FF8800CC</I:calendar-color>`)
		home := s.NewCalendar(t, "Home & Garden")

		cals, err := p.ListCalendars(t.Context(), sess)
		if err != nil {
			t.Fatalf("ListCalendars: %v", err)
		}
		byID := map[string]*unical.Calendar{}
		for _, c := range cals {
			byID[c.ID] = c
		}
		want := []*unical.Calendar{{
			ID: segment(work), Name: "Work", HexColor: "#FF8800",
			InviteEmail: s.Username, AllowedOnlineMeetingProviders: []string{},
		}, {
			ID: segment(home), Name: "Home & Garden",
			InviteEmail: s.Username, AllowedOnlineMeetingProviders: []string{},
		}}
		got := []*unical.Calendar{byID[segment(work)], byID[segment(home)]}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("calendars (-want +got):\n%s", diff)
		}
		for i := 1; i < len(cals); i++ {
			if cals[i-1].ID >= cals[i].ID {
				t.Errorf("calendars not sorted by id: %q before %q", cals[i-1].ID, cals[i].ID)
			}
		}

		// GetCalendar answers the same as the listing.
		for _, w := range want {
			got, err := p.GetCalendar(t.Context(), sess, w.ID)
			if err != nil {
				t.Fatalf("GetCalendar(%q): %v", w.ID, err)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("GetCalendar(%q) (-want +got):\n%s", w.ID, diff)
			}
		}
	})
}

// TestListCalendars_TaskListsSkipped checks that a collection for VTODO
// only is not a calendar (Radicale keeps the component set; Xandikos
// always allows VEVENT, so it has no such collection).
func TestListCalendars_TaskListsSkipped(t *testing.T) {
	t.Parallel()
	s := davtest.Shared(t, davtest.Radicale)
	p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
	sess := connect(t, p, s)
	// A unique name: the shared server outlives one run of the test.
	id := fmt.Sprintf("tasks-only-%d", time.Now().UnixNano())
	path := s.HomePath + id + "/"
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>` +
		`<D:displayname>Tasks</D:displayname>` +
		`<C:supported-calendar-component-set><C:comp name="VTODO"/></C:supported-calendar-component-set>` +
		`</D:prop></D:set></C:mkcalendar>`
	if r := s.Do(t, "MKCALENDAR", path, body, http.Header{"Content-Type": {"application/xml; charset=utf-8"}}); r.StatusCode != http.StatusCreated {
		t.Fatalf("MKCALENDAR: %d\n%s", r.StatusCode, r.Body)
	}
	cals, err := p.ListCalendars(t.Context(), sess)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cals {
		if c.ID == id {
			t.Errorf("ListCalendars lists the VTODO-only collection: %+v", c)
		}
	}
	if _, err := p.GetCalendar(t.Context(), sess, id); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetCalendar(tasks-only) error = %v, want CodeNotFound", err)
	}
}

func TestCalendars_Errors(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		good := connect(t, p, s)
		expired := *good
		expired.Password += "x"
		noState := *good
		noState.State = nil
		tests := []struct {
			name string
			sess *unical.Session
			id   string
			want unical.Code
		}{
			{"unknown calendar", good, "no-such-calendar", unical.CodeNotFound},
			{"id escaping the home", good, "..", unical.CodeInvalid},
			{"id with a slash", good, "a/b", unical.CodeInvalid},
			{"encoded id escaping the home", good, "%2e%2e", unical.CodeInvalid},
			{"password revoked", &expired, "", unical.CodeAccountExpired},
			{"no discovery state", &noState, "", unical.CodeAccountExpired},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				var err error
				if tt.id == "" {
					_, err = p.ListCalendars(t.Context(), tt.sess)
				} else {
					_, err = p.GetCalendar(t.Context(), tt.sess, tt.id)
				}
				if got := unical.ErrorCode(err); got != tt.want {
					t.Errorf("error = %v, want code %q", err, tt.want)
				}
			})
		}
	})
}
