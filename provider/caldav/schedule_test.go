package caldav_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// schedulingLines returns the ATTENDEE and ORGANIZER lines of an object
// as the server holds it, each with whether it says SCHEDULE-AGENT=CLIENT.
func schedulingLines(t *testing.T, s *davtest.Server, path string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, line := range strings.Split(rawGet(t, s, path), "\n") {
		name, _, _ := strings.Cut(line, ";")
		name, _, _ = strings.Cut(name, ":")
		if name != "ATTENDEE" && name != "ORGANIZER" {
			continue
		}
		addr := strings.ToLower(line[strings.LastIndex(strings.ToLower(line), "mailto:"):])
		out[name+" "+addr] = strings.Contains(strings.ToUpper(line), "SCHEDULE-AGENT=CLIENT")
	}
	return out
}

func invitation(title string, attendees ...string) *unical.EventParams {
	var as []unical.Attendee
	for _, a := range attendees {
		as = append(as, unical.Attendee{Email: a})
	}
	return &unical.EventParams{
		Title:     unical.Some(title),
		Start:     unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}),
		End:       unical.Some(unical.EventDateTime{DateTime: "2026-06-01T10:00:00Z"}),
		Attendees: unical.Some(as),
	}
}

// TestNotifyAttendees_False: on every server, notifyAttendees=false
// stores SCHEDULE-AGENT=CLIENT on each attendee and the organizer, on
// create and on update (a new attendee included); a write without the
// parameter keeps it; the event read back shows the attendees as written
// and nothing of the parameter.
func TestNotifyAttendees_False(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "quiet")
		cal := segment(dir)
		quiet := withNotify(sess, false)
		organizer := "ORGANIZER mailto:" + strings.ToLower(sess.Email)

		e, err := p.CreateEvent(t.Context(), quiet, cal, invitation("Quiet", "ann@example.com"))
		if err != nil {
			t.Fatalf("CreateEvent: %v", err)
		}
		path := dir + e.ID + ".ics"
		want := map[string]bool{"ATTENDEE mailto:ann@example.com": true, organizer: true}
		if diff := cmp.Diff(want, schedulingLines(t, s, path)); diff != "" {
			t.Errorf("after create with false, SCHEDULE-AGENT=CLIENT per line (-want +got):\n%s", diff)
		}

		if _, err := p.UpdateEvent(t.Context(), sess, cal, e.ID, &unical.EventParams{Title: unical.Some("Retitled")}); err != nil {
			t.Fatalf("UpdateEvent without the parameter: %v", err)
		}
		if diff := cmp.Diff(want, schedulingLines(t, s, path)); diff != "" {
			t.Errorf("after an update without the parameter (-want +got):\n%s", diff)
		}

		if _, err := p.UpdateEvent(t.Context(), quiet, cal, e.ID, invitation("Quiet", "ann@example.com", "bob@example.com")); err != nil {
			t.Fatalf("UpdateEvent with false: %v", err)
		}
		want["ATTENDEE mailto:bob@example.com"] = true
		if diff := cmp.Diff(want, schedulingLines(t, s, path)); diff != "" {
			t.Errorf("after update with false (-want +got):\n%s", diff)
		}

		got, err := p.GetEvent(t.Context(), sess, cal, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		var emails []string
		for _, a := range got.Attendees {
			emails = append(emails, a.Email)
		}
		if diff := cmp.Diff([]string{"ann@example.com", "bob@example.com"}, emails); diff != "" {
			t.Errorf("attendees read back (-want +got):\n%s", diff)
		}
	})
}

