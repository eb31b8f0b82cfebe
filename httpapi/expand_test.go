package httpapi_test

import (
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// newExpandServer is the test server with the CalDAV provider leaving
// expansion to the Client, as real CalDAV does; it returns the events path
// of the CalDAV calendar.
func newExpandServer(t *testing.T) (ts *testServer, acct, base string) {
	ts = MustNewServer(t)
	acct = ts.mustConnect(t)[unical.ProviderCalDAV]
	return ts, acct, "/v1/events/" + acct + "/" + esc("primary/"+davUser)
}

func timed(title, start, end string, recurrence ...string) map[string]any {
	body := map[string]any{"title": title, "start": map[string]any{"dateTime": start}, "end": map[string]any{"dateTime": end}}
	if len(recurrence) > 0 {
		body["recurrence"] = recurrence
	}
	return body
}

// walk lists path page by page with the given limit and returns every
// event, failing if a page repeats an event or the walk does not end. A
// timeZone in path is sent with every page: tokens do not carry it.
func walk(t *testing.T, ts *testServer, path, limit string) (events []unical.Event, pages int) {
	t.Helper()
	seen := map[string]bool{}
	next := path + "&limit=" + limit
	for pages = 1; pages <= 200; pages++ {
		var page unical.SyncPage[unical.Event]
		ts.must(t, "GET", next, nil).Into(t, &page)
		for _, e := range page.Data {
			if seen[e.ID] {
				t.Fatalf("page %d repeats %s", pages, e.ID)
			}
			seen[e.ID] = true
		}
		events = append(events, page.Data...)
		if page.NextPageToken == "" {
			if page.NextSyncToken == "" {
				t.Errorf("last page has no nextSyncToken")
			}
			return events, pages
		}
		next = pathOnly(path) + "?limit=" + limit + "&pageToken=" + url.QueryEscape(page.NextPageToken)
		if strings.Contains(path, "timeZone=Europe%2FBerlin") {
			next += "&timeZone=Europe%2FBerlin"
		}
	}
	t.Fatalf("%s: no last page after 200", path)
	return nil, 0
}

// pathOnly drops the query of an escaped request path.
func pathOnly(path string) string {
	p, _, _ := strings.Cut(path, "?")
	return p
}

// Paging an expanded listing with a small limit returns every instance
// once, in the same order as one big page, whatever the order asked for.
func TestExpandedPagingMatchesOnePage(t *testing.T) {
	t.Parallel()
	ts, _, base := newExpandServer(t)
	var standup unical.Event
	ts.must(t, "POST", base, timed("Standup", "2026-01-05T09:00:00Z", "2026-01-05T09:15:00Z", "RRULE:FREQ=DAILY;COUNT=20")).Into(t, &standup)
	// Same start as Standup on Mondays and Thursdays: ties go by id.
	ts.must(t, "POST", base, timed("Sync", "2026-01-05T09:00:00Z", "2026-01-05T10:00:00Z", "RRULE:FREQ=WEEKLY;BYDAY=MO,TH"))
	// Lasts 30 hours: instances that began before the window overlap it.
	ts.must(t, "POST", base, timed("Shift", "2026-01-03T08:00:00Z", "2026-01-04T14:00:00Z", "RRULE:FREQ=DAILY;INTERVAL=2"))
	ts.must(t, "POST", base, map[string]any{"title": "Gym day", "isAllDay": true,
		"start": map[string]any{"date": "2026-01-07"}, "end": map[string]any{"date": "2026-01-08"}, "recurrence": []string{"RRULE:FREQ=WEEKLY"}})
	ts.must(t, "POST", base, timed("Standup retro", "2026-01-12T09:00:00Z", "2026-01-12T09:30:00Z"))
	ts.must(t, "POST", base, timed("Trip", "2026-01-04T20:00:00Z", "2026-01-06T01:00:00Z"))
	ts.must(t, "POST", base, timed("Lunch", "2026-01-08T12:00:00Z", "2026-01-08T13:00:00Z"))

	window := "startDateTime=2026-01-06T00:00:00Z&endDateTime=2026-01-25T00:00:00Z"
	for _, query := range []string{
		"expandRecurrences=true&" + window,
		"expandRecurrences=true&orderBy=startTime&" + window,
		"expandRecurrences=true&orderBy=updated&" + window,
		"expandRecurrences=true&search=stand&timeZone=Europe%2FBerlin&" + window,
		"expandRecurrences=true&orderBy=startTime&search=gym&" + window,
	} {
		t.Run(query, func(t *testing.T) {
			whole, pages := walk(t, ts, base+"?"+query, "250")
			if pages != 1 || len(whole) < 3 {
				t.Fatalf("one page: %d pages, %d events", pages, len(whole))
			}
			paged, pages := walk(t, ts, base+"?"+query, "2")
			if pages < 2 {
				t.Errorf("limit 2 gave %d pages for %d events", pages, len(paged))
			}
			if diff := cmp.Diff(whole, paged); diff != "" {
				t.Errorf("paged listing differs from one page (-one +paged):\n%s", diff)
			}
		})
	}
	t.Run("occurrences", func(t *testing.T) {
		path := base + "/" + esc(standup.ID) + "/occurrences?" + window
		whole, _ := walk(t, ts, path, "250")
		paged, _ := walk(t, ts, path, "4")
		if len(whole) != 19 {
			t.Errorf("occurrences = %d, want 19", len(whole))
		}
		if diff := cmp.Diff(whole, paged); diff != "" {
			t.Errorf("paged occurrences differ from one page (-one +paged):\n%s", diff)
		}
	})
}

// allocated returns the bytes f allocated in the whole process (server
// included), from a collected heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	runtime.GC()
	return after.TotalAlloc - before.TotalAlloc
}

