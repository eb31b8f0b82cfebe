package davtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// FakeHome starts a stand-in CalDAV server on loopback whose discovery
// names the calendar home /home/ and that records every other request,
// answering 404. It serves tests, at the provider and through the API,
// that check a request never leaves the calendar home: others returns
// what reached the server beyond discovery.
func FakeHome(t testing.TB) (url string, others func() []string) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "PROPFIND" && (r.URL.Path == "/.well-known/caldav" || r.URL.Path == "/p/") {
			w.Header().Set("Content-Type", "application/xml; charset=utf-8")
			w.WriteHeader(http.StatusMultiStatus)
			w.Write([]byte(`<multistatus xmlns="DAV:"><response><href>/p/</href><propstat><prop>` +
				`<current-user-principal><href>/p/</href></current-user-principal>` +
				`<calendar-home-set xmlns="urn:ietf:params:xml:ns:caldav"><href xmlns="DAV:">/home/</href></calendar-home-set>` +
				`</prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`))
			return
		}
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.EscapedPath())
		mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}
