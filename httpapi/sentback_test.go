package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/apitest"
)

// sentBackEvent is a rich event body: attendees, reminders, recurrence,
// extended properties, so that much of a fetched event travels back.
const sentBackEvent = `{"title":"Planning","description":"Quarterly","location":"Room 1",
	"start":{"dateTime":"2026-03-02T09:00:00+01:00","timeZone":"Europe/Berlin"},
	"end":{"dateTime":"2026-03-02T10:00:00+01:00","timeZone":"Europe/Berlin"},
	"recurrence":["RRULE:FREQ=WEEKLY;COUNT=4"],
	"attendees":[{"email":"bob@example.com","name":"Bob"}],
	"visibility":"private","transparency":"transparent",
	"reminders":{"useDefault":false,"overrides":[{"method":"popup","minutes":15}]},
	"publicExtendedProperties":{"team":"blue"}}`

// checkSentBack reads the event or calendar at path, sends the answer back
// unchanged as a PUT, and checks that it is accepted and changes nothing
// but the fields the provider moves on every write (etag, updatedAt).
func checkSentBack(t *testing.T, st *apitest.Stack, path string) {
	t.Helper()
	fetched := st.Must(t, "GET", path, nil)
	put := st.Do(t, "PUT", path, fetched.Body)
	if put.Status != http.StatusOK {
		t.Fatalf("PUT %s with its own GET answer = %d, want 200\nsent: %s\nanswer: %s", path, put.Status, fetched.Body, put.Body)
	}
	moving := func(m map[string]any) map[string]any {
		delete(m, "etag")
		delete(m, "updatedAt")
		return m
	}
	want, got := moving(fetched.Object(t)), moving(st.Must(t, "GET", path, nil).Object(t))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s changed by sending it back (-before +after):\n%s", path, d)
	}
}

// TestSentBackVirtual sends a fetched event and calendar of a VIRTUAL
// account back as PUT.
func TestSentBackVirtual(t *testing.T) {
	t.Parallel()
	st, acct := mustVirtualAccount(t)
	var ev struct{ ID string }
	st.Must(t, "POST", "/v1/events/"+acct+"/primary", sentBackEvent).Into(t, &ev)
	checkSentBack(t, st, "/v1/events/"+acct+"/primary/"+url.PathEscape(ev.ID))
	var cal struct{ ID string }
	st.Must(t, "POST", "/v1/calendars/"+acct, `{"name":"Rooms","hexColor":"#33aa55","timeZone":"Europe/Berlin"}`).Into(t, &cal)
	checkSentBack(t, st, "/v1/calendars/"+acct+"/"+url.PathEscape(cal.ID))
}

// TestSentBackGoogle does the same on the Google fake, also with the
// primary calendar read through its alias, whose answer carries the
// calendar's real id (the user's address), not the alias of the path.
func TestSentBackGoogle(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	acct := st.connect(t)
	var cal struct{ ID string }
	st.Must(t, "POST", "/v1/calendars/"+acct, `{"name":"Rooms","hexColor":"#33aa55","timeZone":"Europe/Berlin"}`).Into(t, &cal)
	calPath := "/v1/calendars/" + acct + "/" + url.PathEscape(cal.ID)
	checkSentBack(t, st.Stack, calPath)
	checkSentBack(t, st.Stack, "/v1/calendars/"+acct+"/primary")
	var ev struct{ ID string }
	events := "/v1/events/" + acct + "/" + url.PathEscape(cal.ID)
	st.Must(t, "POST", events, sentBackEvent).Into(t, &ev)
	checkSentBack(t, st.Stack, events+"/"+url.PathEscape(ev.ID))
}
