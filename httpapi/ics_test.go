package httpapi_test

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/ics"
)

// icsDo sends an iCalendar body with the given Content-Type.
func (ts *testServer) icsDo(t *testing.T, path, contentType, body string) *response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("x-api-key", ts.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// vcal wraps VEVENT text into a VCALENDAR with CRLF line ends.
func vcal(events ...string) string {
	s := "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//unical tests//EN\n" + strings.Join(events, "") + "END:VCALENDAR\n"
	return strings.ReplaceAll(s, "\n", "\r\n")
}

func vevent(uid, extra string) string {
	return "BEGIN:VEVENT\nUID:" + uid + "\nDTSTAMP:20260101T000000Z\nSUMMARY:" + uid +
		"\nDTSTART:20260310T090000Z\nDTEND:20260310T100000Z\n" + extra + "END:VEVENT\n"
}

// TestICS_Refusals checks that bad imports and exports are refused with
// the documented status and a field, and that a refused import writes
// nothing, not even its valid components.
func TestICS_Refusals(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	a := ts.mustConnect(t)[unical.ProviderGoogle]
	cal := primaryCalendar(t, ts, a)
	path := "/v1/events/" + a + "/" + cal + "/ics"
	ok := vevent("ok@example.com", "")

	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		code, field             string
		inMessage               string
	}{
		{"not iCalendar", "text/calendar", `{"title": "x"}`, 400, "invalid_request", "body", "BEGIN:VCALENDAR"},
		{"JSON content type", "application/json", vcal(ok), 400, "invalid_request", "Content-Type", "text/calendar"},
		{"broken content line", "text/calendar", "BEGIN:VCALENDAR\r\nDTSTART;TZID=\r\nEND:VCALENDAR\r\n", 400, "invalid_request", "body", ""},
		{"bad DTSTART", "text/calendar", vcal(ok, strings.Replace(vevent("bad@example.com", ""), "DTSTART:20260310T090000Z", "DTSTART:2026-13-45", 1)),
			400, "invalid_request", "DTSTART", `"bad@example.com"`},
		{"unknown TZID", "text/calendar", vcal(ok, strings.Replace(vevent("tz@example.com", ""), "DTSTART:20260310T090000Z", "DTSTART;TZID=Mars/Olympus:20260310T090000", 1)),
			400, "invalid_request", "DTSTART", `"tz@example.com"`},
		{"no UID", "text/calendar", vcal(ok, "BEGIN:VEVENT\nDTSTAMP:20260101T000000Z\nDTSTART:20260310T090000Z\nEND:VEVENT\n"), 400, "invalid_request", "UID", "number 2"},
		{"override without series", "text/calendar", vcal(ok, vevent("orphan@example.com", "RECURRENCE-ID:20260317T090000Z\n")),
			400, "invalid_request", "RECURRENCE-ID", `"orphan@example.com"`},
		{"two series under one UID", "text/calendar", vcal(ok, ok), 400, "invalid_request", "UID", `"ok@example.com"`},
		{"too large", "text/calendar", vcal(ok) + strings.Repeat("X", ics.MaxImportBytes), 413, "payload_too_large", "body", "4 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.icsDo(t, path, tc.contentType, tc.body)
			e := r.Error(t)
			if r.Status != tc.status || e.Code != tc.code || e.Field != tc.field || !strings.Contains(e.Message, tc.inMessage) {
				t.Errorf("= %d %+v, want %d %s naming %q with %q in the message", r.Status, e, tc.status, tc.code, tc.field, tc.inMessage)
			}
		})
	}
	var events struct{ Data []unical.Event }
	ts.must(t, "GET", "/v1/events/"+a+"/"+cal, nil).Into(t, &events)
	if len(events.Data) != 0 {
		t.Errorf("refused imports wrote %d events", len(events.Data))
	}

	for _, tc := range []struct {
		query url.Values
		field string
	}{
		{url.Values{"startDateTime": {"2026-01-01T00:00:00Z"}}, "endDateTime"},
		{url.Values{"endDateTime": {"2026-01-01T00:00:00Z"}}, "startDateTime"},
		{url.Values{"startDateTime": {"2026-02-01T00:00:00Z"}, "endDateTime": {"2026-01-01T00:00:00Z"}}, "endDateTime"},
		{url.Values{"startDateTime": {"yesterday"}, "endDateTime": {"2026-01-01T00:00:00Z"}}, "startDateTime"},
	} {
		r := ts.do(t, "GET", path+"?"+tc.query.Encode(), nil)
		if e := r.Error(t); r.Status != 400 || e.Field != tc.field {
			t.Errorf("export %s = %d %+v, want 400 naming %s", tc.query.Encode(), r.Status, e, tc.field)
		}
	}
	r := ts.do(t, "GET", "/v1/events/"+a+"/no-such-calendar/ics", nil)
	if r.Status != http.StatusNotFound {
		t.Errorf("export of an unknown calendar = %d, want 404", r.Status)
	}
}

