package caldav_test

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// fakeResolver answers SRV and TXT questions from maps keyed by the full
// name ("_caldav._tcp.example.test"); anything else is not found.
type fakeResolver struct {
	srv map[string][]*net.SRV
	txt map[string][]string
}

func (r fakeResolver) LookupSRV(_ context.Context, service, proto, name string) (string, []*net.SRV, error) {
	key := "_" + service + "._" + proto + "." + name
	if a, ok := r.srv[key]; ok {
		return key, a, nil
	}
	return "", nil, &net.DNSError{Err: "no such host", Name: key, IsNotFound: true}
}

func (r fakeResolver) LookupTXT(_ context.Context, name string) ([]string, error) {
	if t, ok := r.txt[name]; ok {
		return t, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// TestConnect_Username: a server whose login is a user name, not the
// email, connects with the username, keeps it, and uses it for every
// later call; the email alone is refused as credentials.
func TestConnect_Username(t *testing.T) {
	t.Parallel()
	for _, kind := range davtest.Kinds() {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			s := davtest.StartUser(t, kind, "alan")
			p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
			params := unical.ConnectParams{Email: "alan@example.com", Password: s.Password, ServerURL: s.URL}
			if _, err := p.Connect(t.Context(), unical.ProviderSettings{}, params); unical.ErrorCode(err) != unical.CodeUnauthorized {
				t.Fatalf("Connect with the email as login = %v, want %s", err, unical.CodeUnauthorized)
			}
			params.Username = "alan"
			c, err := p.Connect(t.Context(), unical.ProviderSettings{}, params)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if c.Email != "alan@example.com" || c.ServerURL != s.URL {
				t.Errorf("Connection = %+v, want email alan@example.com at %s", c, s.URL)
			}
			sess := &unical.Session{Email: c.Email, Password: s.Password, State: c.State}
			path := s.NewCalendar(t, "work")
			cals, err := p.ListCalendars(t.Context(), sess)
			if err != nil {
				t.Fatalf("ListCalendars: %v", err)
			}
			if !hasCalendar(cals, segment(path)) {
				t.Errorf("ListCalendars = %d calendars without %s", len(cals), segment(path))
			}
		})
	}
}

func hasCalendar(cals []*unical.Calendar, id string) bool {
	for _, c := range cals {
		if c.ID == id {
			return true
		}
	}
	return false
}

// TestConnect_Discovery: with no server named (neither in the request nor
// in the application's settings), the server comes from the email's
// domain through DNS SRV and the TXT context path (RFC 6764).
func TestConnect_Discovery(t *testing.T) {
	t.Parallel()
	s := davtest.Shared(t, davtest.Radicale)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	resolver := fakeResolver{
		srv: map[string][]*net.SRV{"_caldav._tcp.example.test": {
			{Target: "127.0.0.1.", Port: uint16(port), Priority: 10},
		}},
		txt: map[string][]string{"_caldav._tcp.example.test": {"path=" + s.PrincipalPath}},
	}
	p := newProvider(t, caldav.Config{AllowPrivateTargets: true, Resolver: resolver})
	c, err := p.Connect(t.Context(), unical.ProviderSettings{},
		unical.ConnectParams{Email: "user@example.test", Username: s.Username, Password: s.Password})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	var got state
	if err := json.Unmarshal(c.State, &got); err != nil {
		t.Fatal(err)
	}
	want := state{PrincipalURL: s.PrincipalURL(), HomeURL: s.HomeURL()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if c.ServerURL != s.URL+s.PrincipalPath {
		t.Errorf("ServerURL = %q, want %q (the SRV target with the TXT path)", c.ServerURL, s.URL+s.PrincipalPath)
	}
}
