package providertest

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// testWallClock writes local times that a daylight saving change skips or
// repeats: each is read as RFC 5545 §3.3.5 says (a skipped time moves
// forward by the gap, a repeated one is its first occurrence) and answered
// in its zone with the offset in effect at that instant.
func testWallClock(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	tests := []struct {
		name, zone string
		start, end string // written without an offset
		want       [2]unical.EventDateTime
	}{
		{
			// New York jumps from 02:00 to 03:00 on 10 March 2030.
			name: "Gap", zone: "America/New_York", start: "2030-03-10T02:30:00", end: "2030-03-10T04:00:00",
			want: [2]unical.EventDateTime{{DateTime: "2030-03-10T03:30:00-04:00"}, {DateTime: "2030-03-10T04:00:00-04:00"}},
		},
		{
			// Berlin goes back from 03:00 to 02:00 on 27 October 2030.
			name: "Overlap", zone: "Europe/Berlin", start: "2030-10-27T02:30:00", end: "2030-10-27T04:00:00",
			want: [2]unical.EventDateTime{{DateTime: "2030-10-27T02:30:00+02:00"}, {DateTime: "2030-10-27T04:00:00+01:00"}},
		},
		{
			// New York's repeated hour, 4 November 2029.
			name: "OverlapWest", zone: "America/New_York", start: "2029-11-04T01:30:00", end: "2029-11-04T03:00:00",
			want: [2]unical.EventDateTime{{DateTime: "2029-11-04T01:30:00-04:00"}, {DateTime: "2029-11-04T03:00:00-05:00"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			created := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
				Title: unical.Some(tc.name), Start: zoned(tc.start, tc.zone), End: zoned(tc.end, tc.zone),
			}))
			got := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, created.ID))
			want := tc.want
			want[0].TimeZone, want[1].TimeZone = tc.zone, tc.zone
			for what, e := range map[string]*unical.Event{"CreateEvent": created, "GetEvent": got} {
				if e.Start == nil || e.End == nil {
					t.Fatalf("%s: start %v end %v", what, e.Start, e.End)
				}
				if diff := cmp.Diff(want, [2]unical.EventDateTime{*e.Start, *e.End}); diff != "" {
					t.Errorf("%s of %s..%s in %s mismatch (-want +got):\n%s", what, tc.start, tc.end, tc.zone, diff)
				}
			}
		})
	}
}

// testSeriesFromGap starts a daily series at a local time that the first
// day's daylight saving change skips: that instance moves forward by the
// gap, and the later ones keep the time of day as written (RFC 5545
// §3.3.10 keeps the local time, §3.3.5 reads the skipped one).
func testSeriesFromGap(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	series := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Early"), Start: zoned("2030-03-10T02:30:00", "America/New_York"), End: zoned("2030-03-10T04:00:00", "America/New_York"),
		Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=3"}),
	}))
	from, to := time.Date(2030, 3, 9, 0, 0, 0, 0, time.UTC), time.Date(2030, 3, 14, 0, 0, 0, 0, time.UTC)
	starts := instanceStarts(t, h, cal, series.ID, from, to)
	want := []time.Time{
		time.Date(2030, 3, 10, 7, 30, 0, 0, time.UTC), // 03:30 EDT: moved forward by the gap
		time.Date(2030, 3, 11, 6, 30, 0, 0, time.UTC), // 02:30 EDT
		time.Date(2030, 3, 12, 6, 30, 0, 0, time.UTC),
	}
	if diff := cmp.Diff(want, starts); diff != "" {
		t.Errorf("instance starts of a daily 02:30 New York series from 10 March 2030 (-want +got):\n%s", diff)
	}
}

// testForeignZone writes an event in a zone other than its calendar's:
// it is answered in its own zone, with that zone's wall clock and offset,
// on create, on read and in a listing.
func testForeignZone(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	created := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("New York"), Start: zoned("2030-06-07T09:00:00", "America/New_York"), End: zoned("2030-06-07T10:00:00", "America/New_York"),
	}))
	got := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, created.ID))
	listed, _ := listAll(t, h, cal, unical.EventQuery{
		TimeMin: time.Date(2030, 6, 7, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2030, 6, 8, 0, 0, 0, 0, time.UTC), SingleEvents: true,
	})
	want := [2]unical.EventDateTime{
		{DateTime: "2030-06-07T09:00:00-04:00", TimeZone: "America/New_York"},
		{DateTime: "2030-06-07T10:00:00-04:00", TimeZone: "America/New_York"},
	}
	if len(listed) != 1 {
		t.Fatalf("the listing holds %d events, want 1", len(listed))
	}
	for what, e := range map[string]*unical.Event{"CreateEvent": created, "GetEvent": got, "ListEvents": listed[0]} {
		if e.Start == nil || e.End == nil {
			t.Fatalf("%s: start %v end %v", what, e.Start, e.End)
		}
		if diff := cmp.Diff(want, [2]unical.EventDateTime{*e.Start, *e.End}); diff != "" {
			t.Errorf("%s of a 09:00 New York event mismatch (-want +got):\n%s", what, diff)
		}
	}
}

// testEndedSeries lists a window through a Client over the provider,
// without expansion: a series that ended before the window is left out,
// one with an instance in it is kept, and so is an event in it.
func testEndedSeries(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	mk := func(title, start, end string, recurrence ...string) {
		params := &unical.EventParams{Title: unical.Some(title), Start: zoned(start, "UTC"), End: zoned(end, "UTC")}
		if len(recurrence) > 0 {
			params.Recurrence = unical.Some(recurrence)
		}
		must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, params))
	}
	mk("Ended", "2026-09-01T10:00:00Z", "2026-09-01T11:00:00Z", "RRULE:FREQ=DAILY;COUNT=3")
	mk("Running", "2026-09-01T12:00:00Z", "2026-09-01T13:00:00Z", "RRULE:FREQ=DAILY;COUNT=10")
	mk("Later", "2026-09-20T10:00:00Z", "2026-09-20T11:00:00Z", "RRULE:FREQ=WEEKLY")
	mk("Single", "2026-09-05T10:00:00Z", "2026-09-05T11:00:00Z")
	app, accountID := clientOver(t, h)
	page, err := app.ListEvents(ctxOf(t), accountID, cal, &unical.EventListParams{
		Start: time.Date(2026, 9, 4, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 9, 6, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatalf("ListEvents: %v", err)
	}
	if diff := cmp.Diff([]string{"Running", "Single"}, titles(page.Data)); diff != "" {
		t.Errorf("a plain listing of 4-6 September (-want +got):\n%s", diff)
	}
}

// instanceStarts lists the window expanded (by the provider, or by
// unical.ExpandEvents for the series it returns) and returns the instance
// starts in order, checking that each belongs to the series.
func instanceStarts(t *testing.T, h *Harness, cal, seriesID string, from, to time.Time) []time.Time {
	t.Helper()
	events, batch := listAll(t, h, cal, unical.EventQuery{TimeMin: from, TimeMax: to, SingleEvents: true})
	if !batch.Expanded {
		var err error
		if events, err = unical.ExpandEvents(events, from, to); err != nil {
			t.Fatalf("ExpandEvents: %v", err)
		}
	}
	var starts []time.Time
	for _, e := range events {
		if e.RecurringEventID != seriesID {
			t.Errorf("instance %s has recurringEventId %q, want %q", e.ID, e.RecurringEventID, seriesID)
		}
		starts = append(starts, instant(t, e.Start))
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
	return starts
}
