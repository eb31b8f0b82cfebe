package caldav_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/providertest"
)

// TestConformance runs the provider conformance suite against Radicale,
// Xandikos, Cyrus and DAViCal, each test in calendars of its own.
func TestConformance(t *testing.T) {
	t.Parallel()
	forEachKindOf(t, davtest.AllKinds(), func(t *testing.T, s *davtest.Server) {
		providertest.Run(t, func(t *testing.T) *providertest.Harness {
			p := newProvider(t, caldav.Config{AllowPrivateTargets: true})
			sess := connect(t, p, s)
			var (
				mu    sync.Mutex
				paths []string
			)
			var lacks map[string]string
			const noDefault = "the server announces no default calendar (RFC 6638 schedule-default-calendar-URL)"
			switch s.Kind {
			case davtest.Radicale:
				lacks = map[string]string{"primaryCalendar": noDefault}
			case davtest.Xandikos:
				lacks = map[string]string{
					"calendarTimeZone": "Xandikos does not keep calendar-timezone (davtest), so a create with timeZone is refused",
					"primaryCalendar":  noDefault,
				}
			case davtest.DAViCal:
				lacks = map[string]string{"secondlySeries": "DAViCal expands a series itself to answer a time-range query " +
					"and runs out of PHP's memory on FREQ=SECONDLY (500, RRule.php), whatever unical asks"}
			}
			h := &providertest.Harness{
				Provider: p,
				Session:  sess,
				Lacks:    lacks,
				NewCalendar: func(t *testing.T) string {
					path := s.NewCalendar(t, t.Name())
					mu.Lock()
					paths = append(paths, path)
					mu.Unlock()
					return segment(path)
				},
				// Neither server forgets old tokens on its own (davtest),
				// so the test's calendars are deleted and made again at
				// the same path, with one object, so that the state differs
				// from the one the tokens were issued for: both servers then
				// no longer know them.
				ExpireSyncCursors: func(t *testing.T) {
					mu.Lock()
					defer mu.Unlock()
					for _, path := range paths {
						if r := s.Do(t, http.MethodDelete, path, "", nil); r.StatusCode/100 != 2 {
							t.Fatalf("DELETE %s: %d", path, r.StatusCode)
						}
						mkcalendar(t, s, path)
						s.PutObject(t, path+"filler.ics", fillerICS)
					}
				},
			}
			if s.Kind == davtest.DAViCal {
				// DAViCal never refuses a sync token: one it does not know
				// (of a calendar deleted and made again) gets a full
				// listing (caldav-REPORT-sync-collection.php), so no token
				// can be made to expire.
				h.ExpireSyncCursors = nil
			}
			return h
		})
	})
}

const fillerICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:filler\r\n" +
	"DTSTAMP:20260101T000000Z\r\nDTSTART:20260101T090000Z\r\nDTEND:20260101T100000Z\r\nSUMMARY:filler\r\n" +
	"END:VEVENT\r\nEND:VCALENDAR\r\n"

// mkcalendar makes a VEVENT calendar at path with a raw MKCALENDAR.
func mkcalendar(t *testing.T, s *davtest.Server, path string) {
	t.Helper()
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>` +
		`<C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>` +
		`</D:prop></D:set></C:mkcalendar>`
	if r := s.Do(t, "MKCALENDAR", path, body, http.Header{"Content-Type": {"application/xml; charset=utf-8"}}); r.StatusCode != http.StatusCreated {
		t.Fatalf("MKCALENDAR %s: %d\n%s", path, r.StatusCode, r.Body)
	}
}
