package microsoft

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/providertest"
)

// noDeltaTransport answers every calendarView/delta request as Graph
// answers a route it does not serve (400 BadRequest), and passes the rest
// on.
type noDeltaTransport struct {
	base    http.RoundTripper
	refused atomic.Int64
}

func (rt *noDeltaTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/calendarView/delta") {
		return rt.base.RoundTrip(req)
	}
	rt.refused.Add(1)
	body := `{"error":{"code":"BadRequest","message":"Resource not found for the segment 'delta'.","innerError":{"request-id":"r","date":"2026-01-01T00:00:00"}}}`
	return &http.Response{
		StatusCode: http.StatusBadRequest, Status: "400 Bad Request", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(strings.NewReader(body)),
		Request: req,
	}, nil
}

// newNoDeltaFixture is a fixture whose provider never gets a delta answer.
func newNoDeltaFixture(t *testing.T) (*fixture, *noDeltaTransport) {
	t.Helper()
	f := newFixture(t)
	rt := &noDeltaTransport{base: f.srv.Client().Transport}
	p, err := New(Config{HTTPClient: &http.Client{Transport: rt, Timeout: 30 * time.Second}, MaxRetryWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.p = p
	return f, rt
}

// TestConformanceWithoutDelta runs the conformance suite with Graph
// refusing delta, so every sync goes through snapshot cursors. Snapshots
// do not expire, so the expired-cursor case is skipped.
func TestConformanceWithoutDelta(t *testing.T) {
	providertest.Run(t, func(t *testing.T) *providertest.Harness {
		f, _ := newNoDeltaFixture(t)
		s, _ := f.session(t)
		return &providertest.Harness{
			Provider: f.p,
			Session:  s,
			NewCalendar: func(t *testing.T) string {
				cal, err := f.p.CreateCalendar(t.Context(), s, &unical.CalendarParams{Name: unical.Some("Test " + t.Name())})
				if err != nil {
					t.Fatal(err)
				}
				return cal.ID
			},
			Lacks: map[string]string{"hexColor": "Graph's hexColor is read-only"},
		}
	})
}

// TestSnapshotSync follows a series through snapshot cursors: a removed
// occurrence comes back cancelled, and a cursor that cannot be read is
// CodeGone.
func TestSnapshotSync(t *testing.T) {
	t.Parallel()
	f, rt := newNoDeltaFixture(t)
	s, _ := f.session(t)
	def := f.srv.DefaultCalendarID(f.userID)
	series, err := f.p.CreateEvent(t.Context(), s, def, &unical.EventParams{
		Title:      unical.Some("standup"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2026-03-02T09:00:00", TimeZone: "Europe/Berlin"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2026-03-02T09:15:00", TimeZone: "Europe/Berlin"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=5"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	window := unical.EventQuery{TimeMin: mustTime(t, "2026-03-01T00:00:00Z"), TimeMax: mustTime(t, "2026-04-01T00:00:00Z"), SingleEvents: true, WantSync: true}
	first, err := f.p.ListEvents(t.Context(), s, def, &window)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Events) != 5 || !strings.HasPrefix(first.NextSyncCursor, cursorSnapshot) || rt.refused.Load() != 1 {
		t.Fatalf("listing: %d events, cursor %.10q, %d delta requests refused", len(first.Events), first.NextSyncCursor, rt.refused.Load())
	}
	third := first.Events[2]
	if err := f.p.DeleteEvent(t.Context(), s, def, third.ID); err != nil {
		t.Fatal(err)
	}
	changes, err := f.p.ListEvents(t.Context(), s, def, &unical.EventQuery{SyncCursor: first.NextSyncCursor, WantSync: true})
	if err != nil {
		t.Fatal(err)
	}
	cancelled := false
	for _, e := range changes.Events {
		if e.ID == third.ID && e.IsCancelled {
			cancelled = true
		}
	}
	if !cancelled || !changes.Expanded || changes.NextSyncCursor == "" {
		t.Errorf("sync after deleting occurrence %s: %+v", third.ID, changes)
	}
	again, err := f.p.ListEvents(t.Context(), s, def, &unical.EventQuery{SyncCursor: changes.NextSyncCursor, WantSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Events) != 0 {
		t.Errorf("a sync with no changes returned %d events", len(again.Events))
	}
	if _, err := f.p.UpdateEvent(t.Context(), s, def, series.ID, &unical.EventParams{Title: unical.Some("daily standup")}); err != nil {
		t.Fatal(err)
	}
	renamed, err := f.p.ListEvents(t.Context(), s, def, &unical.EventQuery{SyncCursor: again.NextSyncCursor, WantSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(renamed.Events) != 4 || renamed.Events[0].Title != "daily standup" {
		t.Errorf("sync after renaming the series: %d events, first %+v", len(renamed.Events), renamed.Events)
	}
	for _, bad := range []string{cursorSnapshot + "!!", cursorSnapshot + "AAAA", "x:whatever"} {
		_, err := f.p.ListEvents(t.Context(), s, def, &unical.EventQuery{SyncCursor: bad, WantSync: true})
		if unical.ErrorCode(err) != unical.CodeGone {
			t.Errorf("cursor %q: %v; want CodeGone", bad, err)
		}
	}
}
