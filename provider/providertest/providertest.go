// Package providertest is a conformance suite for implementations of
// [unical.Provider], in the spirit of store/storetest: a Provider that
// passes [Run] against its server can be handed to unical.Config. It checks
// behaviour a caller of the unified API sees, never messages: fields that
// survive a round trip, error codes (with [unical.ErrorCode]), windows,
// expansion, paging and sync cursors. The project runs it against Google
// and Microsoft Graph (on their fakes), CalDAV (on Radicale and Xandikos)
// and the in-memory provider of provider/memory.
//
// To pass, a Provider must:
//
//   - create, read, rename, list and delete calendars, and answer
//     CodeNotFound for a calendar that does not exist (or name
//     "calendarCreate" in [Harness.Lacks] when it cannot create them);
//   - keep through CreateEvent and GetEvent an event's title, description
//     (with new lines, commas and semicolons), location, start and end as
//     instants with the start's IANA time zone, transparency, visibility,
//     extended properties and attendees, and return a non-empty id and ETag;
//     CreateEvent's answer must equal what GetEvent returns;
//   - read all-day events as dates with an exclusive end;
//   - answer and read back a timed value written without an offset with
//     its time zone's offset at that instant (UTC's without a zone), the
//     wall clock as written;
//   - apply an update partially: only set fields change, a null field is
//     cleared, and the ETag changes;
//   - answer CodeNotFound for GetEvent, UpdateEvent and DeleteEvent of an
//     event that does not exist or was deleted;
//   - read local times that a DST change skips or repeats by RFC 5545
//     §3.3.5 (forward by the gap; the first occurrence), and expand a
//     daily series starting at a skipped time at that time of day after
//     its first day;
//   - answer a timed value in its own zone's wall clock and offset, not
//     the calendar's, and all-day values as a dateTime at midnight
//     without offset or zone;
//   - list only the events that overlap the query's window, and (through
//     a Client) no series whose instances all lie outside it;
//   - expand a recurring series in its time zone across DST changes, with
//     each instance's RecurringEventID set to the series id, either itself
//     (EventBatch.Expanded) or by returning the series for
//     [unical.ExpandEvents];
//   - page with PageSize and PageCursor, losing and repeating nothing, in
//     at most 50 pages;
//   - issue a NextSyncCursor on the last page when asked (WantSync) and,
//     from it, return exactly the events added, changed and deleted since
//     (deleted ones with IsCancelled), each once, and nothing when nothing
//     changed; answer CodeGone for a cursor the server no longer honours;
//   - if it is a [unical.SeriesSplitter], split a series: the old one ends
//     before the split without its later overrides, the new one carries
//     the overrides and cancellations it is given, and a split without a
//     new series just ends the series;
//   - hold a FREQ=SECONDLY series over a year (or refuse it with
//     CodeInvalid) such that a Client over the provider lists it expanded
//     page by page, lists a few of its occurrences, and answers free/busy
//     and availability for it (or a 400 naming endDateTime), with the heap
//     growing by less than 64 MB: expansion costs the page, not the window;
//   - answer CodeInvalid to RespondToEvent when the account is not among
//     the event's attendees;
//   - for every writable event and calendar field, do what its
//     [unical.CapabilityReporter] declares (what GET /v1/capabilities
//     serves): a supported field reads back as written, a field mapped
//     with loss is accepted, a refused one is CodeInvalid naming it and
//     leaves the event or calendar unchanged;
//   - for OAuth providers (a [Harness.OAuth] is given), implement
//     [unical.TokenRefresher]: refresh on demand and hand every new token to
//     Session.OnTokenRefresh before returning it, keep or rotate the refresh
//     token as the server does, retry a throttled or failing token endpoint
//     and then answer CodeUnavailable, and answer CodeAccountExpired for a
//     revoked grant.
//
// Features a provider does not have are named in [Harness.Lacks]; the
// tests that need them skip or leave them out, with the reason logged.
package providertest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// Harness connects the suite to one provider and its server.
type Harness struct {
	// Provider is the provider under test.
	Provider unical.Provider
	// Session is a connected test account's session.
	Session *unical.Session
	// NewCalendar returns a fresh, empty, writable calendar for one test.
	NewCalendar func(t *testing.T) string
	// ExpireSyncCursors, when set, makes the server refuse every sync
	// cursor issued so far, so the suite can check CodeGone.
	ExpireSyncCursors func(t *testing.T)
	// Lacks names features the provider does not have, with the reason:
	// "calendarCreate", "extendedProperties", "attendees", "hexColor",
	// "calendarTimeZone" (a create with timeZone is refused),
	// "secondlySeries" (the server fails on a FREQ=SECONDLY series),
	// "primaryCalendar" (the account has no primary calendar: "primary"
	// is a 400 naming calendarId).
	Lacks map[string]string
	// OAuth, for OAuth providers, runs the token endpoint tests: refresh,
	// rotation, throttling and revocation.
	OAuth *OAuthHarness
}

