package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/graphtest"
	"github.com/unical/unical/provider/microsoft"
	"github.com/unical/unical/subscriptions"
)

// These tests run the whole stack for PROVIDER_B accounts: httpapi over a
// unical.Client over a bolt store, with the Microsoft provider pointed at
// internal/testkit/graphtest. Every request goes over real HTTP.

const (
	adaEmail    = "ada@contoso.test"
	appRedirect = "https://app.example.com/connected"
)

// graphStack is a running unical server (internal/testkit/apitest) with one
// application whose PROVIDER_B settings point at a fake Graph.
type graphStack struct {
	*apitest.Stack
	Graph  *graphtest.Server
	UserID string // Ada's Graph user id
	// Sent records the webhook messages the engine posts once Run starts.
	Sent *recordingSender
}

// recordingSender is a WebhookSender that records every message and
// answers 200.
type recordingSender struct {
	mu     sync.Mutex
	bodies []string
	sent   chan struct{}
}

// Send implements engine.Sender.
func (rs *recordingSender) Send(ctx context.Context, url string, header map[string][]string, body []byte) (engine.Response, error) {
	rs.mu.Lock()
	rs.bodies = append(rs.bodies, string(body))
	rs.mu.Unlock()
	select {
	case rs.sent <- struct{}{}:
	default:
	}
	return engine.Response{StatusCode: http.StatusOK}, nil
}

// Bodies returns the bodies sent so far.
func (rs *recordingSender) Bodies() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.bodies)
}

// MustStartGraphStack starts graphtest and the unical server and creates an
// application registered at the fake identity platform.
func MustStartGraphStack(tb testing.TB) *graphStack {
	tb.Helper()
	return startGraphStack(tb, graphtest.Options{}, nil)
}

// startGraphStack is MustStartGraphStack with options for the fake, and a clock
// (when not nil) that the fake, the provider and the unical Client share.
func startGraphStack(tb testing.TB, opts graphtest.Options, clock *graphtest.Clock) *graphStack {
	tb.Helper()
	return startGraphStackWith(tb, opts, clock, nil)
}

