package davtest_test

import (
	"crypto/rand"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/davtest"
)

// The tests in this file pin down behaviour found while writing
// provider/caldav, most of it Xandikos departing from the RFCs; doc.go
// lists it under "Verified behaviour".

// hrefsOf returns the hrefs of a 207 answer, sorted.
func hrefsOf(t *testing.T, resp *davtest.Response) []string {
	t.Helper()
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("status %d, want 207:\n%s", resp.StatusCode, resp.Body)
	}
	var out []string
	for _, r := range parseMultistatus(t, resp.Body).Responses {
		out = append(out, r.Href)
	}
	slices.Sort(out)
	return out
}

// propOf returns property space:local of the collection at path and
// whether the server has it.
func propOf(t *testing.T, s *davtest.Server, path, space, local string) (string, bool) {
	t.Helper()
	resp := s.Do(t, "PROPFIND", path, `<D:propfind xmlns:D="DAV:"><D:prop><x:`+local+` xmlns:x="`+space+`"/></D:prop></D:propfind>`,
		withHeader("Depth", "0"))
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPFIND %s = %d, want 207:\n%s", path, resp.StatusCode, resp.Body)
	}
	p, ok := parseMultistatus(t, resp.Body).Responses[0].prop(space, local)
	return p.Text, ok
}

// TestServer_PropPatch checks that Xandikos applies the properties of a
// PROPPATCH it can store even when it refuses another one (RFC 4918 §9.2
// asks for all or nothing, the others failing with 424), and that it
// fails removing calendar-color.
func TestServer_PropPatch(t *testing.T) {
	t.Parallel()
	type facts struct {
		descriptionStatus string // of calendar-description set next to the colour
		removeColor       int    // status of a PROPPATCH removing calendar-color
		colorAfterRemove  bool   // whether the colour is still there after it
	}
	want := map[string]facts{
		davtest.Radicale: {descriptionStatus: "200", removeColor: http.StatusMultiStatus, colorAfterRemove: false},
		davtest.Xandikos: {descriptionStatus: "409", removeColor: http.StatusInternalServerError, colorAfterRemove: true},
	}
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		cal := s.NewCalendar(t, "proppatch")
		resp := s.Do(t, "PROPPATCH", cal,
			`<D:propertyupdate xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/"><D:set><D:prop>`+
				`<I:calendar-color>#00FF00</I:calendar-color><C:calendar-description>About</C:calendar-description>`+
				`</D:prop></D:set></D:propertyupdate>`, xmlHeader)
		if resp.StatusCode != http.StatusMultiStatus {
			t.Fatalf("PROPPATCH = %d, want 207:\n%s", resp.StatusCode, resp.Body)
		}
		r := parseMultistatus(t, resp.Body).Responses[0]
		if got := strings.Fields(r.propStatus(nsCal, "calendar-description") + " x x")[1]; got != want[s.Kind].descriptionStatus {
			t.Errorf("calendar-description status = %s, want %s", got, want[s.Kind].descriptionStatus)
		}
		if color, _ := propOf(t, s, cal, nsICal, "calendar-color"); color != "#00FF00" {
			t.Errorf("calendar-color after the PROPPATCH = %q, want #00FF00 (applied)", color)
		}

		resp = s.Do(t, "PROPPATCH", cal,
			`<D:propertyupdate xmlns:D="DAV:" xmlns:I="http://apple.com/ns/ical/"><D:remove><D:prop><I:calendar-color/></D:prop></D:remove></D:propertyupdate>`,
			xmlHeader)
		if resp.StatusCode != want[s.Kind].removeColor {
			t.Errorf("PROPPATCH removing calendar-color = %d, want %d:\n%s", resp.StatusCode, want[s.Kind].removeColor, resp.Body)
		}
		if _, ok := propOf(t, s, cal, nsICal, "calendar-color"); ok != want[s.Kind].colorAfterRemove {
			t.Errorf("calendar-color present after removing it: %v, want %v", ok, want[s.Kind].colorAfterRemove)
		}
	})
}

