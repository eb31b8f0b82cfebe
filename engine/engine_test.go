package engine_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/scopedtoken"
	"github.com/unical/unical/sweep"
)

// These tests run the engine over a fake Client and a fake Store, so that
// what it does on its own (claim, sign, send, write back; schedule change
// checks; wake on a queued message) is seen without a unical.Client.

// fakeClient is the Client side of the engine: it records the change
// checks the engine asks for and opens every endpoint's secret as one.
type fakeClient struct {
	cfg engine.Settings
	// queue is the engine's Config.Outbox, which the Client notifies.
	queue *outbox.Queue
	// now is the clock; zero for time.Now.
	now time.Time

	// revoke answers RevokeGrant; nil succeeds.
	revoke func(msg *outbox.Message) error

	mu      sync.Mutex
	checked []string // "check sub_1", "renew sub_2", "revoke msg_1"
}

func newFakeClient(sender engine.Sender, configure func(*engine.Settings)) *fakeClient {
	c := &fakeClient{queue: outbox.NewQueue(), cfg: engine.Settings{
		Sender: sender, OutboxPollInterval: time.Hour, ChangePollInterval: -1, RetryJitter: -1, SweepInterval: -1,
	}}
	if configure != nil {
		configure(&c.cfg)
	}
	return c
}

func (c *fakeClient) note(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checked = append(c.checked, what)
}

func (c *fakeClient) checks() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.checked))
}

func (c *fakeClient) CheckSubscription(_ context.Context, sub *unical.SubscriptionRecord, renew, reconcile bool) error {
	if sub.Watch == nil {
		c.note("check " + sub.ID)
	}
	if renew {
		c.note("renew " + sub.ID)
	}
	if reconcile {
		c.note("reconcile " + sub.ID)
	}
	return nil
}
func (c *fakeClient) CheckGrants(context.Context, time.Duration) (int, error) {
	c.note("grants")
	return 0, nil
}
func (c *fakeClient) RevokeGrant(_ context.Context, msg *outbox.Message) error {
	c.note("revoke " + msg.ID)
	if c.revoke == nil {
		return nil
	}
	return c.revoke(msg)
}
func (c *fakeClient) Application(_ context.Context, id string) (*unical.Application, error) {
	return &unical.Application{ID: id}, nil
}
func (c *fakeClient) SubscriptionSecret(*unical.SubscriptionRecord) (string, error) {
	return "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", nil
}
func (c *fakeClient) WebhookSecret(*unical.Application) (string, error) {
	return "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", nil
}
func (c *fakeClient) Invalidate(string, ...string) {}
func (c *fakeClient) Observer() unical.Observer    { return unical.NopObserver{} }
func (c *fakeClient) Logger() *slog.Logger         { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func (c *fakeClient) Now() time.Time {
	if c.now.IsZero() {
		return time.Now()
	}
	return c.now
}

// fakeStore keeps messages and subscriptions in memory. It implements what
// the engine calls; anything else panics through the nil interface.
type fakeStore struct {
	engine.Store

	mu       sync.Mutex
	pending  []*outbox.Message
	recorded []outbox.Result
	subs     []*unical.SubscriptionRecord
	written  chan struct{}
	// claims signals each ClaimMessages call.
	claims chan struct{}
}

func newFakeStore() *fakeStore {
	return &fakeStore{written: make(chan struct{}, 100), claims: make(chan struct{}, 100)}
}

func (s *fakeStore) add(msg *outbox.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, msg)
}

func (s *fakeStore) ClaimMessages(_ context.Context, owner string, now time.Time, lease time.Duration, max int) ([]*outbox.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.claims <- struct{}{} }()
	var out []*outbox.Message
	for _, m := range s.pending {
		if len(out) < max && m.LeaseOwner == "" && !m.NextAttemptAt.After(now) {
			m.LeaseOwner, m.LeaseExpiry = owner, now.Add(lease)
			c := *m
			out = append(out, &c)
		}
	}
	return out, nil
}

func (s *fakeStore) RecordDeliveries(_ context.Context, results []outbox.Result) ([]error, error) {
	s.mu.Lock()
	s.recorded = append(s.recorded, results...)
	s.mu.Unlock()
	s.written <- struct{}{}
	return make([]error, len(results)), nil
}

// GetSubscription names one endpoint for every subscription's messages.
func (s *fakeStore) GetSubscription(_ context.Context, appID, id string) (*unical.SubscriptionRecord, error) {
	return &unical.SubscriptionRecord{Subscription: unical.Subscription{ID: id, URL: "https://receiver.example/hook"}, ApplicationID: appID}, nil
}

