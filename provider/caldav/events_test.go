package caldav_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// hookTransport calls before for every request before sending it.
type hookTransport struct {
	before func(req *http.Request, body []byte)
	puts   atomic.Int64
}

func (h *hookTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	if req.Method == http.MethodPut {
		h.puts.Add(1)
	}
	if h.before != nil {
		h.before(req, body)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestUpdateEvent_ConcurrentChange changes the event at the server between
// the provider's read and its write: the write is refused with
// CodePrecondition and the other change is kept.
func TestUpdateEvent_ConcurrentChange(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		hook := &hookTransport{}
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: &http.Client{Transport: hook}})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "race")
		cal := segment(dir)
		e, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{
			Title: unical.Some("v1"), Start: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}),
			End: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T10:00:00Z"}),
		})
		if err != nil {
			t.Fatal(err)
		}
		path := dir + e.ID + ".ics"
		other := strings.Replace(rawGet(t, s, path), "SUMMARY:v1", "SUMMARY:changed elsewhere", 1)
		hook.before = func(req *http.Request, _ []byte) {
			if req.Method == http.MethodPut {
				hook.before = nil
				r := s.Do(t, http.MethodPut, path, strings.ReplaceAll(other, "\n", "\r\n"), http.Header{"Content-Type": {"text/calendar"}})
				if r.StatusCode/100 != 2 {
					t.Errorf("concurrent PUT: %d", r.StatusCode)
				}
			}
		}
		_, err = p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Title: unical.Some("v2")})
		if got := unical.ErrorCode(err); got != unical.CodePrecondition {
			t.Fatalf("UpdateEvent after a concurrent change: %v, want CodePrecondition", err)
		}
		got, err := p.GetEvent(t.Context(), sess, cal, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != "changed elsewhere" {
			t.Errorf("title = %q, want the concurrent change kept", got.Title)
		}
	})
}