// OAuthHarness lets the suite act on the OAuth server behind Session.
type OAuthHarness struct {
	// FailTokenEndpoint makes the next n token requests answer status
	// (429 or 503).
	FailTokenEndpoint func(t *testing.T, n, status int)
	// RevokeGrant revokes the session's grant at the server.
	RevokeGrant func(t *testing.T)
	// Attempts is how many token requests one refresh makes at most: the
	// first and the provider's retries.
	Attempts int
	// Rotates says the server issues a new refresh token on every refresh
	// (Microsoft); otherwise the refresh token must stay the same.
	Rotates bool
}

func (h *Harness) lacks(t *testing.T, feature string) bool {
	t.Helper()
	if why, ok := h.Lacks[feature]; ok {
		t.Logf("provider lacks %s: %s", feature, why)
		return true
	}
	return false
}

// Run runs the suite. newHarness is called once per test, so each test
// can have its own calendar.
func Run(t *testing.T, newHarness func(t *testing.T) *Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"Calendars/Lifecycle", testCalendarLifecycle},
		{"Calendars/ErrNotFound", testCalendarNotFound},
		{"Events/RoundTrip", testEventRoundTrip},
		{"Events/AllDay", testAllDay},
		{"Events/LocalTime", testLocalTime},
		{"Events/WallClock", testWallClock},
		{"Events/SeriesFromGap", testSeriesFromGap},
		{"Events/ForeignZone", testForeignZone},
		{"Events/EndedSeries", testEndedSeries},
		{"Events/PartialUpdate", testPartialUpdate},
		{"Events/Delete", testDelete},
		{"Events/ErrNotFound", testEventNotFound},
		{"Events/Window", testWindow},
		{"Events/Recurring", testRecurring},
		{"Events/SplitSeries", testSplitSeries},
		{"Events/Paging", testPaging},
		{"Events/Sync", testSync},
		{"Events/SyncCursorExpired", testSyncExpired},
		{"Events/SecondlyBounded", testSecondlyBounded},
		{"ICS/EmptyExport", testEmptyExport},
		{"Calendars/Primary", testPrimary},
		{"Events/IfMatch", testIfMatch},
		{"RSVP/ErrNotAttendee", testRSVPNotAttendee},
		{"Fields/Event", testFieldRoundTrip},
		{"Fields/Calendar", testCalendarFieldRoundTrip},
		{"OAuth/TokenEndpoint", testTokenEndpoint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newHarness(t))
		})
	}
}

func ctxOf(t *testing.T) context.Context { return t.Context() }

func wantCode(t *testing.T, what string, err error, code unical.Code) {
	t.Helper()
	if got := unical.ErrorCode(err); got != code {
		t.Fatalf("%s: error code = %q (%v), want %q", what, got, err, code)
	}
}

func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

func timed(s string) unical.Optional[unical.EventDateTime] {
	return unical.Some(unical.EventDateTime{DateTime: s})
}