// startGraphStackWith is startGraphStack with configure changing the
// Client's Config last.
func startGraphStackWith(tb testing.TB, opts graphtest.Options, clock *graphtest.Clock, configure func(*apitest.Config)) *graphStack {
	tb.Helper()
	st := &graphStack{}
	opts.AllowHTTPNotificationURLs = true
	var now func() time.Time
	if clock != nil {
		now, opts.Now = clock.Now, clock.Now
	}
	st.Graph = graphtest.NewServer(tb, opts)
	st.UserID = st.Graph.AddUser(graphtest.User{UserPrincipalName: adaEmail, DisplayName: "Ada Lovelace", TimeZone: "W. Europe Standard Time"})

	p, err := microsoft.New(microsoft.Config{HTTPClient: st.Graph.Client(), MaxRetryWait: 50 * time.Millisecond, Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	st.Sent = &recordingSender{sent: make(chan struct{}, 100)}
	st.Stack = apitest.Start(tb, []unical.Provider{p}, func(cfg *apitest.Config) {
		cfg.AllowPrivateTargets, cfg.Sender, cfg.ChangePollInterval = true, st.Sent, -1
		cfg.Now = now
		if configure != nil {
			configure(cfg)
		}
	})
	st.Graph.AddClient(graphtest.Client{ID: "unical-app", Secret: "s3cret", RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}, RequirePKCE: true})
	st.CreateApp(tb, &admin.ApplicationParams{
		Name:         unical.Some("outlook app"),
		RedirectURLs: unical.Some([]string{appRedirect}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderMicrosoft: {
				ClientID: "unical-app", ClientSecret: "s3cret",
				AuthURL: st.Graph.AuthURL(), TokenURL: st.Graph.TokenURL(), APIBaseURL: st.Graph.GraphBaseURL(),
			},
		},
	})
	return st
}

// do sends a request with the application's API key.
func (st *graphStack) do(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	return st.Do(tb, method, path, body)
}

// must sends a request and fails unless it answers 200.
func (st *graphStack) must(tb testing.TB, method, path string, body any) *response {
	tb.Helper()
	return st.Must(tb, method, path, body)
}

// wantError fails unless r is an error answer with status, code and
// (when not empty) field.
func wantError(tb testing.TB, what string, r *response, status int, code, field string) {
	tb.Helper()
	var e struct {
		Error apitest.APIError `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	if r.Status != status || e.Error.Code != code || (field != "" && e.Error.Field != field) {
		tb.Errorf("%s = %d %s (field %q); want %d %s (field %q)\n%s", what, r.Status, e.Error.Code, e.Error.Field, status, code, field, r.Body)
	}
}

// MustConnect posts a refresh token the fake issued for Ada and returns
// the account id.
func (st *graphStack) MustConnect(tb testing.TB) string {
	tb.Helper()
	var acct unical.Account
	st.must(tb, "POST", "/v1/endUserAccounts", map[string]any{
		"email": adaEmail, "providerType": "PROVIDER_B", "refreshToken": st.Graph.IssueRefreshToken("unical-app", st.UserID),
	}).Into(tb, &acct)
	if acct.Status != unical.AccountStatusActive || acct.ProviderType != unical.ProviderMicrosoft {
		tb.Fatalf("account = %+v", acct)
	}
	return acct.ID
}

// eventList is the list envelope.
type eventList struct {
	Data          []*unical.Event `json:"data"`
	NextPageToken string          `json:"nextPageToken"`
	NextSyncToken string          `json:"nextSyncToken"`
}

// listAll walks every page of an event listing.
func (st *graphStack) listAll(tb testing.TB, path string) ([]*unical.Event, string) {
	tb.Helper()
	var all []*unical.Event
	token := ""
	for range 50 {
		p := path
		if token != "" {
			sep := "?"
			if strings.Contains(p, "?") {
				sep = "&"
			}
			p += sep + "pageToken=" + url.QueryEscape(token)
		}
		var page eventList
		st.must(tb, "GET", p, nil).Into(tb, &page)
		all = append(all, page.Data...)
		if page.NextPageToken == "" {
			return all, page.NextSyncToken
		}
		token = page.NextPageToken
	}
	tb.Fatalf("%s did not end in 50 pages", path)
	return nil, ""
}

func TestOAuthFlowThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	start := st.URL + "/v1/oauth/authorize/" + st.AppID + "/provider_b?" + url.Values{
		"redirectUrl": {appRedirect}, "state": {"app-state=="}, "prompt": {"select_account"}, "loginHint": {adaEmail},
	}.Encode()

	// A browser: it follows every redirect (to the fake's authorize page,
	// which signs Ada in and consents, then to our callback) and stops at
	// the application's redirect URL.
	var hops []string
	browser := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		hops = append(hops, req.URL.Scheme+"://"+req.URL.Host+req.URL.Path)
		if strings.HasPrefix(req.URL.String(), appRedirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := browser.Get(start)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantHops := []string{st.Graph.AuthURL(), st.URL + unical.OAuthCallbackPath, appRedirect}
	if strings.Join(hops, " ") != strings.Join(wantHops, " ") {
		t.Fatalf("redirects %v; want %v", hops, wantHops)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if back.Query().Get("state") != "app-state==" || back.Query().Get("endUserAccountId") == "" {
		t.Fatalf("back at the application with %s", back)
	}

	var acct unical.Account
	st.must(t, "GET", "/v1/endUserAccounts/"+back.Query().Get("endUserAccountId"), nil).Into(t, &acct)
	if acct.Email != adaEmail || acct.ProviderType != unical.ProviderMicrosoft || acct.ProviderID != "provider_b" ||
		acct.Status != unical.AccountStatusActive || acct.ProviderAccountID == nil || *acct.ProviderAccountID != st.UserID {
		t.Errorf("account from the OAuth flow = %+v", acct)
	}
	var cred unical.Credentials
	st.must(t, "GET", "/v1/endUserAccounts/"+acct.ID+"/credentials", nil).Into(t, &cred)
	if cred.AccessToken == "" || cred.RefreshToken == "" {
		t.Errorf("credentials = %+v", cred)
	}
	// The account works at once.
	st.must(t, "GET", "/v1/calendars/"+acct.ID, nil)
}

// TestEndpointsThroughHTTPAPI calls every endpoint for a PROVIDER_B
// account.
func TestEndpointsThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	cals := "/v1/calendars/" + acct

	var list unical.SyncPage[unical.Calendar]
	st.must(t, "GET", cals, nil).Into(t, &list)
	if len(list.Data) != 1 || !list.Data[0].IsPrimary || list.Data[0].ReadOnly || list.NextSyncToken == "" {
		t.Fatalf("calendars = %+v", list)
	}
	primary := list.Data[0].ID

	var cal unical.Calendar
	st.must(t, "POST", cals, map[string]any{"name": "Team"}).Into(t, &cal)
	if cal.Name != "Team" || cal.IsPrimary || cal.ID == "" {
		t.Fatalf("created calendar = %+v", cal)
	}
	st.must(t, "PUT", cals+"/"+esc(cal.ID), map[string]any{"name": "Team 2"})
	var got unical.Calendar
	st.must(t, "GET", cals+"/"+esc(cal.ID), nil).Into(t, &got)
	if got.Name != "Team 2" {
		t.Errorf("renamed calendar = %+v", got)
	}

	events := "/v1/events/" + acct + "/" + esc(cal.ID)
	var ev unical.Event
	st.must(t, "POST", events, map[string]any{
		"title": "Design review", "description": "Bring the mockups",
		"start":    map[string]any{"dateTime": "2026-04-14T10:00:00", "timeZone": "Europe/Berlin"},
		"end":      map[string]any{"dateTime": "2026-04-14T11:00:00", "timeZone": "Europe/Berlin"},
		"location": "Room 1", "transparency": "opaque", "visibility": "private",
		"publicExtendedProperties":  map[string]string{"ticket": "T-1"},
		"privateExtendedProperties": map[string]string{"secret": "s"},
	}).Into(t, &ev)
	if ev.ID == "" || ev.Title != "Design review" || ev.Start == nil || ev.Start.TimeZone != "Europe/Berlin" || ev.ETag == "" {
		t.Fatalf("created event = %+v", ev)
	}
	eventPath := events + "/" + esc(ev.ID)
	st.must(t, "GET", eventPath, nil).Into(t, &ev)
	if ev.Location != "Room 1" || ev.Visibility != unical.VisibilityPrivate || ev.PublicExtendedProperties["ticket"] != "T-1" || ev.PrivateExtendedProperties["secret"] != "s" {
		t.Errorf("read back = %+v", ev)
	}
	ev = unical.Event{}
	st.must(t, "PUT", eventPath, map[string]any{"title": "Design review (moved)", "location": nil}).Into(t, &ev)
	if ev.Title != "Design review (moved)" || ev.Location != "" || ev.PublicExtendedProperties["ticket"] != "T-1" {
		t.Errorf("updated = %+v", ev)
	}
	// metadataFilters, search and timeZone on the list.
	filter := url.QueryEscape(`{"public":{"ticket":"T-1"}}`)
	all, _ := st.listAll(t, events+"?metadataFilters="+filter+"&search=moved&timeZone=America/New_York")
	if len(all) != 1 || all[0].ID != ev.ID || all[0].Start.TimeZone != "America/New_York" || all[0].Start.DateTime != "2026-04-14T04:00:00-04:00" {
		t.Errorf("filtered list = %+v", all)
	}

	// A weekly series and its occurrences, expanded and ordered.
	var series unical.Event
	st.must(t, "POST", events, map[string]any{
		"title": "Weekly", "recurrence": []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"},
		"start": map[string]any{"dateTime": "2026-04-06T09:00:00", "timeZone": "Europe/Berlin"},
		"end":   map[string]any{"dateTime": "2026-04-06T09:30:00", "timeZone": "Europe/Berlin"},
	}).Into(t, &series)
	occ, _ := st.listAll(t, events+"/"+esc(series.ID)+"/occurrences?startDateTime=2026-04-01T00:00:00Z&endDateTime=2026-05-01T00:00:00Z")
	if len(occ) != 4 || occ[0].RecurringEventID != series.ID || occ[0].Start.DateTime != "2026-04-06T09:00:00+02:00" {
		t.Errorf("occurrences = %d %+v", len(occ), occ)
	}
	expanded, _ := st.listAll(t, events+"?expandRecurrences=true&orderBy=startTime&startDateTime=2026-04-01T00:00:00Z&endDateTime=2026-05-01T00:00:00Z")
	var titles []string
	for _, e := range expanded {
		titles = append(titles, e.Title)
	}
	if strings.Join(titles, ",") != "Weekly,Weekly,Design review (moved),Weekly,Weekly" {
		t.Errorf("expanded titles = %v", titles)
	}

	// RSVP to an invitation from someone else.
	invite, err := st.Graph.AddEvent(st.UserID, "", `{
	  "subject": "Board meeting",
	  "start": {"dateTime": "2026-04-15T15:00:00", "timeZone": "Pacific Standard Time"},
	  "end": {"dateTime": "2026-04-15T16:00:00", "timeZone": "Pacific Standard Time"},
	  "organizer": {"emailAddress": {"name": "Grace", "address": "grace@fabrikam.test"}},
	  "responseStatus": {"response": "notResponded", "time": "0001-01-01T00:00:00Z"},
	  "attendees": [{"type": "required", "emailAddress": {"name": "Ada", "address": "ada@contoso.test"}, "status": {"response": "none", "time": "0001-01-01T00:00:00Z"}}]
	}`)
	if err != nil {
		t.Fatal(err)
	}
	invitePath := "/v1/events/" + acct + "/" + esc(primary) + "/" + esc(invite)
	st.must(t, "POST", invitePath+"/rsvp", map[string]any{"responseStatus": "accepted"})
	var answered unical.Event
	st.must(t, "GET", invitePath, nil).Into(t, &answered)
	if answered.MyResponseStatus != unical.ResponseAccepted || answered.Start.TimeZone != "America/Los_Angeles" {
		t.Errorf("after RSVP: %q in %q", answered.MyResponseStatus, answered.Start.TimeZone)
	}
	wantError(t, "RSVP needsAction", st.do(t, "POST", invitePath+"/rsvp", map[string]any{"responseStatus": "needsAction"}), 400, "invalid_request", "responseStatus")

	// Free/busy over both calendars, in New York time.
	var fb []unical.FreeBusyResult
	r := st.must(t, "POST", "/v1/freeBusy/"+acct, map[string]any{
		"startDateTime": "2026-04-14T00:00:00", "endDateTime": "2026-04-16T00:00:00", "timeZone": "America/New_York",
		"calendarIds": []string{primary, cal.ID},
	})
	var wrapped struct {
		Data []unical.FreeBusyResult `json:"data"`
	}
	if json.Unmarshal(r.Body, &fb) != nil {
		r.Into(t, &wrapped)
		fb = wrapped.Data
	}
	gotBusy := map[string][]string{}
	for _, res := range fb {
		for _, b := range res.BusySlots {
			gotBusy[res.CalendarID] = append(gotBusy[res.CalendarID], b.Start.DateTime+"/"+b.End.DateTime)
		}
	}
	wantBusy := map[string][]string{
		primary: {"2026-04-15T18:00:00-04:00/2026-04-15T19:00:00-04:00"},
		cal.ID:  {"2026-04-14T04:00:00-04:00/2026-04-14T05:00:00-04:00"},
	}
	if b, w := mustJSON(t, gotBusy), mustJSON(t, wantBusy); b != w {
		t.Errorf("free/busy = %s; want %s", b, w)
	}

	// Deletes: an event, the calendar, the account.
	st.must(t, "DELETE", eventPath, nil)
	wantError(t, "GET a deleted event", st.do(t, "GET", eventPath, nil), 404, "not_found", "")
	st.must(t, "DELETE", cals+"/"+esc(cal.ID), nil)
	wantError(t, "GET a deleted calendar", st.do(t, "GET", cals+"/"+esc(cal.ID), nil), 404, "not_found", "")
	st.must(t, "GET", "/v1/endUserAccounts", nil)
	st.must(t, "DELETE", "/v1/endUserAccounts/"+acct, nil)
	wantError(t, "GET a deleted account", st.do(t, "GET", "/v1/endUserAccounts/"+acct, nil), 404, "not_found", "")
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestRecurrenceThroughHTTPAPI round-trips one series per Graph pattern
// type and lists its occurrences.
func TestRecurrenceThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	var cal unical.Calendar
	st.must(t, "POST", "/v1/calendars/"+acct, map[string]any{"name": "Series"}).Into(t, &cal)
	events := "/v1/events/" + acct + "/" + esc(cal.ID)
	tests := []struct {
		name, rule string
		allDay     bool
		wantFirst  []string
	}{
		{"daily", "RRULE:FREQ=DAILY;INTERVAL=2;COUNT=3", false, []string{"2026-01-15T09:30:00+01:00", "2026-01-17T09:30:00+01:00", "2026-01-19T09:30:00+01:00"}},
		{"weekly", "RRULE:FREQ=WEEKLY;BYDAY=TH,FR;WKST=SU;COUNT=3", false, []string{"2026-01-15T09:30:00+01:00", "2026-01-16T09:30:00+01:00", "2026-01-22T09:30:00+01:00"}},
		{"absoluteMonthly", "RRULE:FREQ=MONTHLY;BYMONTHDAY=15;COUNT=2", false, []string{"2026-01-15T09:30:00+01:00", "2026-02-15T09:30:00+01:00"}},
		{"relativeMonthly", "RRULE:FREQ=MONTHLY;BYDAY=3TH;COUNT=3", false, []string{"2026-01-15T09:30:00+01:00", "2026-02-19T09:30:00+01:00", "2026-03-19T09:30:00+01:00"}},
		{"relativeMonthlyLastWeekday", "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;UNTIL=20260331T215959Z", false, []string{"2026-01-30T09:30:00+01:00", "2026-02-27T09:30:00+01:00", "2026-03-31T09:30:00+02:00"}},
		{"absoluteYearly", "RRULE:FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=15;COUNT=2", false, []string{"2026-01-15T09:30:00+01:00"}},
		{"relativeYearly", "RRULE:FREQ=YEARLY;BYMONTH=1;BYDAY=3TH", false, []string{"2026-01-15T09:30:00+01:00"}},
		{"weeklyAllDayUntil", "RRULE:FREQ=WEEKLY;BYDAY=TH;UNTIL=20260129", true, []string{"2026-01-15T00:00:00", "2026-01-22T00:00:00", "2026-01-29T00:00:00"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{
				"title": tc.name, "recurrence": []string{tc.rule},
				"start": map[string]any{"dateTime": "2026-01-15T09:30:00", "timeZone": "Europe/Berlin"},
				"end":   map[string]any{"dateTime": "2026-01-15T10:00:00", "timeZone": "Europe/Berlin"},
			}
			if tc.allDay {
				body["isAllDay"] = true
				body["start"] = map[string]any{"dateTime": "2026-01-15T00:00:00", "timeZone": "Europe/Berlin"}
				body["end"] = map[string]any{"dateTime": "2026-01-16T00:00:00", "timeZone": "Europe/Berlin"}
			}
			var created unical.Event
			st.must(t, "POST", events, body).Into(t, &created)
			var got unical.Event
			st.must(t, "GET", events+"/"+esc(created.ID), nil).Into(t, &got)
			if !got.IsRecurring || len(got.Recurrence) != 1 || got.Recurrence[0] != tc.rule {
				t.Errorf("recurrence read back %q (isRecurring %v); want %q", got.Recurrence, got.IsRecurring, tc.rule)
			}
			occ, _ := st.listAll(t, events+"/"+esc(created.ID)+"/occurrences?startDateTime=2026-01-01T00:00:00Z&endDateTime=2026-04-01T00:00:00Z")
			var starts []string
			for _, e := range occ {
				starts = append(starts, e.Start.DateTime)
				if e.RecurringEventID != created.ID {
					t.Errorf("occurrence %s has recurringEventId %q", e.ID, e.RecurringEventID)
				}
			}
			if len(starts) > len(tc.wantFirst) {
				starts = starts[:len(tc.wantFirst)]
			}
			if strings.Join(starts, " ") != strings.Join(tc.wantFirst, " ") {
				t.Errorf("occurrences start %v; want %v", starts, tc.wantFirst)
			}
		})
	}
}

// TestBadInputThroughHTTPAPI refuses what Graph cannot express with a 400
// naming the field, before anything reaches Graph.
func TestBadInputThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	var list unical.SyncPage[unical.Calendar]
	st.must(t, "GET", "/v1/calendars/"+acct, nil).Into(t, &list)
	events := "/v1/events/" + acct + "/" + esc(list.Data[0].ID)
	ok := func(extra map[string]any) map[string]any {
		body := map[string]any{
			"title": "bad",
			"start": map[string]any{"dateTime": "2026-01-15T09:30:00", "timeZone": "Europe/Berlin"},
			"end":   map[string]any{"dateTime": "2026-01-15T10:00:00", "timeZone": "Europe/Berlin"},
		}
		for k, v := range extra {
			body[k] = v
		}
		return body
	}
	tests := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"Hourly", ok(map[string]any{"recurrence": []string{"RRULE:FREQ=HOURLY;COUNT=3"}}), "recurrence[0]"},
		{"LastDayOfMonth", ok(map[string]any{"recurrence": []string{"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1"}}), "recurrence[0]"},
		{"SecondToLastWeekday", ok(map[string]any{"recurrence": []string{"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2"}}), "recurrence[0]"},
		{"ByWeekNo", ok(map[string]any{"recurrence": []string{"RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO"}}), "recurrence[0]"},
		{"ExDate", ok(map[string]any{"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=Europe/Berlin:20260116T093000"}}), "recurrence[1]"},
		{"ZoneWithoutWindowsName", ok(map[string]any{
			"start": map[string]any{"dateTime": "2026-01-15T09:30:00", "timeZone": "Antarctica/Troll"},
			"end":   map[string]any{"dateTime": "2026-01-15T10:00:00", "timeZone": "Antarctica/Troll"},
		}), "start.timeZone"},
		{"UnknownZone", ok(map[string]any{
			"start": map[string]any{"dateTime": "2026-01-15T09:30:00", "timeZone": "Mars/Olympus"},
		}), "start.timeZone"},
		// Refused by the capability table (GET /v1/capabilities) and by
		// the provider's value rules, before anything is sent.
		{"ColorID", ok(map[string]any{"colorId": "3"}), "colorId"},
		{"CustomColor", ok(map[string]any{"customColor": "#ff0000"}), "customColor"},
		{"ForeignConference", ok(map[string]any{"conferenceData": map[string]any{"joinUrl": "https://meet.example.com/x"}}), "conferenceData"},
		{"AnotherOrganizer", ok(map[string]any{"organizer": map[string]any{"email": "grace@fabrikam.test"}}), "organizer"},
		{"CreatedCancelled", ok(map[string]any{"isCancelled": true}), "isCancelled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := st.Graph.RequestCount("/v1.0/")
			wantError(t, "POST "+tc.name, st.do(t, "POST", events, tc.body), 400, "invalid_request", tc.field)
			if n := st.Graph.RequestCount("/v1.0/") - before; n != 0 {
				t.Errorf("%d requests reached Graph", n)
			}
		})
	}
}

// TestZonesThroughHTTPAPI writes IANA zones, which Graph stores as Windows
// names, and reads an event Graph holds in a Windows zone as IANA.
func TestZonesThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	var list unical.SyncPage[unical.Calendar]
	st.must(t, "GET", "/v1/calendars/"+acct, nil).Into(t, &list)
	primary := list.Data[0].ID
	events := "/v1/events/" + acct + "/" + esc(primary)
	for _, tc := range []struct{ zone, want string }{
		{"America/New_York", "2026-07-01T09:00:00-04:00"},
		{"Asia/Kolkata", "2026-07-01T09:00:00+05:30"},
		{"Australia/Lord_Howe", "2026-07-01T09:00:00+10:30"},
		{"Europe/Kyiv", "2026-07-01T09:00:00+03:00"},
	} {
		var e unical.Event
		st.must(t, "POST", events, map[string]any{
			"title": tc.zone,
			"start": map[string]any{"dateTime": "2026-07-01T09:00:00", "timeZone": tc.zone},
			"end":   map[string]any{"dateTime": "2026-07-01T10:00:00", "timeZone": tc.zone},
		}).Into(t, &e)
		var got unical.Event
		st.must(t, "GET", events+"/"+esc(e.ID), nil).Into(t, &got)
		if got.Start.DateTime != tc.want {
			t.Errorf("%s: start %+v; want %s", tc.zone, got.Start, tc.want)
		}
	}
	id, err := st.Graph.AddEvent(st.UserID, "", `{
	  "subject": "Tokyo call",
	  "start": {"dateTime": "2026-07-02T09:00:00", "timeZone": "Tokyo Standard Time"},
	  "end": {"dateTime": "2026-07-02T10:00:00", "timeZone": "Tokyo Standard Time"}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	var tokyo unical.Event
	st.must(t, "GET", events+"/"+esc(id), nil).Into(t, &tokyo)
	if tokyo.Start.TimeZone != "Asia/Tokyo" || tokyo.Start.DateTime != "2026-07-02T09:00:00+09:00" {
		t.Errorf("Windows zone read as %+v; want Asia/Tokyo", tokyo.Start)
	}
	// A listing's timeZone shows every time in it.
	shown, _ := st.listAll(t, events+"?timeZone=Europe/London")
	found := false
	for _, e := range shown {
		if e.ID == id {
			found = true
			if e.Start.DateTime != "2026-07-02T01:00:00+01:00" || e.Start.TimeZone != "Europe/London" {
				t.Errorf("listed in Europe/London as %+v", e.Start)
			}
		}
	}
	if !found {
		t.Errorf("the Tokyo event is not listed")
	}
}

// TestSyncThroughHTTPAPI syncs after create, update and delete, and
// answers 410 when Graph no longer accepts the delta token.
func TestSyncThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	var cal unical.Calendar
	st.must(t, "POST", "/v1/calendars/"+acct, map[string]any{"name": "Sync"}).Into(t, &cal)
	events := "/v1/events/" + acct + "/" + esc(cal.ID)
	mk := func(title, day string) unical.Event {
		var e unical.Event
		st.must(t, "POST", events, map[string]any{
			"title": title,
			"start": map[string]any{"dateTime": "2026-11-" + day + "T10:00:00Z"},
			"end":   map[string]any{"dateTime": "2026-11-" + day + "T11:00:00Z"},
		}).Into(t, &e)
		return e
	}
	keep, change, remove := mk("keep", "02"), mk("change", "03"), mk("remove", "04")
	first, token := st.listAll(t, events)
	if len(first) != 3 || token == "" {
		t.Fatalf("first listing: %d events, sync token %q", len(first), token)
	}

	added := mk("added", "05")
	st.must(t, "PUT", events+"/"+esc(change.ID), map[string]any{"title": "changed"})
	st.must(t, "DELETE", events+"/"+esc(remove.ID), nil)
	changes, next := st.listAll(t, events+"?syncToken="+url.QueryEscape(token))
	got := map[string]string{}
	for _, e := range changes {
		if e.IsCancelled {
			got[e.ID] = "cancelled"
		} else {
			got[e.ID] = e.Title
		}
	}
	want := map[string]string{added.ID: "added", change.ID: "changed", remove.ID: "cancelled"}
	if a, b := mustJSON(t, got), mustJSON(t, want); a != b {
		t.Errorf("sync = %s; want %s", a, b)
	}
	if _, ok := got[keep.ID]; ok || next == "" {
		t.Errorf("unchanged event in the sync, or no next token %q", next)
	}
	again, next2 := st.listAll(t, events+"?syncToken="+url.QueryEscape(next))
	if len(again) != 0 || next2 == "" {
		t.Errorf("a sync without changes gave %d events", len(again))
	}

	st.Graph.ExpireDeltaTokens(st.UserID)
	wantError(t, "sync with an expired delta token", st.do(t, "GET", events+"?syncToken="+url.QueryEscape(next2), nil), 410, "sync_token_expired", "")
	// A full listing gives a working token again.
	_, fresh := st.listAll(t, events)
	st.listAll(t, events+"?syncToken="+url.QueryEscape(fresh))
}

// TestExpiredAndBackThroughHTTPAPI revokes the grant, which makes the
// account EXPIRED, and re-posts a new refresh token, which makes it ACTIVE.
func TestExpiredAndBackThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	st.must(t, "GET", "/v1/calendars/"+acct, nil)

	st.Graph.RevokeRefreshTokens(st.UserID)
	st.Graph.ExpireAccessTokens(st.UserID)
	wantError(t, "calendars with a revoked grant", st.do(t, "GET", "/v1/calendars/"+acct, nil), 409, "account_expired", "")
	var a unical.Account
	st.must(t, "GET", "/v1/endUserAccounts/"+acct, nil).Into(t, &a)
	if a.Status != unical.AccountStatusExpired {
		t.Fatalf("status after revocation = %s; want EXPIRED", a.Status)
	}
	wantError(t, "events of an EXPIRED account", st.do(t, "GET", "/v1/events/"+acct+"/x", nil), 409, "account_expired", "")

	again := st.MustConnect(t)
	if again != acct {
		t.Errorf("re-post created account %s; want %s updated", again, acct)
	}
	st.must(t, "GET", "/v1/endUserAccounts/"+acct, nil).Into(t, &a)
	if a.Status != unical.AccountStatusActive {
		t.Errorf("status after re-post = %s; want ACTIVE", a.Status)
	}
	st.must(t, "GET", "/v1/calendars/"+acct, nil)
}

// TestThrottlingThroughHTTPAPI retries Graph's 429 and 503 and passes a
// long Retry-After on as 429 with Retry-After.
func TestThrottlingThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	st.must(t, "GET", "/v1/calendars/"+acct, nil)

	before := st.Graph.RequestCount("/v1.0/me/calendars")
	st.Graph.Throttle("/v1.0/me/calendars", 2, 0)
	st.must(t, "GET", "/v1/calendars/"+acct, nil)
	if n := st.Graph.RequestCount("/v1.0/me/calendars") - before; n != 3 {
		t.Errorf("%d Graph requests for two 429s and a success; want 3", n)
	}
	st.Graph.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Status: 503, Count: 2})
	st.must(t, "GET", "/v1/calendars/"+acct, nil)

	st.Graph.Throttle("/v1.0/me/calendars", 1, time.Hour)
	r := st.do(t, "GET", "/v1/calendars/"+acct, nil)
	wantError(t, "calendars while throttled for an hour", r, 429, "rate_limited", "")
	if r.Header.Get("Retry-After") != "3600" {
		t.Errorf("Retry-After = %q; want 3600", r.Header.Get("Retry-After"))
	}
	st.Graph.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/me/calendars", Status: 504, Count: 20})
	wantError(t, "calendars while Graph times out", st.do(t, "GET", "/v1/calendars/"+acct, nil), 503, "provider_unavailable", "")
}

