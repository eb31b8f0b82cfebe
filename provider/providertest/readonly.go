package providertest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// ReadOnlyHarness connects [RunReadOnly] to a provider whose calendars
// are published elsewhere and cannot be written through it (a feed).
type ReadOnlyHarness struct {
	// Provider is the provider under test.
	Provider unical.Provider
	// Session is a connected test account's session.
	Session *unical.Session
	// CalendarID is the calendar that shows what Publish publishes.
	CalendarID string
	// Publish replaces everything the calendar holds with events, each
	// named by its ICalUID; a recurring event's overrides come as events
	// with the series' ICalUID and OriginalStart.
	Publish func(t *testing.T, events []*unical.Event)
}

// RunReadOnly runs the cases a read-only provider must pass: its calendar
// is listed readOnly; published events read back with their fields,
// all-day dates and zones; a window keeps the events overlapping it; a
// series expands in its zone across a DST change; sync cursors return
// exactly the events published, changed and withdrawn since, each once;
// an unknown event is CodeNotFound; and every write is refused, by the
// capability table (what GET /v1/capabilities serves) before the
// provider or by the provider itself, leaving the calendar unchanged.
func RunReadOnly(t *testing.T, newHarness func(t *testing.T) *ReadOnlyHarness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *ReadOnlyHarness)
	}{
		{"Calendars/ReadOnly", testReadOnlyCalendar},
		{"Events/Read", testReadOnlyEvents},
		{"Events/Window", testReadOnlyWindow},
		{"Events/Recurring", testReadOnlyRecurring},
		{"Events/Sync", testReadOnlySync},
		{"Events/ErrNotFound", testReadOnlyNotFound},
		{"Writes/Refused", testReadOnlyWrites},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newHarness(t))
		})
	}
}

func published(uid, title, start, end, zone string) *unical.Event {
	return &unical.Event{ICalUID: uid, Title: title,
		Start: &unical.EventDateTime{DateTime: start, TimeZone: zone}, End: &unical.EventDateTime{DateTime: end, TimeZone: zone}}
}

// byUID lists the calendar (no window, every page) keyed by iCalUID, the
// series and single events only.
func byUID(t *testing.T, h *ReadOnlyHarness, q unical.EventQuery) map[string]*unical.Event {
	t.Helper()
	events, _ := listAll(t, &Harness{Provider: h.Provider, Session: h.Session}, h.CalendarID, q)
	out := map[string]*unical.Event{}
	for _, e := range events {
		if e.RecurringEventID == "" && !e.IsCancelled {
			out[e.ICalUID] = e
		}
	}
	return out
}

func testReadOnlyCalendar(t *testing.T, h *ReadOnlyHarness) {
	ctx := ctxOf(t)
	cals := must[[]*unical.Calendar](t, "ListCalendars")(h.Provider.ListCalendars(ctx, h.Session))
	var listed *unical.Calendar
	for _, c := range cals {
		if c.ID == h.CalendarID {
			listed = c
		}
	}
	if listed == nil || !listed.ReadOnly {
		t.Fatalf("ListCalendars() = %+v, want %q listed readOnly", cals, h.CalendarID)
	}
	got := must[*unical.Calendar](t, "GetCalendar")(h.Provider.GetCalendar(ctx, h.Session, h.CalendarID))
	if d := cmp.Diff(listed, got); d != "" {
		t.Errorf("GetCalendar() differs from the listing (-list +get):\n%s", d)
	}
	_, err := h.Provider.GetCalendar(ctx, h.Session, "no-such-calendar")
	wantCode(t, "GetCalendar(unknown)", err, unical.CodeNotFound)
}

