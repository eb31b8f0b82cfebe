package providertest

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// expanded lists the instances of a calendar in [from, to), expanding the
// series itself when the provider does not, as "start title" lines in
// start order.
func expanded(t *testing.T, h *Harness, cal string, from, to time.Time) ([]string, map[int64]*unical.Event) {
	t.Helper()
	events, batch := listAll(t, h, cal, unical.EventQuery{TimeMin: from, TimeMax: to, SingleEvents: true})
	if !batch.Expanded {
		var err error
		if events, err = unical.ExpandEvents(events, from, to); err != nil {
			t.Fatalf("ExpandEvents: %v", err)
		}
	}
	sort.Slice(events, func(i, j int) bool { return instant(t, events[i].Start).Before(instant(t, events[j].Start)) })
	var lines []string
	byOrig := map[int64]*unical.Event{}
	for _, e := range events {
		lines = append(lines, instant(t, e.Start).Format("01-02 15:04")+" "+e.Title)
		if e.OriginalStart != nil {
			byOrig[instant(t, e.OriginalStart).Unix()] = e
		}
	}
	return lines, byOrig
}

// testSplitSeries checks a [unical.SeriesSplitter]: the old series ends
// before the split with its later overrides gone, and the new series
// carries the overrides and cancellations it is given; a split without a
// new series ends the series there.
func testSplitSeries(t *testing.T, h *Harness) {
	splitter, ok := h.Provider.(unical.SeriesSplitter)
	if !ok {
		t.Skip("the provider is no unical.SeriesSplitter: the Client splits through its event methods")
	}
	cal := h.NewCalendar(t)
	week := func(n int) time.Time { return time.Date(2026, 5, 4+7*n, 10, 0, 0, 0, time.UTC) }
	series := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Weekly"), Start: timed("2026-05-04T10:00:00Z"), End: timed("2026-05-04T11:00:00Z"),
		Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=6"}),
	}))
	from, to := week(0).Add(-time.Hour), week(8)
	_, occs := expanded(t, h, cal, from, to)
	// An override after the split point, which must leave the old series.
	must[*unical.Event](t, "UpdateEvent")(h.Provider.UpdateEvent(ctxOf(t), h.Session, cal, occs[week(4).Unix()].ID, &unical.EventParams{Title: unical.Some("Old override")}))

	before, after, err := unical.SplitRecurrence(series.Recurrence, week(0), false, week(2), 0)
	if err != nil {
		t.Fatal(err)
	}
	created := must[*unical.Event](t, "SplitSeries")(splitter.SplitSeries(ctxOf(t), h.Session, cal, &unical.SeriesSplit{
		SeriesID: series.ID, At: week(2), Before: before,
		New: &unical.EventParams{Title: unical.Some("Weekly v2"), Start: timed("2026-05-18T10:00:00Z"), End: timed("2026-05-18T11:00:00Z"), Recurrence: unical.Some(after)},
		Exceptions: []unical.SplitException{
			{OriginalStart: week(4), Changes: &unical.EventParams{Title: unical.Some("Special")}},
			{OriginalStart: week(5), Cancelled: true},
		},
	}))
	if created == nil || created.ID == series.ID || created.Title != "Weekly v2" || !created.IsRecurring {
		t.Fatalf("SplitSeries returned %+v, want the new series", created)
	}
	got, _ := expanded(t, h, cal, from, to)
	want := []string{"05-04 10:00 Weekly", "05-11 10:00 Weekly", "05-18 10:00 Weekly v2", "05-25 10:00 Weekly v2", "06-01 10:00 Special"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the split (-want +got):\n%s", diff)
	}

	// Without a new series the split ends the series: the override on 1
	// June goes with it.
	before, _, err = unical.SplitRecurrence(created.Recurrence, week(2), false, week(4), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := splitter.SplitSeries(ctxOf(t), h.Session, cal, &unical.SeriesSplit{SeriesID: created.ID, At: week(4), Before: before}); err != nil {
		t.Fatalf("SplitSeries without a new series: %v", err)
	}
	got, _ = expanded(t, h, cal, from, to)
	if diff := cmp.Diff(want[:4], got); diff != "" {
		t.Errorf("after the ending split (-want +got):\n%s", diff)
	}
}
