package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/scopedtoken"
)

// tokenStack is a server with a fake clock, an application with two
// VIRTUAL accounts (one with a calendar), and a second application with
// an account of its own.
type tokenStack struct {
	*apitest.Stack
	clock              *fakeClock
	a, b, foreign, cal string
	foreignKey         string
}

func newTokenStack(t *testing.T) *tokenStack {
	t.Helper()
	clock := &fakeClock{t: time.Now().UTC().Truncate(time.Second)}
	st := apitest.Start(t, nil, func(cfg *apitest.Config) { cfg.Now = clock.Now })
	st.CreateApp(t, &admin.ApplicationParams{})
	ts := &tokenStack{Stack: st, clock: clock}
	ts.a, ts.b = mustVirtual(t, st, st.APIKey, "a@example.com"), mustVirtual(t, st, st.APIKey, "b@example.com")
	ts.cal = scopeCalendar(t, st, ts.a)
	_, ts.foreignKey = st.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("other")})
	ts.foreign = mustVirtual(t, st, ts.foreignKey, "c@example.com")
	return ts
}

// mustVirtual creates a VIRTUAL account with the API key key.
func mustVirtual(t *testing.T, st *apitest.Stack, key, email string) string {
	t.Helper()
	r := st.DoKey(t, key, "POST", "/v1/endUserAccounts", map[string]any{"email": email, "providerType": "VIRTUAL"})
	if r.Status != http.StatusOK {
		t.Fatalf("create account = %d\n%s", r.Status, r.Body)
	}
	var acct unical.Account
	r.Into(t, &acct)
	return acct.ID
}

// issue issues a token with the Stack's API key and fails unless it is
// created.
func (ts *tokenStack) issue(t *testing.T, body map[string]any) scopedtoken.Issued {
	t.Helper()
	r := ts.Do(t, "POST", "/v1/tokens", body)
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /v1/tokens = %d, want 201\n%s", r.Status, r.Body)
	}
	var issued scopedtoken.Issued
	r.Into(t, &issued)
	return issued
}

// refusal is what a client sees of a refused request.
type refusal struct {
	Status      int
	Code, Field string
}

func refusalOf(t *testing.T, r *apitest.Response) refusal {
	t.Helper()
	if r.Status < 400 {
		return refusal{Status: r.Status}
	}
	e := r.Error(t)
	return refusal{Status: r.Status, Code: e.Code, Field: e.Field}
}