// TestPushThroughHTTPAPI subscribes to a calendar, which creates a Graph
// subscription whose validation handshake our notification route answers;
// a change at Graph then becomes a webhook message, and deleting the
// subscription deletes the Graph subscription.
func TestPushThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = engine.Run(ctx, st.Client, st.Engine)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	var list unical.SyncPage[unical.Calendar]
	st.must(t, "GET", "/v1/calendars/"+acct, nil).Into(t, &list)
	primary := list.Data[0].ID

	var sub subscriptions.Created
	st.must(t, "POST", "/v1/calendarSubscriptions/"+acct, map[string]any{"calendarId": primary, "webhookUrl": "https://127.0.0.1:9/hook"}).Into(t, &sub)
	subs := st.Graph.Subscriptions()
	if len(subs) != 1 || !strings.HasPrefix(subs[0].NotificationURL, st.URL+"/v1/notifications/provider_b/") || subs[0].Resource != "me/calendars/"+primary+"/events" {
		t.Fatalf("Graph subscriptions = %+v", subs)
	}
	for _, d := range st.Graph.Deliveries() {
		if d.Kind != "validation" || d.Status != http.StatusOK {
			t.Errorf("handshake %+v", d)
		}
	}

	st.must(t, "POST", "/v1/events/"+acct+"/"+esc(primary), map[string]any{
		"title": "pushed",
		"start": map[string]any{"dateTime": "2026-05-01T10:00:00Z"},
		"end":   map[string]any{"dateTime": "2026-05-01T11:00:00Z"},
	})
	if err := st.Graph.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	var notified bool
	for _, d := range st.Graph.Deliveries() {
		if d.Kind == "notification" && d.Status == http.StatusAccepted {
			notified = true
		}
	}
	if !notified {
		t.Fatalf("no notification accepted: %+v", st.Graph.Deliveries())
	}
	select {
	case <-st.Sent.sent:
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook message after the change notification")
	}
	if bodies := st.Sent.Bodies(); len(bodies) == 0 || !strings.Contains(bodies[0], "calendar.event.changed") {
		t.Errorf("webhook bodies = %q", bodies)
	}

	// Graph reports missed notifications: the receiver is told to resync.
	if err := st.Graph.TriggerLifecycle(subs[0].ID, "missed"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for !slices.ContainsFunc(st.Sent.Bodies(), func(b string) bool { return strings.Contains(b, "calendar.event.unknown") }) {
		select {
		case <-st.Sent.sent:
		case <-deadline:
			t.Fatalf("no calendar.event.unknown after a missed lifecycle notification; sent %q", st.Sent.Bodies())
		}
	}

	var listed struct {
		Data []map[string]any `json:"data"`
	}
	st.must(t, "GET", "/v1/calendarSubscriptions/"+acct, nil).Into(t, &listed)
	if len(listed.Data) != 1 {
		t.Errorf("subscriptions listed = %+v", listed.Data)
	}
	st.must(t, "GET", "/v1/calendarSubscriptions/"+acct+"/"+esc(sub.WebhookSubscriptionID)+"/deliveries", nil)

	st.must(t, "DELETE", "/v1/calendarSubscriptions/"+acct, map[string]any{"subscriptionId": sub.WebhookSubscriptionID})
	if subs := st.Graph.Subscriptions(); len(subs) != 0 {
		t.Errorf("Graph subscriptions after delete = %+v", subs)
	}
}

