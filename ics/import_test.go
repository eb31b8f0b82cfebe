package ics_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/ics"
	"github.com/unical/unical/internal/testkit/apitest"
)

// virtualCalendar starts a server and returns it with the events path of
// a VIRTUAL account's primary calendar.
func virtualCalendar(t *testing.T) (*apitest.Stack, string) {
	t.Helper()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]string{"email": "room-4b@rooms.example.com", "providerType": "VIRTUAL"}).Into(t, &acct)
	return st, "/v1/events/" + acct.ID + "/primary"
}

// postICS imports body over HTTP and returns the answer.
func postICS(t *testing.T, st *apitest.Stack, path, body string) (int, *ics.ImportResult) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", st.URL+path+"/ics", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/calendar")
	req.Header.Set("x-api-key", st.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST .../ics: %v (is the server still up?)", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var res ics.ImportResult
	(&apitest.Response{Status: resp.StatusCode, Body: data}).Into(t, &res)
	for i := range res.Errors {
		res.Errors[i].Message = "" // the wording is not the contract
	}
	return resp.StatusCode, &res
}

// calendarLines lists a calendar unexpanded as "title start" lines.
func calendarLines(t *testing.T, st *apitest.Stack, path string) []string {
	t.Helper()
	var page struct{ Data []unical.Event }
	st.Must(t, "GET", path, nil).Into(t, &page)
	var out []string
	for _, e := range page.Data {
		out = append(out, e.Title+" "+e.Start.DateTime)
	}
	return out
}