// A FREQ=SECONDLY series (31.6 million instances a year) cannot make a
// request hold memory in proportion to the window. Not parallel, so that
// the allocation count is this test's own.
func TestExpansionBoundsOverHTTP(t *testing.T) {
	ts, acct, base := newExpandServer(t)
	var series unical.Event
	ts.must(t, "POST", base, timed("tick", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z", "RRULE:FREQ=SECONDLY")).Into(t, &series)
	const maxAlloc = 64 << 20
	year := "startDateTime=2026-01-01T00:00:00Z&endDateTime=2027-01-01T00:00:00Z"

	for _, path := range []string{
		base + "?expandRecurrences=true&limit=250&" + year,
		base + "/" + esc(series.ID) + "/occurrences?limit=250&" + year,
	} {
		var page unical.SyncPage[unical.Event]
		alloc := allocated(func() { ts.must(t, "GET", path, nil).Into(t, &page) })
		if alloc > maxAlloc {
			t.Errorf("%s allocated %d MB, want under %d MB", path, alloc>>20, maxAlloc>>20)
		}
		if len(page.Data) != 250 || page.NextPageToken == "" {
			t.Fatalf("%s: %d events, nextPageToken %q", path, len(page.Data), page.NextPageToken)
		}
		var second unical.SyncPage[unical.Event]
		ts.must(t, "GET", pathOnly(path)+"?limit=250&pageToken="+url.QueryEscape(page.NextPageToken), nil).Into(t, &second)
		if len(second.Data) != 250 || second.Data[0].Start.DateTime != "2026-01-01T00:04:10Z" {
			t.Errorf("%s: second page starts %+v, want 250 events from 00:04:10", path, second.Data[0].Start)
		}
	}

	// A title search the series fails skips it without expanding it.
	var none unical.SyncPage[unical.Event]
	alloc := allocated(func() {
		ts.must(t, "GET", base+"?expandRecurrences=true&search=lunch&"+year, nil).Into(t, &none)
	})
	if len(none.Data) != 0 || none.NextPageToken != "" || none.NextSyncToken == "" {
		t.Errorf("search without matches = %d events, nextPageToken %q, nextSyncToken %q; want none, no page token, a sync token",
			len(none.Data), none.NextPageToken, none.NextSyncToken)
	}
	if alloc > maxAlloc {
		t.Errorf("search without matches allocated %d MB, want under %d MB", alloc>>20, maxAlloc>>20)
	}

	fb := func(end string, ids ...string) *response {
		return ts.do(t, "POST", "/v1/freeBusy/"+acct, map[string]any{
			"startDateTime": "2026-01-01T00:00:00Z", "endDateTime": end, "timeZone": "UTC", "calendarIds": ids,
		})
	}
	cal := "primary/" + davUser
	for _, tt := range []struct {
		what  string
		send  func() *response
		field string
	}{
		{"expanded window of 367 days", func() *response {
			return ts.do(t, "GET", base+"?expandRecurrences=true&startDateTime=2026-01-01T00:00:00Z&endDateTime=2027-01-03T00:00:00Z", nil)
		}, "endDateTime"},
		{"occurrences window of 367 days", func() *response {
			return ts.do(t, "GET", base+"/"+esc(series.ID)+"/occurrences?startDateTime=2026-01-01T00:00:00Z&endDateTime=2027-01-03T00:00:00Z", nil)
		}, "endDateTime"},
		{"orderBy=updated over a day of seconds", func() *response {
			return ts.do(t, "GET", base+"?expandRecurrences=true&orderBy=updated&startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-01-02T00:00:00Z", nil)
		}, "orderBy"},
		{"free/busy over a year of seconds", func() *response { return fb("2027-01-01T00:00:00Z", cal) }, "endDateTime"},
		{"free/busy with a calendar twice", func() *response { return fb("2026-01-01T01:00:00Z", cal, cal) }, "calendarIds"},
	} {
		var r *response
		alloc := allocated(func() { r = tt.send() })
		if r.Status != http.StatusBadRequest || r.Error(t).Field != tt.field {
			t.Errorf("%s = %d %s, want 400 naming %s", tt.what, r.Status, r.Body, tt.field)
		}
		if alloc > maxAlloc {
			t.Errorf("%s allocated %d MB, want under %d MB", tt.what, alloc>>20, maxAlloc>>20)
		}
	}
}

// The last page of an expanded listing ends with a sync token that
// returns what changed since, expanded in the listing's window.
func TestExpandedListingSync(t *testing.T) {
	t.Parallel()
	ts, _, base := newExpandServer(t)
	ts.must(t, "POST", base, timed("Standup", "2026-01-05T09:00:00Z", "2026-01-05T09:15:00Z", "RRULE:FREQ=DAILY"))
	window := "expandRecurrences=true&startDateTime=2026-01-06T00:00:00Z&endDateTime=2026-01-09T00:00:00Z"
	events, _ := walk(t, ts, base+"?"+window, "2")
	if len(events) != 3 {
		t.Fatalf("listing = %d events, want 3", len(events))
	}
	var last unical.SyncPage[unical.Event]
	ts.must(t, "GET", base+"?limit=250&"+window, nil).Into(t, &last)
	var review unical.Event
	ts.must(t, "POST", base, timed("Review", "2026-01-07T15:00:00Z", "2026-01-07T16:00:00Z", "RRULE:FREQ=WEEKLY")).Into(t, &review)
	var changed unical.SyncPage[unical.Event]
	ts.must(t, "GET", base+"?syncToken="+url.QueryEscape(last.NextSyncToken), nil).Into(t, &changed)
	var got []string
	for _, e := range changed.Data {
		got = append(got, e.RecurringEventID+" "+e.Start.DateTime)
	}
	want := []string{review.ID + " 2026-01-07T15:00:00Z"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sync after a new series (-want +got):\n%s", diff)
	}
}
