package engine_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/subscriptions"
)

// typeSender records the event type and fake-clock time of each webhook
// it is given, and answers 204.
type typeSender struct {
	mu    sync.Mutex
	types []string
	at    []time.Time
}

func (s *typeSender) Send(ctx context.Context, url string, header map[string][]string, body []byte) (engine.Response, error) {
	var p unical.MessagePayload
	if err := json.Unmarshal(body, &p); err != nil {
		return engine.Response{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.types = append(s.types, p.EventType)
	s.at = append(s.at, time.Now())
	return engine.Response{StatusCode: http.StatusNoContent}, nil
}

func (s *typeSender) sent() ([]string, []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.types...), append([]time.Time(nil), s.at...)
}

// runReconcileEnv starts the engine of a pushEnv with the given change
// poll and reconcile intervals; it must run in a synctest bubble.
func runReconcileEnv(t *testing.T, poll, reconcile time.Duration) (*pushEnv, *typeSender) {
	t.Helper()
	sender := &typeSender{}
	env := mustNewPushEnvWith(t, func(cfg *apitest.Config) {
		cfg.Sender = sender
		cfg.AllowPrivateTargets = true
		cfg.OutboxPollInterval = time.Second
		cfg.ChangePollInterval = poll
		cfg.ReconcileInterval = reconcile
		cfg.RetryJitter = -1
	})
	if env.watch(t) == nil {
		t.Fatal("the subscription has no watch")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v", err)
		}
	})
	return env, sender
}

// TestClient_Run_ReconcileFindsMissedChange: the provider never pushes
// the change (the in-memory provider sends no notifications, as a push
// channel that died silently), yet it is delivered as an ordinary
// calendar.event.changed within the reconcile interval (plus one change
// poll and one outbox poll), on the fake clock.
func TestClient_Run_ReconcileFindsMissedChange(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const poll, reconcile = time.Minute, 10 * time.Minute
		env, sender := runReconcileEnv(t, poll, reconcile)
		time.Sleep(3 * time.Minute) // somewhere in the subscription's slot
		changed := time.Now()
		if _, err := env.App.CreateEvent(context.Background(), env.AccountID, env.CalendarID, &unical.EventParams{
			Title: unical.Some("missed by push"),
			Start: unical.Some(unical.EventDateTime{DateTime: "2026-01-01T09:00:00Z"}),
			End:   unical.Some(unical.EventDateTime{DateTime: "2026-01-01T10:00:00Z"}),
		}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * reconcile)
		types, at := sender.sent()
		if diff := cmp.Diff([]string{unical.EventTypeCalendarEventChanged}, types); diff != "" {
			t.Fatalf("webhooks sent mismatch (-want +got):\n%s", diff)
		}
		if late := at[0].Sub(changed); late > reconcile+poll+time.Second {
			t.Errorf("the change was delivered %v after it happened, want within %v", late, reconcile+poll+time.Second)
		}
		sub, err := env.Store.GetSubscription(context.Background(), env.App.ID(), env.SubID)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Watch == nil || sub.ReconciledAt.IsZero() {
			t.Errorf("after reconciling the subscription has watch %v and ReconciledAt %v, want its watch kept and the check recorded", sub.Watch, sub.ReconciledAt)
		}
	})
}

// TestClient_Run_ReconcileQuietCalendar: checks of a calendar where
// nothing changes send nothing and happen about once per interval, not
// on every change poll; a negative interval turns them off.
func TestClient_Run_ReconcileQuietCalendar(t *testing.T) {
	t.Parallel()
	const poll, reconcile, intervals = time.Minute, 10 * time.Minute, 6
	for _, tc := range []struct {
		name               string
		reconcile          time.Duration
		minCalls, maxCalls int
	}{
		// The first check comes within one interval of the engine's
		// start, then one per interval.
		{"Reconciled", reconcile, intervals - 1, intervals + 1},
		{"Disabled", -1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				env, sender := runReconcileEnv(t, poll, tc.reconcile)
				before := env.Google.Calls()
				time.Sleep(intervals * reconcile)
				synctest.Wait()
				calls := env.Google.Calls() - before
				if calls < tc.minCalls || calls > tc.maxCalls {
					t.Errorf("%d provider calls in %d reconcile intervals, want %d to %d", calls, intervals, tc.minCalls, tc.maxCalls)
				}
				if types, _ := sender.sent(); len(types) != 0 {
					t.Errorf("webhooks sent for a calendar without changes: %v", types)
				}
			})
		})
	}
}

// TestClient_Run_ReconcileSpread: watched subscriptions are not all
// checked at the same instant, but at times spread over the interval.
func TestClient_Run_ReconcileSpread(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const poll, reconcile = 30 * time.Second, time.Hour
		env, _ := runReconcileEnv(t, poll, reconcile)
		ids := []string{env.SubID}
		for range 4 {
			sub, err := subscriptions.Create(context.Background(), env.App, env.AccountID, &subscriptions.CreateParams{CalendarID: env.CalendarID, WebhookURL: "https://hooks.example.com/x"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, sub.WebhookSubscriptionID)
		}
		time.Sleep(reconcile + poll)
		synctest.Wait()
		times := map[time.Time]bool{}
		for _, id := range ids {
			sub, err := env.Store.GetSubscription(context.Background(), env.App.ID(), id)
			if err != nil {
				t.Fatal(err)
			}
			if sub.ReconciledAt.IsZero() {
				t.Errorf("subscription %s was not checked within the interval", id)
			}
			times[sub.ReconciledAt] = true
		}
		if len(times) < 2 {
			t.Errorf("%d subscriptions were all checked at %v, want their checks spread", len(ids), times)
		}
	})
}
