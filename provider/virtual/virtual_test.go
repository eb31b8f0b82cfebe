package virtual

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
)

func eventParams(title string) *unical.EventParams {
	return &unical.EventParams{
		Title: unical.Some(title),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00Z", TimeZone: "UTC"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2026-05-04T10:00:00Z", TimeZone: "UTC"}),
	}
}

// syncAll lists a calendar from cursor ("" for everything) to its end and
// returns the titles of live events and the ids of cancelled ones, sorted,
// and the next cursor.
func syncAll(t *testing.T, p *Provider, s *unical.Session, calendarID, cursor string) (live, cancelled []string, next string, err error) {
	t.Helper()
	page := ""
	for range 50 {
		batch, err := p.ListEvents(t.Context(), s, calendarID, &unical.EventQuery{SyncCursor: cursor, WantSync: true, PageCursor: page, PageSize: 7})
		if err != nil {
			return nil, nil, "", err
		}
		for _, e := range batch.Events {
			if e.IsCancelled {
				cancelled = append(cancelled, e.ID)
			} else {
				live = append(live, e.Title)
			}
		}
		if batch.NextPageCursor == "" {
			sort.Strings(live)
			sort.Strings(cancelled)
			return live, cancelled, batch.NextSyncCursor, nil
		}
		page = batch.NextPageCursor
	}
	t.Fatal("more than 50 pages")
	return nil, nil, "", nil
}

// TestCalendars covers the primary calendar that exists without a write,
// created calendars in creation order, and the CodeNotFound and
// CodeConflict answers.
func TestCalendars(t *testing.T) {
	t.Parallel()
	p, store, s := newTestAccount(t)
	ctx := t.Context()
	primaryCal := unical.Calendar{ID: PrimaryCalendarID, Name: s.Email, IsPrimary: true, TimeZone: "UTC", InviteEmail: s.Email, AllowedOnlineMeetingProviders: []string{}}
	got, err := p.ListCalendars(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]*unical.Calendar{&primaryCal}, got); d != "" {
		t.Errorf("ListCalendars() of a new account mismatch (-want +got):\n%s", d)
	}
	var created []*unical.Calendar
	for _, name := range []string{"Zeta", "Alpha"} {
		c, err := p.CreateCalendar(ctx, s, &unical.CalendarParams{Name: unical.Some(name)})
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, c)
	}
	// Writing to the primary calendar stores it; it stays first.
	if _, err := p.CreateEvent(ctx, s, PrimaryCalendarID, eventParams("Standup")); err != nil {
		t.Fatal(err)
	}
	got, err = p.ListCalendars(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	want := []*unical.Calendar{&primaryCal, created[0], created[1]}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ListCalendars() mismatch (-want +got):\n%s", d)
	}
	if err := p.DeleteCalendar(ctx, s, PrimaryCalendarID); unical.ErrorCode(err) != unical.CodeConflict {
		t.Errorf("DeleteCalendar(primary) = %v, want CodeConflict", err)
	}
	for _, id := range []string{"cal_unknown", "", "bad\x00id"} {
		if _, err := p.GetCalendar(ctx, s, id); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("GetCalendar(%q) = %v, want CodeNotFound", id, err)
		}
		if err := p.DeleteCalendar(ctx, s, id); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("DeleteCalendar(%q) = %v, want CodeNotFound", id, err)
		}
	}
	// Another account of the application sees none of these calendars.
	now := time.Now().UTC()
	other := &unical.AccountRecord{Account: unical.Account{ID: "acc_desk", ApplicationID: s.ApplicationID, Email: "desk@rooms.example.com",
		ProviderType: unical.ProviderVirtual, Status: unical.AccountStatusActive, CreatedAt: now, UpdatedAt: now}}
	if err := store.CreateAccount(ctx, other); err != nil {
		t.Fatal(err)
	}
	os := &unical.Session{AccountID: other.ID, ApplicationID: other.ApplicationID, Email: other.Email}
	if _, err := p.GetCalendar(ctx, os, created[0].ID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetCalendar(another account's calendar) = %v, want CodeNotFound", err)
	}
	if live, _, _, err := syncAll(t, p, os, PrimaryCalendarID, ""); err != nil || len(live) != 0 {
		t.Errorf("events of the other account's primary calendar = %v, %v; want none", live, err)
	}
}