// TestPagingRepeatsQueryThroughHTTPAPI pages an expanded listing with
// limit=2 by sending the original query again with each pageToken, as
// most clients do (see apitest.CheckExpandedPagingRule).
func TestPagingRepeatsQueryThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	var cal unical.Calendar
	st.must(t, "POST", "/v1/calendars/"+acct, map[string]any{"name": "Paging"}).Into(t, &cal)
	st.CheckExpandedPagingRule(t, acct, cal.ID)
}

// TestExpiryReasonsThroughHTTPAPI makes Microsoft refuse the refresh token
// for each cause it reports, and checks that the account turns EXPIRED
// with that statusReason, in GET, in the statusFilter=expired listing and
// in the enduseraccount.updated message, and that reconnecting clears it.
func TestExpiryReasonsThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		refuse func(st *graphStack, clock *graphtest.Clock)
		want   unical.StatusReason
	}{
		{"revoked (AADSTS50173)", func(st *graphStack, _ *graphtest.Clock) { st.Graph.RevokeRefreshTokens(st.UserID) }, unical.StatusReasonRefreshTokenRevoked},
		{"expired (AADSTS700082)", func(st *graphStack, clock *graphtest.Clock) { clock.Advance(25 * time.Hour) }, unical.StatusReasonRefreshTokenExpired},
		{"consent (AADSTS65001)", func(st *graphStack, _ *graphtest.Clock) { st.Graph.RevokeConsent(st.UserID) }, unical.StatusReasonConsentRevoked},
		{"policy (AADSTS50076)", func(st *graphStack, _ *graphtest.Clock) { st.Graph.RequireMFA(st.UserID) }, unical.StatusReasonPolicy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Refresh tokens unused for a day expire, so that the clock
			// can reach AADSTS700082 quickly.
			clock := graphtest.NewClock(time.Now().UTC())
			st := startGraphStack(t, graphtest.Options{RefreshTokenLifetime: 24 * time.Hour}, clock)
			if _, _, err := admin.Of(st.Client).UpdateApplication(t.Context(), st.AppID, &admin.ApplicationParams{WebhookURL: unical.Some("https://hooks.example.com/app")}); err != nil {
				t.Fatal(err)
			}
			acct := st.MustConnect(t)
			tc.refuse(st, clock)
			st.Graph.ExpireAccessTokens(st.UserID)
			wantError(t, "calendars", st.do(t, "GET", "/v1/calendars/"+acct, nil), 409, "account_expired", "")
			var a unical.Account
			st.must(t, "GET", "/v1/endUserAccounts/"+acct, nil).Into(t, &a)
			if a.Status != unical.AccountStatusExpired || a.StatusReason != tc.want {
				t.Errorf("account = %s/%q; want EXPIRED/%q", a.Status, a.StatusReason, tc.want)
			}
			var list unical.Page[unical.Account]
			st.must(t, "GET", "/v1/endUserAccounts?statusFilter=expired", nil).Into(t, &list)
			if len(list.Data) != 1 || list.Data[0].StatusReason != tc.want {
				t.Errorf("statusFilter=expired = %+v; want the account with %q", list.Data, tc.want)
			}
			if got := expiredMessageReason(t, st, clock.Now()); got != tc.want {
				t.Errorf("enduseraccount.updated carries statusReason %q; want %q", got, tc.want)
			}

			st.MustConnect(t)
			r := st.must(t, "GET", "/v1/endUserAccounts/"+acct, nil)
			if strings.Contains(string(r.Body), "statusReason") {
				t.Errorf("ACTIVE account again = %s; want no statusReason", r.Body)
			}
		})
	}
}

