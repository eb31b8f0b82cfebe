package httpapi_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// TestCalDAVE2E_ServerPerAccount: one application (with no server of its
// own) connects a Radicale account whose login is a user name and a
// Xandikos account, each at the serverUrl of its request; each account
// shows its server, and reads and writes go to it. Reconnecting with
// another serverUrl moves the account.
func TestCalDAVE2E_ServerPerAccount(t *testing.T) {
	t.Parallel()
	radicale := davtest.StartUser(t, davtest.Radicale, "alan")
	xandikos := davtest.StartUser(t, davtest.Xandikos, "grace@example.com")
	st := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{AllowPrivateTargets: true})}, nil)
	st.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("two servers")})
	connectPath := "/v1/basicAuth/connect/" + st.AppID + "/provider_c"

	// The login is not the email: without username the server refuses it,
	// which is the password's 400.
	r := st.Do(t, "POST", connectPath, map[string]string{"email": "alan@example.com", "password": radicale.Password, "serverUrl": radicale.URL})
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != "password" {
		t.Errorf("connect without username = %d %+v, want 400 naming password", r.Status, e)
	}

	type account struct {
		ID        string `json:"id"`
		Email     string `json:"email"`
		ServerURL string `json:"serverUrl"`
	}
	var alan, grace account
	st.Must(t, "POST", connectPath, map[string]string{
		"email": "alan@example.com", "username": "alan", "password": radicale.Password, "serverUrl": radicale.URL,
	}).Into(t, &alan)
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]string{
		"email": "grace@example.com", "providerType": "PROVIDER_C", "password": xandikos.Password, "serverUrl": xandikos.URL,
	}).Into(t, &grace)
	if alan.ServerURL != radicale.URL || grace.ServerURL != xandikos.URL {
		t.Errorf("serverUrl = %q and %q, want %q and %q", alan.ServerURL, grace.ServerURL, radicale.URL, xandikos.URL)
	}
	var listed struct {
		Data []account `json:"data"`
	}
	st.Must(t, "GET", "/v1/endUserAccounts", nil).Into(t, &listed)
	if diff := cmp.Diff([]account{alan, grace}, listed.Data); diff != "" {
		t.Errorf("listed accounts (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		acct account
		srv  *davtest.Server
	}{{alan, radicale}, {grace, xandikos}} {
		var cal unical.Calendar
		st.Must(t, "POST", "/v1/calendars/"+tc.acct.ID, map[string]string{"name": "Work"}).Into(t, &cal)
		var ev unical.Event
		st.Must(t, "POST", "/v1/events/"+tc.acct.ID+"/"+cal.ID, map[string]any{
			"title": "Hello " + tc.srv.Kind, "start": map[string]string{"dateTime": "2026-05-04T09:00:00Z"},
			"end": map[string]string{"dateTime": "2026-05-04T10:00:00Z"},
		}).Into(t, &ev)
		// The event is at this account's server, under its calendar home.
		if tag := tc.srv.ETag(t, tc.srv.HomePath+cal.ID+"/"+ev.ID+".ics"); tag == "" {
			t.Errorf("%s: event %s is not at the account's server", tc.srv.Kind, ev.ID)
		}
		var got unical.Event
		st.Must(t, "GET", "/v1/events/"+tc.acct.ID+"/"+cal.ID+"/"+ev.ID, nil).Into(t, &got)
		if got.Title != "Hello "+tc.srv.Kind {
			t.Errorf("%s: read back title %q", tc.srv.Kind, got.Title)
		}
	}

	// Reconnecting at another server moves the account there.
	other := davtest.StartUser(t, davtest.Radicale, "alan")
	var moved account
	st.Must(t, "POST", connectPath, map[string]string{
		"email": "alan@example.com", "username": "alan", "password": other.Password, "serverUrl": other.URL,
	}).Into(t, &moved)
	if moved.ID != alan.ID || moved.ServerURL != other.URL {
		t.Errorf("reconnected account = %+v, want id %s at %s", moved, alan.ID, other.URL)
	}
	var cal unical.Calendar
	st.Must(t, "POST", "/v1/calendars/"+alan.ID, map[string]string{"name": "Moved"}).Into(t, &cal)
	if got := other.Do(t, "PROPFIND", other.HomePath+cal.ID+"/", "", http.Header{"Depth": {"0"}}).StatusCode; got != http.StatusMultiStatus {
		t.Errorf("PROPFIND at the new server of the calendar made after reconnecting = %d, want 207", got)
	}
}