// TestEvents_RefusedBeforeWrite checks that bad events are refused with
// CodeInvalid without any PUT, on create and on update, even when the
// Client's validation is bypassed.
func TestEvents_RefusedBeforeWrite(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		hook := &hookTransport{}
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: &http.Client{Transport: hook}})
		sess := connect(t, p, s)
		cal := segment(s.NewCalendar(t, "refused"))
		start := unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"})
		good, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{Title: unical.Some("ok"), Start: start,
			End: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T10:00:00Z"})})
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name   string
			params *unical.EventParams
			field  string
		}{
			{"end before start", &unical.EventParams{Title: unical.Some("x"), Start: start,
				End: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T08:00:00Z"})}, "end"},
			{"malformed RRULE", &unical.EventParams{Title: unical.Some("x"), Start: start,
				Recurrence: unical.Some([]string{"RRULE:FREQ=SOMETIMES"})}, "recurrence[0]"},
			{"not an iCalendar line", &unical.EventParams{Title: unical.Some("x"), Start: start,
				Recurrence: unical.Some([]string{"every monday"})}, "recurrence[0]"},
			{"unknown zone", &unical.EventParams{Title: unical.Some("x"),
				Start: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00", TimeZone: "Mars/Olympus"})}, "start.timeZone"},
		}
		for _, tt := range tests {
			before := hook.puts.Load()
			_, err := p.CreateEvent(t.Context(), sess, cal, tt.params)
			var ue *unical.Error
			if unical.ErrorCode(err) != unical.CodeInvalid || !asError(err, &ue) || ue.Field != tt.field {
				t.Errorf("%s: CreateEvent = %v, want CodeInvalid on %s", tt.name, err, tt.field)
			}
			tt.params.Title = unical.Optional[string]{}
			_, err = p.UpdateEvent(t.Context(), sess, cal, good.ID, tt.params)
			if unical.ErrorCode(err) != unical.CodeInvalid {
				t.Errorf("%s: UpdateEvent = %v, want CodeInvalid", tt.name, err)
			}
			if n := hook.puts.Load() - before; n != 0 {
				t.Errorf("%s: %d PUTs were sent", tt.name, n)
			}
		}
		if got, err := p.GetEvent(t.Context(), sess, cal, good.ID); err != nil || got.ETag != good.ETag {
			t.Errorf("the good event changed: %v, etag %q -> %q", err, good.ETag, got.ETag)
		}
	})
}

// TestEvents_TimedSeriesInstances works on instances of a daily 09:00
// Berlin series across the DST change of 29 March 2026: it moves one
// instance, answers another, deletes a third, and reads them back by
// instance id and expanded.
func TestEvents_TimedSeriesInstances(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal := segment(s.NewCalendar(t, "series"))
		series, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{
			Title:      unical.Some("Standup"),
			Start:      unical.Some(unical.EventDateTime{DateTime: "2026-03-26T09:00:00", TimeZone: "Europe/Berlin"}),
			End:        unical.Some(unical.EventDateTime{DateTime: "2026-03-26T09:15:00", TimeZone: "Europe/Berlin"}),
			Recurrence: unical.Some([]string{"RRULE:FREQ=DAILY;COUNT=6"}),
			Attendees:  unical.Some([]unical.Attendee{{Email: "Unical"}, {Email: "bob@example.com"}}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if series.Organizer == nil || series.Organizer.Email != s.Username {
			t.Errorf("organizer = %+v, want the account", series.Organizer)
		}
		// 30 March, after the change to CEST: 09:00 local is 07:00 UTC.
		moved := series.ID + "_20260330T070000Z"
		upd, err := p.UpdateEvent(t.Context(), sess, cal, moved, &unical.EventParams{
			Title: unical.Some("Standup (late)"),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-03-30T11:00:00+02:00", TimeZone: "Europe/Berlin"}),
			End:   unical.Some(unical.EventDateTime{DateTime: "2026-03-30T11:15:00+02:00", TimeZone: "Europe/Berlin"}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if upd.ID != moved || upd.RecurringEventID != series.ID || upd.Title != "Standup (late)" {
			t.Errorf("updated instance = id %q series %q title %q", upd.ID, upd.RecurringEventID, upd.Title)
		}
		answered := series.ID + "_20260327T080000Z"
		if err := p.RespondToEvent(t.Context(), sess, cal, answered, unical.ResponseDeclined); err != nil {
			t.Fatal(err)
		}
		if err := p.DeleteEvent(t.Context(), sess, cal, series.ID+"_20260328T080000Z"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.UpdateEvent(t.Context(), sess, cal, series.ID+"_20260328T090000Z", &unical.EventParams{Title: unical.Some("x")}); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("UpdateEvent(an instance the series does not have) = %v, want CodeNotFound", err)
		}

		got := instances(t, expand(t, p, sess, cal, time.Date(2026, 3, 26, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)))
		want := []inst{
			{"2026-03-26T08:00:00Z", "Standup"}, {"2026-03-27T08:00:00Z", "Standup"},
			{"2026-03-29T07:00:00Z", "Standup"}, {"2026-03-30T09:00:00Z", "Standup (late)"}, {"2026-03-31T07:00:00Z", "Standup"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("instances (-want +got):\n%s", diff)
		}
		e, err := p.GetEvent(t.Context(), sess, cal, answered)
		if err != nil {
			t.Fatal(err)
		}
		if e.MyResponseStatus != unical.ResponseDeclined || !e.IsException {
			t.Errorf("answered instance: myResponseStatus %q isException %v", e.MyResponseStatus, e.IsException)
		}
		master, err := p.GetEvent(t.Context(), sess, cal, series.ID)
		if err != nil {
			t.Fatal(err)
		}
		if master.MyResponseStatus != unical.ResponseNeedsAction {
			t.Errorf("the series' own answer changed to %q", master.MyResponseStatus)
		}
		if _, err := p.GetEvent(t.Context(), sess, cal, series.ID+"_20260328T080000Z"); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("GetEvent(deleted instance) = %v, want CodeNotFound", err)
		}
		// Answering the series answers its overridden instances too.
		if err := p.RespondToEvent(t.Context(), sess, cal, series.ID, unical.ResponseAccepted); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{series.ID, moved, answered} {
			e, err := p.GetEvent(t.Context(), sess, cal, id)
			if err != nil {
				t.Fatal(err)
			}
			if e.MyResponseStatus != unical.ResponseAccepted {
				t.Errorf("after answering the series, %s has myResponseStatus %q", id, e.MyResponseStatus)
			}
		}
		// Deleting the series removes the resource, overrides included.
		if err := p.DeleteEvent(t.Context(), sess, cal, series.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := p.GetEvent(t.Context(), sess, cal, moved); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("GetEvent(instance of a deleted series) = %v, want CodeNotFound", err)
		}
	})
}

// TestSync_SeriesChanges checks that an incremental sync reports a changed
// series with its overrides, and a deleted one as one cancelled id.
func TestSync_SeriesChanges(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal := segment(s.NewCalendar(t, "sync series"))
		mk := func(title string) *unical.Event {
			e, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{
				Title: unical.Some(title), Start: unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00Z"}),
				Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=4"}),
			})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		a, b := mk("a"), mk("b")
		first, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{WantSync: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.UpdateEvent(t.Context(), sess, cal, a.ID+"_20260511T090000Z", &unical.EventParams{Title: unical.Some("a, moved")}); err != nil {
			t.Fatal(err)
		}
		if err := p.DeleteEvent(t.Context(), sess, cal, b.ID); err != nil {
			t.Fatal(err)
		}
		batch, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{SyncCursor: first.NextSyncCursor, WantSync: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, e := range batch.Events {
			got[e.ID] = e.Title
			if e.IsCancelled {
				got[e.ID] = "cancelled"
			}
		}
		want := map[string]string{a.ID: "a", a.ID + "_20260511T090000Z": "a, moved", b.ID: "cancelled"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sync (-want +got):\n%s", diff)
		}
	})
}

func asError(err error, target **unical.Error) bool { return errors.As(err, target) }

// TestListEvents_ServerFilters checks what a windowed listing asks the
// server for: events in the window and every series (Xandikos matches a
// series by its first instance only), but not single events outside it.
func TestListEvents_ServerFilters(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		cal := segment(s.NewCalendar(t, "filters"))
		mk := func(title, start string, rec ...string) {
			params := &unical.EventParams{Title: unical.Some(title), Start: unical.Some(unical.EventDateTime{DateTime: start}),
				End: unical.Some(unical.EventDateTime{DateTime: strings.Replace(start, "T09", "T10", 1)})}
			if len(rec) > 0 {
				params.Recurrence = unical.Some(rec)
			}
			if _, err := p.CreateEvent(t.Context(), sess, cal, params); err != nil {
				t.Fatal(err)
			}
		}
		mk("inside", "2026-09-10T09:00:00Z")
		mk("before", "2026-08-10T09:00:00Z")
		mk("after", "2026-10-10T09:00:00Z")
		mk("series from August", "2026-08-01T09:00:00Z", "RRULE:FREQ=WEEKLY")
		batch, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{
			TimeMin: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), TimeMax: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range batch.Events {
			got = append(got, e.Title)
		}
		sort.Strings(got)
		if diff := cmp.Diff([]string{"inside", "series from August"}, got); diff != "" {
			t.Errorf("events fetched for September (-want +got):\n%s", diff)
		}
	})
}

// TestUpdateEvent_StopRecurring clears a series' recurrence: its overrides
// go with it instead of turning into events of their own.
func TestUpdateEvent_StopRecurring(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "stop")
		cal := segment(dir)
		e, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{
			Title: unical.Some("weekly"), Start: unical.Some(unical.EventDateTime{DateTime: "2026-05-04T09:00:00Z"}),
			Recurrence: unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=4"}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.UpdateEvent(t.Context(), sess, cal, e.ID+"_20260511T090000Z", &unical.EventParams{Title: unical.Some("moved")}); err != nil {
			t.Fatal(err)
		}
		upd, err := p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Recurrence: unical.Null[[]string]()})
		if err != nil {
			t.Fatal(err)
		}
		if upd.IsRecurring || upd.Recurrence != nil {
			t.Errorf("after clearing: isRecurring %v recurrence %v", upd.IsRecurring, upd.Recurrence)
		}
		if n := strings.Count(rawGet(t, s, dir+e.ID+".ics"), "BEGIN:VEVENT"); n != 1 {
			t.Errorf("the resource holds %d VEVENTs, want 1", n)
		}
	})
}

