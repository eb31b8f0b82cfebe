package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/testkit/apitest"
)

// withHeader sends every request of an MCP client with one header: the
// credential an agent is configured with.
type withHeader struct {
	name, value string
}

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session with the SDK's client over Streamable
// HTTP to the stack's /v1/mcp, sending header with every request.
func connect(t *testing.T, st *apitest.Stack, header withHeader) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "unical-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   st.URL + "/v1/mcp",
		HTTPClient: &http.Client{Transport: header, Timeout: time.Minute},
		MaxRetries: -1,
	}
	session, err := client.Connect(t.Context(), transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// call calls a tool and returns its result's text: the /v1 answer's JSON
// (or error body, when isError).
func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T, want text", name, res.Content[0])
	}
	return tc.Text, res.IsError
}

// mustCall is call for a tool that must succeed, decoding its result
// into out.
func mustCall(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	text, isError := call(t, s, name, args)
	if isError {
		t.Fatalf("%s: tool error %s", name, text)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, text)
	}
}

// toolError decodes a tool error's /v1 error body.
func toolError(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) apitest.APIError {
	t.Helper()
	text, isError := call(t, s, name, args)
	if !isError {
		t.Fatalf("%s: no tool error, answered %s", name, text)
	}
	var body struct {
		Error apitest.APIError `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		t.Fatalf("%s: error body %v\n%s", name, err, text)
	}
	return body.Error
}

// nextMonday is 00:00 UTC of a Monday one to two weeks ahead.
func nextMonday() time.Time {
	d := time.Now().UTC().AddDate(0, 0, 7)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
}

// bookingStack is a server with an application, a VIRTUAL host working
// Mondays 09:00-12:00 UTC and a 30-minute booking type of the host.
func bookingStack(t *testing.T) (st *apitest.Stack, host unical.Account, bt booking.BookingType) {
	t.Helper()
	st = apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "host@example.com", "providerType": "VIRTUAL"}).Into(t, &host)
	r := st.Do(t, "POST", "/v1/bookingTypes", map[string]any{"name": "Intro call", "durationMinutes": 30, "intervalMinutes": 30,
		"participants": []map[string]any{{"endUserAccountId": host.ID, "workingHours": availability.WorkingHours{TimeZone: "UTC",
			Intervals: []availability.WorkingInterval{{Day: "monday", Start: "09:00", End: "12:00"}}}}}})
	if r.Status != http.StatusCreated && r.Status != http.StatusOK {
		t.Fatalf("POST /v1/bookingTypes = %d %s", r.Status, r.Body)
	}
	r.Into(t, &bt)
	return st, host, bt
}

// bookTwice calls book twice with args, one idempotencyKey, and checks
// that both calls answered the same confirmed booking, the application's
// only one.
func bookTwice(t *testing.T, st *apitest.Stack, s *mcp.ClientSession, args map[string]any) booking.Booking {
	t.Helper()
	var first, again booking.Booking
	mustCall(t, s, "book", args, &first)
	mustCall(t, s, "book", args, &again)
	if d := cmp.Diff(first, again); d != "" {
		t.Errorf("the repeated call answered another booking (-first +again):\n%s", d)
	}
	var page unical.Page[*booking.Booking]
	st.Must(t, "GET", "/v1/bookings", nil).Into(t, &page)
	if len(page.Data) != 1 || page.Data[0].ID != first.ID || first.Status != booking.StatusConfirmed {
		t.Fatalf("bookings after two calls with one key: %+v, want only %s, confirmed", page.Data, first.ID)
	}
	return first
}

// TestTools_APIKey checks what an agent with the application's API key
// sees: every tool, each with a documented object schema, and write
// tools that require an idempotencyKey.
func TestTools_APIKey(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	s := connect(t, st, withHeader{"X-Api-Key", st.APIKey})
	res, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names, writes []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.Annotations == nil {
			t.Errorf("%s: no description or annotations", tool.Name)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		var in struct {
			Type     string   `json:"type"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(schema, &in); err != nil || in.Type != "object" {
			t.Errorf("%s: input schema %s, want an object", tool.Name, schema)
		}
		if slices.Contains(in.Required, "idempotencyKey") {
			writes = append(writes, tool.Name)
		}
	}
	want := []string{"book", "cancel_booking", "find_availability", "get_slots", "hold_slot", "list_bookings", "list_calendars", "list_events", "rsvp"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"book", "cancel_booking", "hold_slot", "rsvp"}, writes); d != "" {
		t.Errorf("tools requiring idempotencyKey (-want +got):\n%s", d)
	}
}