// TestServer_MkcalendarTimezone checks calendar-timezone set by MKCALENDAR:
// Radicale keeps it; Xandikos answers 201 listing it as 404 and does not
// store it (and refuses it in PROPPATCH with 409, TestServer_CalendarProperties).
func TestServer_MkcalendarTimezone(t *testing.T) {
	t.Parallel()
	kept := map[string]bool{davtest.Radicale: true, davtest.Xandikos: false}
	const vtimezone = "BEGIN:VCALENDAR&#13;\nVERSION:2.0&#13;\nPRODID:-//unical//davtest//EN&#13;\n" +
		"BEGIN:VTIMEZONE&#13;\nTZID:Etc/GMT-1&#13;\nBEGIN:STANDARD&#13;\nDTSTART:19700101T000000&#13;\n" +
		"TZOFFSETFROM:+0100&#13;\nTZOFFSETTO:+0100&#13;\nEND:STANDARD&#13;\nEND:VTIMEZONE&#13;\nEND:VCALENDAR&#13;\n"
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		cal := s.HomePath + "zoned-" + strings.ToLower(rand.Text()) + "/"
		resp := s.Do(t, "MKCALENDAR", cal,
			`<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>`+
				`<D:displayname>Zoned</D:displayname><C:calendar-timezone>`+vtimezone+`</C:calendar-timezone>`+
				`</D:prop></D:set></C:mkcalendar>`, xmlHeader)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("MKCALENDAR = %d, want 201:\n%s", resp.StatusCode, resp.Body)
		}
		tz, ok := propOf(t, s, cal, nsCal, "calendar-timezone")
		if ok != kept[s.Kind] || (ok && !strings.Contains(tz, "TZID:Etc/GMT-1")) {
			t.Errorf("calendar-timezone after MKCALENDAR = %q (found %v), want found %v", tz, ok, kept[s.Kind])
		}
	})
}

