package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/davtest"
)

// TestCalDAVE2E_ToDoIsNoEvent: an event id naming a to-do stored in the
// calendar's collection is 404 not_found to GET, PUT and DELETE, and the
// to-do stays as it was.
func TestCalDAVE2E_ToDoIsNoEvent(t *testing.T) {
	t.Parallel()
	s := davtest.StartUser(t, davtest.Radicale, "ada@example.com")
	st := mustNewDAVStack(t, s)
	var acct unical.Account
	st.must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c", map[string]string{"email": s.Username, "password": s.Password}, &acct)
	dir := s.HomePath + "mixed/"
	mk := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>` +
		`<C:supported-calendar-component-set><C:comp name="VEVENT"/><C:comp name="VTODO"/></C:supported-calendar-component-set>` +
		`</D:prop></D:set></C:mkcalendar>`
	if r := s.Do(t, "MKCALENDAR", dir, mk, http.Header{"Content-Type": {"application/xml; charset=utf-8"}}); r.StatusCode != http.StatusCreated {
		t.Fatalf("MKCALENDAR: %d\n%s", r.StatusCode, r.Body)
	}
	s.PutObject(t, dir+"todo.ics", strings.ReplaceAll("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n"+
		"BEGIN:VTODO\nUID:todo\nDTSTAMP:20260101T000000Z\nDUE:20260601T100000Z\nSUMMARY:buy milk\nEND:VTODO\nEND:VCALENDAR\n", "\n", "\r\n"))
	type stored struct {
		Status     int
		ETag, Body string
	}
	held := func() stored {
		r := s.Do(t, http.MethodGet, dir+"todo.ics", "", nil)
		return stored{r.StatusCode, r.Header.Get("ETag"), string(r.Body)}
	}
	before := held()

	path := "/v1/events/" + acct.ID + "/mixed/todo"
	st.wantError(t, "GET", path, nil, http.StatusNotFound, "not_found")
	st.wantError(t, "PUT", path, map[string]string{"title": "overwritten"}, http.StatusNotFound, "not_found")
	st.wantError(t, "DELETE", path, nil, http.StatusNotFound, "not_found")
	if diff := cmp.Diff(before, held()); diff != "" {
		t.Errorf("the to-do changed (-before +after):\n%s", diff)
	}
}
