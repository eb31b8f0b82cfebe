package google

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/googletest"
)

// pushReceiver is a loopback endpoint that hands each push request to the
// test as a unical.Notification.
type pushReceiver struct {
	URL string
	got chan *unical.Notification
}

func newPushReceiver(t *testing.T) *pushReceiver {
	t.Helper()
	pr := &pushReceiver{got: make(chan *unical.Notification, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pr.got <- &unical.Notification{Method: r.Method, Header: r.Header, Query: r.URL.Query()}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	pr.URL = srv.URL + "/v1/notifications/google"
	return pr
}

func (pr *pushReceiver) next(t *testing.T) *unical.Notification {
	t.Helper()
	select {
	case n := <-pr.got:
		return n
	case <-time.After(5 * time.Second):
		t.Fatal("no push notification arrived")
		return nil
	}
}

func TestWatch_Lifecycle(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, googletest.Options{AllowHTTPPush: true}, nil)
	s := f.session(t, alice)
	ctx := t.Context()
	pr := newPushReceiver(t)
	req := &unical.WatchRequest{CalendarID: alice, Address: pr.URL, Token: "secret-1", Expiration: time.Now().Add(time.Hour)}
	w, err := f.p.Watch(ctx, s, req)
	if err != nil {
		t.Fatal(err)
	}
	if w.ID == "" || w.ResourceID == "" || w.Token != "secret-1" {
		t.Errorf("watch = %+v, want id, resourceId and our token", w)
	}
	if d := w.Expiration.Sub(req.Expiration); d < -2*time.Second || d > 2*time.Second {
		t.Errorf("expiration %v, want about %v", w.Expiration, req.Expiration)
	}

	want := func(kind unical.WatchChangeKind, id string) {
		t.Helper()
		res, err := f.p.ParseNotification(pr.next(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != http.StatusOK || len(res.Body) != 0 || len(res.Changes) != 1 ||
			res.Changes[0] != (unical.WatchChange{WatchID: id, Token: "secret-1", Kind: kind}) {
			t.Errorf("notification = %+v, want 200, no body, %s for %s", res, kind, id)
		}
	}
	want("sync", w.ID)
	if _, err := f.p.CreateEvent(ctx, s, alice, &unical.EventParams{Title: unical.Some("ping"), Start: zonedAt("2026-06-01T09:00:00Z", ""), End: zonedAt("2026-06-01T10:00:00Z", "")}); err != nil {
		t.Fatal(err)
	}
	want("changed", w.ID)

	renewed, err := f.p.RenewWatch(ctx, s, w, req)
	if err != nil {
		t.Fatal(err)
	}
	if renewed.ID == w.ID {
		t.Error("RenewWatch kept the channel id; Google channels cannot be extended")
	}
	want("sync", renewed.ID)
	chans := f.srv.Channels()
	if i := slices.IndexFunc(chans, func(c googletest.ChannelInfo) bool { return c.ID == w.ID }); i < 0 || !chans[i].Stopped {
		t.Errorf("the old channel is not stopped: %+v", chans)
	}
	if err := f.p.StopWatch(ctx, s, renewed); err != nil {
		t.Fatal(err)
	}
	if err := f.p.StopWatch(ctx, s, renewed); err != nil {
		t.Errorf("stopping a stopped channel: %v, want nil", err)
	}
}

func TestWatch_ErrNotHTTPS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.p.Watch(t.Context(), f.session(t, alice), &unical.WatchRequest{CalendarID: alice, Address: "http://127.0.0.1:1/hook", Token: "x"})
	if unical.ErrorCode(err) != unical.CodeInvalid {
		t.Errorf("Watch with an http address: %v, want CodeInvalid", err)
	}
}

func TestParseNotification(t *testing.T) {
	t.Parallel()
	p := newProvider(t, Config{})
	tests := []struct {
		name     string
		n        *unical.Notification
		want     *unical.WatchChange
		wantCode unical.Code
	}{
		{"Exists", &unical.Notification{Method: "POST", Header: map[string][]string{
			"X-Goog-Channel-Id": {"ch-1"}, "X-Goog-Channel-Token": {"tok"}, "X-Goog-Resource-State": {"exists"}, "X-Goog-Message-Number": {"7"},
		}}, &unical.WatchChange{WatchID: "ch-1", Token: "tok", Kind: "changed"}, ""},
		{"NotExists", &unical.Notification{Method: "POST", Header: map[string][]string{
			"X-Goog-Channel-Id": {"ch-1"}, "X-Goog-Resource-State": {"not_exists"},
		}}, &unical.WatchChange{WatchID: "ch-1", Kind: "changed"}, ""},
		{"LowerCaseKeys", &unical.Notification{Method: "POST", Header: map[string][]string{
			"x-goog-channel-id": {"ch-2"}, "x-goog-channel-token": {"t"}, "x-goog-resource-state": {"sync"},
		}}, &unical.WatchChange{WatchID: "ch-2", Token: "t", Kind: "sync"}, ""},
		{"ErrNoChannel", &unical.Notification{Method: "POST", Header: map[string][]string{"X-Goog-Resource-State": {"exists"}}}, nil, unical.CodeInvalid},
		{"ErrMethod", &unical.Notification{Method: "GET", Header: map[string][]string{
			"X-Goog-Channel-Id": {"ch-1"}, "X-Goog-Resource-State": {"exists"},
		}}, nil, unical.CodeInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := p.ParseNotification(tc.n)
			if tc.wantCode != "" {
				if unical.ErrorCode(err) != tc.wantCode {
					t.Errorf("ParseNotification() error %v, want %s", err, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != http.StatusOK || len(res.Changes) != 1 || res.Changes[0] != *tc.want {
				t.Errorf("ParseNotification() = %+v, want 200 and %+v", res, *tc.want)
			}
		})
	}
}

func TestQueryFreeBusy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	ctx := t.Context()
	for _, ev := range []googletest.Event{
		{Summary: "busy", Start: &googletest.EventDateTime{DateTime: "2026-06-01T10:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-06-01T11:00:00Z"}},
		{Summary: "free", Transparency: "transparent", Start: &googletest.EventDateTime{DateTime: "2026-06-01T12:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-06-01T13:00:00Z"}},
	} {
		f.srv.AddEvent(alice, ev)
	}
	q := &unical.FreeBusyQuery{Start: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC),
		TimeZone: "America/New_York", CalendarIDs: []string{alice}}
	got, err := f.p.QueryFreeBusy(ctx, s, q)
	if err != nil {
		t.Fatal(err)
	}
	busy := got[alice]
	if len(busy) != 1 || !busy[0].Start.Equal(time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)) || !busy[0].End.Equal(time.Date(2026, 6, 1, 11, 0, 0, 0, time.UTC)) {
		t.Fatalf("busy = %+v, want 10:00-11:00 UTC only", busy)
	}
	if _, off := busy[0].Start.Zone(); off != -4*3600 {
		t.Errorf("busy start offset %d s, want New York's -4 h (the requested zone)", off)
	}
	q.CalendarIDs = []string{alice, "nobody@example.com"}
	if _, err := f.p.QueryFreeBusy(ctx, s, q); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("QueryFreeBusy with an unknown calendar: %v, want CodeNotFound", err)
	}
}

// One freeBusy.query answers at most 50 calendars (calendarExpansionMax,
// "Maximum value is 50"); more are asked for in batches.
func TestQueryFreeBusy_ManyCalendars(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, alice)
	ids := []string{alice}
	for i := range 60 {
		ids = append(ids, f.srv.AddCalendar(alice, googletest.Calendar{Summary: fmt.Sprintf("c%d", i)}))
	}
	last := ids[len(ids)-1]
	f.srv.AddEvent(last, googletest.Event{Summary: "busy",
		Start: &googletest.EventDateTime{DateTime: "2026-06-01T10:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-06-01T11:00:00Z"}})
	q := &unical.FreeBusyQuery{Start: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC), CalendarIDs: ids}
	got, err := f.p.QueryFreeBusy(t.Context(), s, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) || len(got[last]) != 1 || len(got[alice]) != 0 {
		t.Fatalf("got %d calendars, last %v, first %v; want all %d, one busy period on the last", len(got), got[last], got[alice], len(ids))
	}
	if n := f.srv.RequestCount("POST", "/calendar/v3/freeBusy"); n != 2 {
		t.Errorf("freeBusy.query calls = %d, want 2 (50 + 11 calendars)", n)
	}
}
