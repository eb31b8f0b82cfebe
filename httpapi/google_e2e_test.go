package httpapi_test

import (
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
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/subscriptions"
)

const (
	e2eClientID = "e2e-client.apps.googleusercontent.com"
	e2eSecret   = "e2e-secret"
	e2eUser     = "dana@example.com"
	e2eBack     = "https://app.example.com/connected"
)

// googleStack is the whole server on real HTTP (internal/testkit/apitest) with the
// Google provider pointed at the fake Google.
type googleStack struct {
	*apitest.Stack
	google *googletest.Server
}

func mustNewGoogleStack(t *testing.T) *googleStack {
	t.Helper()
	return mustNewGoogleStackWith(t, googletest.Options{AllowHTTPPush: true}, nil)
}

// mustNewGoogleStackWith is mustNewGoogleStack with options for the fake Google and
// configure changing the Client's Config first. A clock in gopts.Now is
// the provider's clock too.
func mustNewGoogleStackWith(t *testing.T, gopts googletest.Options, configure func(*apitest.Config)) *googleStack {
	t.Helper()
	g := googletest.NewServer(t, gopts)
	g.AddUser(googletest.User{Email: e2eUser, Name: "Dana", TimeZone: "Europe/Paris"})
	// Short waits, so the throttling tests run fast.
	p, err := google.New(google.Config{BaseBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond, MaxRetries: 3, Now: gopts.Now})
	if err != nil {
		t.Fatal(err)
	}
	st := apitest.Start(t, []unical.Provider{p}, configure)
	g.AddClient(googletest.Client{ID: e2eClientID, Secret: e2eSecret, RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}})
	st.CreateApp(t, &admin.ApplicationParams{
		Name:         unical.Some("e2e"),
		RedirectURLs: unical.Some([]string{e2eBack}),
		Providers: map[unical.ProviderType]unical.ProviderSettings{google.ProviderType: {
			ClientID: e2eClientID, ClientSecret: e2eSecret,
			AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), UserInfoURL: g.UserinfoURL(), APIBaseURL: g.APIBaseURL(), RevokeURL: g.RevokeURL(),
		}},
	})
	return &googleStack{Stack: st, google: g}
}

// googleAnswer is an answer of the server.
type googleAnswer = apitest.Response

func (st *googleStack) do(t *testing.T, method, path string, body any) *googleAnswer {
	t.Helper()
	return st.Do(t, method, path, body)
}

// must sends a request, fails unless it answers 200, and decodes the
// answer into v when v is not nil.
func (st *googleStack) must(t *testing.T, method, path string, body any, v any) {
	t.Helper()
	r := st.Must(t, method, path, body)
	if v != nil {
		r.Into(t, v)
	}
}

// connect walks the OAuth flow the way a browser does: it follows every
// redirect from our authorize endpoint through Google's consent screen and
// our callback, and stops at the application's page.
func (st *googleStack) connect(t *testing.T) string {
	t.Helper()
	id, _, _ := st.connectVia(t)
	return id
}

// connectVia is connect that also returns the URL of Google's
// authorization request and of our callback, as the browser saw them.
func (st *googleStack) connectVia(t *testing.T) (accountID string, authorize, callback *url.URL) {
	t.Helper()
	q := url.Values{"redirectUrl": {e2eBack}, "state": {"caller-state-1"}, "loginHint": {e2eUser}, "prompt": {"consent"}}
	got := followSignIn(t, st.URL+"/v1/oauth/authorize/"+st.AppID+"/provider_a?"+q.Encode(), func(u *url.URL) {
		switch {
		case u.Path == unical.OAuthCallbackPath:
			callback = u
		case strings.HasPrefix(u.String(), st.google.AuthURL()):
			authorize = u
		}
	})
	if got.Get("state") != "caller-state-1" || got.Get("endUserAccountId") == "" || got.Get("error") != "" {
		t.Fatalf("back at the application with %v", got)
	}
	if authorize == nil || callback == nil {
		t.Fatalf("the flow did not pass Google's authorization endpoint (%v) and our callback (%v)", authorize, callback)
	}
	return got.Get("endUserAccountId"), authorize, callback
}

type e2eEvent struct {
	ID               string                `json:"id"`
	Title            string                `json:"title"`
	IsCancelled      bool                  `json:"isCancelled"`
	IsAllDay         bool                  `json:"isAllDay"`
	Start            *unical.EventDateTime `json:"start"`
	RecurringEventID string                `json:"recurringEventId"`
	MyResponseStatus string                `json:"myResponseStatus"`
	ConferenceData   *struct {
		JoinURL string `json:"joinUrl"`
	} `json:"conferenceData"`
}

type e2ePage struct {
	Data          []e2eEvent `json:"data"`
	NextPageToken string     `json:"nextPageToken"`
	NextSyncToken string     `json:"nextSyncToken"`
}

