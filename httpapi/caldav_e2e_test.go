package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/provider/caldav"
)

// davStack is the whole server on real HTTP (internal/testkit/apitest) with the
// CalDAV provider pointed at a davtest server.
type davStack struct {
	*apitest.Stack
}

func mustNewDAVStack(t *testing.T, s *davtest.Server) *davStack {
	t.Helper()
	st := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{AllowPrivateTargets: true})}, nil)
	st.CreateApp(t, &admin.ApplicationParams{
		Name:      unical.Some("caldav e2e"),
		Providers: map[unical.ProviderType]unical.ProviderSettings{caldav.ProviderType: {ServerURL: s.URL}},
	})
	return &davStack{Stack: st}
}

// must sends a request, fails unless it answers 200, and decodes the
// answer into v when v is not nil.
func (st *davStack) must(t *testing.T, method, path string, body, v any) {
	t.Helper()
	r := st.Must(t, method, path, body)
	if v != nil {
		r.Into(t, v)
	}
}

func (st *davStack) wantError(t *testing.T, method, path string, body any, status int, code string) {
	t.Helper()
	r := st.Do(t, method, path, body)
	if got := r.Error(t).Code; r.Status != status || got != code {
		t.Errorf("%s %s = %d %s, want %d %s\n%s", method, path, r.Status, got, status, code, r.Body)
	}
}

type page struct {
	Data          []unical.Event `json:"data"`
	NextPageToken string         `json:"nextPageToken"`
	NextSyncToken string         `json:"nextSyncToken"`
}

// TestCalDAVE2E walks issue 3's "done when" list through httpapi against
// each server: connect, calendars, events of every kind, expansion across
// DST with overrides and exceptions, occurrences, RSVP, free/busy, sync
// tokens, and the refusals that write nothing.
func TestCalDAVE2E(t *testing.T) {
	t.Parallel()
	for _, kind := range append(davtest.Kinds(), davtest.DAViCal) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			// unical accounts are email addresses; so is this server's user.
			testCalDAVE2E(t, davtest.StartUser(t, kind, "ada@example.com"))
		})
	}
}

