package icsfeed_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/icsfeed"
	"github.com/unical/unical/provider/kit/icalkit"
	"github.com/unical/unical/provider/providertest"
)

// feedServer publishes one feed over TLS on loopback, answering a
// request that names its current ETag with 304.
type feedServer struct {
	*httptest.Server
	mu   sync.Mutex
	body []byte
	etag string
}

func newFeedServer(t *testing.T) *feedServer {
	t.Helper()
	f := &feedServer{}
	f.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		body, etag := f.body, f.etag
		f.mu.Unlock()
		if r.URL.Path != "/feed.ics" || body == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
		w.Write(body)
	}))
	t.Cleanup(f.Close)
	return f
}

// address is the feed's webcal:// address.
func (f *feedServer) address() string { return "webcal://" + f.Listener.Addr().String() + "/feed.ics" }

// publish replaces the feed with events, written by icalkit.Apply; every
// DTSTAMP is new, as many publishers write it.
func (f *feedServer) publish(t *testing.T, name string, events []*unical.Event) {
	t.Helper()
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, "-//unical//icsfeed test//EN")
	cal.Props.SetText("X-WR-CALNAME", name)
	for _, e := range events {
		comp := ical.NewComponent(ical.CompEvent)
		comp.Props.SetDateTime(ical.PropDateTimeStamp, time.Now().UTC())
		if err := icalkit.Apply(comp, e, time.Now(), ""); err != nil {
			t.Fatal(err)
		}
		cal.Children = append(cal.Children, comp)
	}
	var buf bytes.Buffer
	if len(events) == 0 {
		// go-ical encodes no calendar without a component; RFC 5545 wants
		// one, but published feeds are empty at times.
		buf.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//unical//icsfeed test//EN\r\nX-WR-CALNAME:" + name + "\r\nEND:VCALENDAR\r\n")
	} else if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	f.mu.Lock()
	f.body, f.etag = buf.Bytes(), `"`+hex.EncodeToString(sum[:8])+`"`
	f.mu.Unlock()
}

func newProvider(t *testing.T, f *feedServer) *icsfeed.Provider {
	t.Helper()
	p, err := icsfeed.New(icsfeed.Config{HTTPClient: f.Client(), AllowPrivateTargets: true, Revalidate: -1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConformance runs the read-only provider suite against a feed served
// on loopback.
func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.RunReadOnly(t, func(t *testing.T) *providertest.ReadOnlyHarness {
		f := newFeedServer(t)
		f.publish(t, "Empty", nil)
		return &providertest.ReadOnlyHarness{
			Provider:   newProvider(t, f),
			Session:    &unical.Session{Email: "ada@example.com", Password: f.address()},
			CalendarID: icsfeed.CalendarID,
			Publish:    func(t *testing.T, events []*unical.Event) { f.publish(t, "Published", events) },
		}
	})
}

func published(uid, title, start, end, zone string) *unical.Event {
	return &unical.Event{ICalUID: uid, Title: title,
		Start: &unical.EventDateTime{DateTime: start, TimeZone: zone}, End: &unical.EventDateTime{DateTime: end, TimeZone: zone}}
}

// TestConnect_AddressPolicy: without AllowPrivateTargets a feed on a
// loopback or private address, or over plain http, is refused naming
// serverUrl before any request; webcal:// is read as https://.
func TestConnect_AddressPolicy(t *testing.T) {
	t.Parallel()
	f := newFeedServer(t)
	f.publish(t, "Feed", nil)
	guarded, err := icsfeed.New(icsfeed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	port := f.Listener.Addr().(*net.TCPAddr).Port
	for _, address := range []string{
		f.address(),
		"https://" + f.Listener.Addr().String() + "/feed.ics",
		"webcal://localhost:" + strconv.Itoa(port) + "/feed.ics",
		"http://example.com/feed.ics",
		"https://10.0.0.1/feed.ics",
		"ftp://example.com/feed.ics",
	} {
		_, err := guarded.Connect(t.Context(), unical.ProviderSettings{}, unical.ConnectParams{Email: "ada@example.com", ServerURL: address})
		var e *unical.Error
		if !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != "serverUrl" {
			t.Errorf("Connect(%s) = %v, want invalid_request naming serverUrl", address, err)
		}
	}
	if n := guarded.Stats().Fetches; n != 0 {
		t.Errorf("%d fetches, want none", n)
	}
	// Allowed, the same webcal:// address is fetched over https.
	conn, err := newProvider(t, f).Connect(t.Context(), unical.ProviderSettings{}, unical.ConnectParams{Email: "ada@example.com", ServerURL: f.address()})
	if err != nil || conn.ServerURL != "https://"+f.Listener.Addr().String()+"/…" {
		t.Errorf("Connect(webcal) with private targets allowed = %+v, %v", conn, err)
	}
}
