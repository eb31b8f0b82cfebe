package providertest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/ics"
	"github.com/unical/unical/ifmatch"
)

// testEmptyExport exports nothing, through a Client over the provider: an
// empty calendar, and a window of a calendar with an event outside it.
// Both are a VCALENDAR without components, which imports as nothing.
func testEmptyExport(t *testing.T, h *Harness) {
	ctx := ctxOf(t)
	cal := h.NewCalendar(t)
	app, accountID := clientOver(t, h)
	empty, err := ics.Export(ctx, app, accountID, cal, nil)
	if err != nil {
		t.Fatalf("Export of an empty calendar: %v", err)
	}
	must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctx, h.Session, cal, &unical.EventParams{
		Title: unical.Some("outside"), Start: timed("2026-09-01T10:00:00Z"), End: timed("2026-09-01T11:00:00Z"),
	}))
	window, err := ics.Export(ctx, app, accountID, cal, &ics.ExportParams{
		Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatalf("Export of a window with no events: %v", err)
	}
	for name, data := range map[string][]byte{"empty calendar": empty, "empty window": window} {
		got, err := ical.NewDecoder(bytes.NewReader(data)).Decode()
		if err != nil {
			t.Fatalf("%s: the export does not parse: %v\n%s", name, err, data)
		}
		if got.Name != ical.CompCalendar || len(got.Children) != 0 {
			t.Errorf("%s: export = %s with %d components, want an empty VCALENDAR:\n%s", name, got.Name, len(got.Children), data)
		}
		if v, _ := got.Props.Text(ical.PropVersion); v != "2.0" {
			t.Errorf("%s: VERSION = %q, want 2.0", name, v)
		}
		res, err := ics.Import(ctx, app, accountID, cal, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: Import of the export: %v", name, err)
		}
		if diff := cmp.Diff(&ics.ImportResult{Errors: []ics.ImportError{}}, res); diff != "" {
			t.Errorf("%s: Import of the export mismatch (-want +got):\n%s", name, diff)
		}
	}
}

// testPrimary uses "primary" where a calendar id is taken: the calendar,
// its events (create, read, list, update, delete), free/busy and
// availability through a Client. Where the account has no primary
// calendar ("primaryCalendar" in Lacks) each of them is a 400 naming
// calendarId.
func testPrimary(t *testing.T, h *Harness) {
	ctx := ctxOf(t)
	app, accountID := clientOver(t, h)
	from, to := "2026-11-02T10:00:00Z", "2026-11-02T11:00:00Z"
	window := unical.EventQuery{TimeMin: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)}
	freeBusy := func() ([]*unical.FreeBusyResult, error) {
		return app.QueryFreeBusy(ctx, accountID, &unical.FreeBusyParams{
			StartDateTime: "2026-11-02T00:00:00Z", EndDateTime: "2026-11-03T00:00:00Z", TimeZone: "UTC", CalendarIDs: []string{"primary"},
		})
	}
	findSlots := func() (*availability.Result, error) {
		return availability.Find(ctx, app, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), &availability.Params{
			Participants:  []availability.Participant{{EndUserAccountID: accountID, CalendarIDs: []string{"primary"}}},
			StartDateTime: from, EndDateTime: to, DurationMinutes: 60, TimeZone: "UTC",
		})
	}
	if h.lacks(t, "primaryCalendar") {
		_, err := h.Provider.GetCalendar(ctx, h.Session, "primary")
		wantCalendarIDError(t, "GetCalendar(primary)", err)
		_, err = h.Provider.ListEvents(ctx, h.Session, "primary", &window)
		wantCalendarIDError(t, "ListEvents(primary)", err)
		_, err = h.Provider.CreateEvent(ctx, h.Session, "primary", &unical.EventParams{Title: unical.Some("x"), Start: timed(from), End: timed(to)})
		wantCalendarIDError(t, "CreateEvent(primary)", err)
		_, err = freeBusy()
		wantCalendarIDError(t, "QueryFreeBusy(primary)", err)
		_, err = findSlots()
		wantCalendarIDError(t, "availability with primary", err)
		return
	}
	cal := must[*unical.Calendar](t, "GetCalendar(primary)")(h.Provider.GetCalendar(ctx, h.Session, "primary"))
	if cal.ID == "" {
		t.Fatal("GetCalendar(primary) has no id")
	}
	title := "primary " + time.Now().UTC().Format(time.RFC3339Nano)
	created := must[*unical.Event](t, "CreateEvent(primary)")(h.Provider.CreateEvent(ctx, h.Session, "primary", &unical.EventParams{
		Title: unical.Some(title), Start: timed(from), End: timed(to),
	}))
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			_ = h.Provider.DeleteEvent(context.Background(), h.Session, cal.ID, created.ID)
		}
	})
	if got := must[*unical.Event](t, "GetEvent by the calendar's own id")(h.Provider.GetEvent(ctx, h.Session, cal.ID, created.ID)); got.Title != title {
		t.Errorf("the event written to primary reads back from %s as %q, want %q", cal.ID, got.Title, title)
	}
	listed, _ := listAll(t, h, "primary", window)
	if !slices.ContainsFunc(listed, func(e *unical.Event) bool { return e.ID == created.ID }) {
		t.Errorf("ListEvents(primary) over the event's day misses it (%d events)", len(listed))
	}
	must[*unical.Event](t, "UpdateEvent(primary)")(h.Provider.UpdateEvent(ctx, h.Session, "primary", created.ID, &unical.EventParams{Title: unical.Some(title + " v2")}))
	fb, err := freeBusy()
	if err != nil {
		t.Fatalf("QueryFreeBusy(primary): %v", err)
	}
	busy := false
	for _, r := range fb {
		for _, slot := range r.BusySlots {
			busy = busy || (instant(t, &slot.Start).Compare(mustTime(t, from)) <= 0 && instant(t, &slot.End).Compare(mustTime(t, to)) >= 0)
		}
	}
	if !busy {
		t.Errorf("QueryFreeBusy(primary) = %+v, want %s to %s busy", fb, from, to)
	}
	res, err := findSlots()
	if err != nil {
		t.Fatalf("availability with primary: %v", err)
	}
	if len(res.Data) != 0 {
		t.Errorf("availability with primary found %d slots in the hour its event takes, want none", len(res.Data))
	}
	if err := h.Provider.DeleteEvent(ctx, h.Session, "primary", created.ID); err != nil {
		t.Fatalf("DeleteEvent(primary): %v", err)
	}
	deleted = true
	_, err = h.Provider.GetEvent(ctx, h.Session, cal.ID, created.ID)
	wantCode(t, "GetEvent after DeleteEvent(primary)", err, unical.CodeNotFound)
}