// TestICS_PartialRefusal checks that a component the provider refuses and
// a VTODO are listed by UID while the rest is imported, and that a series
// whose override is refused leaves nothing behind.
func TestICS_PartialRefusal(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	a := ts.mustConnect(t)[unical.ProviderGoogle]
	cal := primaryCalendar(t, ts, a)
	body := vcal(
		vevent("fine@example.com", ""),
		vevent("fortnightly@example.com", "RRULE:FREQ=FORTNIGHTLY\n"),
		vevent("weekly@example.com", "RRULE:FREQ=WEEKLY;COUNT=3\n"),
		// The series has no occurrence at this RECURRENCE-ID.
		"BEGIN:VEVENT\nUID:weekly@example.com\nDTSTAMP:20260101T000000Z\nRECURRENCE-ID:20260311T090000Z\nSUMMARY:moved\nDTSTART:20260312T090000Z\nDTEND:20260312T100000Z\nEND:VEVENT\n",
		"BEGIN:VTODO\nUID:todo@example.com\nDTSTAMP:20260101T000000Z\nSUMMARY:buy milk\nEND:VTODO\n",
	)
	var res ics.ImportResult
	ts.icsDo(t, "/v1/events/"+a+"/"+cal+"/ics", "text/calendar", body).Into(t, &res)
	for i := range res.Errors {
		res.Errors[i].Message = "" // the wording is not the contract
	}
	want := ics.ImportResult{Created: 1, Errors: []ics.ImportError{
		{UID: "todo@example.com", Property: "VTODO"},
		{UID: "fortnightly@example.com", Property: "RRULE"},
		{UID: "weekly@example.com", Property: "RECURRENCE-ID"},
	}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("import (-want +got):\n%s", diff)
	}
	var events struct{ Data []unical.Event }
	ts.must(t, "GET", "/v1/events/"+a+"/"+cal, nil).Into(t, &events)
	var titles []string
	for _, e := range events.Data {
		titles = append(titles, e.Title)
	}
	if diff := cmp.Diff([]string{"fine@example.com"}, titles); diff != "" {
		t.Errorf("events after the import (-want +got):\n%s", diff)
	}
}