// TestManyEvents writes 5,000 events to one calendar, twice the old
// limit of one record per calendar, and lists them all.
func TestManyEvents(t *testing.T) {
	t.Parallel()
	p, _, s := newTestAccount(t)
	ctx := t.Context()
	const n = 5000
	want := make([]string, 0, n)
	for i := range n {
		title := fmt.Sprintf("event %04d", i)
		if _, err := p.CreateEvent(ctx, s, PrimaryCalendarID, eventParams(title)); err != nil {
			t.Fatalf("CreateEvent() number %d: %v", i+1, err)
		}
		want = append(want, title)
	}
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		if page > n/unical.MaxPageSize+1 {
			t.Fatal("too many pages")
		}
		batch, err := p.ListEvents(ctx, s, PrimaryCalendarID, &unical.EventQuery{PageCursor: cursor, PageSize: unical.MaxPageSize})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range batch.Events {
			got = append(got, e.Title)
		}
		if cursor = batch.NextPageCursor; cursor == "" {
			break
		}
	}
	sort.Strings(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ListEvents() of %d events mismatch (-want +got):\n%s", n, d)
	}
}

// TestForgottenTombstones checks the bound on remembered deletions: past
// it the oldest are forgotten, a cursor that could miss one answers
// CodeGone, and a newer cursor still reports exactly what changed.
func TestForgottenTombstones(t *testing.T) {
	t.Parallel()
	p, _, s := newTestAccount(t)
	p.maxTombstones = 4
	ctx := t.Context()
	var ids []string
	for i := range 6 {
		e, err := p.CreateEvent(ctx, s, PrimaryCalendarID, eventParams(fmt.Sprint("event ", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	_, _, before, err := syncAll(t, p, s, PrimaryCalendarID, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:4] {
		if err := p.DeleteEvent(ctx, s, PrimaryCalendarID, id); err != nil {
			t.Fatal(err)
		}
	}
	_, cancelled, afterFour, err := syncAll(t, p, s, PrimaryCalendarID, before)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), ids[:4]...)
	sort.Strings(want)
	if d := cmp.Diff(want, cancelled); d != "" {
		t.Errorf("deletions within the bound mismatch (-want +got):\n%s", d)
	}
	// The fifth deletion passes the bound: the three oldest go.
	if err := p.DeleteEvent(ctx, s, PrimaryCalendarID, ids[4]); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := syncAll(t, p, s, PrimaryCalendarID, before); unical.ErrorCode(err) != unical.CodeGone {
		t.Errorf("sync from before the forgotten deletions = %v, want CodeGone", err)
	}
	live, cancelled, _, err := syncAll(t, p, s, PrimaryCalendarID, afterFour)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 0 || !cmp.Equal(cancelled, []string{ids[4]}) {
		t.Errorf("sync from after the fourth deletion = live %v, cancelled %v; want only %s cancelled", live, cancelled, ids[4])
	}
	live, cancelled, _, err = syncAll(t, p, s, PrimaryCalendarID, "")
	if err != nil || !cmp.Equal(live, []string{"event 5"}) || len(cancelled) != 0 {
		t.Errorf("full listing = live %v, cancelled %v, %v; want only event 5", live, cancelled, err)
	}
	for _, bad := range []string{"v:999", "v:x", "garbage"} {
		if _, _, _, err := syncAll(t, p, s, PrimaryCalendarID, bad); unical.ErrorCode(err) != unical.CodeGone {
			t.Errorf("sync from %q = %v, want CodeGone", bad, err)
		}
	}
}

// TestConcurrentReplicas writes one calendar from two providers on one
// Store at once, as two unicald replicas would: compare-and-set retries
// keep every event.
func TestConcurrentReplicas(t *testing.T) {
	t.Parallel()
	p1, store, s := newTestAccount(t)
	p2 := New(Config{Store: store})
	const writers, each = 4, 5
	var wg sync.WaitGroup
	for w := range writers {
		p := p1
		if w%2 == 1 {
			p = p2
		}
		wg.Go(func() {
			for i := range each {
				if _, err := p.CreateEvent(t.Context(), s, PrimaryCalendarID, eventParams(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Errorf("CreateEvent(): %v", err)
				}
			}
		})
	}
	wg.Wait()
	live, _, _, err := syncAll(t, p1, s, PrimaryCalendarID, "")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for w := range writers {
		for i := range each {
			want = append(want, fmt.Sprintf("w%d-%d", w, i))
		}
	}
	sort.Strings(want)
	if d := cmp.Diff(want, live); d != "" {
		t.Errorf("events after concurrent writes mismatch (-want +got):\n%s", d)
	}
}

// TestInstanceSync checks that edits of single occurrences reach sync
// cursors: a moved instance as a change, a cancelled one as isCancelled.
func TestInstanceSync(t *testing.T) {
	t.Parallel()
	p, _, s := newTestAccount(t)
	ctx := t.Context()
	params := eventParams("Daily")
	params.Recurrence = unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=3"})
	series, err := p.CreateEvent(ctx, s, PrimaryCalendarID, params)
	if err != nil {
		t.Fatal(err)
	}
	_, _, cursor, err := syncAll(t, p, s, PrimaryCalendarID, "")
	if err != nil {
		t.Fatal(err)
	}
	moved, cancelled := series.ID+"_20260505T090000Z", series.ID+"_20260506T090000Z"
	if _, err := p.UpdateEvent(ctx, s, PrimaryCalendarID, moved, &unical.EventParams{Title: unical.Some("Daily (moved)")}); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteEvent(ctx, s, PrimaryCalendarID, cancelled); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteEvent(ctx, s, PrimaryCalendarID, cancelled); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("DeleteEvent(cancelled instance) = %v, want CodeNotFound", err)
	}
	if _, err := p.UpdateEvent(ctx, s, PrimaryCalendarID, series.ID+"_20260507T090000Z", eventParams("past the end")); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("UpdateEvent(instance after the last) = %v, want CodeNotFound", err)
	}
	live, gone, _, err := syncAll(t, p, s, PrimaryCalendarID, cursor)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(live, []string{"Daily (moved)"}) || !cmp.Equal(gone, []string{cancelled}) {
		t.Errorf("sync after instance edits = live %v, cancelled %v; want the moved instance and %s cancelled", live, gone, cancelled)
	}
}

// TestRespondToEvent_MovesETag shows that an answer is a change like any
// other (issue 21): the event's ETag and updatedAt move.
func TestRespondToEvent_MovesETag(t *testing.T) {
	t.Parallel()
	p, _, s := newTestAccount(t)
	ctx := t.Context()
	clock := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return clock }
	params := eventParams("Review")
	params.Attendees = unical.Some([]unical.Attendee{{Email: s.Email}})
	created, err := p.CreateEvent(ctx, s, PrimaryCalendarID, params)
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Hour)
	if err := p.RespondToEvent(ctx, s, PrimaryCalendarID, created.ID, unical.ResponseAccepted); err != nil {
		t.Fatal(err)
	}
	got, err := p.GetEvent(ctx, s, PrimaryCalendarID, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag == created.ETag {
		t.Errorf("the ETag stayed %s after the answer", got.ETag)
	}
	if want := unical.FormatTimestamp(clock); got.UpdatedAt != want {
		t.Errorf("updatedAt = %s after the answer, want %s", got.UpdatedAt, want)
	}
}