// A token for one account and freebusy.read reads that account's
// free/busy, and is refused, 403 naming what it lacks, everywhere else:
// its events, another account (answered alike whether that account
// exists, is another application's, or does not exist), the routes that
// take the API key only, and tokens themselves.
func TestScopedToken_FreeBusyOnly(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	tok := ts.issue(t, map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 600})
	if !strings.HasPrefix(tok.Token, "ust_"+tok.ID+"_") {
		t.Errorf("token %q does not carry its id %s", tok.Token, tok.ID)
	}
	window := map[string]any{"startDateTime": "2030-01-01T00:00:00Z", "endDateTime": "2030-01-02T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{ts.cal}}
	events := "/v1/events/" + ts.a + "/" + esc(ts.cal)

	tests := []struct {
		name, method, path string
		body               any
		want               refusal
	}{
		{"OK/FreeBusy", "POST", "/v1/freeBusy/" + ts.a, window, refusal{Status: 200}},
		{"OK/Availability", "POST", "/v1/availability", map[string]any{"participants": []map[string]any{{"endUserAccountId": ts.a}},
			"startDateTime": "2030-01-01T09:00:00Z", "endDateTime": "2030-01-01T17:00:00Z", "durationMinutes": 30}, refusal{Status: 200}},
		{"ErrScope/Events", "GET", events, nil, refusal{403, "forbidden", "scope"}},
		{"ErrScope/EventCreate", "POST", events, map[string]any{"title": "x"}, refusal{403, "forbidden", "scope"}},
		{"ErrScope/Calendars", "GET", "/v1/calendars/" + ts.a, nil, refusal{403, "forbidden", "scope"}},
		{"ErrAccount/SameApp", "POST", "/v1/freeBusy/" + ts.b, window, refusal{403, "forbidden", "endUserAccountId"}},
		{"ErrAccount/OtherApp", "POST", "/v1/freeBusy/" + ts.foreign, window, refusal{403, "forbidden", "endUserAccountId"}},
		{"ErrAccount/Missing", "POST", "/v1/freeBusy/acc_doesnotexist", window, refusal{403, "forbidden", "endUserAccountId"}},
		{"ErrAccount/AvailabilityParticipant", "POST", "/v1/availability", map[string]any{"participants": []map[string]any{{"endUserAccountId": ts.a}, {"endUserAccountId": ts.b}},
			"startDateTime": "2030-01-01T09:00:00Z", "endDateTime": "2030-01-01T17:00:00Z", "durationMinutes": 30}, refusal{403, "forbidden", "endUserAccountId"}},
		{"ErrAPIKeyOnly/Accounts", "GET", "/v1/endUserAccounts", nil, refusal{403, "forbidden", "Authorization"}},
		{"ErrAPIKeyOnly/TokenCreate", "POST", "/v1/tokens", map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 60}, refusal{403, "forbidden", "Authorization"}},
		{"ErrAPIKeyOnly/TokenRevoke", "DELETE", "/v1/tokens/" + tok.ID, nil, refusal{403, "forbidden", "Authorization"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refusalOf(t, ts.DoToken(t, tok.Token, tt.method, tt.path, tt.body, nil))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s %s mismatch (-want +got):\n%s", tt.method, tt.path, d)
			}
		})
	}

	// The whole answer about another account of the application, another
	// application's account and a missing one is the same but for the id
	// the request named.
	var answers []string
	for _, id := range []string{ts.b, ts.foreign, ts.b + "x"} {
		r := ts.DoToken(t, tok.Token, "POST", "/v1/freeBusy/"+id, window, nil)
		answers = append(answers, fmt.Sprintf("%d %s", r.Status, strings.ReplaceAll(string(r.Body), id, "ID")))
	}
	if answers[0] != answers[1] || answers[1] != answers[2] {
		t.Errorf("accounts outside the token answer differently (same application, another one, missing):\n%s", strings.Join(answers, "\n"))
	}

	// The token still works after its refusals, and shows its grant.
	var current scopedtoken.Current
	r := ts.DoToken(t, tok.Token, "GET", "/v1/tokens/current", nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /v1/tokens/current = %d\n%s", r.Status, r.Body)
	}
	r.Into(t, &current)
	want := scopedtoken.Current{ID: tok.ID, Scopes: []scopedtoken.Scope{scopedtoken.FreeBusyRead}, Accounts: []string{ts.a},
		Calendars: map[string][]string{}, BookingTypes: []string{}, AllowedOrigins: []string{}, ExpiresAt: tok.ExpiresAt}
	if d := cmp.Diff(want, current); d != "" {
		t.Errorf("GET /v1/tokens/current mismatch (-want +got):\n%s", d)
	}
	if bytes.Contains(r.Body, []byte("hash")) {
		t.Errorf("GET /v1/tokens/current shows the secret's hash: %s", r.Body)
	}
	// With the API key, the current token is no one's.
	if got := refusalOf(t, ts.Do(t, "GET", "/v1/tokens/current", nil)); got != (refusal{401, "unauthorized", "Authorization"}) {
		t.Errorf("GET /v1/tokens/current with the API key = %+v, want 401", got)
	}
}

