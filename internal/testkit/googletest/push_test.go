package googletest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/googletest"
)

// notification is one push request the receiver got.
type notification struct {
	ChannelID, Token, Expiration, ResourceID, ResourceURI, State string
	Number                                                       int64
	Body                                                         string
}

// receiver is a loopback webhook endpoint that records notifications and
// can be told to fail the next requests.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	fail   int
	got    []notification
	arrive chan notification
}

func MustNewReceiver(tb testing.TB) *receiver {
	tb.Helper()
	rc := &receiver{arrive: make(chan notification, 100)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n, _ := strconv.ParseInt(r.Header.Get("X-Goog-Message-Number"), 10, 64)
		nt := notification{
			ChannelID: r.Header.Get("X-Goog-Channel-ID"), Token: r.Header.Get("X-Goog-Channel-Token"),
			Expiration: r.Header.Get("X-Goog-Channel-Expiration"), ResourceID: r.Header.Get("X-Goog-Resource-ID"),
			ResourceURI: r.Header.Get("X-Goog-Resource-URI"), State: r.Header.Get("X-Goog-Resource-State"),
			Number: n, Body: string(body),
		}
		rc.mu.Lock()
		failing := rc.fail > 0
		if failing {
			rc.fail--
		}
		rc.got = append(rc.got, nt)
		rc.mu.Unlock()
		if failing {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		rc.arrive <- nt
		w.WriteHeader(http.StatusOK)
	}))
	tb.Cleanup(rc.srv.Close)
	return rc
}

// next waits for the next successfully answered notification of a
// channel. The wait is bounded only so a broken fake fails instead of
// hanging; nothing is asserted about timing.
func (rc *receiver) next(tb testing.TB, channelID string) notification {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case n := <-rc.arrive:
			if n.ChannelID == channelID {
				return n
			}
			rc.arrive <- n // someone else's; put it back
		case <-deadline:
			tb.Fatalf("no notification for channel %s", channelID)
		}
	}
}

func (rc *receiver) all(channelID string) []notification {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []notification
	for _, n := range rc.got {
		if n.ChannelID == channelID {
			out = append(out, n)
		}
	}
	return out
}

func watch(tb testing.TB, f *fixture, id, address string, extra map[string]any) response {
	tb.Helper()
	body := map[string]any{"id": id, "type": "web_hook", "address": address, "token": "tok-" + id}
	for k, v := range extra {
		body[k] = v
	}
	return call(tb, "POST", eventsURL(f, "primary", nil)+"/watch", f.token, body)
}