func testCalDAVE2E(t *testing.T, s *davtest.Server) {
	{
		st := mustNewDAVStack(t, s)

		// Connect: a wrong password is a 400 naming the password (the
		// Client's choice for refused credentials) and no account.
		st.wantError(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c",
			map[string]string{"email": s.Username, "password": s.Password + "x"}, http.StatusBadRequest, "invalid_request")
		var accounts page
		st.must(t, "GET", "/v1/endUserAccounts", nil, &accounts)
		if len(accounts.Data) != 0 {
			t.Fatalf("a refused connect left %d accounts", len(accounts.Data))
		}
		var acct struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		st.must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c",
			map[string]string{"email": s.Username, "password": s.Password}, &acct)
		if acct.ID == "" || acct.Status != "ACTIVE" {
			t.Fatalf("connected account = %+v", acct)
		}
		a := acct.ID

		// Calendars.
		var cal unical.Calendar
		st.must(t, "POST", "/v1/calendars/"+a, map[string]string{"name": "E2E", "hexColor": "#123456"}, &cal)
		st.must(t, "PUT", "/v1/calendars/"+a+"/"+cal.ID, map[string]string{"name": "E2E renamed"}, &cal)
		if cal.Name != "E2E renamed" || cal.HexColor != "#123456" || cal.IsPrimary {
			t.Errorf("calendar = %+v", cal)
		}
		var cals struct {
			Data []unical.Calendar `json:"data"`
		}
		st.must(t, "GET", "/v1/calendars/"+a, nil, &cals)
		if !containsCal(cals.Data, cal.ID) {
			t.Errorf("the new calendar is not listed")
		}
		events := "/v1/events/" + a + "/" + cal.ID

		// Refusals write nothing.
		st.wantError(t, "POST", events, map[string]any{"title": "bad", "start": map[string]string{"dateTime": "2026-03-26T09:00:00+01:00"},
			"end": map[string]string{"dateTime": "2026-03-26T08:00:00+01:00"}}, http.StatusBadRequest, "invalid_request")
		st.wantError(t, "POST", events, map[string]any{"title": "bad", "start": map[string]string{"dateTime": "2026-03-26T09:00:00+01:00"},
			"recurrence": []string{"RRULE:FREQ=FORTNIGHTLY"}}, http.StatusBadRequest, "invalid_request")
		var first page
		st.must(t, "GET", events, nil, &first)
		if len(first.Data) != 0 || first.NextSyncToken == "" {
			t.Fatalf("after refused writes the calendar holds %d events (sync token %q)", len(first.Data), first.NextSyncToken)
		}

		// A daily 09:00 Berlin series across the DST change of 29 March,
		// with an exception and a moved instance.
		var series unical.Event
		st.must(t, "POST", events, map[string]any{
			"title": "Standup", "start": map[string]string{"dateTime": "2026-03-26T09:00:00", "timeZone": "Europe/Berlin"},
			"end":        map[string]string{"dateTime": "2026-03-26T09:30:00", "timeZone": "Europe/Berlin"},
			"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=7", "EXDATE;TZID=Europe/Berlin:20260328T090000"},
			"attendees":  []map[string]string{{"email": s.Username}, {"email": "bob@example.com"}},
		}, &series)
		st.must(t, "PUT", events+"/"+series.ID+"_20260330T070000Z", map[string]any{
			"title": "Standup (moved)", "start": map[string]string{"dateTime": "2026-03-30T14:00:00+02:00"},
			"end": map[string]string{"dateTime": "2026-03-30T14:30:00+02:00"},
		}, nil)
		var solo unical.Event
		st.must(t, "POST", events, map[string]any{"title": "Lunch", "start": map[string]string{"dateTime": "2026-03-27T12:00:00Z"},
			"end": map[string]string{"dateTime": "2026-03-27T13:00:00Z"}, "transparency": "transparent"}, &solo)
		var allDay unical.Event
		st.must(t, "POST", events, map[string]any{"title": "Offsite", "isAllDay": true,
			"start": map[string]string{"dateTime": "2026-03-31T00:00:00"}, "end": map[string]string{"dateTime": "2026-04-01T00:00:00"}}, &allDay)

		q := url.Values{"expandRecurrences": {"true"}, "startDateTime": {"2026-03-26T00:00:00Z"}, "endDateTime": {"2026-04-02T00:00:00Z"},
			"orderBy": {"startTime"}, "timeZone": {"UTC"}}
		var expanded page
		st.must(t, "GET", events+"?"+q.Encode(), nil, &expanded)
		var got []string
		for _, e := range expanded.Data {
			got = append(got, e.Title+" "+e.Start.DateTime)
		}
		want := []string{
			"Standup 2026-03-26T08:00:00Z", "Standup 2026-03-27T08:00:00Z", "Lunch 2026-03-27T12:00:00Z",
			"Standup 2026-03-29T07:00:00Z", "Standup (moved) 2026-03-30T12:00:00Z",
			"Offsite 2026-03-31T00:00:00", "Standup 2026-03-31T07:00:00Z", "Standup 2026-04-01T07:00:00Z",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("expanded listing (-want +got):\n%s", diff)
		}
		var occ page
		st.must(t, "GET", events+"/"+series.ID+"/occurrences?"+url.Values{"startDateTime": {"2026-03-29T00:00:00Z"}, "endDateTime": {"2026-04-01T00:00:00Z"}}.Encode(), nil, &occ)
		if len(occ.Data) != 3 {
			t.Errorf("occurrences 29-31 March: %d, want 3", len(occ.Data))
		}
		for _, e := range occ.Data {
			if e.RecurringEventID != series.ID {
				t.Errorf("occurrence %s has recurringEventId %q", e.ID, e.RecurringEventID)
			}
		}

		// RSVP: the account is an attendee of the series, not of lunch.
		st.must(t, "POST", events+"/"+series.ID+"/rsvp", map[string]string{"responseStatus": "accepted"}, nil)
		var got1 unical.Event
		st.must(t, "GET", events+"/"+series.ID, nil, &got1)
		if got1.MyResponseStatus != unical.ResponseAccepted {
			t.Errorf("after RSVP myResponseStatus = %q", got1.MyResponseStatus)
		}
		st.wantError(t, "POST", events+"/"+solo.ID+"/rsvp", map[string]string{"responseStatus": "accepted"}, http.StatusBadRequest, "invalid_request")

		// Free/busy: the transparent lunch does not block time; the
		// moved instance does, at its new time.
		var fb []unical.FreeBusyResult
		st.must(t, "POST", "/v1/freeBusy/"+a, map[string]any{"startDateTime": "2026-03-30T00:00:00Z", "endDateTime": "2026-03-31T00:00:00Z",
			"timeZone": "UTC", "calendarIds": []string{cal.ID}}, &fb)
		if len(fb) != 1 || len(fb[0].BusySlots) != 1 || !strings.HasPrefix(fb[0].BusySlots[0].Start.DateTime, "2026-03-30T12:00:00") {
			t.Errorf("free/busy on 30 March = %+v, want the moved standup at 12:00Z only", fb)
		}

		// Sync: create, update and delete are each seen once. (An event
		// created and deleted between two tokens may be left out: Xandikos
		// compares two states, RFC 6578 §3.5.)
		var before page
		st.must(t, "GET", events, nil, &before)
		var added unical.Event
		st.must(t, "POST", events, map[string]any{"title": "Added", "start": map[string]string{"dateTime": "2026-04-10T09:00:00Z"}}, &added)
		st.must(t, "PUT", events+"/"+solo.ID, map[string]string{"title": "Lunch, later"}, nil)
		st.must(t, "DELETE", events+"/"+allDay.ID, nil, nil)
		var changes page
		st.must(t, "GET", events+"?syncToken="+url.QueryEscape(before.NextSyncToken), nil, &changes)
		seen := map[string]string{}
		for _, e := range changes.Data {
			if e.RecurringEventID != "" {
				continue // the series' override, part of the series' changes
			}
			if _, dup := seen[e.ID]; dup {
				t.Errorf("sync reported %s twice", e.ID)
			}
			seen[e.ID] = e.Title
			if e.IsCancelled {
				seen[e.ID] = "cancelled"
			}
		}
		wantSeen := map[string]string{solo.ID: "Lunch, later", allDay.ID: "cancelled", added.ID: "Added"}
		if diff := cmp.Diff(wantSeen, seen); diff != "" {
			t.Errorf("sync (-want +got):\n%s", diff)
		}
		st.must(t, "PUT", events+"/"+added.ID, map[string]string{"title": "Added v2"}, nil)
		var more page
		st.must(t, "GET", events+"?syncToken="+url.QueryEscape(changes.NextSyncToken), nil, &more)
		if len(more.Data) != 1 || more.Data[0].Title != "Added v2" {
			t.Errorf("second sync returned %+v, want only the changed event", davTitlesOf(more.Data))
		}

		// A calendar that is deleted is gone.
		st.must(t, "DELETE", "/v1/calendars/"+a+"/"+cal.ID, nil, nil)
		st.wantError(t, "GET", "/v1/calendars/"+a+"/"+cal.ID, nil, http.StatusNotFound, "not_found")
	}
}