// TestMigration reads a calendar stored the old way, with its events in
// its own record: the events are moved to records of their own, and
// listing, sync cursors and writes go on as before.
func TestMigration(t *testing.T) {
	t.Parallel()
	p, store, s := newTestAccount(t)
	ctx := t.Context()
	b := eventbook.New()
	b.Create("evtold1", 1, eventParams("kept"), s.Email, time.Now())
	b.Create("evtold2", 2, eventParams("deleted"), s.Email, time.Now())
	if err := b.Delete("evtold2", 3); err != nil {
		t.Fatal(err)
	}
	old := map[string]any{"calendar": primaryCalendar(s), "book": b, "version": 3}
	data, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutRecord(ctx, s.ApplicationID, s.AccountID, collection, PrimaryCalendarID, data, 0); err != nil {
		t.Fatal(err)
	}
	live, _, _, err := syncAll(t, p, s, PrimaryCalendarID, "")
	if err != nil || !cmp.Equal(live, []string{"kept"}) {
		t.Fatalf("listing after the upgrade = %v, %v; want the kept event", live, err)
	}
	_, cancelled, _, err := syncAll(t, p, s, PrimaryCalendarID, "v:2")
	if err != nil || !cmp.Equal(cancelled, []string{"evtold2"}) {
		t.Errorf("sync from a cursor issued before the upgrade = cancelled %v, %v; want evtold2", cancelled, err)
	}
	rec, err := store.GetRecord(ctx, s.ApplicationID, s.AccountID, collection, PrimaryCalendarID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rec.Data), `"book"`) {
		t.Errorf("the calendar record still holds its events: %s", rec.Data)
	}
	recs, err := store.ListRecords(ctx, s.ApplicationID, s.AccountID, eventCollection, PrimaryCalendarID+"/", "", 0)
	if err != nil || len(recs) != 2 {
		t.Errorf("event records after the upgrade = %d, %v; want 2", len(recs), err)
	}
	if _, err := p.CreateEvent(ctx, s, PrimaryCalendarID, eventParams("new")); err != nil {
		t.Fatal(err)
	}
	if live, _, _, err := syncAll(t, p, s, PrimaryCalendarID, ""); err != nil || !cmp.Equal(live, []string{"kept", "new"}) {
		t.Errorf("listing after a write = %v, %v; want kept and new", live, err)
	}
}