// TestCalDAVE2E_ServerURLRefused: on a server without
// --allow-private-targets (the provider's AllowPrivateTargets false), a
// loopback serverUrl is a 400 naming serverUrl, the server is never asked,
// and no account is made; so is a server that is not CalDAV, with what
// was found there.
func TestCalDAVE2E_ServerURLRefused(t *testing.T) {
	t.Parallel()
	s := davtest.StartUser(t, davtest.Radicale, "dan@example.com")
	strict := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{})}, nil)
	strict.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("strict")})
	r := strict.Do(t, "POST", "/v1/basicAuth/connect/"+strict.AppID+"/provider_c",
		map[string]string{"email": s.Username, "password": s.Password, "serverUrl": s.URL})
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Code != "invalid_request" || e.Field != "serverUrl" {
		t.Errorf("loopback serverUrl = %d %+v, want 400 invalid_request naming serverUrl", r.Status, e)
	}
	var accounts page
	strict.Must(t, "GET", "/v1/endUserAccounts", nil).Into(t, &accounts)
	if len(accounts.Data) != 0 {
		t.Errorf("a refused serverUrl left %d accounts", len(accounts.Data))
	}

	lax := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{AllowPrivateTargets: true})}, nil)
	lax.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("lax")})
	notDAV := lax.URL // unical's own API: a web server, not CalDAV
	r = lax.Do(t, "POST", "/v1/basicAuth/connect/"+lax.AppID+"/provider_c",
		map[string]string{"email": s.Username, "password": s.Password, "serverUrl": notDAV})
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != "serverUrl" || !containsAll(e.Message, notDAV, "answered") {
		t.Errorf("non-CalDAV serverUrl = %d %+v, want 400 naming serverUrl and saying what %s answered", r.Status, e, notDAV)
	}
	// A closed port: unreachable is a 503.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	r = lax.Do(t, "POST", "/v1/basicAuth/connect/"+lax.AppID+"/provider_c",
		map[string]string{"email": s.Username, "password": s.Password, "serverUrl": closed})
	if r.Status != http.StatusServiceUnavailable {
		t.Errorf("unreachable serverUrl = %d, want 503\n%s", r.Status, r.Body)
	}
}

// TestCalDAVE2E_Discovery: with no serverUrl in the request nor in the
// application, the account's server is found from its email's domain by
// DNS SRV (a fake resolver here) and shown on the account.
func TestCalDAVE2E_Discovery(t *testing.T) {
	t.Parallel()
	s := davtest.StartUser(t, davtest.Xandikos, "carol")
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	resolver := srvOnly{"_caldav._tcp.carol.test": {{Target: "127.0.0.1.", Port: uint16(port)}}}
	st := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{AllowPrivateTargets: true, Resolver: resolver})}, nil)
	st.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("discovery")})
	var acct struct {
		ID        string `json:"id"`
		ServerURL string `json:"serverUrl"`
	}
	st.Must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c",
		map[string]string{"email": "carol@carol.test", "username": "carol", "password": s.Password}).Into(t, &acct)
	if want := s.URL + "/"; acct.ServerURL != want {
		t.Errorf("serverUrl = %q, want %q (the SRV target)", acct.ServerURL, want)
	}
	st.Must(t, "POST", "/v1/calendars/"+acct.ID, map[string]string{"name": "Found"})
}

// srvOnly is a caldav.Resolver with SRV records only.
type srvOnly map[string][]*net.SRV

func (r srvOnly) LookupSRV(_ context.Context, service, proto, name string) (string, []*net.SRV, error) {
	if a, ok := r["_"+service+"._"+proto+"."+name]; ok {
		return "", a, nil
	}
	return "", nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (srvOnly) LookupTXT(_ context.Context, name string) ([]string, error) {
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// containsAll reports whether s contains every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