// TestCalDAVE2E_Expired checks that a 401 after connecting moves the account
// to EXPIRED, and reconnecting with the password makes it ACTIVE again.
func TestCalDAVE2E_Expired(t *testing.T) {
	t.Parallel()
	// Xandikos's Basic auth is davtest's proxy, so one server shows it.
	s := davtest.StartUser(t, davtest.Radicale, "ada@example.com")
	st := mustNewDAVStack(t, s)
	var acct struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		StatusReason string `json:"statusReason"`
	}
	st.must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c", map[string]string{"email": s.Username, "password": s.Password}, &acct)
	// The password changes at the server.
	old := s.Password
	s.SetPassword(t, old+"-new")
	if r := st.Do(t, "GET", "/v1/calendars/"+acct.ID, nil); r.Status/100 == 2 {
		t.Fatalf("listing with a revoked password = %d", r.Status)
	}
	st.must(t, "GET", "/v1/endUserAccounts/"+acct.ID, nil, &acct)
	if acct.Status != "EXPIRED" || acct.StatusReason != string(unical.StatusReasonPasswordInvalid) {
		t.Errorf("after a 401 the account is %s/%q, want EXPIRED/password_invalid", acct.Status, acct.StatusReason)
	}
	var page unical.Page[unical.Account]
	st.must(t, "GET", "/v1/endUserAccounts?statusFilter=expired", nil, &page)
	if len(page.Data) != 1 || page.Data[0].StatusReason != unical.StatusReasonPasswordInvalid {
		t.Errorf("statusFilter=expired = %+v, want the account with password_invalid", page.Data)
	}
	st.must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c", map[string]string{"email": s.Username, "password": old + "-new"}, &acct)
	acct.StatusReason = "" // a statusReason left out must not keep the old one
	st.must(t, "GET", "/v1/endUserAccounts/"+acct.ID, nil, &acct)
	if acct.Status != "ACTIVE" || acct.StatusReason != "" {
		t.Errorf("after reconnecting the account is %s/%q, want ACTIVE without a reason", acct.Status, acct.StatusReason)
	}
	st.must(t, "GET", "/v1/calendars/"+acct.ID, nil, nil)
}

func containsCal(cals []unical.Calendar, id string) bool {
	for _, c := range cals {
		if c.ID == id {
			return true
		}
	}
	return false
}

