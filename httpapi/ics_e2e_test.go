package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/ics"
	"github.com/unical/unical/internal/adapter/icalmap"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
)

// icsSource is a calendar as another client would leave it on a CalDAV
// server: a weekly Berlin series across both DST changes of 2026 with an
// excluded and a moved occurrence, a monthly all-day series, and single
// events in New York and UTC. Its VTIMEZONEs are added by the test.
const icsSource = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//unical tests//EN
BEGIN:VEVENT
UID:team-sync@example.com
DTSTAMP:20251201T000000Z
SUMMARY:Team sync
DTSTART;TZID=Europe/Berlin:20260105T090000
DTEND;TZID=Europe/Berlin:20260105T093000
RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=48
EXDATE;TZID=Europe/Berlin:20260202T090000
END:VEVENT
BEGIN:VEVENT
UID:team-sync@example.com
DTSTAMP:20251201T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20260406T090000
SUMMARY:Team sync (moved)
DTSTART;TZID=Europe/Berlin:20260407T110000
DTEND;TZID=Europe/Berlin:20260407T120000
END:VEVENT
BEGIN:VEVENT
UID:payday@example.com
DTSTAMP:20251201T000000Z
SUMMARY:Payday
DTSTART;VALUE=DATE:20260125
DTEND;VALUE=DATE:20260126
RRULE:FREQ=MONTHLY;BYMONTHDAY=25;COUNT=12
TRANSP:TRANSPARENT
END:VEVENT
BEGIN:VEVENT
UID:fireworks@example.com
DTSTAMP:20251201T000000Z
SUMMARY:Fireworks
LOCATION:Brooklyn Bridge
DTSTART;TZID=America/New_York:20260704T210000
DTEND;TZID=America/New_York:20260704T223000
END:VEVENT
BEGIN:VEVENT
UID:release@example.com
DTSTAMP:20251201T000000Z
SUMMARY:Release
DESCRIPTION:Ship it.
DTSTART:20261102T150000Z
DTEND:20261102T160000Z
END:VEVENT
END:VCALENDAR
`

// icsWindow is the year the test compares over.
var icsWindow = url.Values{
	"startDateTime":     {"2026-01-01T00:00:00Z"},
	"endDateTime":       {"2027-01-01T00:00:00Z"},
	"expandRecurrences": {"true"},
	"limit":             {"250"},
}

// instant is an occurrence as a calendar app shows it: what, and when as
// instants (all-day ones by date).
type instant struct {
	Title      string
	Start, End string
}

// instants expands a calendar over icsWindow.
func instants(t *testing.T, st *apitest.Stack, account, calendar string) []instant {
	t.Helper()
	items, _, _ := st.PageRepeatingQuery(t, "/v1/events/"+account+"/"+calendar, icsWindow)
	var out []instant
	for _, it := range items {
		raw, _ := it["title"].(string)
		allDay, _ := it["isAllDay"].(bool)
		out = append(out, instant{Title: raw, Start: when(t, it["start"], allDay), End: when(t, it["end"], allDay)})
	}
	slices.SortFunc(out, func(a, b instant) int { return strings.Compare(a.Start+a.Title, b.Start+b.Title) })
	return out
}

func when(t *testing.T, v any, allDay bool) string {
	t.Helper()
	m, _ := v.(map[string]any)
	d := &unical.EventDateTime{}
	d.DateTime, _ = m["dateTime"].(string)
	d.Date, _ = m["date"].(string)
	d.TimeZone, _ = m["timeZone"].(string)
	if allDay {
		day, err := d.Day("start")
		if err != nil {
			t.Fatal(err)
		}
		return day.Format(unical.DateLayout)
	}
	at, err := d.Time("start")
	if err != nil {
		t.Fatal(err)
	}
	return at.UTC().Format(time.RFC3339)
}

// withTimezones adds the VTIMEZONEs a producer writes for every TZID.
func withTimezones(t *testing.T, text string) string {
	t.Helper()
	cal, err := icalmap.Decode(strings.NewReader(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := icalmap.AddTimezones(cal); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// icsStack is the server with a CalDAV account on Radicale and a Google
// account on the fake Google.
type icsStack struct {
	*googleStack
	dav               *davtest.Server
	davAccount, gAcct string
}

func mustNewICSStack(t *testing.T) *icsStack {
	t.Helper()
	dav := davtest.StartUser(t, davtest.Radicale, "ada@example.com")
	g := googletest.NewServer(t, googletest.Options{})
	g.AddUser(googletest.User{Email: e2eUser, Name: "Dana", TimeZone: "Europe/Paris"})
	gp, err := google.New(google.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st := apitest.Start(t, []unical.Provider{gp, newDAVProvider(t, caldav.Config{AllowPrivateTargets: true})}, nil)
	g.AddClient(googletest.Client{ID: e2eClientID, Secret: e2eSecret, RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}})
	st.CreateApp(t, &admin.ApplicationParams{
		Name:         unical.Some("ics"),
		RedirectURLs: unical.Some([]string{e2eBack}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			google.ProviderType: {ClientID: e2eClientID, ClientSecret: e2eSecret,
				AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), UserInfoURL: g.UserinfoURL(), APIBaseURL: g.APIBaseURL()},
			caldav.ProviderType: {ServerURL: dav.URL},
		},
	})
	s := &icsStack{googleStack: &googleStack{Stack: st, google: g}, dav: dav}
	s.gAcct = s.connect(t)
	var acct struct{ ID string }
	s.Must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c",
		map[string]string{"email": dav.Username, "password": dav.Password}).Into(t, &acct)
	s.davAccount = acct.ID
	return s
}

// calendarNamed finds an account's calendar by its name.
func (s *icsStack) calendarNamed(t *testing.T, account, name string) string {
	t.Helper()
	var cals struct{ Data []unical.Calendar }
	s.Must(t, "GET", "/v1/calendars/"+account, nil).Into(t, &cals)
	for _, c := range cals.Data {
		if c.Name == name {
			return c.ID
		}
	}
	t.Fatalf("account %s has no calendar named %q", account, name)
	return ""
}

// postICS imports text into a calendar.
func (s *icsStack) postICS(t *testing.T, account, calendar, text string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", s.URL+"/v1/events/"+account+"/"+calendar+"/ics", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/calendar; charset=utf-8")
	req.Header.Set("x-api-key", s.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestICS_RadicaleToGoogle exports a calendar of a CalDAV account on
// Radicale, imports it into a Google account on the fake, and checks that
// both expand to the same instants over a year with both DST changes;
// that the export parses with go-ical and is taken back by Radicale into
// an empty calendar that again expands the same; and that a second import
// changes nothing.
func TestICS_RadicaleToGoogle(t *testing.T) {
	t.Parallel()
	s := mustNewICSStack(t)

	// Set up directly at the provider, as another client would.
	calPath := s.dav.NewCalendar(t, "Imported work")
	s.dav.PutObject(t, calPath+"team-sync.ics", withTimezones(t, pick(icsSource, "team-sync@example.com")))
	s.dav.PutObject(t, calPath+"payday.ics", pick(icsSource, "payday@example.com"))
	s.dav.PutObject(t, calPath+"fireworks.ics", withTimezones(t, pick(icsSource, "fireworks@example.com")))
	s.dav.PutObject(t, calPath+"release.ics", pick(icsSource, "release@example.com"))
	davCal := s.calendarNamed(t, s.davAccount, "Imported work")
	want := instants(t, s.Stack, s.davAccount, davCal)
	t.Logf("source: %d instances, first %v last %v", len(want), want[0], want[len(want)-1])
	if len(want) < 50 {
		t.Fatalf("the source calendar expands to only %d instances", len(want))
	}

	// Export.
	exportQ := url.Values{"startDateTime": {"2026-01-01T00:00:00Z"}, "endDateTime": {"2027-01-01T00:00:00Z"}}
	r := s.Must(t, "GET", "/v1/events/"+s.davAccount+"/"+davCal+"/ics?"+exportQ.Encode(), nil)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") {
		t.Errorf("export Content-Type = %q", ct)
	}
	exported := string(r.Body)
	cal, err := ical.NewDecoder(strings.NewReader(exported)).Decode()
	if err != nil {
		t.Fatalf("the export does not parse with go-ical: %v\n%s", err, exported)
	}
	var zones, events, overrides []string
	for _, c := range cal.Children {
		switch c.Name {
		case ical.CompTimezone:
			id, _ := c.Props.Text(ical.PropTimezoneID)
			zones = append(zones, id)
		case ical.CompEvent:
			uid, _ := c.Props.Text(ical.PropUID)
			events = append(events, uid)
			if c.Props.Get(ical.PropRecurrenceID) != nil {
				overrides = append(overrides, uid)
			}
		}
	}
	slices.Sort(zones)
	slices.Sort(events)
	if diff := cmp.Diff([]string{"America/New_York", "Europe/Berlin"}, zones); diff != "" {
		t.Errorf("VTIMEZONEs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"fireworks@example.com", "payday@example.com", "release@example.com", "team-sync@example.com", "team-sync@example.com"}, events); diff != "" {
		t.Errorf("VEVENT UIDs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"team-sync@example.com"}, overrides); diff != "" {
		t.Errorf("RECURRENCE-ID components (-want +got):\n%s", diff)
	}

	// Import into Google: the same instants.
	gCal := e2eUser // the primary calendar's id is the address
	status, body := s.postICS(t, s.gAcct, gCal, exported)
	if status != http.StatusOK {
		t.Fatalf("import = %d\n%s", status, body)
	}
	var res ics.ImportResult
	apitestResponse(status, body).Into(t, &res)
	if diff := cmp.Diff(ics.ImportResult{Created: 5, Errors: []ics.ImportError{}}, res); diff != "" {
		t.Errorf("first import (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, instants(t, s.Stack, s.gAcct, gCal)); diff != "" {
		t.Errorf("Google expands the import differently (-Radicale +Google):\n%s", diff)
	}

	// The same file again changes nothing.
	status, body = s.postICS(t, s.gAcct, gCal, exported)
	res = ics.ImportResult{}
	apitestResponse(status, body).Into(t, &res)
	if diff := cmp.Diff(ics.ImportResult{Unchanged: 5, Errors: []ics.ImportError{}}, res); diff != "" {
		t.Errorf("second import (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, instants(t, s.Stack, s.gAcct, gCal)); diff != "" {
		t.Errorf("the second import changed Google's calendar (-want +got):\n%s", diff)
	}

	// Radicale takes the export back whole into an empty calendar.
	back := s.dav.HomePath + "from-export/"
	if resp := s.dav.Do(t, "PUT", back, exported, http.Header{"Content-Type": {"text/calendar; charset=utf-8"}}); resp.StatusCode != http.StatusCreated {
		t.Fatalf("Radicale refused the export: %d\n%s", resp.StatusCode, resp.Body)
	}
	var created struct{ Data []unical.Calendar }
	s.Must(t, "GET", "/v1/calendars/"+s.davAccount, nil).Into(t, &created)
	var backID string
	for _, c := range created.Data {
		if strings.Contains(c.ID, "from-export") {
			backID = c.ID
		}
	}
	if backID == "" {
		t.Fatalf("the calendar Radicale made from the export is not listed: %+v", created.Data)
	}
	if diff := cmp.Diff(want, instants(t, s.Stack, s.davAccount, backID)); diff != "" {
		t.Errorf("Radicale expands the export differently (-want +got):\n%s", diff)
	}
}

// pick is the VCALENDAR of text holding only the VEVENTs with uid.
func pick(text, uid string) string {
	head, rest, _ := strings.Cut(text, "BEGIN:VEVENT\n")
	out := head
	for _, block := range strings.Split("BEGIN:VEVENT\n"+rest, "BEGIN:VEVENT\n")[1:] {
		block = strings.TrimSuffix(block, "END:VCALENDAR\n")
		if strings.Contains(block, "UID:"+uid+"\n") {
			out += "BEGIN:VEVENT\n" + block
		}
	}
	return strings.ReplaceAll(out+"END:VCALENDAR\n", "\n", "\r\n")
}

func apitestResponse(status int, body []byte) *apitest.Response {
	return &apitest.Response{Status: status, Body: body}
}