// TestBook finds a slot and books it through the tools, repeats the book
// call with the same idempotencyKey (one booking, the first answer), and
// cancels it, which needs confirm.
func TestBook(t *testing.T) {
	t.Parallel()
	st, host, bt := bookingStack(t)
	s := connect(t, st, withHeader{"X-Api-Key", st.APIKey})
	monday := nextMonday()

	var slots availability.Result
	mustCall(t, s, "get_slots", map[string]any{"bookingTypeId": bt.ID,
		"startDateTime": monday.Format(time.RFC3339), "endDateTime": monday.AddDate(0, 0, 1).Format(time.RFC3339)}, &slots)
	if len(slots.Data) != 6 {
		t.Fatalf("get_slots: %d slots, want 6 (09:00 to 11:30)", len(slots.Data))
	}
	args := map[string]any{"bookingTypeId": bt.ID, "startDateTime": slots.Data[0].Start.DateTime,
		"guest": map[string]any{"email": "guest@example.org", "name": "Grace"}, "idempotencyKey": "book-1"}
	first := bookTwice(t, st, s, args)
	var again booking.Booking
	var events unical.SyncPage[*unical.Event]
	mustCall(t, s, "list_events", map[string]any{"endUserAccountId": host.ID, "calendarId": "primary"}, &events)
	if len(events.Data) != 1 || events.Data[0].ID != first.Events[0].EventID {
		t.Errorf("host's events: %+v, want the booking's one", events.Data)
	}

	// The same key for another slot is another request: refused, not
	// answered with the first booking.
	args["startDateTime"] = slots.Data[1].Start.DateTime
	if e := toolError(t, s, "book", args); e.Code != "idempotency_key_reused" {
		t.Errorf("the key reused for another slot: %+v, want idempotency_key_reused", e)
	}

	cancel := map[string]any{"bookingId": first.ID, "idempotencyKey": "cancel-1"}
	if e := toolError(t, s, "cancel_booking", cancel); e.Code != "invalid_request" || e.Field != "confirm" {
		t.Errorf("cancel without confirm: %+v, want invalid_request naming confirm", e)
	}
	st.Must(t, "GET", "/v1/bookings/"+first.ID, nil).Into(t, &again)
	if again.Status != booking.StatusConfirmed {
		t.Fatalf("a refused cancel changed the booking: %s", again.Status)
	}
	cancel["confirm"] = true
	var cancelled booking.Booking
	mustCall(t, s, "cancel_booking", cancel, &cancelled)
	if cancelled.ID != first.ID || cancelled.Status != booking.StatusCancelled {
		t.Errorf("cancel_booking answered %+v, want %s cancelled", cancelled, first.ID)
	}
}

// TestRSVP answers an invitation of a VIRTUAL account: accepting needs
// no confirmation, declining does.
func TestRSVP(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	var org, guest unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "org@example.com", "providerType": "VIRTUAL"}).Into(t, &org)
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "ada@example.com", "providerType": "VIRTUAL"}).Into(t, &guest)
	var ev unical.Event
	st.Must(t, "POST", "/v1/events/"+guest.ID+"/primary", map[string]any{"title": "Review",
		"start":     map[string]any{"dateTime": "2031-03-03T10:00:00", "timeZone": "UTC"},
		"end":       map[string]any{"dateTime": "2031-03-03T11:00:00", "timeZone": "UTC"},
		"organizer": map[string]any{"email": "org@example.com"},
		"attendees": []map[string]any{{"email": "ada@example.com"}}}).Into(t, &ev)
	s := connect(t, st, withHeader{"X-Api-Key", st.APIKey})
	rsvp := func(status string, confirm bool, key string) map[string]any {
		args := map[string]any{"endUserAccountId": guest.ID, "calendarId": "primary", "eventId": ev.ID, "responseStatus": status, "idempotencyKey": key}
		if confirm {
			args["confirm"] = true
		}
		return args
	}
	responseOf := func() unical.ResponseStatus {
		var got unical.Event
		st.Must(t, "GET", "/v1/events/"+guest.ID+"/primary/"+ev.ID, nil).Into(t, &got)
		for _, a := range got.Attendees {
			if a.Email == "ada@example.com" {
				return a.ResponseStatus
			}
		}
		return ""
	}
	var ok unical.Success
	mustCall(t, s, "rsvp", rsvp("accepted", false, "a1"), &ok)
	if !ok.Success || responseOf() != unical.ResponseAccepted {
		t.Fatalf("after accepting: %v, %s", ok, responseOf())
	}
	if e := toolError(t, s, "rsvp", rsvp("declined", false, "d1")); e.Field != "confirm" {
		t.Errorf("declining without confirm: %+v, want a refusal naming confirm", e)
	}
	if got := responseOf(); got != unical.ResponseAccepted {
		t.Errorf("a refused decline changed the answer to %s", got)
	}
	if text, isError := call(t, s, "rsvp", rsvp("maybe", false, "m1")); !isError {
		t.Errorf("an unknown answer was taken: %s", text)
	}
	mustCall(t, s, "rsvp", rsvp("declined", true, "d1"), &ok)
	if got := responseOf(); got != unical.ResponseDeclined {
		t.Errorf("after a confirmed decline: %s", got)
	}
}