func zoned(s, zone string) unical.Optional[unical.EventDateTime] {
	return unical.Some(unical.EventDateTime{DateTime: s, TimeZone: zone})
}

// instant reads an EventDateTime as an instant for comparisons across
// providers that render offsets differently.
func instant(t *testing.T, d *unical.EventDateTime) time.Time {
	t.Helper()
	if d == nil {
		t.Fatal("missing date-time")
	}
	v, err := d.Time("dateTime")
	if err != nil {
		t.Fatalf("date-time %+v: %v", d, err)
	}
	return v.UTC()
}

// listAll walks every page of a listing, at most 50 pages.
func listAll(t *testing.T, h *Harness, calendarID string, q unical.EventQuery) ([]*unical.Event, *unical.EventBatch) {
	t.Helper()
	var all []*unical.Event
	var last *unical.EventBatch
	for range 50 {
		batch, err := h.Provider.ListEvents(ctxOf(t), h.Session, calendarID, &q)
		if err != nil {
			t.Fatalf("ListEvents: %v", err)
		}
		all = append(all, batch.Events...)
		last = batch
		if batch.NextPageCursor == "" {
			return all, last
		}
		q.PageCursor = batch.NextPageCursor
	}
	t.Fatal("ListEvents did not finish in 50 pages")
	return nil, nil
}

func testCalendarLifecycle(t *testing.T, h *Harness) {
	if h.lacks(t, "calendarCreate") {
		t.Skip()
	}
	p, s := h.Provider, h.Session
	params := &unical.CalendarParams{Name: unical.Some("Conformance " + time.Now().Format("150405.000"))}
	if !h.lacks(t, "calendarTimeZone") {
		params.TimeZone = unical.Some("Europe/Berlin")
	}
	if !h.lacks(t, "hexColor") {
		params.HexColor = unical.Some("#33aa55")
	}
	cal := must[*unical.Calendar](t, "CreateCalendar")(p.CreateCalendar(ctxOf(t), s, params))
	got := must[*unical.Calendar](t, "GetCalendar")(p.GetCalendar(ctxOf(t), s, cal.ID))
	want := []string{cal.ID, params.Name.Value(), params.HexColor.Value()}
	if diff := cmp.Diff(want, []string{got.ID, got.Name, strings.ToLower(got.HexColor)}); diff != "" {
		t.Errorf("created calendar id, name, colour mismatch (-want +got):\n%s", diff)
	}
	if got.ReadOnly {
		t.Error("a calendar we created is readOnly")
	}
	upd := must[*unical.Calendar](t, "UpdateCalendar")(p.UpdateCalendar(ctxOf(t), s, cal.ID, &unical.CalendarParams{Name: unical.Some(params.Name.Value() + " v2")}))
	if upd.Name != params.Name.Value()+" v2" {
		t.Errorf("renamed calendar name = %q", upd.Name)
	}
	list := must[[]*unical.Calendar](t, "ListCalendars")(p.ListCalendars(ctxOf(t), s))
	if !slices.ContainsFunc(list, func(c *unical.Calendar) bool { return c.ID == cal.ID && c.Name == upd.Name }) {
		t.Errorf("ListCalendars does not show the renamed calendar %s", cal.ID)
	}
	if err := p.DeleteCalendar(ctxOf(t), s, cal.ID); err != nil {
		t.Fatalf("DeleteCalendar: %v", err)
	}
	_, err := p.GetCalendar(ctxOf(t), s, cal.ID)
	wantCode(t, "GetCalendar after delete", err, unical.CodeNotFound)
}

func testCalendarNotFound(t *testing.T, h *Harness) {
	_, err := h.Provider.GetCalendar(ctxOf(t), h.Session, "no-such-calendar-"+fmt.Sprint(time.Now().UnixNano()))
	wantCode(t, "GetCalendar(unknown)", err, unical.CodeNotFound)
}