func (s *fakeStore) ClaimDueSubscriptions(_ context.Context, now time.Time, interval time.Duration, max int) ([]*unical.SubscriptionRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*unical.SubscriptionRecord
	for _, sub := range s.subs {
		if len(out) < max && !sub.NextCheckAt.After(now) {
			sub.NextCheckAt = now.Add(interval)
			c := *sub
			out = append(out, &c)
		}
	}
	return out, nil
}

func (s *fakeStore) ListAllSubscriptions(_ context.Context, after string, limit int) ([]*unical.SubscriptionRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*unical.SubscriptionRecord
	for _, sub := range s.subs {
		if sub.ID > after && len(out) < limit {
			c := *sub
			out = append(out, &c)
		}
	}
	return out, nil
}

// waitRecorded waits, at most ten seconds, until the engine has written
// back n results, and returns them.
func (s *fakeStore) waitRecorded(tb testing.TB, n int) []outbox.Result {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		got := slices.Clone(s.recorded)
		s.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-s.written:
		case <-deadline:
			tb.Fatalf("the engine wrote back %d results, want %d", len(got), n)
		}
	}
}

// recordingSender answers 200 and records each request's URL and
// webhook-id.
type recordingSender struct {
	mu   sync.Mutex
	sent []string
}

func (r *recordingSender) Send(_ context.Context, url string, header map[string][]string, _ []byte) (engine.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, url+" "+header["webhook-id"][0])
	return engine.Response{StatusCode: 200}, nil
}

func (r *recordingSender) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sent)
}

// start runs the engine until the test ends.
func start(tb testing.TB, c *fakeClient, st engine.Store) {
	tb.Helper()
	e, err := engine.New(engine.Config{Client: c, Store: st, Outbox: c.queue, Settings: c.cfg})
	if err != nil {
		tb.Fatalf("New() = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run() = %v", err)
		}
	})
}

func pendingMessage(id string) *outbox.Message {
	return &outbox.Message{
		ID: id, ApplicationID: "app_1", SubscriptionID: "sub_1", EventType: unical.EventTypeCalendarEventChanged,
		Payload: []byte(`{}`), Status: outbox.Pending, NextAttemptAt: time.Now().Add(-time.Second),
	}
}