// expiredMessageReason returns the statusReason of the queued
// enduseraccount.updated message that reports the account EXPIRED: the
// payload the delivery worker sends as it is (the test stack runs no
// worker, so the message is claimed from the outbox).
func expiredMessageReason(t *testing.T, st *graphStack, now time.Time) unical.StatusReason {
	t.Helper()
	msgs, err := st.Store.ClaimMessages(t.Context(), "test", now.Add(time.Hour), time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range msgs {
		var m unical.MessagePayload
		if err := json.Unmarshal(msg.Payload, &m); err != nil {
			t.Fatalf("message %s: %v", msg.Payload, err)
		}
		if m.EventType == unical.EventTypeAccountUpdated && m.EndUserAccount != nil && m.EndUserAccount.Status == unical.AccountStatusExpired {
			return m.EndUserAccount.StatusReason
		}
	}
	t.Fatalf("no enduseraccount.updated message with EXPIRED among %d queued messages", len(msgs))
	return ""
}

// TestCancelThroughHTTPAPI: PUT {"isCancelled": true} cancels the event at
// Graph through its cancel action (it then reads as not found), instead
// of answering 200 and leaving it as it was; a calendar timeZone, which
// Graph has no place for, is a 400 naming it.
func TestCancelThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	st := MustStartGraphStack(t)
	acct := st.MustConnect(t)
	var list unical.SyncPage[unical.Calendar]
	st.must(t, "GET", "/v1/calendars/"+acct, nil).Into(t, &list)
	events := "/v1/events/" + acct + "/" + esc(list.Data[0].ID)
	var ev unical.Event
	st.must(t, "POST", events, map[string]any{
		"title": "Standup",
		"start": map[string]any{"dateTime": "2026-01-15T09:30:00", "timeZone": "Europe/Berlin"},
		"end":   map[string]any{"dateTime": "2026-01-15T10:00:00", "timeZone": "Europe/Berlin"},
	}).Into(t, &ev)
	var cancelled unical.Event
	st.must(t, "PUT", events+"/"+esc(ev.ID), map[string]any{"isCancelled": true}).Into(t, &cancelled)
	if !cancelled.IsCancelled {
		t.Error("PUT isCancelled answered an event that is not cancelled")
	}
	if r := st.do(t, "GET", events+"/"+esc(ev.ID), nil); r.Status != http.StatusNotFound {
		t.Errorf("GET after cancel = %d, want 404", r.Status)
	}
	wantError(t, "PUT calendar timeZone", st.do(t, "PUT", "/v1/calendars/"+acct+"/"+esc(list.Data[0].ID), map[string]any{"timeZone": "Europe/Paris"}), 400, "invalid_request", "timeZone")
}
