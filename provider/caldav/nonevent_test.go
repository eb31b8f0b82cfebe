package caldav_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// newMixedCalendar creates a calendar collection for events, to-dos and
// journal entries and returns its path.
func newMixedCalendar(t *testing.T, s *davtest.Server) string {
	t.Helper()
	// A unique name: the shared server outlives one run of the test.
	path := s.HomePath + fmt.Sprintf("mixed-%d/", time.Now().UnixNano())
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>` +
		`<D:displayname>Mixed</D:displayname>` +
		`<C:supported-calendar-component-set><C:comp name="VEVENT"/><C:comp name="VTODO"/><C:comp name="VJOURNAL"/></C:supported-calendar-component-set>` +
		`</D:prop></D:set></C:mkcalendar>`
	if r := s.Do(t, "MKCALENDAR", path, body, http.Header{"Content-Type": {"application/xml; charset=utf-8"}}); r.StatusCode != http.StatusCreated {
		t.Fatalf("MKCALENDAR: %d\n%s", r.StatusCode, r.Body)
	}
	return path
}

// TestEvents_NonEventResources checks that an id naming a resource that
// holds no VEVENT (a to-do or a journal entry in the same collection) is
// not found to GetEvent, UpdateEvent and DeleteEvent, that neither write
// changes the resource, and that listings leave it out.
func TestEvents_NonEventResources(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
		sess := connect(t, p, s)
		dir := newMixedCalendar(t, s)
		cal := segment(dir)
		s.PutObject(t, dir+"todo.ics", wrapICS("BEGIN:VTODO\r\nUID:todo\r\nDTSTAMP:20260101T000000Z\r\n"+
			"DTSTART:20260601T090000Z\r\nDUE:20260601T100000Z\r\nRRULE:FREQ=DAILY;COUNT=3\r\nSUMMARY:buy milk\r\nEND:VTODO\r\n"))
		s.PutObject(t, dir+"journal.ics", wrapICS("BEGIN:VJOURNAL\r\nUID:journal\r\nDTSTAMP:20260101T000000Z\r\n"+
			"DTSTART;VALUE=DATE:20260601\r\nSUMMARY:notes\r\nEND:VJOURNAL\r\n"))
		ev, err := p.CreateEvent(t.Context(), sess, cal, &unical.EventParams{Title: unical.Some("meeting"),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-06-01T09:00:00Z"}),
			End:   unical.Some(unical.EventDateTime{DateTime: "2026-06-01T10:00:00Z"})})
		if err != nil {
			t.Fatal(err)
		}

		type stored struct {
			Status     int
			ETag, Body string
		}
		held := func() map[string]stored {
			out := map[string]stored{}
			for _, name := range []string{"todo.ics", "journal.ics"} {
				r := s.Do(t, http.MethodGet, dir+name, "", nil)
				out[name] = stored{r.StatusCode, r.Header.Get("ETag"), string(r.Body)}
			}
			return out
		}
		before := held()

		for _, id := range []string{"todo", "journal", "todo_20260602T090000Z"} {
			ops := []struct {
				name string
				call func() error
			}{
				{"GetEvent", func() error { _, err := p.GetEvent(t.Context(), sess, cal, id); return err }},
				{"UpdateEvent", func() error {
					_, err := p.UpdateEvent(t.Context(), sess, cal, id, &unical.EventParams{Title: unical.Some("overwritten")})
					return err
				}},
				{"DeleteEvent", func() error { return p.DeleteEvent(t.Context(), sess, cal, id) }},
				{"DeleteEvent without notifying", func() error {
					return p.DeleteEvent(t.Context(), withNotify(sess, false), cal, id)
				}},
			}
			for _, op := range ops {
				if err := op.call(); unical.ErrorCode(err) != unical.CodeNotFound {
					t.Errorf("%s(%q) error = %v, want CodeNotFound", op.name, id, err)
				}
			}
		}
		if diff := cmp.Diff(before, held()); diff != "" {
			t.Errorf("the to-do and journal entry changed (-before +after):\n%s", diff)
		}

		for _, q := range []*unical.EventQuery{{}, {PageSize: 10, WantSync: true}} {
			batch, err := p.ListEvents(t.Context(), sess, cal, q)
			if err != nil {
				t.Fatalf("ListEvents(%+v): %v", q, err)
			}
			var ids []string
			for _, e := range batch.Events {
				ids = append(ids, e.ID)
			}
			if diff := cmp.Diff([]string{ev.ID}, ids); diff != "" {
				t.Errorf("ListEvents(%+v) ids (-want +got):\n%s", q, diff)
			}
		}
	})
}