// wantCalendarIDError fails t unless err is a 400 naming calendarId (or
// a field of a list of them, as free/busy and availability name it).
func wantCalendarIDError(t *testing.T, what string, err error) {
	t.Helper()
	var ue *unical.Error
	if unical.ErrorCode(err) != unical.CodeInvalid || !errors.As(err, &ue) || !strings.Contains(strings.ToLower(ue.Field), "calendarid") {
		t.Errorf("%s: %v; want a 400 naming calendarId", what, err)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testIfMatch makes event writes conditional on an etag
// (Session.IfMatch, WriteOptions.IfMatch): with the current one they go through; with a stale one an
// update and a delete are CodePrecondition, named If-Match through a
// Client, and the event stays as it was.
func testIfMatch(t *testing.T, h *Harness) {
	ctx := ctxOf(t)
	cal := h.NewCalendar(t)
	app, accountID := clientOver(t, h)
	e := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctx, h.Session, cal, &unical.EventParams{
		Title: unical.Some("v1"), Start: timed("2026-10-05T09:00:00Z"), End: timed("2026-10-05T10:00:00Z"),
	}))
	stale := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctx, h.Session, cal, e.ID)).ETag
	if stale == "" {
		t.Fatal("the event has no etag")
	}
	// conditional is h.Session made conditional on etag.
	conditional := func(etag string) *unical.Session {
		s := *h.Session
		s.IfMatch = etag
		return &s
	}
	must[*unical.Event](t, "UpdateEvent with the current etag")(h.Provider.UpdateEvent(ctx, conditional(stale), cal, e.ID, &unical.EventParams{Title: unical.Some("v2")}))
	current := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctx, h.Session, cal, e.ID))
	if ifmatch.Matches(stale, current.ETag) {
		t.Fatalf("the etag %s did not change with the update", stale)
	}
	_, err := h.Provider.UpdateEvent(ctx, conditional(stale), cal, e.ID, &unical.EventParams{Title: unical.Some("v3")})
	wantCode(t, "UpdateEvent with a stale etag", err, unical.CodePrecondition)
	err = h.Provider.DeleteEvent(ctx, conditional(stale), cal, e.ID)
	wantCode(t, "DeleteEvent with a stale etag", err, unical.CodePrecondition)
	_, err = app.UpdateEvent(ctx, accountID, cal, e.ID, &unical.EventParams{Title: unical.Some("v3")}, unical.WriteOptions{IfMatch: stale})
	wantIfMatchError(t, "Client UpdateEvent with a stale etag", err)
	_, err = app.DeleteEvent(ctx, accountID, cal, e.ID, unical.WriteOptions{IfMatch: stale})
	wantIfMatchError(t, "Client DeleteEvent with a stale etag", err)
	got := must[*unical.Event](t, "GetEvent after the refused writes")(h.Provider.GetEvent(ctx, h.Session, cal, e.ID))
	if got.Title != "v2" || got.ETag != current.ETag {
		t.Errorf("after the refused writes the event is %q at %s, want v2 at %s", got.Title, got.ETag, current.ETag)
	}
	if err := h.Provider.DeleteEvent(ctx, conditional(current.ETag), cal, e.ID); err != nil {
		t.Fatalf("DeleteEvent with the current etag: %v", err)
	}
	_, err = h.Provider.GetEvent(ctx, h.Session, cal, e.ID)
	wantCode(t, "GetEvent after DeleteEvent", err, unical.CodeNotFound)
}

// wantIfMatchError fails t unless err is a 412 naming If-Match.
func wantIfMatchError(t *testing.T, what string, err error) {
	t.Helper()
	var ue *unical.Error
	if !errors.As(err, &ue) || ue.Code != unical.CodePrecondition || ue.Field != "If-Match" {
		t.Errorf("%s: %v; want precondition_failed naming If-Match", what, err)
	}
}