func testEventRoundTrip(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	params := &unical.EventParams{
		Title:        unical.Some("Design review"),
		Description:  unical.Some("Bring the mock-ups.\nSecond line, with a comma; and a semicolon."),
		Location:     unical.Some("Room 4, Main St."),
		Start:        zoned("2026-06-10T14:00:00+02:00", "Europe/Berlin"),
		End:          zoned("2026-06-10T15:30:00+02:00", "Europe/Berlin"),
		Transparency: unical.Some(unical.TransparencyTransparent),
		Visibility:   unical.Some(unical.VisibilityPrivate),
	}
	if !h.lacks(t, "extendedProperties") {
		params.PrivateExtendedProperties = unical.Some(map[string]string{"crmId": "42"})
		params.PublicExtendedProperties = unical.Some(map[string]string{"project": "apollo"})
	}
	if !h.lacks(t, "attendees") {
		params.Attendees = unical.Some([]unical.Attendee{{Email: "bob@example.com", Name: "Bob"}})
	}
	created := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, params))
	if created.ID == "" || created.ETag == "" {
		t.Errorf("created event has id %q etag %q, want both", created.ID, created.ETag)
	}
	got := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, created.ID))
	type view struct {
		Title, Description, Location string
		Start, End                   time.Time
		AllDay, Recurring            bool
		Transparency                 unical.Transparency
		Visibility                   unical.Visibility
		Private, Public              map[string]string
		Attendees                    []string
	}
	summarize := func(e *unical.Event) view {
		v := view{Title: e.Title, Description: e.Description, Location: e.Location, Start: instant(t, e.Start), End: instant(t, e.End),
			AllDay: e.IsAllDay, Recurring: e.IsRecurring, Transparency: e.Transparency, Visibility: e.Visibility,
			Private: e.PrivateExtendedProperties, Public: e.PublicExtendedProperties}
		for _, a := range e.Attendees {
			if !strings.EqualFold(a.Email, h.Session.Email) {
				v.Attendees = append(v.Attendees, strings.ToLower(a.Email))
			}
		}
		return v
	}
	want := view{Title: "Design review", Description: params.Description.Value(), Location: "Room 4, Main St.",
		Start: time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC), End: time.Date(2026, 6, 10, 13, 30, 0, 0, time.UTC),
		Transparency: unical.TransparencyTransparent, Visibility: unical.VisibilityPrivate,
		Private: params.PrivateExtendedProperties.Value(), Public: params.PublicExtendedProperties.Value()}
	if params.Attendees.IsSet() {
		want.Attendees = []string{"bob@example.com"}
	}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("event round trip mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(summarize(created), summarize(got)); diff != "" {
		t.Errorf("CreateEvent's answer differs from GetEvent (-create +get):\n%s", diff)
	}
	if got.Start.TimeZone != "Europe/Berlin" {
		t.Errorf("start.timeZone = %q, want Europe/Berlin", got.Start.TimeZone)
	}
}

func testAllDay(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	created := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Holiday"), IsAllDay: unical.Some(true),
		Start: unical.Some(unical.EventDateTime{Date: "2026-07-01", TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{Date: "2026-07-03", TimeZone: "Europe/Berlin"}),
	}))
	got := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, created.ID))
	listed, _ := listAll(t, h, cal, unical.EventQuery{})
	if len(listed) != 1 {
		t.Fatalf("the listing holds %d events, want 1", len(listed))
	}
	// The one form of all-day values: the date at midnight without an
	// offset, and no zone (a date means the same day everywhere).
	want := [2]unical.EventDateTime{{DateTime: "2026-07-01T00:00:00"}, {DateTime: "2026-07-03T00:00:00"}}
	for what, e := range map[string]*unical.Event{"CreateEvent": created, "GetEvent": got, "ListEvents": listed[0]} {
		if !e.IsAllDay || e.Start == nil || e.End == nil {
			t.Fatalf("%s: isAllDay %v start %v end %v", what, e.IsAllDay, e.Start, e.End)
		}
		if diff := cmp.Diff(want, [2]unical.EventDateTime{*e.Start, *e.End}); diff != "" {
			t.Errorf("%s of an all-day event from 1 to 3 July (exclusive) mismatch (-want +got):\n%s", what, diff)
		}
	}
}

