package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
)

// checkCounter is a Provider that records when each calendar is checked
// with a sync cursor, which is what a change poll does.
type checkCounter struct {
	unical.Provider
	mu     sync.Mutex
	checks map[string][]time.Time // calendar id → check times
}

// Unwrap lets the Client see the wrapped provider's credential.
func (c *checkCounter) Unwrap() unical.Provider { return c.Provider }

func (c *checkCounter) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	if q.SyncCursor != "" {
		c.mu.Lock()
		c.checks[calendarID] = append(c.checks[calendarID], time.Now())
		c.mu.Unlock()
	}
	return c.Provider.ListEvents(ctx, s, calendarID, q)
}

// since returns each calendar's number of checks at or after t.
func (c *checkCounter) since(t time.Time) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := map[string]int{}
	for cal, at := range c.checks {
		for _, a := range at {
			if !a.Before(t) {
				n[cal]++
			}
		}
	}
	return n
}

// replicaEnv is several Clients (replicas) sharing one Store, as several
// unicald processes share one database.
type replicaEnv struct {
	*engineEnv
	replicas []*unical.Client
	stops    []func()
}

// mustNewReplicas builds n replicas over one bolt Store; configure may
// change the Config they share.
func mustNewReplicas(tb testing.TB, n int, configure func(*apitest.Config)) *replicaEnv {
	tb.Helper()
	var cfg apitest.Config
	env := mustNewEngineEnv(tb, func(c *apitest.Config) {
		if configure != nil {
			configure(c)
		}
		cfg = *c
	})
	r := &replicaEnv{engineEnv: env, replicas: []*unical.Client{env.Client}}
	for range n - 1 {
		c, err := unical.New(cfg.Config)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { c.Close() })
		r.replicas = append(r.replicas, c)
	}
	return r
}

// runAll starts every replica's engine; stop(i) stops replica i's.
func (r *replicaEnv) runAll(tb testing.TB) {
	for _, c := range r.replicas {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- engine.Run(ctx, c, r.Engine) }()
		stop := sync.OnceFunc(func() {
			cancel()
			if err := <-done; err != nil {
				tb.Errorf("Run() = %v", err)
			}
		})
		r.stops = append(r.stops, stop)
		tb.Cleanup(stop)
	}
}

// TestClient_Run_ReplicasSharePolling runs three engines over one Store
// on the fake clock: each subscription is checked once per interval in
// all (not once per engine), the checks spread over the interval, and
// when an engine stops the others check its share.
func TestClient_Run_ReplicasSharePolling(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var counter *checkCounter
		r := mustNewReplicas(t, 3, func(cfg *apitest.Config) {
			counter = &checkCounter{Provider: cfg.Providers[0], checks: map[string][]time.Time{}}
			cfg.Providers[0] = counter
			cfg.ChangePollInterval = time.Second
			cfg.Sender = &fakeSender{status: http.StatusOK}
		})
		const subs = 12
		ctx := context.Background()
		var calendars []string
		for i := range subs {
			cal, err := r.App.CreateCalendar(ctx, r.AccountID, &unical.CalendarParams{Name: unical.Some(fmt.Sprintf("Calendar %d", i))})
			if err != nil {
				t.Fatal(err)
			}
			calendars = append(calendars, cal.ID)
			r.mustSubscribe2(t, r.AccountID, cal.ID)
		}
		r.runAll(t)
		time.Sleep(time.Second) // every subscription's first check
		start := time.Now()
		time.Sleep(10 * time.Second)
		got := counter.since(start)
		for _, cal := range calendars {
			if n := got[cal]; n < 9 || n > 11 {
				t.Errorf("calendar %s checked %d times in 10 intervals by 3 engines, want 10", cal, n)
			}
		}
		// Spread: the checks of the last interval fall in many tenths of
		// it, not all at the top of it.
		tenths := map[int64]bool{}
		counter.mu.Lock()
		for _, at := range counter.checks {
			for _, a := range at {
				if !a.Before(start) {
					tenths[(a.UnixNano()%int64(time.Second))/int64(100*time.Millisecond)] = true
				}
			}
		}
		counter.mu.Unlock()
		if len(tenths) < 5 {
			t.Errorf("checks of %d subscriptions fell in %d tenths of the interval, want them spread", subs, len(tenths))
		}
		r.stops[0]()
		r.stops[1]()
		time.Sleep(time.Second) // the stopped engines' claims run out
		start = time.Now()
		time.Sleep(5 * time.Second)
		got = counter.since(start)
		for _, cal := range calendars {
			if n := got[cal]; n < 4 || n > 6 {
				t.Errorf("after 2 of 3 engines stopped: calendar %s checked %d times in 5 intervals, want 5", cal, n)
			}
		}
	})
}