// An event stored before writes added offsets (a timed start and end as
// the client wrote them, without one) is answered with its zone's offset
// at that instant by every read, as a new write is, and left as stored
// until it is written again.
func TestStoredWithoutOffset(t *testing.T) {
	t.Parallel()
	p, store, s := newTestAccount(t)
	ctx := t.Context()
	created, err := p.CreateEvent(ctx, s, PrimaryCalendarID, eventParams("old"))
	if err != nil {
		t.Fatal(err)
	}
	key := eventKey(PrimaryCalendarID, created.ID)
	rec, err := store.GetRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, key)
	if err != nil {
		t.Fatal(err)
	}
	var e eventbook.Entry
	if err := json.Unmarshal(rec.Data, &e); err != nil {
		t.Fatal(err)
	}
	e.Event.Start = &unical.EventDateTime{DateTime: "2026-07-06T09:00:00", TimeZone: "Europe/Berlin"}
	e.Event.End = &unical.EventDateTime{DateTime: "2026-07-06T10:30:00"} // no zone: UTC
	old, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, key, old, rec.Version); err != nil {
		t.Fatal(err)
	}

	want := []*unical.EventDateTime{
		{DateTime: "2026-07-06T09:00:00+02:00", TimeZone: "Europe/Berlin"},
		{DateTime: "2026-07-06T10:30:00Z"},
	}
	got, err := p.GetEvent(ctx, s, PrimaryCalendarID, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, []*unical.EventDateTime{got.Start, got.End}); diff != "" {
		t.Errorf("GetEvent start and end (-want +got):\n%s", diff)
	}
	page, err := p.ListEvents(ctx, s, PrimaryCalendarID, &unical.EventQuery{PageSize: 10})
	if err != nil || len(page.Events) != 1 {
		t.Fatalf("ListEvents = %+v, %v; want the one event", page, err)
	}
	if diff := cmp.Diff(want, []*unical.EventDateTime{page.Events[0].Start, page.Events[0].End}); diff != "" {
		t.Errorf("ListEvents start and end (-want +got):\n%s", diff)
	}
	if rec, err := store.GetRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, key); err != nil || !strings.Contains(string(rec.Data), `"2026-07-06T09:00:00"`) {
		t.Errorf("a read rewrote the stored event: %s, %v", rec.Data, err)
	}
}