// listAll walks every page of an event listing and returns the events and
// the final sync token.
func (st *googleStack) listAll(t *testing.T, path string, q url.Values) ([]e2eEvent, string) {
	t.Helper()
	var all []e2eEvent
	for range 20 {
		var page e2ePage
		st.must(t, "GET", path+"?"+q.Encode(), nil, &page)
		all = append(all, page.Data...)
		if page.NextPageToken == "" {
			return all, page.NextSyncToken
		}
		q = url.Values{"pageToken": {page.NextPageToken}, "limit": {q.Get("limit")}}
	}
	t.Fatal("listing did not end")
	return nil, ""
}

func googleTitlesOf(events []e2eEvent) []string {
	var out []string
	for _, e := range events {
		s := e.Title
		if e.IsCancelled {
			s = "cancelled:" + e.ID
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func TestGoogleE2E_EndToEnd(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	accountID := st.connect(t)

	var acct unical.Account
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID, nil, &acct)
	if acct.Status != unical.AccountStatusActive || acct.Email != e2eUser || acct.ProviderAccountID == nil || *acct.ProviderAccountID == "" ||
		!slices.Contains(acct.AuthorizedScopes, google.ScopeCalendar) {
		t.Fatalf("account after OAuth = %+v", acct)
	}
	var cred unical.Credentials
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil, &cred)
	if cred.AccessToken == "" || cred.RefreshToken == "" {
		t.Errorf("credentials = %+v, want tokens", cred)
	}

	// Calendars.
	var cal unical.Calendar
	st.must(t, "POST", "/v1/calendars/"+accountID, map[string]any{"name": "Projects", "timeZone": "Europe/Berlin", "hexColor": "#33aa55"}, &cal)
	calPath := "/v1/calendars/" + accountID + "/" + url.PathEscape(cal.ID)
	st.must(t, "PUT", calPath, map[string]any{"name": "Projects 2"}, &cal)
	if cal.Name != "Projects 2" || cal.HexColor != "#33aa55" || cal.TimeZone != "Europe/Berlin" {
		t.Errorf("calendar = %+v", cal)
	}
	var one unical.Calendar
	st.must(t, "GET", calPath, nil, &one)
	if one.ID != cal.ID || one.Name != "Projects 2" || one.ReadOnly || one.IsPrimary {
		t.Errorf("GET calendar = %+v", one)
	}
	var cals struct{ Data []unical.Calendar }
	st.must(t, "GET", "/v1/calendars/"+accountID, nil, &cals)
	if len(cals.Data) != 2 {
		t.Errorf("calendars = %+v, want primary and Projects", cals.Data)
	}

	// Events: create, list with a sync token, change, sync.
	events := "/v1/events/" + accountID + "/" + url.PathEscape(cal.ID)
	var meet, series e2eEvent
	st.must(t, "POST", events, map[string]any{"title": "Kickoff", "start": map[string]any{"dateTime": "2026-05-04T10:00:00+02:00", "timeZone": "Europe/Berlin"},
		"end": map[string]any{"dateTime": "2026-05-04T11:00:00+02:00", "timeZone": "Europe/Berlin"}, "generateMeetingUrlProvider": "googleMeet"}, &meet)
	if meet.ConferenceData == nil || !strings.HasPrefix(meet.ConferenceData.JoinURL, "https://meet.google.com/") {
		t.Errorf("created event has no Meet link: %+v", meet)
	}
	st.must(t, "POST", events, map[string]any{"title": "Daily", "start": map[string]any{"dateTime": "2026-05-05T09:00:00+02:00", "timeZone": "Europe/Berlin"},
		"end": map[string]any{"dateTime": "2026-05-05T09:15:00+02:00", "timeZone": "Europe/Berlin"}, "recurrence": []string{"RRULE:FREQ=DAILY;COUNT=3"}}, &series)
	var holiday e2eEvent
	st.must(t, "POST", events, map[string]any{"title": "Holiday", "isAllDay": true, "start": map[string]any{"dateTime": "2026-05-08T00:00:00"}, "end": map[string]any{"dateTime": "2026-05-09T00:00:00"}}, &holiday)
	if !holiday.IsAllDay || holiday.Start.DateTime != "2026-05-08T00:00:00" {
		t.Errorf("all-day event = %+v", holiday)
	}

	got, syncToken := st.listAll(t, events, url.Values{"limit": {"2"}})
	if want := []string{"Daily", "Holiday", "Kickoff"}; !slices.Equal(googleTitlesOf(got), want) {
		t.Errorf("events = %v, want %v", googleTitlesOf(got), want)
	}
	if syncToken == "" {
		t.Fatal("no nextSyncToken")
	}
	expanded, _ := st.listAll(t, events, url.Values{"expandRecurrences": {"true"}, "orderBy": {"startTime"},
		"startDateTime": {"2026-05-01T00:00:00Z"}, "endDateTime": {"2026-06-01T00:00:00Z"}, "timeZone": {"America/New_York"}})
	var order []string
	for _, e := range expanded {
		order = append(order, e.Title)
	}
	if want := []string{"Kickoff", "Daily", "Daily", "Daily", "Holiday"}; !slices.Equal(order, want) {
		t.Errorf("expanded events in order = %v, want %v", order, want)
	}
	if expanded[0].Start.TimeZone != "America/New_York" {
		t.Errorf("start shown in %q, want America/New_York", expanded[0].Start.TimeZone)
	}
	occ, _ := st.listAll(t, events+"/"+series.ID+"/occurrences", url.Values{"startDateTime": {"2026-05-06T00:00:00Z"}, "endDateTime": {"2026-06-01T00:00:00Z"}})
	if len(occ) != 2 || occ[0].RecurringEventID != series.ID {
		t.Errorf("occurrences = %+v, want 2 of the series", occ)
	}

	var renamed, added e2eEvent
	st.must(t, "PUT", events+"/"+meet.ID, map[string]any{"title": "Kickoff (moved)", "location": nil}, &renamed)
	st.must(t, "POST", events, map[string]any{"title": "Retro", "start": map[string]any{"dateTime": "2026-05-06T15:00:00Z"}, "end": map[string]any{"dateTime": "2026-05-06T16:00:00Z"}}, &added)
	st.must(t, "DELETE", events+"/"+holiday.ID, nil, nil)
	changes, syncToken2 := st.listAll(t, events, url.Values{"syncToken": {syncToken}})
	if want := []string{"Kickoff (moved)", "Retro", "cancelled:" + holiday.ID}; !slices.Equal(googleTitlesOf(changes), want) {
		t.Errorf("incremental sync = %v, want %v", googleTitlesOf(changes), want)
	}
	if a := st.do(t, "GET", events+"/"+holiday.ID, nil); a.Status != http.StatusNotFound {
		t.Errorf("GET a deleted event = %d, want 404", a.Status)
	}

	// Google drops its sync tokens: 410, then a full listing recovers.
	st.google.ExpireSyncTokens()
	a := st.do(t, "GET", events+"?syncToken="+url.QueryEscape(syncToken2), nil)
	if a.Status != http.StatusGone || a.Error(t).Code != "sync_token_expired" {
		t.Errorf("sync after Google expired its tokens = %d %s, want 410 sync_token_expired", a.Status, a.Body)
	}
	full, fresh := st.listAll(t, events, url.Values{})
	if len(full) != 3 || fresh == "" {
		t.Errorf("full resync = %v, token %q", googleTitlesOf(full), fresh)
	}

	// RSVP on an invitation in the primary calendar.
	inv := st.google.AddEvent(e2eUser, googletest.Event{
		Summary: "Invite", Organizer: &googletest.EventPerson{Email: "erin@example.com"},
		Start: &googletest.EventDateTime{DateTime: "2026-05-07T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-05-07T10:00:00Z"},
		Attendees: []googletest.EventAttendee{{Email: "erin@example.com", ResponseStatus: "accepted"}, {Email: e2eUser}},
	})
	primary := "/v1/events/" + accountID + "/" + url.PathEscape(e2eUser)
	st.must(t, "POST", primary+"/"+inv.ID+"/rsvp", map[string]any{"responseStatus": "accepted"}, nil)
	var invited e2eEvent
	st.must(t, "GET", primary+"/"+inv.ID, nil, &invited)
	if invited.MyResponseStatus != "accepted" {
		t.Errorf("myResponseStatus after RSVP = %q", invited.MyResponseStatus)
	}
	if a := st.do(t, "POST", events+"/"+added.ID+"/rsvp", map[string]any{"responseStatus": "accepted"}); a.Status != http.StatusBadRequest {
		t.Errorf("RSVP to an event without the account = %d, want 400", a.Status)
	}

	// Free/busy through Google's freeBusy query.
	var fb []unical.FreeBusyResult
	st.must(t, "POST", "/v1/freeBusy/"+accountID, map[string]any{"calendarIds": []string{cal.ID}, "startDateTime": "2026-05-06T00:00:00Z",
		"endDateTime": "2026-05-07T00:00:00Z", "timeZone": "Europe/Berlin"}, &fb)
	if len(fb) != 1 || len(fb[0].BusySlots) != 2 || fb[0].BusySlots[0].Start.DateTime != "2026-05-06T09:00:00+02:00" {
		t.Errorf("free/busy = %+v, want the Daily instance and Retro", fb)
	}

	// A subscription opens a Google channel to our notification path;
	// deleting it stops the channel.
	var sub struct {
		ID string `json:"webhookSubscriptionId"`
	}
	st.must(t, "POST", "/v1/calendarSubscriptions/"+accountID, map[string]any{"calendarId": cal.ID, "webhookUrl": "https://hooks.example.com/unical"}, &sub)
	chans := st.google.Channels()
	if len(chans) != 1 || chans[0].CalendarID != cal.ID || !strings.HasPrefix(chans[0].Address, st.URL+"/v1/notifications/provider_a/") {
		t.Fatalf("channels after subscribing = %+v", chans)
	}
	var subs struct{ Data []unical.Subscription }
	st.must(t, "GET", "/v1/calendarSubscriptions/"+accountID, nil, &subs)
	if len(subs.Data) != 1 || subs.Data[0].SubscriptionID != chans[0].ID || subs.Data[0].ResourceID != chans[0].ResourceID || subs.Data[0].Expiration == nil {
		t.Errorf("subscriptions = %+v, want the Google channel's id, resource id and expiration", subs.Data)
	}
	st.must(t, "DELETE", "/v1/calendarSubscriptions/"+accountID, map[string]any{"subscriptionId": sub.ID}, nil)
	if chans := st.google.Channels(); !chans[0].Stopped {
		t.Errorf("the channel is still running after the subscription was deleted")
	}

	st.must(t, "DELETE", calPath, nil, nil)
	if a := st.do(t, "GET", calPath, nil); a.Status != http.StatusNotFound {
		t.Errorf("GET a deleted calendar = %d, want 404", a.Status)
	}
}

func TestGoogleE2E_ExpiryAndThrottling(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	accountID := st.connect(t)
	cals := "/v1/calendars/" + accountID

	// Throttling that ends is retried away; throttling that lasts is 429.
	st.google.InjectFault(googletest.Fault{Method: "GET", PathPrefix: "/calendar/v3/", Status: 403, Reason: "userRateLimitExceeded", Times: 2})
	st.must(t, "GET", cals, nil, nil)
	// A Retry-After beyond MaxBackoff is not waited for.
	st.google.InjectFault(googletest.Fault{Method: "GET", PathPrefix: "/calendar/v3/", Status: 429, RetryAfter: "1", Times: 1})
	a := st.do(t, "GET", cals, nil)
	if a.Status != http.StatusTooManyRequests || a.Error(t).Code != "rate_limited" || a.Header.Get("Retry-After") != "1" {
		t.Errorf("under throttling = %d %s (Retry-After %q), want 429 rate_limited with Retry-After 1", a.Status, a.Body, a.Header.Get("Retry-After"))
	}
	// 5xx through the whole retry budget (1 + MaxRetries attempts).
	st.google.InjectFault(googletest.Fault{Method: "GET", PathPrefix: "/calendar/v3/", Status: 503, Times: 4})
	if a := st.do(t, "GET", cals, nil); a.Status != http.StatusServiceUnavailable {
		t.Errorf("Google down = %d %s, want 503", a.Status, a.Body)
	}
	st.must(t, "GET", cals, nil, nil)

	// The user revokes access at Google: the account expires.
	st.google.RevokeAccess(e2eClientID, e2eUser)
	if a := st.do(t, "GET", cals, nil); a.Status != http.StatusConflict || a.Error(t).Code != "account_expired" {
		t.Errorf("GET calendars after revocation = %d %s, want 409 account_expired", a.Status, a.Body)
	}
	var cred unical.Credentials
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil, &cred)
	if cred.Status != string(unical.AccountStatusExpired) {
		t.Errorf("credentials status after revocation = %q, want EXPIRED", cred.Status)
	}
	var acct unical.Account
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID, nil, &acct)
	if acct.Status != unical.AccountStatusExpired || acct.StatusReason != unical.StatusReasonRefreshTokenRevoked {
		t.Errorf("status after revocation = %s/%q, want EXPIRED/refresh_token_revoked", acct.Status, acct.StatusReason)
	}

	// Posting the account with a new refresh token revives it.
	rt := st.google.IssueRefreshToken(e2eClientID, e2eUser)
	acct = unical.Account{} // a statusReason left out must not keep the old one
	st.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": e2eUser, "providerType": "PROVIDER_A", "refreshToken": rt}, &acct)
	if acct.ID != accountID || acct.Status != unical.AccountStatusActive || acct.StatusReason != "" {
		t.Errorf("account after reconnecting = %+v", acct)
	}
	st.must(t, "GET", cals, nil, nil)
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil, &cred)
	if cred.RefreshToken != rt || cred.AccessToken == "" {
		t.Errorf("credentials after reconnecting = %+v", cred)
	}
}