func TestPush_WatchNotifyStop(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{AllowHTTPPush: true})
	rc := MustNewReceiver(t)
	exp := f.clock.Now().Add(48 * time.Hour).UnixMilli()

	r := watch(t, f, "chan-1", rc.srv.URL+"/hook", map[string]any{"expiration": exp})
	if r.status != 200 {
		t.Fatalf("watch: %d %s", r.status, r.raw)
	}
	// expiration is an int64, which Google's JSON carries as a string.
	wantChan := map[string]any{
		"kind": "api#channel", "id": "chan-1", "resourceId": r.body["resourceId"],
		"resourceUri": f.srv.APIBaseURL() + "/calendars/alice@example.com/events?alt=json",
		"token":       "tok-chan-1", "expiration": strconv.FormatInt(exp, 10),
	}
	if diff := cmp.Diff(wantChan, r.body); diff != "" || str(r.body, "resourceId") == "" {
		t.Fatalf("channel mismatch (-want +got):\n%s", diff)
	}

	sync := rc.next(t, "chan-1")
	wantSync := notification{
		ChannelID: "chan-1", Token: "tok-chan-1",
		Expiration: time.UnixMilli(exp).UTC().Format(http.TimeFormat),
		ResourceID: str(r.body, "resourceId"), ResourceURI: str(r.body, "resourceUri"),
		State: "sync", Number: 1,
	}
	if diff := cmp.Diff(wantSync, sync); diff != "" {
		t.Fatalf("sync message mismatch (-want +got):\n%s", diff)
	}

	ev := MustInsertEvent(t, f, "primary", timed("a", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	n1 := rc.next(t, "chan-1")
	call(t, "DELETE", eventsURL(f, "primary", nil)+"/"+str(ev, "id"), f.token, nil)
	n2 := rc.next(t, "chan-1")
	for _, n := range []notification{n1, n2} {
		if n.State != "exists" || n.Body != "" || n.Token != "tok-chan-1" {
			t.Errorf("change notification = %+v, want state exists, empty body", n)
		}
	}
	if !(n1.Number > sync.Number && n2.Number > n1.Number) {
		t.Errorf("message numbers %d, %d, %d do not increase", sync.Number, n1.Number, n2.Number)
	}

	t.Run("ErrStopWrongResource", func(t *testing.T) {
		r := call(t, "POST", f.srv.APIBaseURL()+"/channels/stop", f.token, map[string]any{"id": "chan-1", "resourceId": "other"})
		if code, _ := errorReason(t, r); code != 404 {
			t.Fatalf("status %d, want 404", code)
		}
	})
	r = call(t, "POST", f.srv.APIBaseURL()+"/channels/stop", f.token, map[string]any{"id": "chan-1", "resourceId": str(wantChan, "resourceId")})
	if r.status != http.StatusNoContent {
		t.Fatalf("stop: %d %s", r.status, r.raw)
	}
	before := len(rc.all("chan-1"))

	// A second channel proves changes are still pushed; the stopped one
	// gets nothing more.
	if r := watch(t, f, "chan-2", rc.srv.URL+"/hook", nil); r.status != 200 {
		t.Fatalf("watch 2: %d %s", r.status, r.raw)
	}
	rc.next(t, "chan-2") // sync
	MustInsertEvent(t, f, "primary", timed("b", "2025-01-07T12:00:00Z", "2025-01-07T13:00:00Z"))
	if n := rc.next(t, "chan-2"); n.State != "exists" {
		t.Fatalf("chan-2 got %+v", n)
	}
	if after := len(rc.all("chan-1")); after != before {
		t.Errorf("stopped channel got %d more notifications", after-before)
	}
}

func TestPush_RetryAndExpiry(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{AllowHTTPPush: true})
	rc := MustNewReceiver(t)
	rc.mu.Lock()
	rc.fail = 1 // the sync message first gets a 503
	rc.mu.Unlock()
	if r := watch(t, f, "short", rc.srv.URL, map[string]any{"params": map[string]any{"ttl": "60"}}); r.status != 200 {
		t.Fatalf("watch: %d %s", r.status, r.raw)
	}
	if n := rc.next(t, "short"); n.State != "sync" || n.Number != 1 {
		t.Fatalf("retried sync = %+v", n)
	}
	if got := len(rc.all("short")); got != 2 {
		t.Errorf("sync delivered in %d attempts, want 2 (503 then retry)", got)
	}

	if r := watch(t, f, "long", rc.srv.URL, nil); r.status != 200 {
		t.Fatalf("watch: %d %s", r.status, r.raw)
	}
	rc.next(t, "long")
	f.clock.Advance(2 * time.Minute) // past "short"'s expiration
	MustInsertEvent(t, f, "primary", timed("c", "2025-01-07T10:00:00Z", "2025-01-07T11:00:00Z"))
	rc.next(t, "long")
	if got := len(rc.all("short")); got != 2 {
		t.Errorf("expired channel got %d notifications, want only the sync attempts", got)
	}
}

func TestPush_WatchValidation(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{})
	tests := []struct {
		name, id, address string
		wantReason        string
	}{
		{"ErrNotHTTPS", "c1", "http://127.0.0.1:1/hook", "push.webhookUrlNotHttps"},
		{"ErrNotLoopback", "c2", "https://example.com/hook", "invalid"},
		{"ErrNoID", "", "https://127.0.0.1:1/hook", "required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := watch(t, f, tc.id, tc.address, nil)
			if code, reason := errorReason(t, r); code != 400 || reason != tc.wantReason {
				t.Fatalf("got %d %s, want 400 %s", code, reason, tc.wantReason)
			}
		})
	}
}

func TestPush_CalendarDeletedNotExists(t *testing.T) {
	t.Parallel()
	f := MustNewFixture(t, googletest.Options{AllowHTTPPush: true})
	rc := MustNewReceiver(t)
	cal := f.srv.AddCalendar(aliceEmail, googletest.Calendar{Summary: "Temp"})
	r := call(t, "POST", eventsURL(f, cal, nil)+"/watch", f.token, map[string]any{"id": "gone", "type": "web_hook", "address": rc.srv.URL})
	if r.status != 200 {
		t.Fatalf("watch: %d %s", r.status, r.raw)
	}
	rc.next(t, "gone")
	f.srv.DeleteCalendar(cal)
	if n := rc.next(t, "gone"); n.State != "not_exists" {
		t.Fatalf("after calendar deletion got %+v, want not_exists", n)
	}
}