func testReadOnlyEvents(t *testing.T, h *ReadOnlyHarness) {
	ctx := ctxOf(t)
	timed := published("timed@example.com", "Board meeting", "2030-03-04T09:30:00", "2030-03-04T11:00:00", "Europe/Berlin")
	timed.Description, timed.Location = "Agenda:\nbudget, hiring; travel", "Room 4, Berlin"
	allDay := &unical.Event{ICalUID: "allday@example.com", Title: "Holiday", IsAllDay: true,
		Start: &unical.EventDateTime{Date: "2030-05-01"}, End: &unical.EventDateTime{Date: "2030-05-02"}}
	h.Publish(t, []*unical.Event{timed, allDay})
	got := byUID(t, h, unical.EventQuery{})
	if len(got) != 2 {
		t.Fatalf("listing holds %d events, want 2: %v", len(got), got)
	}
	e := got[timed.ICalUID]
	if e == nil || e.Title != timed.Title || e.Description != timed.Description || e.Location != timed.Location || e.ID == "" || e.ETag == "" {
		t.Errorf("timed event = %+v, want %q, %q, %q with an id and ETag", e, timed.Title, timed.Description, timed.Location)
	} else {
		berlin, _ := time.LoadLocation("Europe/Berlin")
		if start := instant(t, e.Start); !start.Equal(time.Date(2030, 3, 4, 9, 30, 0, 0, berlin)) || e.Start.TimeZone != "Europe/Berlin" {
			t.Errorf("timed start = %+v, want 09:30 Europe/Berlin", e.Start)
		}
		if end := instant(t, e.End); !end.Equal(time.Date(2030, 3, 4, 11, 0, 0, 0, berlin)) {
			t.Errorf("timed end = %+v, want 11:00 Europe/Berlin", e.End)
		}
		one := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctx, h.Session, h.CalendarID, e.ID))
		if d := cmp.Diff(e, one); d != "" {
			t.Errorf("GetEvent() differs from the listing (-list +get):\n%s", d)
		}
	}
	if a := got[allDay.ICalUID]; a == nil || !a.IsAllDay {
		t.Errorf("all-day event = %+v, want one", a)
	} else if start, err1 := a.Start.Day("start"); err1 != nil || start.Format(unical.DateLayout) != "2030-05-01" {
		t.Errorf("all-day start = %+v, want 2030-05-01", a.Start)
	} else if end, err2 := a.End.Day("end"); err2 != nil || end.Format(unical.DateLayout) != "2030-05-02" {
		t.Errorf("all-day end = %+v, want 2030-05-02 (exclusive)", a.End)
	}
}

func testReadOnlyWindow(t *testing.T, h *ReadOnlyHarness) {
	h.Publish(t, []*unical.Event{
		published("before@example.com", "before", "2030-01-01T10:00:00Z", "2030-01-01T11:00:00Z", ""),
		published("inside@example.com", "inside", "2030-01-02T10:00:00Z", "2030-01-02T11:00:00Z", ""),
		published("after@example.com", "after", "2030-01-03T10:00:00Z", "2030-01-03T11:00:00Z", ""),
	})
	got := byUID(t, h, unical.EventQuery{TimeMin: time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2030, 1, 3, 0, 0, 0, 0, time.UTC)})
	var titles []string
	for _, e := range got {
		titles = append(titles, e.Title)
	}
	if d := cmp.Diff([]string{"inside"}, titles); d != "" {
		t.Errorf("window listing (-want +got):\n%s", d)
	}
}

func testReadOnlyRecurring(t *testing.T, h *ReadOnlyHarness) {
	series := published("weekly@example.com", "Standup", "2030-03-03T09:00:00", "2030-03-03T09:15:00", "America/New_York")
	series.Recurrence = []string{"RRULE:FREQ=WEEKLY;COUNT=3"}
	h.Publish(t, []*unical.Event{series})
	from, to := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 4, 1, 0, 0, 0, 0, time.UTC)
	events, batch := listAll(t, &Harness{Provider: h.Provider, Session: h.Session}, h.CalendarID, unical.EventQuery{TimeMin: from, TimeMax: to, SingleEvents: true})
	if !batch.Expanded {
		var err error
		if events, err = unical.ExpandEvents(events, from, to); err != nil {
			t.Fatal(err)
		}
	}
	ny, _ := time.LoadLocation("America/New_York")
	var got []time.Time
	for _, e := range events {
		if e.RecurringEventID == "" {
			t.Errorf("instance %q has no recurringEventId", e.ID)
		}
		got = append(got, instant(t, e.Start))
	}
	// 10 March 2030 is the change to daylight saving time in New York:
	// the wall clock stays at 09:00.
	want := []time.Time{time.Date(2030, 3, 3, 9, 0, 0, 0, ny).UTC(), time.Date(2030, 3, 10, 9, 0, 0, 0, ny).UTC(), time.Date(2030, 3, 17, 9, 0, 0, 0, ny).UTC()}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("instances (-want +got):\n%s", d)
	}
}