func TestGoogleE2E_OAuthRefusals(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) *http.Response {
		t.Helper()
		resp, err := noFollow.Get(st.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// An unregistered redirectUrl is refused, never redirected to.
	resp := get("/v1/oauth/authorize/" + st.AppID + "/provider_a?redirectUrl=" + url.QueryEscape("https://evil.example.com/x"))
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
		t.Errorf("unregistered redirectUrl = %d (Location %q), want 400 and no redirect", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A callback without code, and one with a forged state.
	for _, q := range []string{"state=forged", "code=abc&state=forged", "code=abc"} {
		resp := get(unical.OAuthCallbackPath + "?" + q)
		if resp.StatusCode == http.StatusFound && strings.Contains(resp.Header.Get("Location"), "endUserAccountId") {
			t.Errorf("callback %q connected an account", q)
		}
	}
	// A denied consent comes back with an error, and no account exists.
	st.google.SetConsent(googletest.Consent{Deny: true})
	var final *url.URL
	browser := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if r.URL.Host == "app.example.com" {
			final = r.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := browser.Get(st.URL + "/v1/oauth/authorize/" + st.AppID + "/provider_a?state=s1&redirectUrl=" + url.QueryEscape(e2eBack))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if final == nil || final.Query().Get("error") == "" || final.Query().Get("state") != "s1" || final.Query().Get("endUserAccountId") != "" {
		t.Errorf("denied consent came back as %v", final)
	}
	var list struct{ Data []unical.Account }
	st.must(t, "GET", "/v1/endUserAccounts", nil, &list)
	if len(list.Data) != 0 {
		t.Errorf("accounts after refusals = %+v, want none", list.Data)
	}

	// A successful flow asks Google for offline access with PKCE; its
	// callback cannot be replayed.
	st.google.SetConsent(googletest.Consent{})
	accountID, authorize, callback := st.connectVia(t)
	aq := authorize.Query()
	for k, v := range map[string]string{"access_type": "offline", "code_challenge_method": "S256", "include_granted_scopes": "true",
		"client_id": e2eClientID, "redirect_uri": st.URL + unical.OAuthCallbackPath, "login_hint": e2eUser, "prompt": "consent", "response_type": "code"} {
		if got := aq.Get(k); got != v {
			t.Errorf("authorization request %s = %q, want %q", k, got, v)
		}
	}
	if scopes := strings.Fields(aq.Get("scope")); !slices.Contains(scopes, google.ScopeCalendar) || !slices.Contains(scopes, "email") || aq.Get("code_challenge") == "" {
		t.Errorf("authorization request scope %q challenge %q", aq.Get("scope"), aq.Get("code_challenge"))
	}
	if aq.Get("state") == "caller-state-1" {
		t.Error("the caller's state was sent to Google instead of our own flow state")
	}
	resp = get(callback.RequestURI())
	if resp.StatusCode < 400 {
		t.Errorf("replayed callback = %d (Location %q), want an error", resp.StatusCode, resp.Header.Get("Location"))
	}
	st.must(t, "GET", "/v1/endUserAccounts", nil, &list)
	if len(list.Data) != 1 || list.Data[0].ID != accountID {
		t.Errorf("accounts after a replayed callback = %+v, want just %s", list.Data, accountID)
	}
	st.must(t, "DELETE", "/v1/endUserAccounts/"+accountID, nil, nil)
	if a := st.do(t, "GET", "/v1/calendars/"+accountID, nil); a.Status != http.StatusNotFound {
		t.Errorf("calendars of a deleted account = %d, want 404", a.Status)
	}
}

// TestGoogleE2E_Push follows changes from Google to the application's
// webhook: Google pushes to our notification path, the provider reads the
// push, and the engine delivers calendar.event.changed to a loopback HTTPS
// receiver that verifies every message with the Standard Webhooks
// reference library. Polling is off, so only pushes cause deliveries.
func TestGoogleE2E_Push(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	st := mustNewGoogleStackWith(t, googletest.Options{AllowHTTPPush: true}, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.AllowPrivateTargets = true
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = -1
		cfg.RetryJitter = -1
	})
	go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()
	accountID := st.connect(t)
	var sub subscriptions.Created
	st.must(t, "POST", "/v1/calendarSubscriptions/"+accountID, map[string]any{"calendarId": e2eUser, "webhookUrl": rcv.URL + "/hook"}, &sub)
	rcv.SetSecret(sub.EndpointSecret)
	chans := st.google.Channels()
	if len(chans) != 1 || chans[0].CalendarID != e2eUser {
		t.Fatalf("channels = %+v, want one on the primary calendar", chans)
	}

	// Each change waits for its message before the next, so bursts cannot
	// be coalesced across steps.
	base := "/v1/events/" + accountID + "/" + url.PathEscape(e2eUser)
	seen := 0
	expect := func(step string) {
		t.Helper()
		got := rcv.WaitFor(t, seen+1)
		seen = len(got)
		last := got[seen-1]
		p := last.Payload(t)
		if !last.Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != sub.WebhookSubscriptionID {
			t.Errorf("%s: delivered %s (verified %v), want a verified calendar.event.changed for %s", step, last.Body, last.Verified, sub.WebhookSubscriptionID)
		}
	}
	var ev struct {
		ID string `json:"id"`
	}
	st.must(t, "POST", base, map[string]any{"title": "pushed", "start": map[string]any{"dateTime": "2026-05-06T09:00:00Z"}, "end": map[string]any{"dateTime": "2026-05-06T10:00:00Z"}}, &ev)
	expect("create")
	st.must(t, "PUT", base+"/"+url.PathEscape(ev.ID), map[string]any{"title": "pushed again"}, nil)
	expect("update")
	st.must(t, "DELETE", base+"/"+url.PathEscape(ev.ID), nil, nil)
	expect("delete")
	// Another client changes the calendar at Google.
	st.google.AddEvent(e2eUser, googletest.Event{Summary: "from elsewhere",
		Start: &googletest.EventDateTime{DateTime: "2026-05-07T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-05-07T10:00:00Z"}})
	expect("change at Google")

	// A push with another token is ignored: nothing is delivered.
	req, _ := http.NewRequestWithContext(t.Context(), "POST", chans[0].Address, nil)
	req.Header.Set("X-Goog-Channel-ID", chans[0].ID)
	req.Header.Set("X-Goog-Channel-Token", "forged")
	req.Header.Set("X-Goog-Resource-State", "exists")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("forged push answered %d, want 200 (and no effect)", resp.StatusCode)
	}
	time.Sleep(300 * time.Millisecond)
	got := rcv.Deliveries()
	if len(got) != seen {
		t.Errorf("a forged push caused a delivery: %s", got[len(got)-1].Body)
	}
	for _, d := range got {
		if !d.Verified {
			t.Errorf("delivery %s did not verify", d.ID)
		}
	}
	if !rcv.Tampered(t, got[0]) {
		t.Error("the receiver accepted a tampered message")
	}
}

// waitHook waits for the receiver's next delivery and checks that it
// verifies and has the given type.
func waitHook(t *testing.T, rcv *apitest.Receiver, seen *int, eventType string) {
	t.Helper()
	got := rcv.WaitFor(t, *seen+1)
	*seen = len(got)
	if d := got[*seen-1]; !d.Verified || d.Payload(t).EventType != eventType {
		t.Errorf("delivered %s (verified %v), want a verified %s message", d.Body, d.Verified, eventType)
	}
}

// TestGoogleE2E_RenewAndPoll covers the two other ways changes are found:
// a channel near its end is replaced by a new one (and the old stopped),
// and where Google refuses the push address the subscription is polled
// with sync tokens, a token Google dropped turning into
// calendar.event.unknown.
func TestGoogleE2E_RenewAndPoll(t *testing.T) {
	t.Parallel()
	t.Run("Renew", func(t *testing.T) {
		t.Parallel()
		rcv, seen := apitest.NewReceiver(t), 0
		st := mustNewGoogleStackWith(t, googletest.Options{AllowHTTPPush: true}, func(cfg *apitest.Config) {
			cfg.Sender, cfg.AllowPrivateTargets = rcv.Sender(), true
			cfg.OutboxPollInterval, cfg.ChangePollInterval, cfg.RetryJitter = 20*time.Millisecond, -1, -1
			// Every watch is due for renewal at once.
			cfg.WatchRenewBefore = 30 * 24 * time.Hour
		})
		go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()
		accountID := st.connect(t)
		var sub subscriptions.Created
		st.must(t, "POST", "/v1/calendarSubscriptions/"+accountID, map[string]any{"calendarId": e2eUser, "webhookUrl": rcv.URL + "/hook"}, &sub)
		rcv.SetSecret(sub.EndpointSecret)
		first := st.google.Channels()
		if err := engine.PollChanges(t.Context(), st.Client, st.Engine); err != nil {
			t.Fatal(err)
		}
		var live []googletest.ChannelInfo
		for _, c := range st.google.Channels() {
			if !c.Stopped {
				live = append(live, c)
			}
		}
		if len(first) != 1 || len(live) != 1 || live[0].ID == first[0].ID {
			t.Fatalf("channels before %+v, live after renewal %+v; want one new channel", first, live)
		}
		var subs struct{ Data []unical.Subscription }
		st.must(t, "GET", "/v1/calendarSubscriptions/"+accountID, nil, &subs)
		if len(subs.Data) != 1 || subs.Data[0].SubscriptionID != live[0].ID {
			t.Errorf("subscription after renewal = %+v, want channel %s", subs.Data, live[0].ID)
		}
		st.google.AddEvent(e2eUser, googletest.Event{Summary: "after renewal",
			Start: &googletest.EventDateTime{DateTime: "2026-05-07T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-05-07T10:00:00Z"}})
		waitHook(t, rcv, &seen, "calendar.event.changed")
	})
	t.Run("Poll", func(t *testing.T) {
		t.Parallel()
		rcv, seen := apitest.NewReceiver(t), 0
		// Google refuses our http:// notification address, as it refuses
		// every address that is not HTTPS.
		st := mustNewGoogleStackWith(t, googletest.Options{}, func(cfg *apitest.Config) {
			cfg.Sender, cfg.AllowPrivateTargets = rcv.Sender(), true
			cfg.OutboxPollInterval, cfg.ChangePollInterval, cfg.RetryJitter = 20*time.Millisecond, -1, -1
		})
		go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()
		accountID := st.connect(t)
		var sub subscriptions.Created
		st.must(t, "POST", "/v1/calendarSubscriptions/"+accountID, map[string]any{"calendarId": e2eUser, "webhookUrl": rcv.URL + "/hook"}, &sub)
		rcv.SetSecret(sub.EndpointSecret)
		if chans := st.google.Channels(); len(chans) != 0 {
			t.Fatalf("channels = %+v, want none", chans)
		}
		poll := func() {
			t.Helper()
			if err := engine.PollChanges(t.Context(), st.Client, st.Engine); err != nil {
				t.Fatal(err)
			}
		}
		poll() // takes the first sync token
		st.google.AddEvent(e2eUser, googletest.Event{Summary: "polled",
			Start: &googletest.EventDateTime{DateTime: "2026-05-07T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-05-07T10:00:00Z"}})
		poll()
		waitHook(t, rcv, &seen, "calendar.event.changed")
		st.google.ExpireSyncTokens()
		poll()
		waitHook(t, rcv, &seen, "calendar.event.unknown")
		poll() // a fresh token, nothing changed
		time.Sleep(200 * time.Millisecond)
		if got := rcv.Deliveries(); len(got) != seen {
			t.Errorf("a poll without changes delivered %s", got[len(got)-1].Body)
		}
	})
}

// TestGoogleE2E_ReconcileSilentChannel: a Google channel that stops
// pushing without a word (the fake still shows it live) loses no change:
// the engine still checks the watched calendar with its sync token every
// reconcile interval and delivers what it finds as calendar.event.changed.
func TestGoogleE2E_ReconcileSilentChannel(t *testing.T) {
	t.Parallel()
	rcv, seen := apitest.NewReceiver(t), 0
	st := mustNewGoogleStackWith(t, googletest.Options{AllowHTTPPush: true}, func(cfg *apitest.Config) {
		cfg.Sender, cfg.AllowPrivateTargets = rcv.Sender(), true
		cfg.OutboxPollInterval, cfg.RetryJitter = 20*time.Millisecond, -1
		cfg.ChangePollInterval, cfg.ReconcileInterval = 50*time.Millisecond, 300*time.Millisecond
	})
	go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()
	accountID := st.connect(t)
	var sub subscriptions.Created
	st.must(t, "POST", "/v1/calendarSubscriptions/"+accountID, map[string]any{"calendarId": e2eUser, "webhookUrl": rcv.URL + "/hook"}, &sub)
	rcv.SetSecret(sub.EndpointSecret)
	if chans := st.google.Channels(); len(chans) != 1 || chans[0].Stopped {
		t.Fatalf("channels = %+v, want one live channel", chans)
	}
	st.google.SilenceChannels(true)
	st.google.AddEvent(e2eUser, googletest.Event{Summary: "never pushed",
		Start: &googletest.EventDateTime{DateTime: "2026-05-07T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2026-05-07T10:00:00Z"}})
	waitHook(t, rcv, &seen, "calendar.event.changed")
	var subs struct{ Data []unical.Subscription }
	st.must(t, "GET", "/v1/calendarSubscriptions/"+accountID, nil, &subs)
	if len(subs.Data) != 1 || subs.Data[0].SubscriptionID == "" {
		t.Errorf("subscriptions after reconciling = %+v, want the channel kept", subs.Data)
	}
}

// TestGoogleE2E_TokenEndpointFailures: a throttled or failing token
// endpoint never makes an account EXPIRED; invalid_grant does. The clock
// the fake, the provider and the Client share moves past the access
// token's hour, so each request below needs a refresh.
func TestGoogleE2E_TokenEndpointFailures(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	st := mustNewGoogleStackWith(t, googletest.Options{Now: clock}, func(cfg *apitest.Config) { cfg.Now = clock })
	accountID := st.connect(t)
	cals := "/v1/calendars/" + accountID
	status := func() unical.AccountStatus {
		var acct unical.Account
		st.must(t, "GET", "/v1/endUserAccounts/"+accountID, nil, &acct)
		return acct.Status
	}

	// A 429 and then success.
	advance(2 * time.Hour)
	before := st.google.RequestCount("POST", "/token")
	st.google.InjectFault(googletest.Fault{PathPrefix: "/token", Status: http.StatusTooManyRequests, Times: 1})
	var cred unical.Credentials
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil, &cred)
	if !cred.ExpiresAt.After(clock()) {
		t.Errorf("credentials after a throttled refresh expire at %v, before now %v", cred.ExpiresAt, clock())
	}
	if n := st.google.RequestCount("POST", "/token") - before; n != 2 {
		t.Errorf("token requests = %d, want 2 (a 429 and its retry)", n)
	}
	if s := status(); s != unical.AccountStatusActive {
		t.Fatalf("after a 429 then success: status %s, want ACTIVE", s)
	}

	// Every try fails (the first and MaxRetries=3 retries): 503, still ACTIVE.
	advance(2 * time.Hour)
	for _, code := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
		st.google.InjectFault(googletest.Fault{PathPrefix: "/token", Status: code, Times: 4})
		if a := st.do(t, "GET", cals, nil); a.Status != http.StatusServiceUnavailable || a.Error(t).Code != "provider_unavailable" {
			t.Errorf("token endpoint answering %d = %d %s, want 503 provider_unavailable", code, a.Status, a.Body)
		}
	}
	if s := status(); s != unical.AccountStatusActive {
		t.Fatalf("after token endpoint outages: status %s, want ACTIVE", s)
	}

	// invalid_grant: EXPIRED.
	st.google.RevokeAccess(e2eClientID, e2eUser)
	if a := st.do(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil); a.Status != http.StatusConflict || a.Error(t).Code != "account_expired" {
		t.Errorf("credentials after revocation = %d %s, want 409 account_expired", a.Status, a.Body)
	}
	if s := status(); s != unical.AccountStatusExpired {
		t.Errorf("after invalid_grant: status %s, want EXPIRED", s)
	}
}