// A token narrowed to some calendars of an account uses those only: a
// listing shows them alone, and free/busy must name them.
func TestScopedToken_Calendars(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	other := scopeCalendar(t, ts.Stack, ts.a)
	tok := ts.issue(t, map[string]any{"endUserAccountIds": []string{ts.a}, "calendarIds": map[string][]string{ts.a: {ts.cal}},
		"scopes": []string{"events.read", "events.write", "freebusy.read"}, "ttlSeconds": 600})
	window := func(cals ...string) map[string]any {
		return map[string]any{"startDateTime": "2030-01-01T00:00:00Z", "endDateTime": "2030-01-02T00:00:00Z", "timeZone": "UTC", "calendarIds": cals}
	}
	tests := []struct {
		name, method, path string
		body               any
		want               refusal
	}{
		{"OK/Events", "GET", "/v1/events/" + ts.a + "/" + esc(ts.cal), nil, refusal{Status: 200}},
		{"OK/FreeBusy", "POST", "/v1/freeBusy/" + ts.a, window(ts.cal), refusal{Status: 200}},
		{"ErrCalendar/Events", "GET", "/v1/events/" + ts.a + "/" + esc(other), nil, refusal{403, "forbidden", "calendarId"}},
		{"ErrCalendar/Missing", "GET", "/v1/events/" + ts.a + "/nope", nil, refusal{403, "forbidden", "calendarId"}},
		{"ErrCalendar/FreeBusy", "POST", "/v1/freeBusy/" + ts.a, window(ts.cal, other), refusal{403, "forbidden", "calendarIds"}},
		{"ErrCalendar/FreeBusyDefault", "POST", "/v1/freeBusy/" + ts.a, window(), refusal{403, "forbidden", "calendarIds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refusalOf(t, ts.DoToken(t, tok.Token, tt.method, tt.path, tt.body, nil))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s %s mismatch (-want +got):\n%s", tt.method, tt.path, d)
			}
		})
	}
	var page unical.Page[unical.Calendar]
	r := ts.DoToken(t, tok.Token, "GET", "/v1/calendars/"+ts.a, nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /v1/calendars = %d\n%s", r.Status, r.Body)
	}
	r.Into(t, &page)
	var ids []string
	for _, c := range page.Data {
		ids = append(ids, c.ID)
	}
	if d := cmp.Diff([]string{ts.cal}, ids); d != "" {
		t.Errorf("calendars listed with the token (-want +got):\n%s", d)
	}
}

// Over-broad requests are refused naming the field, and nothing is
// issued.
func TestScopedToken_IssueRefusals(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	tests := []struct {
		name string
		body map[string]any
		want refusal
	}{
		{"ErrOtherAppAccount", map[string]any{"endUserAccountIds": []string{ts.a, ts.foreign}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 60},
			refusal{403, "forbidden", "endUserAccountIds[1]"}},
		{"ErrMissingAccount", map[string]any{"endUserAccountIds": []string{"acc_nope"}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 60},
			refusal{403, "forbidden", "endUserAccountIds[0]"}},
		{"ErrCalendarOfAnotherAccount", map[string]any{"endUserAccountIds": []string{ts.a, ts.b}, "calendarIds": map[string][]string{ts.b: {ts.cal}},
			"scopes": []string{"events.read"}, "ttlSeconds": 60}, refusal{403, "forbidden", "calendarIds." + ts.b}},
		{"ErrCalendarAccountNotNamed", map[string]any{"endUserAccountIds": []string{ts.b}, "calendarIds": map[string][]string{ts.a: {ts.cal}},
			"scopes": []string{"events.read"}, "ttlSeconds": 60}, refusal{400, "invalid_request", "calendarIds." + ts.a}},
		{"ErrBookingScopeWithoutBookingTypes", map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"slots.read"}, "ttlSeconds": 60},
			refusal{403, "forbidden", "scopes"}},
		{"ErrUnknownBookingType", map[string]any{"endUserAccountIds": []string{ts.a}, "bookingTypeIds": []string{"bt_nope"}, "scopes": []string{"slots.read"}, "ttlSeconds": 60},
			refusal{403, "forbidden", "bookingTypeIds[0]"}},
		{"ErrTTL", map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 86401},
			refusal{400, "invalid_request", "ttlSeconds"}},
		{"ErrScope", map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"admin"}, "ttlSeconds": 60},
			refusal{400, "invalid_request", "scopes[0]"}},
		{"ErrOrigin", map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 60, "allowedOrigins": []string{"https://shop.example/path"}},
			refusal{400, "invalid_request", "allowedOrigins[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refusalOf(t, ts.Do(t, "POST", "/v1/tokens", tt.body))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("POST /v1/tokens mismatch (-want +got):\n%s", d)
			}
		})
	}
	entries, err := ts.Store.ListAudit(t.Context(), ts.AppID, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Operation == scopedtoken.OperationIssue {
			t.Errorf("a refused request issued token %s", e.TargetID)
		}
	}
}