func testPartialUpdate(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	created := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Draft"), Description: unical.Some("keep me"), Location: unical.Some("clear me"),
		Start: timed("2026-06-11T09:00:00Z"), End: timed("2026-06-11T10:00:00Z"),
	}))
	upd := must[*unical.Event](t, "UpdateEvent")(h.Provider.UpdateEvent(ctxOf(t), h.Session, cal, created.ID, &unical.EventParams{
		Title: unical.Some("Final"), Location: unical.Null[string](),
	}))
	got := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, created.ID))
	for _, e := range []*unical.Event{upd, got} {
		if e.Title != "Final" || e.Description != "keep me" || e.Location != "" || !instant(t, e.Start).Equal(time.Date(2026, 6, 11, 9, 0, 0, 0, time.UTC)) {
			t.Errorf("after a partial update: title %q description %q location %q start %+v; want Final, kept, cleared, unchanged", e.Title, e.Description, e.Location, e.Start)
		}
	}
	if got.ETag == created.ETag {
		t.Error("the etag did not change with the update")
	}
}

func testDelete(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	created := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Gone soon"), Start: timed("2026-06-12T09:00:00Z"), End: timed("2026-06-12T10:00:00Z"),
	}))
	if err := h.Provider.DeleteEvent(ctxOf(t), h.Session, cal, created.ID); err != nil {
		t.Fatalf("DeleteEvent: %v", err)
	}
	_, err := h.Provider.GetEvent(ctxOf(t), h.Session, cal, created.ID)
	wantCode(t, "GetEvent after delete", err, unical.CodeNotFound)
	err = h.Provider.DeleteEvent(ctxOf(t), h.Session, cal, created.ID)
	wantCode(t, "second DeleteEvent", err, unical.CodeNotFound)
}

func testEventNotFound(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	_, err := h.Provider.GetEvent(ctxOf(t), h.Session, cal, "no-such-event")
	wantCode(t, "GetEvent(unknown)", err, unical.CodeNotFound)
	_, err = h.Provider.UpdateEvent(ctxOf(t), h.Session, cal, "no-such-event", &unical.EventParams{Title: unical.Some("x")})
	wantCode(t, "UpdateEvent(unknown)", err, unical.CodeNotFound)
}

func titles(events []*unical.Event) []string {
	var out []string
	for _, e := range events {
		if !e.IsCancelled {
			out = append(out, e.Title)
		}
	}
	sort.Strings(out)
	return out
}

func testWindow(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	for i, day := range []string{"01", "05", "09"} {
		must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
			Title: unical.Some(fmt.Sprintf("E%d", i)), Start: timed("2026-09-" + day + "T10:00:00Z"), End: timed("2026-09-" + day + "T11:00:00Z"),
		}))
	}
	events, _ := listAll(t, h, cal, unical.EventQuery{
		TimeMin: time.Date(2026, 9, 4, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2026, 9, 6, 0, 0, 0, 0, time.UTC), SingleEvents: true,
	})
	if diff := cmp.Diff([]string{"E1"}, titles(events)); diff != "" {
		t.Errorf("events in the window mismatch (-want +got):\n%s", diff)
	}
}

func testRecurring(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	series := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Standup"), Start: zoned("2026-03-26T09:00:00+01:00", "Europe/Berlin"), End: zoned("2026-03-26T09:15:00+01:00", "Europe/Berlin"),
		Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=5"}),
	}))
	if !series.IsRecurring || len(series.Recurrence) == 0 {
		t.Fatalf("created series isRecurring %v recurrence %v", series.IsRecurring, series.Recurrence)
	}
	from, to := time.Date(2026, 3, 27, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	starts := instanceStarts(t, h, cal, series.ID, from, to)
	// 09:00 Berlin stays 09:00 across the DST change of 29 March.
	want := []time.Time{
		time.Date(2026, 3, 27, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 28, 8, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 29, 7, 0, 0, 0, time.UTC), time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC),
	}
	if diff := cmp.Diff(want, starts); diff != "" {
		t.Errorf("instance starts mismatch (-want +got):\n%s", diff)
	}
}