// TestUnauthenticated checks that /v1/mcp without a credential, or with
// a wrong one, is the API's 401 with a bearer challenge, before any MCP.
func TestUnauthenticated(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	for _, key := range []string{"", "uk_nope_nope"} {
		r := st.DoKey(t, key, "POST", "/v1/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
		if r.Status != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") == "" || r.Error(t).Code != "unauthorized" {
			t.Errorf("key %q: %d %s %s, want 401 unauthorized with WWW-Authenticate", key, r.Status, r.Header.Get("WWW-Authenticate"), r.Body)
		}
	}
}

// TestResultsAreV1Answers checks that a tool's result is the /v1 answer
// itself: list_calendars answers what GET /v1/calendars/{id} does, and a
// failing call the route's error body.
func TestResultsAreV1Answers(t *testing.T) {
	t.Parallel()
	st, host, _ := bookingStack(t)
	s := connect(t, st, withHeader{"X-Api-Key", st.APIKey})
	var viaTool, viaAPI any
	mustCall(t, s, "list_calendars", map[string]any{"endUserAccountId": host.ID}, &viaTool)
	st.Must(t, "GET", "/v1/calendars/"+host.ID, nil).Into(t, &viaAPI)
	// The sync token is sealed anew for each answer: present in both,
	// compared apart from its bytes.
	syncToken := cmpopts.IgnoreMapEntries(func(k string, v any) bool { return k == "nextSyncToken" && v != "" })
	if d := cmp.Diff(viaAPI, viaTool, syncToken); d != "" {
		t.Errorf("list_calendars and GET /v1/calendars differ (-api +tool):\n%s", d)
	}
	want := st.Do(t, "GET", "/v1/calendars/acc_unknown", nil).Error(t)
	got := toolError(t, s, "list_calendars", map[string]any{"endUserAccountId": "acc_unknown"})
	if d := cmp.Diff(want, got); d != "" || got.Code != "not_found" {
		t.Errorf("an unknown account: tool error and API error differ (-api +tool):\n%s", d)
	}
}

// TestIdempotencyKeyRefused checks the write tools' idempotencyKey: an
// empty, too long or unsendable key is refused naming it, and nothing is
// booked.
func TestIdempotencyKeyRefused(t *testing.T) {
	t.Parallel()
	st, _, bt := bookingStack(t)
	s := connect(t, st, withHeader{"X-Api-Key", st.APIKey})
	start := nextMonday().Add(9 * time.Hour).Format(time.RFC3339)
	for _, key := range []string{"", strings.Repeat("k", 129), "two words", "naïve"} {
		e := toolError(t, s, "book", map[string]any{"bookingTypeId": bt.ID, "startDateTime": start,
			"guest": map[string]any{"email": "guest@example.org"}, "idempotencyKey": key})
		if e.Code != "invalid_request" || e.Field != "idempotencyKey" {
			t.Errorf("key %q: %+v, want invalid_request naming idempotencyKey", key, e)
		}
	}
	var page unical.Page[*booking.Booking]
	st.Must(t, "GET", "/v1/bookings", nil).Into(t, &page)
	if len(page.Data) != 0 {
		t.Errorf("refused calls booked %d", len(page.Data))
	}
}