// A revoked token and an expired one are refused at once; both the issue
// and the revocation are in the audit log; the token is nowhere in the
// bolt file.
func TestScopedToken_RevokeExpireAudit(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	body := map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 60}
	revoked, expiring := ts.issue(t, body), ts.issue(t, body)
	fb := "/v1/freeBusy/" + ts.a
	window := map[string]any{"startDateTime": "2030-01-01T00:00:00Z", "endDateTime": "2030-01-02T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{ts.cal}}
	for _, tok := range []scopedtoken.Issued{revoked, expiring} {
		if got := refusalOf(t, ts.DoToken(t, tok.Token, "POST", fb, window, nil)); got.Status != 200 {
			t.Fatalf("a new token is refused: %+v", got)
		}
	}

	// The secret and the whole token are not in the store, in any form.
	file, err := os.ReadFile(ts.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(file, []byte(revoked.ID)) {
		t.Fatal("the bolt file does not hold the token's id: the scan read the wrong file")
	}
	for _, tok := range []scopedtoken.Issued{revoked, expiring} {
		_, secret, _ := scopedtoken.Split(tok.Token)
		for _, form := range []string{tok.Token, secret, hex.EncodeToString([]byte(secret)), base64.StdEncoding.EncodeToString([]byte(secret))} {
			if bytes.Contains(file, []byte(form)) {
				t.Errorf("the bolt file holds the token in plain text (as %q)", form)
			}
		}
	}

	if r := ts.Do(t, "DELETE", "/v1/tokens/"+revoked.ID, nil); r.Status != http.StatusOK {
		t.Fatalf("DELETE /v1/tokens = %d\n%s", r.Status, r.Body)
	}
	unauthorized := refusal{401, "unauthorized", "Authorization"}
	if got := refusalOf(t, ts.DoToken(t, revoked.Token, "POST", fb, window, nil)); got != unauthorized {
		t.Errorf("revoked token: %+v, want %+v", got, unauthorized)
	}
	if got := refusalOf(t, ts.Do(t, "DELETE", "/v1/tokens/"+revoked.ID, nil)); got.Status != http.StatusNotFound {
		t.Errorf("second revoke = %+v, want 404", got)
	}
	// Another application cannot revoke the token.
	if got := refusalOf(t, ts.DoKey(t, ts.foreignKey, "DELETE", "/v1/tokens/"+expiring.ID, nil)); got.Status != http.StatusNotFound {
		t.Errorf("revoke by another application = %+v, want 404", got)
	}

	ts.clock.Add(59 * time.Second)
	if got := refusalOf(t, ts.DoToken(t, expiring.Token, "POST", fb, window, nil)); got.Status != 200 {
		t.Errorf("token a second before its expiry: %+v", got)
	}
	ts.clock.Add(time.Second)
	if got := refusalOf(t, ts.DoToken(t, expiring.Token, "POST", fb, window, nil)); got != unauthorized {
		t.Errorf("expired token: %+v, want %+v", got, unauthorized)
	}
	// A made-up secret for a live id is refused too.
	if got := refusalOf(t, ts.DoToken(t, "ust_"+expiring.ID+"_notthesecret", "POST", fb, window, nil)); got != unauthorized {
		t.Errorf("wrong secret: %+v, want %+v", got, unauthorized)
	}

	entries, err := ts.Store.ListAudit(t.Context(), ts.AppID, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	type op struct{ Actor, Operation, Target string }
	var got []op
	for _, e := range entries {
		if strings.HasPrefix(e.Operation, "token.") {
			got = append(got, op{e.Actor, e.Operation, e.TargetID})
		}
	}
	want := []op{ // newest first
		{"api-key", "token.revoke", revoked.ID},
		{"api-key", "token.issue", expiring.ID},
		{"api-key", "token.issue", revoked.ID},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}

// A browser gets CORS headers for a token's allowed origins only: a
// request from another origin is refused, and a request with the API
// key never gets them.
func TestScopedToken_CORS(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	tok := ts.issue(t, map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 600,
		"allowedOrigins": []string{"https://shop.example"}})
	fb := "/v1/freeBusy/" + ts.a
	window := map[string]any{"startDateTime": "2030-01-01T00:00:00Z", "endDateTime": "2030-01-02T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{ts.cal}}
	origin := func(o string) http.Header { return http.Header{"Origin": {o}} }

	r := ts.DoToken(t, tok.Token, "POST", fb, window, origin("https://shop.example"))
	if r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "https://shop.example" {
		t.Errorf("allowed origin: %d, Access-Control-Allow-Origin %q", r.Status, r.Header.Get("Access-Control-Allow-Origin"))
	}
	r = ts.DoToken(t, tok.Token, "POST", fb, window, origin("https://evil.example"))
	if got := refusalOf(t, r); got != (refusal{403, "forbidden", "Origin"}) || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin: %+v, Access-Control-Allow-Origin %q", got, r.Header.Get("Access-Control-Allow-Origin"))
	}
	// A token without an Origin (a server-side agent) gets no CORS.
	r = ts.DoToken(t, tok.Token, "POST", fb, window, nil)
	if r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("no origin: %d, Access-Control-Allow-Origin %q", r.Status, r.Header.Get("Access-Control-Allow-Origin"))
	}
	r = ts.DoHeader(t, "POST", fb, window, origin("https://shop.example"))
	if r.Status != http.StatusOK || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("API key from a browser origin: %d, Access-Control-Allow-Origin %q", r.Status, r.Header.Get("Access-Control-Allow-Origin"))
	}
}