// TestServer_ResourceWithoutExtension checks a calendar object whose name
// does not end in .ics: Xandikos picks its media type by the name, so it
// serves it as application/octet-stream, answers 406 to "Accept:
// text/calendar" and leaves it out of calendar-query.
func TestServer_ResourceWithoutExtension(t *testing.T) {
	t.Parallel()
	type facts struct {
		acceptStatus int
		contentType  string
		queried      bool
	}
	want := map[string]facts{
		davtest.Radicale: {http.StatusOK, "text/calendar; charset=utf-8", true},
		davtest.Xandikos: {http.StatusNotAcceptable, "application/octet-stream", false},
	}
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		cal := s.NewCalendar(t, "no extension")
		s.PutObject(t, cal+"plain", event("plain@unical.test", "20250110T100000Z", "20250110T110000Z", "Plain"))
		s.PutObject(t, cal+"named.ics", event("named@unical.test", "20250110T100000Z", "20250110T110000Z", "Named"))
		f := want[s.Kind]
		if resp := s.Do(t, http.MethodGet, cal+"plain", "", http.Header{"Accept": {"text/calendar"}}); resp.StatusCode != f.acceptStatus {
			t.Errorf("GET with Accept: text/calendar = %d, want %d", resp.StatusCode, f.acceptStatus)
		}
		if resp := s.Do(t, http.MethodGet, cal+"named.ics", "", http.Header{"Accept": {"text/calendar"}}); resp.StatusCode != http.StatusOK {
			t.Errorf("GET .ics with Accept: text/calendar = %d, want 200", resp.StatusCode)
		}
		resp := s.Do(t, http.MethodGet, cal+"plain", "", nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != f.contentType {
			t.Errorf("GET without Accept = %d %q, want 200 %q", resp.StatusCode, resp.Header.Get("Content-Type"), f.contentType)
		}
		got := hrefsOf(t, s.Do(t, "REPORT", cal, `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">`+
			`<D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/>`+
			`</C:comp-filter></C:filter></C:calendar-query>`, withHeader("Depth", "1")))
		wantHrefs := []string{cal + "named.ics"}
		if f.queried {
			wantHrefs = []string{cal + "named.ics", cal + "plain"}
		}
		if diff := cmp.Diff(wantHrefs, got); diff != "" {
			t.Errorf("calendar-query hrefs mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestServer_SyncCreatedAndDeleted checks a member created and deleted
// between two sync tokens: Radicale reports it as removed (404); Xandikos,
// which compares the two states (RFC 6578 §3.5 allows that), leaves it out.
func TestServer_SyncCreatedAndDeleted(t *testing.T) {
	t.Parallel()
	reported := map[string]bool{davtest.Radicale: true, davtest.Xandikos: false}
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		cal := s.NewCalendar(t, "ephemeral")
		s.PutObject(t, cal+"kept.ics", event("kept@unical.test", "20250110T100000Z", "20250110T110000Z", "Kept"))
		sync := `<D:sync-collection xmlns:D="DAV:"><D:sync-token>%s</D:sync-token><D:sync-level>1</D:sync-level>` +
			`<D:prop><D:getetag/></D:prop></D:sync-collection>`
		resp := s.Do(t, "REPORT", cal, strings.Replace(sync, "%s", "", 1), xmlHeader)
		if resp.StatusCode != http.StatusMultiStatus {
			t.Fatalf("initial sync = %d:\n%s", resp.StatusCode, resp.Body)
		}
		token := parseMultistatus(t, resp.Body).SyncToken
		s.PutObject(t, cal+"gone.ics", event("gone@unical.test", "20250111T100000Z", "20250111T110000Z", "Gone"))
		if resp := s.Do(t, http.MethodDelete, cal+"gone.ics", "", nil); resp.StatusCode/100 != 2 {
			t.Fatalf("DELETE = %d", resp.StatusCode)
		}
		got := hrefsOf(t, s.Do(t, "REPORT", cal, strings.Replace(sync, "%s", token, 1), xmlHeader))
		var want []string
		if reported[s.Kind] {
			want = []string{cal + "gone.ics"}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sync after create and delete mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestServer_RRULEPropFilter checks that both servers honour a prop-filter
// on RRULE (RFC 4791 §9.7.2): only series match.
func TestServer_RRULEPropFilter(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		cal := s.NewCalendar(t, "rrule filter")
		s.PutObject(t, cal+"single.ics", event("single@unical.test", "20250110T100000Z", "20250110T110000Z", "Single"))
		s.PutObject(t, cal+"series.ics", event("series@unical.test", "20250110T100000Z", "20250110T110000Z", "Series",
			"RRULE:FREQ=DAILY;COUNT=3"))
		got := hrefsOf(t, s.Do(t, "REPORT", cal, `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">`+
			`<D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">`+
			`<C:prop-filter name="RRULE"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`, withHeader("Depth", "1")))
		if diff := cmp.Diff([]string{cal + "series.ics"}, got); diff != "" {
			t.Errorf("RRULE prop-filter hrefs mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestServer_PutCollection checks a PUT of a whole VCALENDAR onto a
// calendar collection: Radicale stores each UID as a member named after
// it; Xandikos answers 405.
func TestServer_PutCollection(t *testing.T) {
	t.Parallel()
	status := map[string]int{davtest.Radicale: http.StatusCreated, davtest.Xandikos: http.StatusMethodNotAllowed}
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		cal := s.NewCalendar(t, "whole")
		two := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//unical//davtest//EN\r\n" +
			"BEGIN:VEVENT\r\nUID:u1\r\nDTSTAMP:20250101T000000Z\r\nDTSTART:20250110T100000Z\r\nSUMMARY:One\r\nEND:VEVENT\r\n" +
			"BEGIN:VEVENT\r\nUID:u2\r\nDTSTAMP:20250101T000000Z\r\nDTSTART:20250111T100000Z\r\nSUMMARY:Two\r\nEND:VEVENT\r\n" +
			"END:VCALENDAR\r\n"
		resp := s.Do(t, http.MethodPut, cal, two, http.Header{"Content-Type": {"text/calendar; charset=utf-8"}})
		if resp.StatusCode != status[s.Kind] {
			t.Errorf("PUT onto the collection = %d, want %d:\n%s", resp.StatusCode, status[s.Kind], resp.Body)
		}
		want := []string{cal}
		if status[s.Kind] == http.StatusCreated {
			want = []string{cal, cal + "u1.ics", cal + "u2.ics"}
		}
		got := hrefsOf(t, s.Do(t, "PROPFIND", cal, `<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>`,
			withHeader("Depth", "1")))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("members after the PUT mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestServer_IfMatchAny checks "If-Match: *", which RFC 7232 §3.1 makes
// true for any existing resource: Radicale 3.1.8 compares the header's
// text with its ETag and answers 412 even then.
func TestServer_IfMatchAny(t *testing.T) {
	t.Parallel()
	existing := map[string]int{davtest.Radicale: http.StatusPreconditionFailed, davtest.Xandikos: http.StatusNoContent}
	forEachKind(t, func(t *testing.T, s *davtest.Server) {
		cal := s.NewCalendar(t, "if match any")
		s.PutObject(t, cal+"x.ics", event("x@unical.test", "20250110T100000Z", "20250110T110000Z", "X"))
		h := http.Header{"Content-Type": {"text/calendar; charset=utf-8"}, "If-Match": {"*"}}
		resp := s.Do(t, http.MethodPut, cal+"x.ics", event("x@unical.test", "20250110T100000Z", "20250110T110000Z", "X2"), h)
		if resp.StatusCode != existing[s.Kind] {
			t.Errorf("PUT If-Match: * over an existing object = %d, want %d", resp.StatusCode, existing[s.Kind])
		}
		resp = s.Do(t, http.MethodPut, cal+"y.ics", event("y@unical.test", "20250110T100000Z", "20250110T110000Z", "Y"), h)
		if resp.StatusCode != http.StatusPreconditionFailed {
			t.Errorf("PUT If-Match: * onto nothing = %d, want 412", resp.StatusCode)
		}
	})
}