// TestFloatingTimes reads floating date-times in the calendar's
// calendar-timezone (RFC 4791 §5.2.2), overrides included. Radicale only:
// Xandikos refuses to set calendar-timezone.
func TestFloatingTimes(t *testing.T) {
	t.Parallel()
	s := davtest.Shared(t, davtest.Radicale)
	p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
	sess := connect(t, p, s)
	cal, err := p.CreateCalendar(t.Context(), sess, &unical.CalendarParams{Name: unical.Some("floating"), TimeZone: unical.Some("America/New_York")})
	if err != nil {
		t.Fatal(err)
	}
	dir := s.HomePath + cal.ID + "/"
	s.PutObject(t, dir+"f.ics", wrapICS("BEGIN:VEVENT\r\nUID:f\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260701T090000\r\nDTEND:20260701T100000\r\n"+
		"RRULE:FREQ=DAILY;COUNT=3\r\nSUMMARY:floating\r\nEND:VEVENT\r\n"+
		"BEGIN:VEVENT\r\nUID:f\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID:20260702T090000\r\nDTSTART:20260702T110000\r\nDTEND:20260702T120000\r\n"+
		"SUMMARY:later\r\nEND:VEVENT\r\n"))
	e, err := p.GetEvent(t.Context(), sess, cal.ID, "f")
	if err != nil {
		t.Fatal(err)
	}
	if e.Start.DateTime != "2026-07-01T09:00:00-04:00" || e.Start.TimeZone != "America/New_York" {
		t.Errorf("start = %+v, want 09:00 New York", e.Start)
	}
	ov, err := p.GetEvent(t.Context(), sess, cal.ID, "f_20260702T130000Z")
	if err != nil {
		t.Fatal(err)
	}
	if ov.Title != "later" {
		t.Errorf("override = %+v", ov)
	}
	got := instances(t, expand(t, p, sess, cal.ID, time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 5, 0, 0, 0, 0, time.UTC)))
	want := []inst{{"2026-07-01T13:00:00Z", "floating"}, {"2026-07-02T15:00:00Z", "later"}, {"2026-07-03T13:00:00Z", "floating"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
	// Deleting an instance writes its EXDATE in floating time too.
	if err := p.DeleteEvent(t.Context(), sess, cal.ID, "f_20260703T130000Z"); err != nil {
		t.Fatal(err)
	}
	mustContain(t, rawGet(t, s, dir+"f.ics"), "EXDATE:20260703T090000")
}

// TestEvents_ForeignResourceNames reads, updates and deletes events whose
// resources other clients named: with "@" and a space in the name, and
// without the .ics suffix.
func TestEvents_ForeignResourceNames(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "names")
		cal := segment(dir)
		for _, tc := range []struct{ path, id string }{
			{"abc%40google.com.ics", "abc@google.com"},
			{"two%20words.ics", "two words"},
			{"no-suffix", "no-suffix"},
		} {
			s.PutObject(t, dir+tc.path, wrapICS(eventICS("uid-"+tc.id, 1)))
			if _, err := p.GetEvent(t.Context(), sess, cal, tc.id); err != nil {
				t.Errorf("GetEvent(%q): %v", tc.id, err)
				continue
			}
			if _, err := p.UpdateEvent(t.Context(), sess, cal, tc.id, &unical.EventParams{Title: unical.Some("renamed")}); err != nil {
				t.Errorf("UpdateEvent(%q): %v", tc.id, err)
			}
			batch, err := p.ListEvents(t.Context(), sess, cal, &unical.EventQuery{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range batch.Events {
				found = found || e.ID == tc.id && e.Title == "renamed"
			}
			// Xandikos takes a resource's type from its name, so one
			// without .ics is no calendar object to its calendar-query.
			if !found && !(s.Kind == davtest.Xandikos && tc.id == "no-suffix") {
				t.Errorf("the listing does not show %q renamed", tc.id)
			}
			if err := p.DeleteEvent(t.Context(), sess, cal, tc.id); err != nil {
				t.Errorf("DeleteEvent(%q): %v", tc.id, err)
			}
			if _, err := p.GetEvent(t.Context(), sess, cal, tc.id); unical.ErrorCode(err) != unical.CodeNotFound {
				t.Errorf("GetEvent(%q) after delete = %v, want CodeNotFound", tc.id, err)
			}
		}
	})
}

// noETagTransport drops the ETag of PUT answers, as servers that rewrite
// what they store do (RFC 4791 §5.3.4; iCloud is said to).
type noETagTransport struct{}

func (noETagTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && req.Method == http.MethodPut {
		resp.Header.Del("ETag")
	}
	return resp, err
}

// TestEvents_NoETagOnPut checks that writes still return the event with
// the server's ETag when PUT answers carry none, so the next update's
// If-Match is right.
func TestEvents_NoETagOnPut(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: &http.Client{Transport: noETagTransport{}}})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "no etag")
		cal := segment(dir)
		e, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{Title: unical.Some("a"),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"})})
		if err != nil {
			t.Fatal(err)
		}
		if want := s.ETag(t, dir+e.ID+".ics"); e.ETag != want {
			t.Errorf("created event's etag %q, server's %q", e.ETag, want)
		}
		upd, err := p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Title: unical.Some("b")})
		if err != nil {
			t.Fatal(err)
		}
		if want := s.ETag(t, dir+e.ID+".ics"); upd.ETag != want || upd.Title != "b" {
			t.Errorf("updated event %q etag %q, server's %q", upd.Title, upd.ETag, want)
		}
	})
}
