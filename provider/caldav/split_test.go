package caldav_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// changeAfterCreate changes the resource at oldPath behind the provider's
// back right after the provider created a resource (If-None-Match: *),
// once: the moment between the two writes of a split.
type changeAfterCreate struct {
	t       *testing.T
	s       *davtest.Server
	oldPath atomic.Pointer[string]
}

func (c *changeAfterCreate) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodPut || r.Header.Get("If-None-Match") != "*" {
		return resp, err
	}
	if path := c.oldPath.Swap(nil); path != nil {
		got := c.s.Do(c.t, http.MethodGet, *path, "", nil)
		changed := strings.Replace(string(got.Body), "SUMMARY:Weekly", "SUMMARY:Changed elsewhere", 1)
		if put := c.s.Do(c.t, http.MethodPut, *path, changed, http.Header{"Content-Type": {"text/calendar; charset=utf-8"}}); put.StatusCode/100 != 2 {
			c.t.Errorf("changing %s behind the provider's back: %d", *path, put.StatusCode)
		}
	}
	return resp, err
}

// TestSplitSeriesLosesRace: when the old series changed between the read
// and the write of a split, the split is CodePrecondition and the new
// series it had written is gone again, so nothing is half-written.
func TestSplitSeriesLosesRace(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		rt := &changeAfterCreate{t: t, s: s}
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: &http.Client{Transport: rt, Timeout: 30 * time.Second}})
		sess := connect(t, p, s)
		calPath := s.NewCalendar(t, t.Name())
		cal := segment(calPath)
		start := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
		series, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{
			Title: unical.Some("Weekly"), Start: unical.Some(*unical.TimedAt(start)), End: unical.Some(*unical.TimedAt(start.Add(time.Hour))),
			Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=4"}),
		})
		if err != nil {
			t.Fatal(err)
		}
		at := start.AddDate(0, 0, 14)
		before, after, err := unical.SplitRecurrence(series.Recurrence, start, false, at, 0)
		if err != nil {
			t.Fatal(err)
		}
		old := calPath + series.ID + ".ics"
		rt.oldPath.Store(&old)
		_, err = p.SplitSeries(t.Context(), sess, cal, &unical.SeriesSplit{
			SeriesID: series.ID, At: at, Before: before,
			New: &unical.EventParams{Title: unical.Some("Weekly v2"), Start: unical.Some(*unical.TimedAt(at)), End: unical.Some(*unical.TimedAt(at.Add(time.Hour))), Recurrence: unical.Some(after)},
		})
		if got := unical.ErrorCode(err); got != unical.CodePrecondition {
			t.Fatalf("SplitSeries after a change elsewhere = %v, want %s", err, unical.CodePrecondition)
		}
		batch, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{})
		if err != nil {
			t.Fatal(err)
		}
		type seen struct {
			ID, Title  string
			Recurrence []string
		}
		var got []seen
		for _, e := range batch.Events {
			got = append(got, seen{e.ID, e.Title, e.Recurrence})
		}
		want := []seen{{series.ID, "Changed elsewhere", []string{"RRULE:FREQ=WEEKLY;COUNT=4"}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("calendar after the lost race (-want +got):\n%s", diff)
		}
	})
}
