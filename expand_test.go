package unical_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// maxRequestAlloc bounds what one expanded listing or free/busy query may
// allocate in total: a FREQ=SECONDLY series over a year has 31.6 million
// instances, so anything proportional to the window is far above it.
const maxRequestAlloc = 64 << 20

// allocatedBy returns the bytes f allocated, measured from a collected
// heap (the total, so a peak inside f cannot hide).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	runtime.GC()
	return after.TotalAlloc - before.TotalAlloc
}

// mustCreateSecondly creates a FREQ=SECONDLY series of one-second events
// from 2026-01-01 in the CalDAV account, whose provider leaves expansion
// to the Client.
func (env *engineEnv) mustCreateSecondly(tb testing.TB) *unical.Event {
	tb.Helper()
	ev, err := env.App.CreateEvent(context.Background(), env.DavAccountID, env.DavCalendarID, &unical.EventParams{
		Title:      unical.Some("tick"),
		Start:      unical.Some(unical.EventDateTime{DateTime: "2026-01-01T00:00:00Z"}),
		End:        unical.Some(unical.EventDateTime{DateTime: "2026-01-01T00:00:01Z"}),
		Recurrence: unical.Some([]string{"RRULE:FREQ=SECONDLY"}),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ev
}

var (
	yearStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	yearEnd   = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
)

// A whole year of a FREQ=SECONDLY series comes in bounded pages, and each
// page resumes where the previous one stopped instead of expanding the
// window again from its start.
func TestExpandedListingIsBoundedAndResumes(t *testing.T) {
	env := mustNewEngineEnv(t, nil)
	env.mustCreateSecondly(t)
	ctx := context.Background()
	const limit = 100
	params := &unical.EventListParams{Start: yearStart, End: yearEnd, ExpandRecurrences: true, Limit: limit}
	next := yearStart
	for page := range 5 {
		var got *unical.SyncPage[*unical.Event]
		var err error
		built := unical.ExpandedInstancesForTest()
		alloc := allocatedBy(func() { got, err = env.App.ListEvents(ctx, env.DavAccountID, env.DavCalendarID, params) })
		built = unical.ExpandedInstancesForTest() - built
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if alloc > maxRequestAlloc {
			t.Errorf("page %d allocated %d MB, want under %d MB", page, alloc>>20, maxRequestAlloc>>20)
		}
		// The page's instances, the one after it (to know that more
		// follow), two read ahead to order equal starts by id, and the
		// last one of the previous page, found again at the position the
		// token carries. Expanding earlier pages again would be hundreds.
		if built > limit+4 {
			t.Errorf("page %d built %d instances, want at most %d", page, built, limit+4)
		}
		if len(got.Data) != limit || got.NextPageToken == "" {
			t.Fatalf("page %d: %d events, nextPageToken %q; want %d and a token", page, len(got.Data), got.NextPageToken, limit)
		}
		for i, e := range got.Data {
			if want := next.Format(time.RFC3339); e.Start.DateTime != want {
				t.Fatalf("page %d event %d starts %s, want %s", page, i, e.Start.DateTime, want)
			}
			next = next.Add(time.Second)
		}
		params = &unical.EventListParams{PageToken: got.NextPageToken, Limit: limit}
	}
}

func TestExpandedWindowLimit(t *testing.T) {
	env := mustNewEngineEnv(t, nil)
	series := env.mustCreateSecondly(t)
	ctx := context.Background()
	long := yearStart.Add(unical.MaxExpandWindow + time.Second)
	_, err := env.App.ListEvents(ctx, env.DavAccountID, env.DavCalendarID, &unical.EventListParams{Start: yearStart, End: long, ExpandRecurrences: true})
	checkInvalid(t, "events", err, "endDateTime")
	_, err = env.App.ListOccurrences(ctx, env.DavAccountID, env.DavCalendarID, series.ID, &unical.OccurrenceListParams{Start: yearStart, End: long})
	checkInvalid(t, "occurrences", err, "endDateTime")
	// Without expansion there is nothing to bound.
	if _, err := env.App.ListEvents(ctx, env.DavAccountID, env.DavCalendarID, &unical.EventListParams{Start: yearStart, End: long}); err != nil {
		t.Errorf("unexpanded listing over %v: %v", long.Sub(yearStart), err)
	}
	// Occurrences of a whole year come in a bounded page too.
	var page *unical.SyncPage[*unical.Event]
	alloc := allocatedBy(func() {
		page, err = env.App.ListOccurrences(ctx, env.DavAccountID, env.DavCalendarID, series.ID, &unical.OccurrenceListParams{Start: yearStart, End: yearStart.Add(unical.MaxExpandWindow), Limit: unical.MaxPageSize})
	})
	if err != nil || len(page.Data) != unical.MaxPageSize || page.NextPageToken == "" {
		t.Fatalf("occurrences of a year: err %v, page %+v", err, page)
	}
	if alloc > maxRequestAlloc {
		t.Errorf("occurrences allocated %d MB, want under %d MB", alloc>>20, maxRequestAlloc>>20)
	}
	if e := page.Data[0]; e.RecurringEventID != series.ID || e.IsRecurring || !e.IsException {
		t.Errorf("first occurrence = %+v, want an instance of %s", e, series.ID)
	}
}

func TestFreeBusyBounds(t *testing.T) {
	env := mustNewEngineEnv(t, nil)
	env.mustCreateSecondly(t)
	ctx := context.Background()
	query := func(end time.Time, ids ...string) error {
		_, err := env.App.QueryFreeBusy(ctx, env.DavAccountID, &unical.FreeBusyParams{
			StartDateTime: yearStart.Format(time.RFC3339), EndDateTime: end.Format(time.RFC3339), TimeZone: "UTC", CalendarIDs: ids,
		})
		return err
	}
	var err error
	alloc := allocatedBy(func() { err = query(yearEnd, env.DavCalendarID) })
	checkInvalid(t, "a year of seconds", err, "endDateTime")
	if alloc > maxRequestAlloc {
		t.Errorf("free/busy allocated %d MB, want under %d MB", alloc>>20, maxRequestAlloc>>20)
	}
	checkInvalid(t, "duplicate calendar", query(yearStart.Add(time.Hour), env.DavCalendarID, env.DavCalendarID), "calendarIds")
	checkInvalid(t, "367 days", query(yearStart.Add(367*24*time.Hour), env.DavCalendarID), "endDateTime")
	// A short window is answered: one-second instances that touch merge.
	res, err := env.App.QueryFreeBusy(ctx, env.DavAccountID, &unical.FreeBusyParams{
		StartDateTime: "2026-03-01T10:00:00Z", EndDateTime: "2026-03-01T11:00:00Z", TimeZone: "UTC", CalendarIDs: []string{env.DavCalendarID},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []unical.BusySlot{{Start: unical.EventDateTime{DateTime: "2026-03-01T10:00:00Z", TimeZone: "UTC"}, End: unical.EventDateTime{DateTime: "2026-03-01T11:00:00Z", TimeZone: "UTC"}}}
	if diff := cmp.Diff(want, res[0].BusySlots); diff != "" {
		t.Errorf("busy slots of an hour (-want +got):\n%s", diff)
	}
}

func checkInvalid(tb testing.TB, what string, err error, field string) {
	tb.Helper()
	var ue *unical.Error
	if !asError(err, &ue) || ue.Code != unical.CodeInvalid || ue.Field != field {
		tb.Errorf("%s: err = %v, want CodeInvalid naming %s", what, err, field)
	}
}

// A rule that expansion would refuse is refused when written, naming the
// line, rather than breaking every later expanded listing.
func TestUnexpandableRuleRefusedOnWrite(t *testing.T) {
	env := mustNewEngineEnv(t, nil)
	ctx := context.Background()
	hours, minutes := "0", "0"
	for i := 1; i < 60; i++ {
		if i < 24 {
			hours += "," + strconv.Itoa(i)
		}
		minutes += "," + strconv.Itoa(i)
	}
	for _, rule := range []string{
		"RRULE:FREQ=YEARLY;BYDAY=MO;BYHOUR=" + hours + ";BYMINUTE=" + minutes + ";BYSECOND=" + minutes,
		"RRULE:FREQ=MINUTELY;BYHOUR=9;COUNT=5000000",
	} {
		_, err := env.App.CreateEvent(ctx, env.DavAccountID, env.DavCalendarID, &unical.EventParams{
			Title:      unical.Some("too much"),
			Start:      unical.Some(unical.EventDateTime{DateTime: "2026-01-05T09:00:00Z"}),
			End:        unical.Some(unical.EventDateTime{DateTime: "2026-01-05T09:00:01Z"}),
			Recurrence: unical.Some([]string{"EXDATE:20260106T090000Z", rule}),
		})
		checkInvalid(t, rule[:30], err, "recurrence[1]")
	}
}
