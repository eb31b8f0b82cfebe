package mcpserver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/testkit/apitest"
)

// newToken makes a scoped token with the stack's API key.
func newToken(t *testing.T, st *apitest.Stack, params map[string]any) string {
	t.Helper()
	r := st.Do(t, "POST", "/v1/tokens", params)
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.Fatalf("POST /v1/tokens = %d %s", r.Status, r.Body)
	}
	var created struct {
		Token string `json:"token"`
	}
	r.Into(t, &created)
	return created.Token
}

// TestScopedToken is an agent with a token for booking one booking type
// of one host: it sees only the tools of its scopes, finds a slot and
// books it, a repeated book call with the same idempotencyKey makes one
// booking, and a tool outside its scopes, or a booking type outside its
// grant, is refused.
func TestScopedToken(t *testing.T) {
	t.Parallel()
	st, host, bt := bookingStack(t)
	var other booking.BookingType
	r := st.Do(t, "POST", "/v1/bookingTypes", map[string]any{"name": "Other", "durationMinutes": 30,
		"participants": []map[string]any{{"endUserAccountId": host.ID}}})
	r.Into(t, &other)
	token := newToken(t, st, map[string]any{"endUserAccountIds": []string{host.ID}, "bookingTypeIds": []string{bt.ID},
		"scopes": []string{"slots.read", "bookings.write"}, "ttlSeconds": 600})
	s := connect(t, st, withHeader{"Authorization", "Bearer " + token})

	res, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if d := cmp.Diff([]string{"book", "cancel_booking", "get_slots"}, names); d != "" {
		t.Errorf("tools of a slots.read and bookings.write token (-want +got):\n%s", d)
	}

	monday := nextMonday()
	window := map[string]any{"startDateTime": monday.Format(time.RFC3339), "endDateTime": monday.AddDate(0, 0, 1).Format(time.RFC3339)}
	var slots availability.Result
	mustCall(t, s, "get_slots", map[string]any{"bookingTypeId": bt.ID, "startDateTime": window["startDateTime"], "endDateTime": window["endDateTime"]}, &slots)
	if len(slots.Data) == 0 {
		t.Fatal("get_slots: no slot")
	}
	args := map[string]any{"bookingTypeId": bt.ID, "startDateTime": slots.Data[0].Start.DateTime,
		"guest": map[string]any{"email": "guest@example.org"}, "idempotencyKey": "agent-call-7"}
	bookTwice(t, st, s, args)

	// Outside the scopes: refused by the server before any call.
	for _, tool := range []string{"list_calendars", "hold_slot", "list_bookings"} {
		if e := toolError(t, s, tool, map[string]any{}); e.Code != "forbidden" {
			t.Errorf("%s, outside the token's scopes: %+v, want forbidden", tool, e)
		}
	}
	e := toolError(t, s, "list_calendars", map[string]any{"endUserAccountId": host.ID})
	if e.Code != "forbidden" || e.Field != "scope" || !strings.Contains(e.Message, "events.read") {
		t.Errorf("list_calendars: %+v, want forbidden naming the scope events.read", e)
	}
	// Within the scopes, outside the grant: /v1's 403.
	if e := toolError(t, s, "get_slots", map[string]any{"bookingTypeId": other.ID, "startDateTime": window["startDateTime"], "endDateTime": window["endDateTime"]}); e.Code != "forbidden" {
		t.Errorf("get_slots of another booking type: %+v, want forbidden", e)
	}
}