// TestGoogleE2E_TestingModeExpiry: Google expires the refresh tokens of an
// OAuth app in "Testing" publishing status after seven days, with the same
// invalid_grant as a revocation; the account turns EXPIRED with
// refresh_token_expired, shown in GET and in the statusFilter=expired
// listing, and reconnecting clears it.
func TestGoogleE2E_TestingModeExpiry(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	st := mustNewGoogleStackWith(t, googletest.Options{Now: clock, TestingMode: true}, func(cfg *apitest.Config) { cfg.Now = clock })
	accountID := st.connect(t)
	cals := "/v1/calendars/" + accountID
	st.must(t, "GET", cals, nil, nil)

	advance(6 * 24 * time.Hour) // day six: the refresh token still works
	st.must(t, "GET", cals, nil, nil)
	advance(24*time.Hour + time.Hour) // day seven has passed
	if a := st.do(t, "GET", cals, nil); a.Status != http.StatusConflict || a.Error(t).Code != "account_expired" {
		t.Fatalf("GET calendars after seven days = %d %s, want 409 account_expired", a.Status, a.Body)
	}
	var acct unical.Account
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID, nil, &acct)
	if acct.Status != unical.AccountStatusExpired || acct.StatusReason != unical.StatusReasonRefreshTokenExpired {
		t.Errorf("account = %s/%q, want EXPIRED/refresh_token_expired", acct.Status, acct.StatusReason)
	}
	var page unical.Page[unical.Account]
	st.must(t, "GET", "/v1/endUserAccounts?statusFilter=expired", nil, &page)
	if len(page.Data) != 1 || page.Data[0].StatusReason != unical.StatusReasonRefreshTokenExpired {
		t.Errorf("statusFilter=expired = %+v, want the account with refresh_token_expired", page.Data)
	}

	rt := st.google.IssueRefreshToken(e2eClientID, e2eUser)
	acct = unical.Account{} // a statusReason left out must not keep the old one
	st.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": e2eUser, "providerType": "PROVIDER_A", "refreshToken": rt}, &acct)
	if acct.Status != unical.AccountStatusActive || acct.StatusReason != "" {
		t.Errorf("account after reconnecting = %s/%q, want ACTIVE without a reason", acct.Status, acct.StatusReason)
	}
	st.must(t, "GET", cals, nil, nil)
}