// TestClient_Run_RateLimitAcrossReplicas queues a burst for a
// subscription limited to 2 per second and runs three engines: together
// they send at 2 per second, not 2 each.
func TestClient_Run_RateLimitAcrossReplicas(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusOK}
		r := mustNewReplicas(t, 3, func(cfg *apitest.Config) { cfg.Sender = sender })
		subID, _ := r.mustSubscribe(t, "https://hooks.example.com/x", 2)
		r.mustEnqueue(t, subID, 10)
		r.runAll(t)
		time.Sleep(10 * time.Second)
		at := sender.times()
		if len(at) != 10 {
			t.Fatalf("%d sends, want 10", len(at))
		}
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap != 500*time.Millisecond {
				t.Errorf("gap %d = %v, want 500ms", i, gap)
			}
		}
	})
}

// TestClient_Run_RetryAfterHoldsReplicas: a receiver's Retry-After holds
// the subscription's next send on every engine, not only the one that
// got the answer.
func TestClient_Run_RetryAfterHoldsReplicas(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusTooManyRequests, retryAfter: 20 * time.Second}
		r := mustNewReplicas(t, 3, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.OutboxPollInterval = 100 * time.Millisecond
		})
		subID, _ := r.mustSubscribe(t, "https://hooks.example.com/x", 0)
		r.mustEnqueue(t, subID, 1)
		r.runAll(t)
		time.Sleep(time.Second)
		sender.setStatus(http.StatusOK)
		// Several more, so that engines that did not get the 429 send
		// too.
		for i := range 3 {
			now := time.Now().UTC()
			if err := r.Store.EnqueueMessages(context.Background(), []*outbox.Message{{
				ID: fmt.Sprintf("%s_next%d", subID, i), ApplicationID: r.App.ID(), SubscriptionID: subID, EventType: unical.EventTypeCalendarEventChanged,
				Payload: []byte(`{}`), CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
			}}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Minute)
		at := sender.times()
		if len(at) < 2 {
			t.Fatalf("%d sends, want the next messages sent", len(at))
		}
		if gap := at[1].Sub(at[0]); gap < 20*time.Second {
			t.Errorf("next message sent %v after the 429, want at least its Retry-After of 20s", gap)
		}
	})
}

// notifyingStore is a Store whose OutboxWakeups a test fires by hand, as
// another replica's queueing would through PostgreSQL NOTIFY.
type notifyingStore struct {
	unical.Store
	wakeups chan struct{}
}

func (s *notifyingStore) OutboxWakeups(ctx context.Context) <-chan struct{} { return s.wakeups }

// TestClient_Run_OutboxWakeups: with a Store that implements
// outbox.Notifier, a message queued elsewhere goes out on the wake-up, long
// before the engine's next outbox poll.
func TestClient_Run_OutboxWakeups(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusOK}
		var store *notifyingStore
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			store = &notifyingStore{Store: cfg.Store, wakeups: make(chan struct{})}
			cfg.Store = store
			cfg.Sender = sender
			cfg.OutboxPollInterval = time.Hour
		})
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
		env.run(t)
		time.Sleep(time.Second) // the engine's first claim finds nothing; the next poll is an hour away
		env.mustEnqueue(t, subID, 1)
		time.Sleep(time.Second)
		if n := len(sender.times()); n != 0 {
			t.Fatalf("%d sends before the wake-up, want none: the test needs the poll to be far off", n)
		}
		store.wakeups <- struct{}{}
		time.Sleep(time.Second)
		if n := len(sender.times()); n != 1 {
			t.Errorf("%d sends a second after the wake-up, want 1", n)
		}
	})
}

// TestClient_Run_RateLimitBlocksAcrossReplicas: at 20 per second each
// engine books five slots at a time; the blocks of three engines
// interleave, yet no two sends are closer than 1/20 s.
func TestClient_Run_RateLimitBlocksAcrossReplicas(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusOK}
		r := mustNewReplicas(t, 3, func(cfg *apitest.Config) { cfg.Sender = sender })
		subID, _ := r.mustSubscribe(t, "https://hooks.example.com/x", 20)
		r.mustEnqueue(t, subID, 26)
		r.runAll(t)
		time.Sleep(10 * time.Second)
		at := sender.times()
		if len(at) != 26 {
			t.Fatalf("%d sends, want 26", len(at))
		}
		slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < 50*time.Millisecond {
				t.Errorf("sends %d and %d %v apart, want at least 50ms", i-1, i, gap)
			}
		}
		if span := at[len(at)-1].Sub(at[0]); span > 5*time.Second {
			t.Errorf("26 sends at 20 per second took %v, want about 1.25 s", span)
		}
	})
}