func testPaging(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	var want []string
	for i := range 7 {
		title := fmt.Sprintf("P%d", i)
		want = append(want, title)
		must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
			Title: unical.Some(title), Start: timed(fmt.Sprintf("2026-10-%02dT10:00:00Z", i+1)), End: timed(fmt.Sprintf("2026-10-%02dT11:00:00Z", i+1)),
		}))
	}
	events, _ := listAll(t, h, cal, unical.EventQuery{PageSize: 3})
	if diff := cmp.Diff(want, titles(events)); diff != "" {
		t.Errorf("paged events mismatch (-want +got):\n%s", diff)
	}
}

// syncState walks a full listing and returns its sync cursor.
func syncCursor(t *testing.T, h *Harness, cal string, q unical.EventQuery) string {
	t.Helper()
	q.WantSync = true
	_, last := listAll(t, h, cal, q)
	if last.NextSyncCursor == "" {
		t.Fatal("the last page has no NextSyncCursor")
	}
	return last.NextSyncCursor
}

func testSync(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	mk := func(title, day string) *unical.Event {
		return must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
			Title: unical.Some(title), Start: timed("2026-11-" + day + "T10:00:00Z"), End: timed("2026-11-" + day + "T11:00:00Z"),
		}))
	}
	keep, change, remove := mk("keep", "02"), mk("change", "03"), mk("remove", "04")
	cursor := syncCursor(t, h, cal, unical.EventQuery{})

	added := mk("added", "05")
	must[*unical.Event](t, "UpdateEvent")(h.Provider.UpdateEvent(ctxOf(t), h.Session, cal, change.ID, &unical.EventParams{Title: unical.Some("changed")}))
	if err := h.Provider.DeleteEvent(ctxOf(t), h.Session, cal, remove.ID); err != nil {
		t.Fatal(err)
	}
	changes, last := listAll(t, h, cal, unical.EventQuery{SyncCursor: cursor, WantSync: true})
	got := map[string]string{}
	for _, e := range changes {
		if _, dup := got[e.ID]; dup {
			t.Errorf("event %s appears twice in one sync", e.ID)
		}
		switch {
		case e.IsCancelled:
			got[e.ID] = "cancelled"
		default:
			got[e.ID] = e.Title
		}
	}
	want := map[string]string{added.ID: "added", change.ID: "changed", remove.ID: "cancelled"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("incremental sync mismatch (-want +got):\n%s", diff)
	}
	if _, ok := got[keep.ID]; ok {
		t.Error("an unchanged event came back in the incremental sync")
	}
	if last.NextSyncCursor == "" {
		t.Fatal("the incremental sync has no NextSyncCursor")
	}
	again, _ := listAll(t, h, cal, unical.EventQuery{SyncCursor: last.NextSyncCursor, WantSync: true})
	if len(again) != 0 {
		t.Errorf("a sync with no changes returned %d events", len(again))
	}
}

func testSyncExpired(t *testing.T, h *Harness) {
	if h.ExpireSyncCursors == nil {
		t.Skip("the harness cannot expire sync cursors")
	}
	cal := h.NewCalendar(t)
	cursor := syncCursor(t, h, cal, unical.EventQuery{})
	h.ExpireSyncCursors(t)
	_, err := h.Provider.ListEvents(ctxOf(t), h.Session, cal, &unical.EventQuery{SyncCursor: cursor, WantSync: true})
	wantCode(t, "ListEvents with an expired cursor", err, unical.CodeGone)
}