// TestGoogleE2E_PagingRepeatsQuery pages an expanded listing with limit=2 by
// sending the original query again with each pageToken, as most clients
// do (see apitest.CheckExpandedPagingRule).
func TestGoogleE2E_PagingRepeatsQuery(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	acct := st.connect(t)
	var cal unical.Calendar
	st.must(t, "POST", "/v1/calendars/"+acct, map[string]any{"name": "Paging"}, &cal)
	st.CheckExpandedPagingRule(t, acct, cal.ID)
}

// TestGoogleE2E_Fidelity: what Google cannot keep is a 400 naming the
// field (from the capability table or Google's documented limits) instead
// of a 200 that drops it or Google's own text, and PUT {"isCancelled":
// true} deletes the event, as Google documents a cancelled event.
func TestGoogleE2E_Fidelity(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	accountID := st.connect(t)
	events := "/v1/events/" + accountID + "/" + url.PathEscape(e2eUser)
	var ev e2eEvent
	st.must(t, "POST", events, map[string]any{"title": "Review", "start": map[string]any{"dateTime": "2026-05-04T10:00:00+02:00", "timeZone": "Europe/Berlin"},
		"end": map[string]any{"dateTime": "2026-05-04T11:00:00+02:00", "timeZone": "Europe/Berlin"}}, &ev)
	six := []map[string]any{}
	for i := range 6 {
		six = append(six, map[string]any{"method": "popup", "minutes": i})
	}
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"customColor": "#ff0000"}, "customColor"},
		{map[string]any{"colorId": "12"}, "colorId"},
		{map[string]any{"reminders": map[string]any{"useDefault": false, "overrides": six}}, "reminders.overrides"},
		{map[string]any{"organizer": map[string]any{"email": "mallory@example.com"}}, "organizer"},
		{map[string]any{"eventType": "focusTime"}, "eventType"},
	} {
		wantError(t, "PUT "+tc.field, st.do(t, "PUT", events+"/"+url.PathEscape(ev.ID), tc.body), 400, "invalid_request", tc.field)
	}
	var cancelled e2eEvent
	st.must(t, "PUT", events+"/"+url.PathEscape(ev.ID), map[string]any{"isCancelled": true}, &cancelled)
	if !cancelled.IsCancelled {
		t.Error("PUT isCancelled answered an event that is not cancelled")
	}
	if r := st.do(t, "GET", events+"/"+url.PathEscape(ev.ID), nil); r.Status != http.StatusNotFound {
		t.Errorf("GET after cancel = %d, want 404", r.Status)
	}
}
