package caldav

import (
	"encoding/xml"
	"net/url"
	"testing"
)

// multistatusSeeds are 207 answers as Radicale, Xandikos and others send
// them: calendar-query/multiget data, sync-collection, calendar PROPFIND.
var multistatusSeeds = []string{
	`<?xml version="1.0" encoding="utf-8"?>
<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
 <response><href>/dav/calendars/user/work/ev-1.ics</href>
  <propstat><prop><getetag>"abc"</getetag><C:calendar-data>BEGIN:VCALENDAR&#13;
VERSION:2.0&#13;
PRODID:-//x//y//EN&#13;
BEGIN:VEVENT&#13;
UID:ev-1&#13;
DTSTAMP:20260101T000000Z&#13;
DTSTART:20260105T090000Z&#13;
END:VEVENT&#13;
END:VCALENDAR&#13;
</C:calendar-data></prop><status>HTTP/1.1 200 OK</status></propstat></response>
 <response><href>/dav/calendars/user/work/gone.ics</href><status>HTTP/1.1 404 Not Found</status></response>
 <response><href>https://dav.example.com/dav/calendars/user/work/</href><propstat><prop/><status>HTTP/1.1 200 OK</status></propstat></response>
 <response><href>/dav/calendars/user/work/with%20space.ics</href><propstat><prop><C:calendar-data>BEGIN:VCALENDAR
BEGIN:VEVENT
DTSTART;TZID=
END:VEVENT
END:VCALENDAR
</C:calendar-data></prop></propstat></response>
</multistatus>`,
	`<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/dav/calendars/user/work/a.ics</d:href><d:propstat><d:prop><d:getetag>W/"1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response><d:response><d:href>/dav/calendars/user/work/</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response><d:sync-token>http://radicale.org/ns/sync/1234</d:sync-token></d:multistatus>`,
	`<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">
 <response><href>/dav/calendars/user/</href><propstat><prop><resourcetype><collection/></resourcetype></prop><status>HTTP/1.1 200 OK</status></propstat></response>
 <response><href>/dav/calendars/user/work/</href><propstat><prop>
  <resourcetype><collection/><C:calendar/></resourcetype><displayname> Work </displayname>
  <I:calendar-color>#FF0000FF</I:calendar-color>
  <C:supported-calendar-component-set><C:comp name="VEVENT"/><C:comp name="VTODO"/></C:supported-calendar-component-set>
  <C:calendar-timezone>BEGIN:VCALENDAR
BEGIN:VTIMEZONE
TZID:Europe/Berlin
END:VTIMEZONE
END:VCALENDAR</C:calendar-timezone>
  <current-user-privilege-set><privilege><read/></privilege><privilege><write-content/></privilege></current-user-privilege-set>
 </prop><status>HTTP/1.1 200 OK</status></propstat>
 <propstat><prop><getctag/></prop><status>HTTP/1.1 404 Not Found</status></propstat></response>
 <response><href>/dav/calendars/user/%2e%2e/</href><propstat><prop><resourcetype><C:calendar/></resourcetype></prop></propstat></response>
</multistatus>`,
	`<?xml version="1.0" encoding="utf-8"?><D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><C:valid-calendar-data/></D:error>`,
	`<multistatus xmlns="DAV:"><response><href>../other/x.ics</href></response><response><href>//evil.example/dav/calendars/user/work/x.ics</href></response></multistatus>`,
}

// FuzzMultistatus reads 207 answers and DAV error bodies as a CalDAV
// server could send them. Reading must never panic; every event resource
// it finds is a direct member of the calendar whose URL leads back to the
// same name; every calendar it finds has an id that addresses it again.
func FuzzMultistatus(f *testing.F) {
	for _, s := range multistatusSeeds {
		f.Add(s)
	}
	home, _ := url.Parse("https://dav.example.com/dav/calendars/user/")
	calURL := home.JoinPath("work/")
	f.Fuzz(func(t *testing.T, body string) {
		_ = preconditionName([]byte(body))
		var ms multistatus
		if err := xml.Unmarshal([]byte(body), &ms); err != nil {
			return
		}
		r := &response{URL: calURL}
		found, gone := membersOf(r, &ms, calURL)
		for _, m := range found {
			if o, err := m.object(); err == nil && o.Cal == nil {
				t.Fatalf("object %q without calendar data", o.Name)
			}
			checkMember(t, calURL, m.name)
		}
		for _, name := range gone {
			checkMember(t, calURL, name)
		}
		for i := range ms.Responses {
			resp := &ms.Responses[i]
			_ = statusOK(resp.Status)
			u, err := calURL.Parse(resp.Href)
			if err != nil {
				continue
			}
			id, ok := calendarID(home, u)
			if !ok {
				continue
			}
			if id == "" || id == "." || id == ".." {
				t.Fatalf("href %q gives the calendar id %q", resp.Href, id)
			}
			back, ok := calendarID(home, home.JoinPath(id+"/"))
			if !ok || back != id {
				t.Fatalf("calendar id %q (from href %q) addresses %q, %v", id, resp.Href, back, ok)
			}
			if cal, ok := toCalendar(id, resp, "me@example.com"); ok {
				if cal.ID != id || cal.Name == "" {
					t.Fatalf("calendar %+v from href %q", cal, resp.Href)
				}
				if c := cal.HexColor; c != "" && (len(c) != 7 || c[0] != '#') {
					t.Fatalf("calendar color %q", c)
				}
			}
		}
	})
}

// checkMember checks that name is one resource of calURL and that the URL
// the provider builds for it leads back to it.
func checkMember(t *testing.T, calURL *url.URL, name string) {
	t.Helper()
	if name == "" {
		t.Fatalf("empty member name")
	}
	back, ok := memberName(calURL, calURL, objectURL(calURL, name).String())
	if !ok || back != name {
		t.Fatalf("member %q: its URL %s reads back as %q, %v", name, objectURL(calURL, name), back, ok)
	}
}
