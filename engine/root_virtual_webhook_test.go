package engine_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/virtual"
)

// TestClient_VirtualWritesQueueAtOnce checks that a write to a VIRTUAL
// calendar queues calendar.event.changed for that calendar's
// subscriptions before the write returns, without a polling pass, and
// that the poll after it does not report the same change again. Polling
// stays the safety net for a change that bypassed the Client.
func TestClient_VirtualWritesQueueAtOnce(t *testing.T) {
	t.Parallel()
	var room *virtual.Provider
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		room = virtual.New(virtual.Config{Store: cfg.Store})
		cfg.Providers = append(cfg.Providers, room)
	})
	ctx := context.Background()
	acct, err := env.App.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room-4b@rooms.example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	other, err := env.App.CreateCalendar(ctx, acct.ID, &unical.CalendarParams{Name: unical.Some("Maintenance")})
	if err != nil {
		t.Fatal(err)
	}
	subPrimary, _ := env.mustSubscribe2(t, acct.ID, virtual.PrimaryCalendarID)
	subOther, _ := env.mustSubscribe2(t, acct.ID, other.ID)
	queued := func(step, subID string, want ...string) {
		t.Helper()
		if want == nil {
			want = []string{}
		}
		if d := cmp.Diff(want, env.claimAll(t, subID)); d != "" {
			t.Errorf("%s: messages mismatch (-want +got):\n%s", step, d)
		}
	}
	changed := unical.EventTypeCalendarEventChanged

	ev := env.mustCreateEvent(t, acct.ID, virtual.PrimaryCalendarID, "Board meeting")
	queued("create, before any poll", subPrimary, changed)
	if err := engine.PollChanges(ctx, env.Client, env.Engine); err != nil {
		t.Fatal(err)
	}
	queued("poll after the create", subPrimary)

	if _, err := env.App.UpdateEvent(ctx, acct.ID, virtual.PrimaryCalendarID, ev.ID, &unical.EventParams{Title: unical.Some("Board meeting (moved)")}); err != nil {
		t.Fatal(err)
	}
	queued("update", subPrimary, changed)
	if _, err := env.App.UpdateEvent(ctx, acct.ID, virtual.PrimaryCalendarID, "evt_missing", &unical.EventParams{Title: unical.Some("x")}); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Fatalf("UpdateEvent(unknown event) = %v, want CodeNotFound", err)
	}
	queued("refused update", subPrimary)
	if _, err := env.App.DeleteEvent(ctx, acct.ID, virtual.PrimaryCalendarID, ev.ID); err != nil {
		t.Fatal(err)
	}
	queued("delete", subPrimary, changed)

	env.mustCreateEvent(t, acct.ID, other.ID, "Filter change")
	queued("create in the other calendar", subOther, changed)

	// A write that bypasses the Client is found by the next poll.
	s := &unical.Session{AccountID: acct.ID, ApplicationID: acct.ApplicationID, Email: acct.Email}
	if _, err := room.CreateEvent(ctx, s, virtual.PrimaryCalendarID, &unical.EventParams{
		Title: unical.Some("Behind the Client's back"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-06T12:00:00Z", TimeZone: "UTC"}),
	}); err != nil {
		t.Fatal(err)
	}
	queued("write at the provider, before a poll", subPrimary)
	if err := engine.PollChanges(ctx, env.Client, env.Engine); err != nil {
		t.Fatal(err)
	}
	queued("poll after a write at the provider", subPrimary, changed)
}
