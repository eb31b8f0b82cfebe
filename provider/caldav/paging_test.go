package caldav_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// meteredTransport counts the requests it sends and the bytes of their
// bodies and answers, and which of them asked for calendar data.
type meteredTransport struct {
	mu       sync.Mutex
	requests int
	bytes    int64
	dataAsks int // requests for calendar data: GETs and REPORTs naming calendar-data
}

func (m *meteredTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	m.bytes += int64(len(body) + len(answer))
	if req.Method == http.MethodGet || bytes.Contains(body, []byte("calendar-data")) {
		m.dataAsks++
	}
	return resp, nil
}

// since returns the requests, bytes and requests for calendar data sent
// since the counts were c.
func (m *meteredTransport) since(c [3]int64) [3]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return [3]int64{int64(m.requests) - c[0], m.bytes - c[1], int64(m.dataAsks) - c[2]}
}

func (m *meteredTransport) now() [3]int64 { return m.since([3]int64{}) }

// TestListEvents_PagesCostThePage lists a Radicale calendar of 2,000
// events in pages of 50, as the Client pages GET /v1/events at limit=50,
// and counts what goes over the wire: all the pages together cost at
// most three times one calendar-query REPORT reading the whole calendar
// (in bytes; in requests, one sync-collection and at most one multiget per
// page), a page asked for again reads no calendar data, an edit and a
// deletion made directly at the server show on the next request, and a
// window of a week reads that week.
func TestListEvents_PagesCostThePage(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a calendar with 2,000 events")
	}
	t.Parallel()
	// A server of its own: filling the calendar holds Radicale's storage
	// lock for seconds.
	s := davtest.Start(t, davtest.Radicale)
	const n, limit = 2000, 50
	path := s.NewCalendar(t, "paged")
	fill(t, s, path, n)
	cal := segment(path)
	meter := &meteredTransport{}
	p := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: &http.Client{Transport: meter, Timeout: time.Minute}})
	sess := connect(t, p, s)
	ctx := t.Context()

	// One full read: a calendar-query REPORT with every event's data.
	before := meter.now()
	full, err := (&http.Client{Transport: meter}).Do(mustRequest(t, s, "REPORT", path, `<?xml version="1.0" encoding="utf-8"?>`+
		`<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>`+
		`<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/></C:comp-filter></C:filter></C:calendar-query>`))
	if err != nil {
		t.Fatal(err)
	}
	full.Body.Close()
	fullRead := meter.since(before)
	if full.StatusCode != http.StatusMultiStatus || fullRead[1] < n*200 {
		t.Fatalf("full read: status %d, %d bytes; want 207 with the %d events", full.StatusCode, fullRead[1], n)
	}

	// Every page, as the Client asks for them.
	page := func(cursor string) *unical.EventBatch {
		t.Helper()
		batch, err := p.ListEvents(ctx, sess, cal, &unical.EventQuery{WantSync: true, PageSize: limit, PageCursor: cursor})
		if err != nil {
			t.Fatalf("ListEvents(page after %q): %v", cursor, err)
		}
		return batch
	}
	before = meter.now()
	var ids []string
	var cursors []string
	var last *unical.EventBatch
	for cursor := ""; ; {
		cursors = append(cursors, cursor)
		last = page(cursor)
		for _, e := range last.Events {
			ids = append(ids, e.ID)
		}
		if last.NextPageCursor == "" {
			break
		}
		if len(cursors) > n/limit+1 {
			t.Fatalf("still paging after %d pages", len(cursors))
		}
		cursor = last.NextPageCursor
	}
	paging := meter.since(before)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("ev%05d", i))
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Fatalf("events of all pages (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(last.NextSyncCursor, "sync:") {
		t.Errorf("last page's sync cursor %q, want a sync-collection token", last.NextSyncCursor)
	}
	pages := int64(len(cursors))
	t.Logf("one full read: %d request, %d bytes; %d pages of %d: %d requests, %d bytes (%.2f times the full read)",
		fullRead[0], fullRead[1], pages, limit, paging[0], paging[1], float64(paging[1])/float64(fullRead[1]))
	if paging[1] > 3*fullRead[1] {
		t.Errorf("paging cost %d bytes, more than 3 times the full read's %d", paging[1], fullRead[1])
	}
	if paging[0] > 2*pages+1 {
		t.Errorf("paging made %d requests for %d pages, want at most %d (a sync-collection and a multiget per page, and the first listing)", paging[0], pages, 2*pages+1)
	}

	// Page 2 again: nothing changed, so no calendar data is read.
	second := page(cursors[1])
	before = meter.now()
	again := page(cursors[1])
	if got := meter.since(before); got[2] != 0 || got[0] != 1 {
		t.Errorf("page 2 read again: %d requests, %d of them for calendar data; want 1 request, none for data", got[0], got[2])
	}
	if diff := cmp.Diff(second.Events, again.Events); diff != "" {
		t.Errorf("page 2 read again (-first +again):\n%s", diff)
	}

	// Edited and deleted directly at the server: the next request shows it.
	edited := strings.Replace(wrapICS(eventICS("ev00075", 75)), "SUMMARY:Event 75", "SUMMARY:Edited at the server", 1)
	if r := s.Do(t, http.MethodPut, path+"ev00075.ics", edited, http.Header{"Content-Type": {"text/calendar; charset=utf-8"}}); r.StatusCode/100 != 2 {
		t.Fatalf("PUT at the server: %d %s", r.StatusCode, r.Body)
	}
	if r := s.Do(t, http.MethodDelete, path+"ev00080.ics", "", nil); r.StatusCode/100 != 2 {
		t.Fatalf("DELETE at the server: %d %s", r.StatusCode, r.Body)
	}
	before = meter.now()
	after := page(cursors[1])
	titles := map[string]string{}
	for _, e := range after.Events {
		titles[e.ID] = e.Title
	}
	if titles["ev00075"] != "Edited at the server" {
		t.Errorf("page 2 after an edit at the server shows ev00075 as %q, want the edit", titles["ev00075"])
	}
	if _, ok := titles["ev00080"]; ok || len(after.Events) != limit {
		t.Errorf("page 2 after a deletion at the server holds %d events, ev00080 among them: %v", len(after.Events), ok)
	}
	if got := meter.since(before); got[0] != 2 {
		t.Errorf("page 2 after an edit: %d requests, want 2 (the changes, and the edited event's data)", got[0])
	}

	// A week: the server's time-range filter narrows what is read.
	// A provider of its own, so that the week is read from the server, not
	// from what the pages left in the cache.
	fresh := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: &http.Client{Transport: meter, Timeout: time.Minute}})
	freshSess := connect(t, fresh, s)
	from := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	week := func() []string {
		batch, err := fresh.ListEvents(ctx, freshSess, cal, &unical.EventQuery{TimeMin: from, TimeMax: from.AddDate(0, 0, 7), PageSize: limit})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range batch.Events {
			ids = append(ids, e.ID)
		}
		slices.Sort(ids)
		return ids
	}
	before = meter.now()
	got := week()
	weekRead := meter.since(before)
	if len(got) != 7*24 {
		t.Errorf("the week holds %d events, want %d (one an hour)", len(got), 7*24)
	}
	if weekRead[1] > fullRead[1]/5 {
		t.Errorf("a week cost %d bytes, more than a fifth of the calendar's %d", weekRead[1], fullRead[1])
	}
	before = meter.now()
	if diff := cmp.Diff(got, week()); diff != "" {
		t.Errorf("the week read again (-first +again):\n%s", diff)
	}
	if again := meter.since(before); again[2] != 0 {
		t.Errorf("the week read again made %d requests for calendar data, want none", again[2])
	}
}

// mustRequest is a request to the server at path as the test user.
func mustRequest(t *testing.T, s *davtest.Server, method, path, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/xml; charset=utf-8")
	req.Header.Set("Depth", "1")
	req.SetBasicAuth(s.Username, s.Password)
	return req
}