// A due message is sent, signed, to its subscription's endpoint, and
// written back as delivered with its attempt.
func TestEngine_DeliversDueMessage(t *testing.T) {
	sender := &recordingSender{}
	st := newFakeStore()
	st.add(pendingMessage("msg_1"))
	start(t, newFakeClient(sender, nil), st)

	got := st.waitRecorded(t, 1)
	if diff := cmp.Diff([]string{"https://receiver.example/hook msg_1"}, sender.requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	res := got[0]
	if res.Message.Status != outbox.Delivered || res.Message.Attempts != 1 || res.Attempt == nil || res.Attempt.StatusCode != 200 {
		t.Errorf("written back %+v with attempt %+v, want delivered after one attempt answered 200", res.Message, res.Attempt)
	}
}

// A message the Client queued goes out when the Client signals it, not at
// the next outbox poll (an hour away here).
func TestEngine_WakesWhenClientQueues(t *testing.T) {
	sender := &recordingSender{}
	st := newFakeStore()
	c := newFakeClient(sender, nil)
	start(t, c, st)
	// The engine's first claim, at start, finds nothing; the next is an
	// hour away unless the Client wakes it.
	select {
	case <-st.claims:
	case <-time.After(10 * time.Second):
		t.Fatal("the engine did not claim at start")
	}

	st.add(pendingMessage("msg_2"))
	c.queue.Notify()
	st.waitRecorded(t, 1)
	if diff := cmp.Diff([]string{"https://receiver.example/hook msg_2"}, sender.requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// Due subscriptions are handed to the Client's change detection: one
// without a provider watch is checked with its cursor, one with a watch
// has the watch renewed (and is not polled).
func TestEngine_SchedulesChangeChecks(t *testing.T) {
	st := newFakeStore()
	st.subs = []*unical.SubscriptionRecord{
		{Subscription: unical.Subscription{ID: "sub_polled"}},
		{Subscription: unical.Subscription{ID: "sub_watched"}, Watch: &unical.Watch{ID: "w1", Expiration: time.Now().Add(time.Hour)}},
	}
	c := newFakeClient(&recordingSender{}, func(cfg *engine.Settings) {
		cfg.ChangePollInterval = time.Hour
		cfg.ReconcileInterval = -1
	})
	start(t, c, st)

	want := []string{"check sub_polled", "renew sub_watched"}
	deadline := time.Now().Add(10 * time.Second)
	for !cmp.Equal(want, c.checks()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if diff := cmp.Diff(want, c.checks()); diff != "" {
		t.Errorf("change checks (-want +got):\n%s", diff)
	}
}

// The engine asks the Client to check due grants over and over, every
// so often within Config.GrantCheckInterval.
func TestEngine_SchedulesGrantChecks(t *testing.T) {
	c := newFakeClient(&recordingSender{}, func(cfg *engine.Settings) {
		cfg.GrantCheckInterval = 80 * time.Millisecond
	})
	start(t, c, newFakeStore())

	want := []string{"grants", "grants", "grants"}
	deadline := time.Now().Add(10 * time.Second)
	for len(c.checks()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if diff := cmp.Diff(want, c.checks()[:min(len(want), len(c.checks()))]); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
}

// sweepStore answers Sweep with the results in turn and records the
// requests.
type sweepStore struct {
	engine.Store
	results  []sweep.Result
	requests []sweep.Request
}

func (s *sweepStore) Sweep(_ context.Context, req sweep.Request) (sweep.Result, error) {
	s.requests = append(s.requests, req)
	res := s.results[0]
	s.results = s.results[1:]
	return res, nil
}

// Sweep asks the Store in batches until one comes back short, with the
// retention cut-offs of the settings, and adds up what was removed.
func TestEngine_Sweep(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	st := &sweepStore{results: []sweep.Result{{Flows: 600, Attempts: 400}, {FailedMessages: 1000}, {Blobs: 3, IdempotencyKeys: 2}}}
	c := newFakeClient(&recordingSender{}, func(cfg *engine.Settings) {
		cfg.DeliveredRetention, cfg.FailedRetention = time.Hour, -1
	})
	c.now = now
	e, err := engine.New(engine.Config{Client: c, Store: st, Settings: c.cfg})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Sweep(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sweep.Result{Flows: 600, Attempts: 400, FailedMessages: 1000, Blobs: 3, IdempotencyKeys: 2}, got); diff != "" {
		t.Errorf("Sweep() mismatch (-want +got):\n%s", diff)
	}
	req := sweep.Request{Now: now, Limit: 1000, DeliveredBefore: now.Add(-time.Hour)}
	if diff := cmp.Diff([]sweep.Request{req, req, req}, st.requests); diff != "" {
		t.Errorf("Store.Sweep requests (-want +got):\n%s", diff)
	}
}

// grantSweepStore is a sweepStore that keeps scoped tokens' grants: it
// hands out removal counts and records the times it was asked for.
type grantSweepStore struct {
	sweepStore
	removed []int
	asked   []time.Time
}

func (s *grantSweepStore) CreateTokenGrant(context.Context, string, string, []byte, time.Time) error {
	return nil
}
func (s *grantSweepStore) GetTokenGrant(context.Context, string, time.Time) ([]byte, error) {
	return nil, nil
}
func (s *grantSweepStore) DeleteTokenGrant(context.Context, string, string) error { return nil }
func (s *grantSweepStore) SweepTokenGrants(_ context.Context, now time.Time, limit int) (int, error) {
	s.asked = append(s.asked, now)
	n := s.removed[0]
	s.removed = s.removed[1:]
	if n > limit {
		n = limit
	}
	return n, nil
}

// Sweep also removes expired grants of scoped tokens, in batches until
// one comes back short, when the Store keeps them.
func TestEngine_SweepTokenGrants(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	st := &grantSweepStore{sweepStore: sweepStore{results: []sweep.Result{{}}}, removed: []int{1000, 7}}
	var _ scopedtoken.GrantStore = st
	c := newFakeClient(&recordingSender{}, nil)
	c.now = now
	e, err := engine.New(engine.Config{Client: c, Store: st, Settings: c.cfg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Time{now, now}, st.asked); diff != "" {
		t.Errorf("SweepTokenGrants calls (-want +got):\n%s", diff)
	}
}

// A watch is renewed only when it ends within Config.WatchRenewBefore;
// one that runs for longer is left alone.
func TestEngine_RenewsWatchesDueSoon(t *testing.T) {
	t.Parallel()
	st := newFakeStore()
	st.subs = []*unical.SubscriptionRecord{
		{Subscription: unical.Subscription{ID: "sub_ends_soon"}, Watch: &unical.Watch{ID: "w1", Expiration: time.Now().Add(time.Hour)}},
		{Subscription: unical.Subscription{ID: "sub_ends_later"}, Watch: &unical.Watch{ID: "w2", Expiration: time.Now().Add(3 * time.Hour)}},
		{Subscription: unical.Subscription{ID: "sub_polled"}},
	}
	c := newFakeClient(&recordingSender{}, func(cfg *engine.Settings) {
		cfg.ReconcileInterval = -1
		cfg.WatchRenewBefore = 2 * time.Hour
	})
	e, err := engine.New(engine.Config{Client: c, Store: st, Settings: c.cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PollChanges(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"check sub_polled", "renew sub_ends_soon"}, c.checks()); diff != "" {
		t.Errorf("change checks (-want +got):\n%s", diff)
	}
}