func davTitlesOf(events []unical.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Title)
	}
	sort.Strings(out)
	return out
}

// TestCalDAVE2E_PagingRepeatsQuery pages an expanded listing with limit=2 by
// sending the original query again with each pageToken, as most clients
// do (see apitest.CheckExpandedPagingRule). The Client expands CalDAV
// series itself, so the page tokens carry its resume position.
func TestCalDAVE2E_PagingRepeatsQuery(t *testing.T) {
	t.Parallel()
	s := davtest.StartUser(t, davtest.Radicale, "ada@example.com")
	st := mustNewDAVStack(t, s)
	var acct unical.Account
	st.must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c", map[string]string{"email": s.Username, "password": s.Password}, &acct)
	var cal unical.Calendar
	st.must(t, "POST", "/v1/calendars/"+acct.ID, map[string]string{"name": "Paging"}, &cal)
	st.CheckExpandedPagingRule(t, acct.ID, cal.ID)
}

// TestCalDAVE2E_PrivateServerRefused: through the API, an application whose
// CalDAV server is on loopback cannot connect accounts unless the
// provider allows private targets: a 400 naming serverUrl, and no account.
func TestCalDAVE2E_PrivateServerRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	st := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{})}, nil)
	st.CreateApp(t, &admin.ApplicationParams{
		Providers: map[unical.ProviderType]unical.ProviderSettings{caldav.ProviderType: {ServerURL: srv.URL}},
	})
	r := st.Do(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c",
		map[string]string{"email": "ada@example.com", "password": "app-pw"})
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Code != "invalid_request" || e.Field != "serverUrl" {
		t.Errorf("connect = %d %+v, want 400 invalid_request naming serverUrl\n%s", r.Status, e, r.Body)
	}
	list := st.Must(t, "GET", "/v1/endUserAccounts", nil)
	var accounts struct {
		Data []any `json:"data"`
	}
	list.Into(t, &accounts)
	if len(accounts.Data) != 0 {
		t.Errorf("accounts after the refusal = %s, want none", list.Body)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was reached %d times", n)
	}
}

// TestCalDAVE2E_IDsStayInTheHome: the same through the API, where the ids
// arrive percent-encoded in the path: a 400 naming the field, and nothing
// sent to the server.
func TestCalDAVE2E_IDsStayInTheHome(t *testing.T) {
	t.Parallel()
	srvURL, others := davtest.FakeHome(t)
	st := apitest.Start(t, []unical.Provider{newDAVProvider(t, caldav.Config{AllowPrivateTargets: true})}, nil)
	st.CreateApp(t, &admin.ApplicationParams{
		Providers: map[unical.ProviderType]unical.ProviderSettings{caldav.ProviderType: {ServerURL: srvURL}},
	})
	var acct struct {
		ID string `json:"id"`
	}
	st.Must(t, "POST", "/v1/basicAuth/connect/"+st.AppID+"/provider_c",
		map[string]string{"email": "ada@example.com", "password": "pw"}).Into(t, &acct)
	tests := []struct{ method, path, field string }{
		{"GET", "/v1/calendars/" + acct.ID + "/%2E%2E", "calendarId"},
		{"GET", "/v1/calendars/" + acct.ID + "/%252e%252e", "calendarId"},
		{"DELETE", "/v1/calendars/" + acct.ID + "/..%5C..", "calendarId"},
		{"GET", "/v1/events/" + acct.ID + "/%2e%2e", "calendarId"},
		{"GET", "/v1/events/" + acct.ID + "/cal/%2E%2E", "eventId"},
		{"DELETE", "/v1/events/" + acct.ID + "/cal/..%252f..%252fother", "eventId"},
		{"GET", "/v1/events/" + acct.ID + "/%2e%2e%2fother/e1", "calendarId"},
	}
	for _, tt := range tests {
		r := st.Do(t, tt.method, tt.path, nil)
		if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != tt.field {
			t.Errorf("%s %s = %d %+v, want 400 naming %s\n%s", tt.method, tt.path, r.Status, e, tt.field, r.Body)
		}
	}
	if got := others(); len(got) != 0 {
		t.Errorf("requests for escaping ids reached the server: %q", got)
	}
}

// newDAVProvider is caldav.New that fails t on an error.
func newDAVProvider(t testing.TB, cfg caldav.Config) *caldav.Provider {
	t.Helper()
	p, err := caldav.New(cfg)
	if err != nil {
		t.Fatalf("caldav.New: %v", err)
	}
	return p
}