// A preflight carries no token: it is answered for any origin with the
// methods and headers a token request uses, never x-api-key, so that a
// browser never sends an API key across origins. (It is served outside
// the OpenAPI check, which knows no OPTIONS.)
func TestScopedToken_Preflight(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	got := ts.Preflight(t, "/v1/freeBusy/"+ts.a, "https://shop.example", "authorization, content-type")
	want := map[string]string{
		"status":                       "204 No Content",
		"Access-Control-Allow-Origin":  "https://shop.example",
		"Access-Control-Allow-Methods": "GET, POST, PUT, DELETE",
		"Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key",
		"Vary":                         "Origin",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("preflight mismatch (-want +got):\n%s", d)
	}
}

// A token with booking scopes covers the booking types hosted by its
// accounts only: slots, holds and bookings of another type are refused
// naming the booking type, and a booking outside the token is refused
// like a missing one.
func TestScopedToken_Bookings(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	bookingType := func(account string) string {
		var bt booking.BookingType
		ts.Must(t, "POST", "/v1/bookingTypes", map[string]any{"name": "Visit", "durationMinutes": 30,
			"participants": []map[string]any{{"endUserAccountId": account}}}).Into(t, &bt)
		return bt.ID
	}
	mine, theirs := bookingType(ts.a), bookingType(ts.b)
	tok := ts.issue(t, map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"slots.read", "holds.write", "bookings.read", "bookings.write"}, "ttlSeconds": 600})
	var current scopedtoken.Current
	ts.DoToken(t, tok.Token, "GET", "/v1/tokens/current", nil, nil).Into(t, &current)
	if d := cmp.Diff([]string{mine}, current.BookingTypes); d != "" {
		t.Errorf("booking types of the token (-want +got):\n%s", d)
	}
	if got := refusalOf(t, ts.Do(t, "POST", "/v1/tokens", map[string]any{"endUserAccountIds": []string{ts.a}, "bookingTypeIds": []string{theirs},
		"scopes": []string{"slots.read"}, "ttlSeconds": 60})); got != (refusal{403, "forbidden", "bookingTypeIds[0]"}) {
		t.Errorf("a token of account a for b's booking type: %+v", got)
	}

	start := bookingMonday().Format(time.RFC3339)
	guest := map[string]any{"email": "guest@example.org", "name": "Grace"}
	r := ts.DoToken(t, tok.Token, "POST", "/v1/bookings", map[string]any{"bookingTypeId": mine, "startDateTime": start, "guest": guest}, nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /v1/bookings with the token = %d\n%s", r.Status, r.Body)
	}
	var own, other booking.Booking
	r.Into(t, &own)
	r = ts.Do(t, "POST", "/v1/bookings", map[string]any{"bookingTypeId": theirs, "startDateTime": start, "guest": guest})
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /v1/bookings with the API key = %d\n%s", r.Status, r.Body)
	}
	r.Into(t, &other)

	window := "?startDateTime=" + url.QueryEscape(start) + "&endDateTime=" + url.QueryEscape(bookingMonday().Add(24*time.Hour).Format(time.RFC3339))
	tests := []struct {
		name, method, path string
		body               any
		want               refusal
	}{
		{"OK/Slots", "GET", "/v1/bookingTypes/" + mine + "/slots" + window, nil, refusal{Status: 200}},
		{"OK/Booking", "GET", "/v1/bookings/" + own.ID, nil, refusal{Status: 200}},
		{"OK/Bookings", "GET", "/v1/bookings?bookingTypeId=" + mine, nil, refusal{Status: 200}},
		{"ErrBookingType/Slots", "GET", "/v1/bookingTypes/" + theirs + "/slots" + window, nil, refusal{403, "forbidden", "bookingTypeId"}},
		{"ErrBookingType/SlotsMissing", "GET", "/v1/bookingTypes/bt_nope/slots" + window, nil, refusal{403, "forbidden", "bookingTypeId"}},
		{"ErrBookingType/Hold", "POST", "/v1/holds", map[string]any{"bookingTypeId": theirs, "startDateTime": start}, refusal{403, "forbidden", "bookingTypeId"}},
		{"ErrBookingType/Book", "POST", "/v1/bookings", map[string]any{"bookingTypeId": theirs, "startDateTime": start, "guest": guest}, refusal{403, "forbidden", "bookingTypeId"}},
		{"ErrBookingType/List", "GET", "/v1/bookings?bookingTypeId=" + theirs, nil, refusal{403, "forbidden", "bookingTypeId"}},
		{"ErrBookingType/ListAll", "GET", "/v1/bookings", nil, refusal{403, "forbidden", "bookingTypeId"}},
		{"ErrBooking/Other", "GET", "/v1/bookings/" + other.ID, nil, refusal{403, "forbidden", "id"}},
		{"ErrBooking/Missing", "GET", "/v1/bookings/bk_nope", nil, refusal{403, "forbidden", "id"}},
		{"ErrBooking/CancelOther", "DELETE", "/v1/bookings/" + other.ID, nil, refusal{403, "forbidden", "id"}},
		{"ErrBooking/RescheduleOther", "POST", "/v1/bookings/" + other.ID + "/reschedule", map[string]any{"startDateTime": start}, refusal{403, "forbidden", "id"}},
		{"ErrAPIKeyOnly/BookingTypes", "GET", "/v1/bookingTypes", nil, refusal{403, "forbidden", "Authorization"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refusalOf(t, ts.DoToken(t, tok.Token, tt.method, tt.path, tt.body, nil))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s %s mismatch (-want +got):\n%s", tt.method, tt.path, d)
			}
		})
	}
	// Another type's booking is still there: the refused cancel did nothing.
	var still booking.Booking
	ts.Must(t, "GET", "/v1/bookings/"+other.ID, nil).Into(t, &still)
	if still.Status != booking.StatusConfirmed {
		t.Errorf("the other booking is %s after the token's refused cancel", still.Status)
	}
}

