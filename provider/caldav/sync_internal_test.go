package caldav

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestSyncCollection_Truncated plays a server that cuts a sync-collection
// answer short (RFC 6578 §3.6: a 507 on the collection and a token to go
// on from), and one that refuses tokens in each known way.
func TestSyncCollection_Truncated(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		tokens []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/xml")
		switch {
		case strings.Contains(string(body), "sync-collection"):
			mu.Lock()
			defer mu.Unlock()
			switch {
			case strings.Contains(string(body), ">t1<"):
				tokens = append(tokens, "t1")
				w.WriteHeader(http.StatusMultiStatus)
				io.WriteString(w, `<multistatus xmlns="DAV:">`+
					`<response><href>/cal/a.ics</href><propstat><prop><getetag>"1"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response>`+
					`<response><href>/cal/</href><status>HTTP/1.1 507 Insufficient Storage</status></response>`+
					`<sync-token>t2</sync-token></multistatus>`)
			case strings.Contains(string(body), ">t2<"):
				tokens = append(tokens, "t2")
				w.WriteHeader(http.StatusMultiStatus)
				io.WriteString(w, `<multistatus xmlns="DAV:">`+
					`<response><href>/cal/b.ics</href><status>HTTP/1.1 404 Not Found</status></response>`+
					`<response><href>/cal/a.ics</href><propstat><prop><getetag>"2"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response>`+
					`<sync-token>t3</sync-token></multistatus>`)
			case strings.Contains(string(body), ">radicale<"):
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `<error xmlns="DAV:"><valid-sync-token/></error>`)
			case strings.Contains(string(body), ">sabre<"):
				w.WriteHeader(http.StatusPreconditionFailed)
				io.WriteString(w, `<d:error xmlns:d="DAV:"><d:valid-sync-token/></d:error>`)
			default:
				w.WriteHeader(http.StatusInternalServerError) // Xandikos 0.2.8
			}
		case strings.Contains(string(body), "calendar-multiget"):
			if strings.Count(string(body), "<D:href>") != 1 {
				t.Errorf("multiget asks for %d hrefs, want a.ics once", strings.Count(string(body), "<D:href>"))
			}
			w.WriteHeader(http.StatusMultiStatus)
			io.WriteString(w, `<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><response><href>/cal/a.ics</href><propstat><prop>`+
				`<getetag>"2"</getetag><C:calendar-data>BEGIN:VCALENDAR&#13;
VERSION:2.0&#13;
PRODID:x&#13;
BEGIN:VEVENT&#13;
UID:a&#13;
DTSTAMP:20260101T000000Z&#13;
DTSTART:20260101T090000Z&#13;
SUMMARY:a&#13;
END:VEVENT&#13;
END:VCALENDAR&#13;
</C:calendar-data></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`)
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	calURL, _ := url.Parse(srv.URL + "/cal/")
	c := &conn{client: srv.Client(), allowPrivate: true}

	batch, err := c.syncEvents(t.Context(), calURL, cursorSync+"t1", "me", cacheView{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range batch.Events {
		got = append(got, e.ID+" "+e.Title+" "+map[bool]string{true: "cancelled", false: e.ETag}[e.IsCancelled])
	}
	if diff := cmp.Diff([]string{`a a "2"`, "b  cancelled"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if batch.NextSyncCursor != cursorSync+"t3" || !cmp.Equal(tokens, []string{"t1", "t2"}) {
		t.Errorf("next cursor %q after tokens %v, want sync:t3 after t1, t2", batch.NextSyncCursor, tokens)
	}
	for _, refused := range []string{"radicale", "sabre", "xandikos", "etag:not-base64!", "bogus"} {
		cursor := refused
		if !strings.Contains(refused, ":") {
			cursor = cursorSync + refused
		}
		if cursor == cursorSync+"bogus" {
			cursor = "bogus"
		}
		if _, err := c.syncEvents(t.Context(), calURL, cursor, "me", cacheView{}); unical.ErrorCode(err) != unical.CodeGone {
			t.Errorf("cursor %q: %v, want CodeGone", cursor, err)
		}
	}
}