// TestNotifyAttendees_FalseDelete: a delete with notifyAttendees=false
// first writes the attendees back with SCHEDULE-AGENT=CLIENT (If-Match),
// then deletes with If-Match on the version that wrote, so a scheduling
// server (Cyrus) has no attendee to send a cancellation to.
func TestNotifyAttendees_FalseDelete(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		var (
			mu   sync.Mutex
			seen []string
		)
		hook := &hookTransport{}
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true, HTTPClient: &http.Client{Transport: hook}})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "quietdel")
		cal := segment(dir)
		e, err := p.CreateEvent(t.Context(), sess, cal, invitation("Cancel quietly", "ann@example.com"))
		if err != nil {
			t.Fatalf("CreateEvent: %v", err)
		}
		hook.before = func(req *http.Request, body []byte) {
			mu.Lock()
			defer mu.Unlock()
			switch req.Method {
			case http.MethodPut:
				seen = append(seen, "PUT client="+boolText(strings.Contains(string(body), "SCHEDULE-AGENT=CLIENT"))+" if-match="+boolText(req.Header.Get("If-Match") != ""))
			case http.MethodDelete:
				seen = append(seen, "DELETE if-match="+boolText(req.Header.Get("If-Match") != ""))
			}
		}
		if err := p.DeleteEvent(t.Context(), withNotify(sess, false), cal, e.ID); err != nil {
			t.Fatalf("DeleteEvent with false: %v", err)
		}
		hook.before = nil
		// A weak ETag (Cyrus) cannot go into If-Match: the provider
		// compares it just before each write instead.
		strong := boolText(!strings.HasPrefix(e.ETag, "W/"))
		want := []string{"PUT client=true if-match=" + strong, "DELETE if-match=" + strong}
		if diff := cmp.Diff(want, seen); diff != "" {
			t.Errorf("requests of the delete (-want +got):\n%s", diff)
		}
		if _, err := p.GetEvent(t.Context(), sess, cal, e.ID); unical.ErrorCode(err) != unical.CodeNotFound {
			t.Errorf("GetEvent after the delete: %v, want CodeNotFound", err)
		}
	})
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestNotifyAttendees_True: Cyrus and DAViCal announce
// calendar-auto-schedule, so true is honoured and removes an earlier SCHEDULE-AGENT=CLIENT; Radicale
// and Xandikos (whose "calendar-auto-scheduling" is not RFC 6638's token)
// do not, so true is refused naming notifyAttendees before anything is
// written.
func TestNotifyAttendees_True(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "loud")
		cal := segment(dir)
		loud := withNotify(sess, true)
		if s.Kind != davtest.Cyrus && s.Kind != davtest.DAViCal {
			_, err := p.CreateEvent(t.Context(), loud, cal, invitation("Loud", "ann@example.com"))
			wantField(t, "CreateEvent with true", err, unical.CodeInvalid, unical.NotifyAttendeesParameter)
			if err != nil && !strings.Contains(err.Error(), string(caldav.ProviderType)) {
				t.Errorf("the refusal %q does not name the provider", err)
			}
			if n := countEvents(t, p, sess, cal); n != 0 {
				t.Errorf("the refused create left %d events", n)
			}
			e, err := p.CreateEvent(t.Context(), sess, cal, invitation("Plain", "ann@example.com"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.UpdateEvent(t.Context(), loud, cal, e.ID, &unical.EventParams{Title: unical.Some("Loud")})
			wantField(t, "UpdateEvent with true", err, unical.CodeInvalid, unical.NotifyAttendeesParameter)
			err = p.DeleteEvent(t.Context(), loud, cal, e.ID)
			wantField(t, "DeleteEvent with true", err, unical.CodeInvalid, unical.NotifyAttendeesParameter)
			if got, err := p.GetEvent(t.Context(), sess, cal, e.ID); err != nil || got.Title != "Plain" {
				t.Errorf("after the refused writes: %v, %v; want the event unchanged", got, err)
			}
			return
		}
		e, err := p.CreateEvent(t.Context(), withNotify(sess, false), cal, invitation("Loud", "ann@example.com"))
		if err != nil {
			t.Fatalf("CreateEvent with false: %v", err)
		}
		if _, err := p.UpdateEvent(t.Context(), loud, cal, e.ID, &unical.EventParams{Title: unical.Some("Louder")}); err != nil {
			t.Fatalf("UpdateEvent with true: %v", err)
		}
		path := dir + e.ID + ".ics"
		want := map[string]bool{"ATTENDEE mailto:ann@example.com": false, "ORGANIZER mailto:" + strings.ToLower(sess.Email): false}
		if diff := cmp.Diff(want, schedulingLines(t, s, path)); diff != "" {
			t.Errorf("after update with true, SCHEDULE-AGENT=CLIENT per line (-want +got):\n%s", diff)
		}
		if err := p.DeleteEvent(t.Context(), loud, cal, e.ID); err != nil {
			t.Errorf("DeleteEvent with true: %v", err)
		}
	})
}

func countEvents(t *testing.T, p *caldav.Provider, sess *unical.Session, cal string) int {
	t.Helper()
	batch, err := p.ListEvents(context.Background(), sess, cal, &unical.EventQuery{})
	if err != nil {
		t.Fatalf("ListEvents: %v", err)
	}
	return len(batch.Events)
}

// TestCapabilities_NotifyAttendees: the table GET /v1/capabilities serves
// (and the Client refuses from) lets both values through for CalDAV.
func TestCapabilities_NotifyAttendees(t *testing.T) {
	caps, err := unical.CapabilitiesOf(newProvider(t, caldav.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]unical.Support{}
	for v, s := range caps.Parameters[unical.NotifyAttendeesParameter].Values {
		got[v] = s.Support
	}
	want := map[string]unical.Support{"true": unical.Supported, "false": unical.Supported}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifyAttendees support (-want +got):\n%s", diff)
	}
}

// TestNotifyAttendees_FalseSplit: a thisAndFollowing split with
// notifyAttendees=false writes both halves with SCHEDULE-AGENT=CLIENT.
func TestNotifyAttendees_FalseSplit(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		dir := s.NewCalendar(t, "quietsplit")
		cal := segment(dir)
		start := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
		params := invitation("Weekly", "ann@example.com")
		params.Start, params.End = unical.Some(*unical.TimedAt(start)), unical.Some(*unical.TimedAt(start.Add(time.Hour)))
		params.Recurrence = unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=4"})
		series, err := p.CreateEvent(t.Context(), sess, cal, params)
		if err != nil {
			t.Fatal(err)
		}
		at := start.AddDate(0, 0, 14)
		before, after, err := unical.SplitRecurrence(series.Recurrence, start, false, at, 0)
		if err != nil {
			t.Fatal(err)
		}
		next := invitation("Weekly v2", "ann@example.com")
		next.Start, next.End = unical.Some(*unical.TimedAt(at)), unical.Some(*unical.TimedAt(at.Add(time.Hour)))
		next.Recurrence = unical.Some(after)
		created, err := p.SplitSeries(t.Context(), withNotify(sess, false), cal, &unical.SeriesSplit{SeriesID: series.ID, At: at, Before: before, New: next})
		if err != nil {
			t.Fatalf("SplitSeries with false: %v", err)
		}
		want := map[string]bool{"ATTENDEE mailto:ann@example.com": true, "ORGANIZER mailto:" + strings.ToLower(sess.Email): true}
		for _, id := range []string{series.ID, created.ID} {
			if diff := cmp.Diff(want, schedulingLines(t, s, dir+id+".ics")); diff != "" {
				t.Errorf("%s after the split, SCHEDULE-AGENT=CLIENT per line (-want +got):\n%s", id, diff)
			}
		}
	})
}

// withNotify returns a copy of sess whose event writes carry the
// caller's notifyAttendees choice notify.
func withNotify(sess *unical.Session, notify bool) *unical.Session {
	s := *sess
	s.NotifyAttendees = &notify
	return &s
}