// TestWindowListing lists a window of a calendar that holds events on
// both sides of it, a deleted one, an all-day one and a series with an
// override moved into the window and one moved out of it: the window's
// single events, the series and its override in the window are answered,
// as when every event was decoded (loadAll skips the others early).
func TestWindowListing(t *testing.T) {
	t.Parallel()
	p, _, s := newTestAccount(t)
	ctx := t.Context()
	at := func(title, start, end string) *unical.EventParams {
		return &unical.EventParams{Title: unical.Some(title),
			Start: unical.Some(unical.EventDateTime{DateTime: start, TimeZone: "UTC"}), End: unical.Some(unical.EventDateTime{DateTime: end, TimeZone: "UTC"})}
	}
	create := func(params *unical.EventParams) *unical.Event {
		t.Helper()
		ev, err := p.CreateEvent(ctx, s, PrimaryCalendarID, params)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	inside := create(at("inside", "2026-05-04T09:00:00Z", "2026-05-04T10:00:00Z"))
	create(at("overlapping the start", "2026-05-04T07:30:00Z", "2026-05-04T08:30:00Z"))
	create(at("before", "2026-05-03T09:00:00Z", "2026-05-03T10:00:00Z"))
	create(at("ending at the start", "2026-05-04T07:00:00Z", "2026-05-04T08:00:00Z"))
	create(at("starting at the end", "2026-05-04T12:00:00Z", "2026-05-04T13:00:00Z"))
	after := create(at("after", "2026-05-05T09:00:00Z", "2026-05-05T10:00:00Z"))
	create(&unical.EventParams{Title: unical.Some("all day"), IsAllDay: unical.Some(true),
		Start: unical.Some(unical.EventDateTime{Date: "2026-05-04"}), End: unical.Some(unical.EventDateTime{Date: "2026-05-05"})})
	gone := create(at("deleted", "2026-05-04T09:00:00Z", "2026-05-04T10:00:00Z"))
	if err := p.DeleteEvent(ctx, s, PrimaryCalendarID, gone.ID); err != nil {
		t.Fatal(err)
	}
	daily := at("daily", "2026-05-01T15:00:00Z", "2026-05-01T16:00:00Z")
	daily.Recurrence = unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=10"})
	series := create(daily)
	if _, err := p.UpdateEvent(ctx, s, PrimaryCalendarID, series.ID+"_20260502T150000Z", at("daily, moved in", "2026-05-04T10:30:00Z", "2026-05-04T11:00:00Z")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpdateEvent(ctx, s, PrimaryCalendarID, series.ID+"_20260504T150000Z", at("daily, moved out", "2026-05-06T09:00:00Z", "2026-05-06T10:00:00Z")); err != nil {
		t.Fatal(err)
	}
	// The second listing after moving two events: what the first one
	// learnt of them is not kept past their change.
	move := func() {
		t.Helper()
		for id, when := range map[string][2]string{inside.ID: {"2026-05-07T09:00:00Z", "2026-05-07T10:00:00Z"}, after.ID: {"2026-05-04T11:00:00Z", "2026-05-04T11:30:00Z"}} {
			times := &unical.EventParams{Start: unical.Some(unical.EventDateTime{DateTime: when[0], TimeZone: "UTC"}), End: unical.Some(unical.EventDateTime{DateTime: when[1], TimeZone: "UTC"})}
			if _, err := p.UpdateEvent(ctx, s, PrimaryCalendarID, id, times); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		singleEvents bool
		before       func()
		want         []string
	}{
		{false, nil, []string{"all day", "daily", "daily, moved in", "inside", "overlapping the start"}},
		// The Client expands the series from it and all its overrides.
		{true, nil, []string{"all day", "daily", "daily, moved in", "daily, moved out", "inside", "overlapping the start"}},
		{false, move, []string{"after", "all day", "daily", "daily, moved in", "overlapping the start"}},
	} {
		if tc.before != nil {
			tc.before()
		}
		batch, err := p.ListEvents(ctx, s, PrimaryCalendarID, &unical.EventQuery{SingleEvents: tc.singleEvents,
			TimeMin: time.Date(2026, 5, 4, 8, 0, 0, 0, time.UTC), TimeMax: time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range batch.Events {
			got = append(got, e.Title)
		}
		sort.Strings(got)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ListEvents(window, singleEvents %v) mismatch (-want +got):\n%s", tc.singleEvents, d)
		}
	}
}