// An Idempotency-Key used with a token belongs to the token: its retry
// replays the kept answer, while the same key and request with the API
// key (or another token) is another request, refused as a key reused,
// never answered with the token's kept answer.
func TestScopedToken_IdempotencyKey(t *testing.T) {
	t.Parallel()
	ts := newTokenStack(t)
	var bt booking.BookingType
	ts.Must(t, "POST", "/v1/bookingTypes", map[string]any{"name": "Visit", "durationMinutes": 30,
		"participants": []map[string]any{{"endUserAccountId": ts.a}}}).Into(t, &bt)
	body := map[string]any{"endUserAccountIds": []string{ts.a}, "scopes": []string{"holds.write"}, "ttlSeconds": 600}
	tok, other := ts.issue(t, body), ts.issue(t, body)
	hold := map[string]any{"bookingTypeId": bt.ID, "startDateTime": bookingMonday().Format(time.RFC3339)}
	key := http.Header{"Idempotency-Key": {"hold-1"}}

	first := ts.DoToken(t, tok.Token, "POST", "/v1/holds", hold, key)
	again := ts.DoToken(t, tok.Token, "POST", "/v1/holds", hold, key)
	if first.Status != http.StatusCreated || again.Status != http.StatusCreated || !bytes.Equal(first.Body, again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a token's retry: %d then %d (replayed %q)\n%s\n%s", first.Status, again.Status, again.Header.Get("Idempotent-Replayed"), first.Body, again.Body)
	}
	want := refusal{422, "idempotency_key_reused", "Idempotency-Key"}
	if got := refusalOf(t, ts.DoHeader(t, "POST", "/v1/holds", hold, key)); got != want {
		t.Errorf("the same key and request with the API key: %+v, want %+v", got, want)
	}
	if got := refusalOf(t, ts.DoToken(t, other.Token, "POST", "/v1/holds", hold, key)); got != want {
		t.Errorf("the same key and request with another token: %+v, want %+v", got, want)
	}
}