func testRSVPNotAttendee(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	e := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Solo"), Start: timed("2026-06-13T09:00:00Z"), End: timed("2026-06-13T10:00:00Z"),
	}))
	err := h.Provider.RespondToEvent(ctxOf(t), h.Session, cal, e.ID, unical.ResponseAccepted)
	wantCode(t, "RespondToEvent without the account among the attendees", err, unical.CodeInvalid)
}

// testLocalTime writes timed values without an offset, in a zone and in
// none, on create and on update: each is answered and read back with an
// offset, the zone's at that instant (winter or summer time) with the
// wall clock as written, and without a zone the instant read in UTC.
func testLocalTime(t *testing.T, h *Harness) {
	cal := h.NewCalendar(t)
	type when struct{ Start, End unical.EventDateTime }
	zonedWhen := func(start, end string) when {
		return when{unical.EventDateTime{DateTime: start, TimeZone: "Europe/Berlin"}, unical.EventDateTime{DateTime: end, TimeZone: "Europe/Berlin"}}
	}
	of := func(e *unical.Event) when {
		if e.Start == nil || e.End == nil {
			t.Fatalf("event %s has start %v end %v", e.ID, e.Start, e.End)
		}
		return when{*e.Start, *e.End}
	}
	read := func(what, id string, want when) {
		t.Helper()
		got := must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, id))
		if diff := cmp.Diff(want, of(got)); diff != "" {
			t.Errorf("GetEvent after %s mismatch (-want +got):\n%s", what, diff)
		}
	}

	winter := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("Winter"), Start: zoned("2026-01-05T09:00:00", "Europe/Berlin"), End: zoned("2026-01-05T10:00:00", "Europe/Berlin"),
	}))
	want := zonedWhen("2026-01-05T09:00:00+01:00", "2026-01-05T10:00:00+01:00")
	if diff := cmp.Diff(want, of(winter)); diff != "" {
		t.Errorf("CreateEvent of a Berlin winter time without offset mismatch (-want +got):\n%s", diff)
	}
	read("the create", winter.ID, want)

	summer := must[*unical.Event](t, "UpdateEvent")(h.Provider.UpdateEvent(ctxOf(t), h.Session, cal, winter.ID, &unical.EventParams{
		Start: zoned("2026-07-06T09:00:00", "Europe/Berlin"), End: zoned("2026-07-06T10:00:00", "Europe/Berlin"),
	}))
	want = zonedWhen("2026-07-06T09:00:00+02:00", "2026-07-06T10:00:00+02:00")
	if diff := cmp.Diff(want, of(summer)); diff != "" {
		t.Errorf("UpdateEvent to a Berlin summer time without offset mismatch (-want +got):\n%s", diff)
	}
	read("the update", winter.ID, want)

	// Without a zone the value is read in UTC; providers render the
	// instant in UTC or in the calendar's zone, always with an offset.
	utc := must[*unical.Event](t, "CreateEvent")(h.Provider.CreateEvent(ctxOf(t), h.Session, cal, &unical.EventParams{
		Title: unical.Some("UTC"), Start: timed("2026-01-05T09:00:00"), End: timed("2026-01-05T10:00:00"),
	}))
	for what, e := range map[string]*unical.Event{
		"CreateEvent": utc, "GetEvent": must[*unical.Event](t, "GetEvent")(h.Provider.GetEvent(ctxOf(t), h.Session, cal, utc.ID)),
	} {
		for _, d := range []*unical.EventDateTime{e.Start, e.End} {
			if _, err := time.Parse(time.RFC3339, d.DateTime); err != nil {
				t.Errorf("%s of a UTC time without offset: dateTime %q has no offset", what, d.DateTime)
			}
		}
		if got, want := [2]time.Time{instant(t, e.Start), instant(t, e.End)}, [2]time.Time{
			time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}; got != want {
			t.Errorf("%s of a UTC time without offset = %v, want %v", what, got, want)
		}
	}
}