// occurrenceLines lists the occurrences of the calendar's only series in
// [from, to) as "title start" lines.
func occurrenceLines(t *testing.T, st *apitest.Stack, path, from, to string) []string {
	t.Helper()
	var events struct{ Data []unical.Event }
	st.Must(t, "GET", path, nil).Into(t, &events)
	var series []string
	for _, e := range events.Data {
		if e.IsRecurring {
			series = append(series, e.ID)
		}
	}
	if len(series) != 1 {
		t.Fatalf("the calendar holds %d series, want 1", len(series))
	}
	q := url.Values{"startDateTime": {from}, "endDateTime": {to}}
	var page struct{ Data []unical.Event }
	st.Must(t, "GET", path+"/"+url.PathEscape(series[0])+"/occurrences?"+q.Encode(), nil).Into(t, &page)
	var out []string
	for _, e := range page.Data {
		out = append(out, e.Title+" "+e.Start.DateTime)
	}
	return out
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// secondly is the 400-byte file of issue 20: a FREQ=SECONDLY series and
// one moved occurrence. dtend sets the length of every instance.
func secondly(dtend string) string {
	return crlf(`BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//x//EN
BEGIN:VEVENT
UID:tick@example.com
DTSTAMP:20260101T000000Z
SUMMARY:tick
DTSTART:20260101T000000Z
DTEND:` + dtend + `
RRULE:FREQ=SECONDLY
END:VEVENT
BEGIN:VEVENT
UID:tick@example.com
DTSTAMP:20260101T000000Z
RECURRENCE-ID:20260301T000000Z
SUMMARY:tock
DTSTART:20260301T120000Z
DTEND:20260301T120001Z
END:VEVENT
END:VCALENDAR
`)
}

// TestImport_Secondly imports the file that took the server down (issue
// 20) over HTTP into a VIRTUAL calendar: with one-second instances the
// moved occurrence is found where it started (and, importing again, where
// it went), so the file is imported; with one-hour instances 3,600 of them
// overlap that second, more than an override lookup reads, so the UID is
// refused and its series deleted again. Either way the server answers and
// the calendar holds all of the UID or nothing of it.
func TestImport_Secondly(t *testing.T) {
	t.Parallel()
	t.Run("Imported", func(t *testing.T) {
		t.Parallel()
		st, path := virtualCalendar(t)
		status, res := postICS(t, st, path, secondly("20260101T000001Z"))
		want := &ics.ImportResult{Created: 2, Errors: []ics.ImportError{}}
		if diff := cmp.Diff(want, res); status != http.StatusOK || diff != "" {
			t.Fatalf("import = %d (-want +got):\n%s", status, diff)
		}
		got := occurrenceLines(t, st, path, "2026-03-01T11:59:59Z", "2026-03-01T12:00:02Z")
		wantOcc := []string{"tick 2026-03-01T11:59:59Z", "tock 2026-03-01T12:00:00Z", "tick 2026-03-01T12:00:00Z", "tick 2026-03-01T12:00:01Z"}
		if diff := cmp.Diff(wantOcc, got); diff != "" {
			t.Errorf("occurrences after the import (-want +got):\n%s", diff)
		}
		status, res = postICS(t, st, path, secondly("20260101T000001Z"))
		want = &ics.ImportResult{Unchanged: 2, Errors: []ics.ImportError{}}
		if diff := cmp.Diff(want, res); status != http.StatusOK || diff != "" {
			t.Errorf("second import = %d (-want +got):\n%s", status, diff)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		t.Parallel()
		st, path := virtualCalendar(t)
		status, res := postICS(t, st, path, secondly("20260101T010000Z"))
		want := &ics.ImportResult{Errors: []ics.ImportError{{UID: "tick@example.com", Property: "RECURRENCE-ID"}}}
		if diff := cmp.Diff(want, res); status != http.StatusOK || diff != "" {
			t.Fatalf("import = %d (-want +got):\n%s", status, diff)
		}
		if got := calendarLines(t, st, path); len(got) != 0 {
			t.Errorf("a refused import left %q", got)
		}
	})
}

// TestImport_NotUTF8 shows that a VEVENT whose text is not UTF-8 is
// refused by UID, naming the property, with nothing of its UID written
// (its override neither), while the rest of the file is imported.
func TestImport_NotUTF8(t *testing.T) {
	t.Parallel()
	st, path := virtualCalendar(t)
	body := crlf(`BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//x//EN
BEGIN:VEVENT
UID:fine@example.com
DTSTAMP:20260101T000000Z
SUMMARY:fine
DTSTART:20260310T090000Z
DTEND:20260310T100000Z
END:VEVENT
BEGIN:VEVENT
UID:weekly@example.com
DTSTAMP:20260101T000000Z
SUMMARY:weekly
DTSTART:20260310T090000Z
DTEND:20260310T100000Z
RRULE:FREQ=WEEKLY;COUNT=3
END:VEVENT
BEGIN:VEVENT
UID:weekly@example.com
DTSTAMP:20260101T000000Z
RECURRENCE-ID:20260317T090000Z
SUMMARY:caf` + "\xe9" + `
DTSTART:20260317T090000Z
DTEND:20260317T100000Z
END:VEVENT
END:VCALENDAR
`)
	status, res := postICS(t, st, path, body)
	want := &ics.ImportResult{Created: 1, Errors: []ics.ImportError{{UID: "weekly@example.com", Property: "SUMMARY"}}}
	if diff := cmp.Diff(want, res); status != http.StatusOK || diff != "" {
		t.Fatalf("import = %d (-want +got):\n%s", status, diff)
	}
	if diff := cmp.Diff([]string{"fine 2026-03-10T09:00:00Z"}, calendarLines(t, st, path)); diff != "" {
		t.Errorf("events after the import (-want +got):\n%s", diff)
	}
}

// TestImport_UndoesUpdate shows that a UID whose override is refused
// leaves nothing of itself behind even when its series existed: the
// fields the import changed on it are written back.
func TestImport_UndoesUpdate(t *testing.T) {
	t.Parallel()
	st, path := virtualCalendar(t)
	series := `BEGIN:VEVENT
UID:weekly@example.com
DTSTAMP:20260101T000000Z
SUMMARY:%s
DTSTART:20260310T090000Z
DTEND:20260310T100000Z
RRULE:FREQ=WEEKLY;COUNT=3
END:VEVENT
`
	wrap := func(events ...string) string {
		return crlf("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//x//EN\n" + strings.Join(events, "") + "END:VCALENDAR\n")
	}
	if status, res := postICS(t, st, path, wrap(strings.Replace(series, "%s", "weekly", 1))); status != http.StatusOK || res.Created != 1 {
		t.Fatalf("first import = %d %+v", status, res)
	}
	// The series has no occurrence on a Wednesday.
	orphan := `BEGIN:VEVENT
UID:weekly@example.com
DTSTAMP:20260101T000000Z
RECURRENCE-ID:20260311T090000Z
SUMMARY:moved
DTSTART:20260312T090000Z
DTEND:20260312T100000Z
END:VEVENT
`
	status, res := postICS(t, st, path, wrap(strings.Replace(series, "%s", "renamed", 1), orphan))
	want := &ics.ImportResult{Errors: []ics.ImportError{{UID: "weekly@example.com", Property: "RECURRENCE-ID"}}}
	if diff := cmp.Diff(want, res); status != http.StatusOK || diff != "" {
		t.Fatalf("second import = %d (-want +got):\n%s", status, diff)
	}
	if diff := cmp.Diff([]string{"weekly 2026-03-10T09:00:00Z"}, calendarLines(t, st, path)); diff != "" {
		t.Errorf("events after the refused import (-want +got):\n%s", diff)
	}
}
