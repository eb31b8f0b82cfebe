package caldav

import (
	"encoding/xml"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

const berlinTZ = `BEGIN:VCALENDAR&#13;
VERSION:2.0&#13;
PRODID:-//x//y//EN&#13;
BEGIN:VTIMEZONE&#13;
TZID:W. Europe Standard Time&#13;
BEGIN:STANDARD&#13;
DTSTART:16010101T030000&#13;
TZOFFSETFROM:+0200&#13;
TZOFFSETTO:+0100&#13;
END:STANDARD&#13;
END:VTIMEZONE&#13;
END:VCALENDAR&#13;
`

func TestToCalendar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		props string
		want  *unical.Calendar
	}{{
		name: "read-only share with alpha colour and Windows time zone",
		props: `<D:resourcetype><D:collection/><C:calendar/></D:resourcetype>` +
			`<D:displayname> Team </D:displayname>` +
			`<I:calendar-color>#1a2b3cFF</I:calendar-color>` +
			`<C:calendar-timezone>` + berlinTZ + `</C:calendar-timezone>` +
			`<D:current-user-privilege-set><D:privilege><D:read/></D:privilege></D:current-user-privilege-set>` +
			`<C:supported-calendar-component-set><C:comp name="VEVENT"/><C:comp name="VTODO"/></C:supported-calendar-component-set>`,
		want: &unical.Calendar{ID: "team", Name: "Team", HexColor: "#1a2b3c", ReadOnly: true,
			TimeZone: "Europe/Berlin", InviteEmail: "me@example.com", AllowedOnlineMeetingProviders: []string{}},
	}, {
		name: "owner, no name, bad colour",
		props: `<D:resourcetype><D:collection/><C:calendar/></D:resourcetype>` +
			`<I:calendar-color>red</I:calendar-color>` +
			`<D:current-user-privilege-set><D:privilege><D:read/></D:privilege><D:privilege><D:write-content/></D:privilege></D:current-user-privilege-set>`,
		want: &unical.Calendar{ID: "team", Name: "team", InviteEmail: "me@example.com", AllowedOnlineMeetingProviders: []string{}},
	}, {
		name:  "plain collection",
		props: `<D:resourcetype><D:collection/></D:resourcetype>`,
	}, {
		name: "task list",
		props: `<D:resourcetype><D:collection/><C:calendar/></D:resourcetype>` +
			`<C:supported-calendar-component-set><C:comp name="VTODO"/></C:supported-calendar-component-set>`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := `<D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">` +
				`<D:response><D:href>/home/team/</D:href>` +
				`<D:propstat><D:prop>` + tt.props + `</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>` +
				`<D:propstat><D:prop><D:displayname>Ignored</D:displayname></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>` +
				`</D:response></D:multistatus>`
			var ms multistatus
			if err := xml.Unmarshal([]byte(body), &ms); err != nil {
				t.Fatal(err)
			}
			got, ok := toCalendar("team", &ms.Responses[0], "me@example.com")
			if ok != (tt.want != nil) {
				t.Fatalf("toCalendar ok = %v, want %v", ok, tt.want != nil)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("toCalendar (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalendarID(t *testing.T) {
	t.Parallel()
	home, _ := url.Parse("https://p37-caldav.icloud.com/123/calendars/")
	tests := []struct {
		href   string
		want   string
		wantOK bool
	}{
		{"/123/calendars/", "", false},
		{"/123/calendars/work/", "work", true},
		{"/123/calendars/a%20b/", "a b", true},
		{"https://p37-caldav.icloud.com/123/calendars/home/", "home", true},
		{"https://other.example.com/123/calendars/home/", "", false},
		{"/123/calendars/work/inbox/", "", false},
		{"/123/inbox/", "", false},
	}
	for _, tt := range tests {
		u, err := home.Parse(tt.href)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := calendarID(home, u)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("calendarID(%q) = %q, %v; want %q, %v", tt.href, got, ok, tt.want, tt.wantOK)
		}
	}
}