func testReadOnlySync(t *testing.T, h *ReadOnlyHarness) {
	ctx := ctxOf(t)
	a := published("a@example.com", "A", "2030-02-01T10:00:00Z", "2030-02-01T11:00:00Z", "")
	b := published("b@example.com", "B", "2030-02-02T10:00:00Z", "2030-02-02T11:00:00Z", "")
	h.Publish(t, []*unical.Event{a, b})
	first := byUID(t, h, unical.EventQuery{})
	harness := &Harness{Provider: h.Provider, Session: h.Session}
	cursor := syncCursor(t, harness, h.CalendarID, unical.EventQuery{})
	changedA := *a
	changedA.Title = "A, moved"
	c := published("c@example.com", "C", "2030-02-03T10:00:00Z", "2030-02-03T11:00:00Z", "")
	h.Publish(t, []*unical.Event{&changedA, c})
	batch := must[*unical.EventBatch](t, "ListEvents(sync)")(h.Provider.ListEvents(ctx, h.Session, h.CalendarID, &unical.EventQuery{SyncCursor: cursor, WantSync: true}))
	got := map[string]string{}
	for _, e := range batch.Events {
		key := e.ICalUID
		if e.IsCancelled {
			key = "cancelled:" + e.ID
		}
		if _, dup := got[key]; dup {
			t.Errorf("sync returned %s twice", key)
		}
		got[key] = e.Title
	}
	want := map[string]string{"a@example.com": "A, moved", "c@example.com": "C", "cancelled:" + first["b@example.com"].ID: ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("changes since the cursor (-want +got):\n%s", d)
	}
	if batch.NextSyncCursor == "" {
		t.Fatal("no NextSyncCursor after a sync")
	}
	again := must[*unical.EventBatch](t, "ListEvents(sync again)")(h.Provider.ListEvents(ctx, h.Session, h.CalendarID, &unical.EventQuery{SyncCursor: batch.NextSyncCursor, WantSync: true}))
	if len(again.Events) != 0 {
		t.Errorf("sync with nothing published since = %d events, want none", len(again.Events))
	}
}

func testReadOnlyNotFound(t *testing.T, h *ReadOnlyHarness) {
	h.Publish(t, []*unical.Event{published("x@example.com", "X", "2030-02-01T10:00:00Z", "2030-02-01T11:00:00Z", "")})
	_, err := h.Provider.GetEvent(ctxOf(t), h.Session, h.CalendarID, "no-such-event")
	wantCode(t, "GetEvent(unknown)", err, unical.CodeNotFound)
}

func testReadOnlyWrites(t *testing.T, h *ReadOnlyHarness) {
	ctx := ctxOf(t)
	h.Publish(t, []*unical.Event{published("keep@example.com", "Keep", "2030-02-01T10:00:00Z", "2030-02-01T11:00:00Z", "")})
	before := byUID(t, h, unical.EventQuery{})
	caps, err := unical.CapabilitiesOf(h.Provider)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range unical.EventFields {
		if s := caps.Event[f].Support; s != unical.Refused {
			t.Errorf("capabilities: event field %s is %s, want refused", f, s)
		}
	}
	for _, f := range unical.CalendarFields {
		if s := caps.Calendar[f].Support; s != unical.Refused {
			t.Errorf("capabilities: calendar field %s is %s, want refused", f, s)
		}
	}
	id := before["keep@example.com"].ID
	refusedCode := func(what string, err error) {
		t.Helper()
		if code := unical.ErrorCode(err); code != unical.CodeNotImplemented && code != unical.CodeInvalid {
			t.Errorf("%s: code %q (%v), want not_implemented or invalid_request", what, code, err)
		}
	}
	_, err = h.Provider.CreateEvent(ctx, h.Session, h.CalendarID, &unical.EventParams{Title: unical.Some("new")})
	refusedCode("CreateEvent", err)
	_, err = h.Provider.UpdateEvent(ctx, h.Session, h.CalendarID, id, &unical.EventParams{Title: unical.Some("changed")})
	refusedCode("UpdateEvent", err)
	refusedCode("DeleteEvent", h.Provider.DeleteEvent(ctx, h.Session, h.CalendarID, id))
	refusedCode("RespondToEvent", h.Provider.RespondToEvent(ctx, h.Session, h.CalendarID, id, unical.ResponseAccepted))
	_, err = h.Provider.CreateCalendar(ctx, h.Session, &unical.CalendarParams{Name: unical.Some("new")})
	refusedCode("CreateCalendar", err)
	refusedCode("DeleteCalendar", h.Provider.DeleteCalendar(ctx, h.Session, h.CalendarID))
	if d := cmp.Diff(before, byUID(t, h, unical.EventQuery{})); d != "" {
		t.Errorf("the refused writes changed the calendar (-before +after):\n%s", d)
	}
}