// TestICS_ExportOccurrences checks, on the fake Google, that a deleted
// occurrence is exported as an EXDATE of its series and a changed one as
// a RECURRENCE-ID component under the series' UID, and that importing the
// export into a CalDAV calendar on Radicale gives the same instances.
func TestICS_ExportOccurrences(t *testing.T) {
	t.Parallel()
	s := mustNewICSStack(t)
	events := "/v1/events/" + s.gAcct + "/" + e2eUser
	var series unical.Event
	s.must(t, "POST", events, map[string]any{
		"title": "Yoga", "start": map[string]string{"dateTime": "2026-03-02T18:00:00", "timeZone": "Europe/Paris"},
		"end":        map[string]string{"dateTime": "2026-03-02T19:00:00", "timeZone": "Europe/Paris"},
		"recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=6"},
	}, &series)
	var occ struct{ Data []unical.Event }
	s.must(t, "GET", events+"/"+url.PathEscape(series.ID)+"/occurrences?startDateTime=2026-03-01T00:00:00Z&endDateTime=2026-05-01T00:00:00Z", nil, &occ)
	if len(occ.Data) != 6 {
		t.Fatalf("the series has %d occurrences, want 6", len(occ.Data))
	}
	s.must(t, "DELETE", events+"/"+url.PathEscape(occ.Data[1].ID), nil, nil)
	s.must(t, "PUT", events+"/"+url.PathEscape(occ.Data[3].ID), map[string]any{"title": "Yoga (late)",
		"start": map[string]string{"dateTime": "2026-03-23T20:00:00", "timeZone": "Europe/Paris"},
		"end":   map[string]string{"dateTime": "2026-03-23T21:00:00", "timeZone": "Europe/Paris"}}, nil)

	r := s.Must(t, "GET", events+"/ics", nil)
	cal, err := ical.NewDecoder(strings.NewReader(string(r.Body))).Decode()
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, r.Body)
	}
	type vevent struct{ UID, Summary, RecurrenceID, ExDate string }
	var got []vevent
	for _, c := range cal.Events() {
		v := vevent{}
		v.UID, _ = c.Props.Text(ical.PropUID)
		v.Summary, _ = c.Props.Text(ical.PropSummary)
		if p := c.Props.Get(ical.PropRecurrenceID); p != nil {
			v.RecurrenceID = p.Params.Get(ical.ParamTimezoneID) + ":" + p.Value
		}
		for _, p := range c.Props.Values(ical.PropExceptionDates) {
			v.ExDate += p.Value
		}
		got = append(got, v)
	}
	uid := series.ICalUID
	want := []vevent{
		{UID: uid, Summary: "Yoga", ExDate: "20260309T170000Z"},
		{UID: uid, Summary: "Yoga (late)", RecurrenceID: "Europe/Paris:20260323T180000"},
	}
	slices.SortFunc(got, func(a, b vevent) int { return strings.Compare(a.Summary, b.Summary) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exported VEVENTs (-want +got):\n%s\n%s", diff, r.Body)
	}

	// Into a CalDAV calendar: the same instances.
	var davCal unical.Calendar
	s.must(t, "POST", "/v1/calendars/"+s.davAccount, map[string]string{"name": "Copy"}, &davCal)
	other := "/v1/events/" + s.davAccount + "/" + url.PathEscape(davCal.ID)
	status, body := s.postICS(t, s.davAccount, url.PathEscape(davCal.ID), string(r.Body))
	var res ics.ImportResult
	apitestResponse(status, body).Into(t, &res)
	if diff := cmp.Diff(ics.ImportResult{Created: 2, Errors: []ics.ImportError{}}, res); diff != "" {
		t.Errorf("import (-want +got):\n%s", diff)
	}
	window := "?startDateTime=2026-03-01T00:00:00Z&endDateTime=2026-05-01T00:00:00Z&expandRecurrences=true"
	starts := func(path string) []string {
		var page struct{ Data []unical.Event }
		s.must(t, "GET", path+window, nil, &page)
		var out []string
		for _, e := range page.Data {
			at, err := e.Start.Time("start")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, e.Title+" "+at.UTC().Format("2006-01-02T15:04Z"))
		}
		slices.Sort(out)
		return out
	}
	source := starts(events)
	if len(source) != 5 {
		t.Errorf("the source has %d instances, want 5: %q", len(source), source)
	}
	if diff := cmp.Diff(source, starts(other)); diff != "" {
		t.Errorf("instances after the round trip (-source +copy):\n%s", diff)
	}
}

// primaryCalendar returns the escaped id of an account's primary
// calendar, or of its first one where none is primary (CalDAV).
func primaryCalendar(t *testing.T, ts *testServer, account string) string {
	t.Helper()
	var cals struct{ Data []unical.Calendar }
	ts.must(t, "GET", "/v1/calendars/"+account, nil).Into(t, &cals)
	if len(cals.Data) == 0 {
		t.Fatalf("account %s has no calendar", account)
	}
	id := cals.Data[0].ID
	for _, c := range cals.Data {
		if c.IsPrimary {
			id = c.ID
		}
	}
	return url.PathEscape(id)
}
