package engine_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/sweep"
)

// clock is a settable clock for Config.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// mustNewSweepClient returns a Client over a new bolt file with a fake
// clock and one application.
func mustNewSweepClient(tb testing.TB, store unical.Store, configure func(*apitest.Config)) (*unical.Client, *unical.App, *clock, engine.Settings) {
	tb.Helper()
	clk := &clock{t: time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)}
	mem := memory.New(memory.Config{Type: unical.ProviderGoogle})
	mem.AddUser("ada@example.com", "refresh-ada", "")
	cfg := apitest.Config{Config: unical.Config{Store: store, Providers: []unical.Provider{mem}, MasterKey: seal.NewKey(), Now: clk.Now}, Settings: engine.Settings{ChangePollInterval: -1}}
	if configure != nil {
		configure(&cfg)
	}
	c, err := unical.New(cfg.Config)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	created, err := admin.Of(c).CreateApplication(tb.Context(), &admin.ApplicationParams{Name: unical.Some("sweep")})
	if err != nil {
		tb.Fatal(err)
	}
	app, err := c.App(tb.Context(), created.ApplicationID)
	if err != nil {
		tb.Fatal(err)
	}
	return c, app, clk, cfg.Settings
}

func mustOpenBolt(tb testing.TB) *bolt.Store {
	tb.Helper()
	s, err := bolt.Open(bolt.Config{Path: filepath.Join(tb.TempDir(), "unical.db")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// finish queues a message due at due, claims it and writes it back with
// status, as the engine does after its last attempt.
func finish(tb testing.TB, s unical.Store, appID, id string, status outbox.Status, due time.Time) {
	tb.Helper()
	ctx := tb.Context()
	msg := &outbox.Message{ID: id, ApplicationID: appID, EventType: unical.EventTypeAccountUpdated, CreatedAt: due, NextAttemptAt: due}
	if err := s.EnqueueMessages(ctx, []*outbox.Message{msg}); err != nil {
		tb.Fatal(err)
	}
	claimed, err := s.ClaimMessages(ctx, "w", due, time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		tb.Fatalf("ClaimMessages() = %d messages, %v; want 1", len(claimed), err)
	}
	claimed[0].Status, claimed[0].Attempts = status, 1
	if err := s.UpdateMessage(ctx, claimed[0]); err != nil {
		tb.Fatal(err)
	}
}

// remaining returns which of ids the store still holds.
func remaining(tb testing.TB, s unical.Store, appID string, ids ...string) []string {
	tb.Helper()
	var out []string
	for _, id := range ids {
		_, err := s.GetMessage(tb.Context(), appID, id)
		switch unical.ErrorCode(err) {
		case "":
			out = append(out, id)
		case unical.CodeNotFound:
		default:
			tb.Fatal(err)
		}
	}
	return out
}

func TestSweep_Retention(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                      string
		delivered, failed         time.Duration
		wantKept                  []string
		wantDelivered, wantFailed int
	}{
		{"Defaults", 0, 0, []string{"delivered_6d", "delivered_30m", "failed_29d", "failed_6d", "failed_1d"}, 1, 1},
		{"Configured", time.Hour, 48 * time.Hour, []string{"delivered_30m", "failed_1d"}, 2, 3},
		{"KeepForever", -1, -1, []string{"delivered_8d", "delivered_6d", "delivered_30m", "failed_31d", "failed_29d", "failed_6d", "failed_1d"}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := mustOpenBolt(t)
			c, app, clk, settings := mustNewSweepClient(t, store, func(cfg *apitest.Config) {
				cfg.DeliveredRetention, cfg.FailedRetention = tc.delivered, tc.failed
			})
			now := clk.Now()
			day := 24 * time.Hour
			ages := []struct {
				id     string
				status outbox.Status
				age    time.Duration
			}{
				{"failed_31d", outbox.Failed, 31 * day},
				{"failed_29d", outbox.Failed, 29 * day},
				{"delivered_8d", outbox.Delivered, 8 * day},
				{"delivered_6d", outbox.Delivered, 6 * day},
				{"failed_6d", outbox.Failed, 6*day - time.Hour},
				{"failed_1d", outbox.Failed, day},
				{"delivered_30m", outbox.Delivered, 30 * time.Minute},
			}
			var ids []string
			for _, m := range ages {
				finish(t, store, app.ID(), m.id, m.status, now.Add(-m.age))
				ids = append(ids, m.id)
			}
			res, err := engine.Sweep(t.Context(), c, settings)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(sweep.Result{DeliveredMessages: tc.wantDelivered, FailedMessages: tc.wantFailed}, res); d != "" {
				t.Errorf("Sweep() mismatch (-want +got):\n%s", d)
			}
			got := remaining(t, store, app.ID(), ids...)
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.wantKept))
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("messages kept (-want +got):\n%s", d)
			}
		})
	}
}

// TestClient_Run_Sweeps checks that a running engine sweeps on its own:
// an expired blob disappears without anyone calling Sweep.
func TestClient_Run_Sweeps(t *testing.T) {
	t.Parallel()
	store := mustOpenBolt(t)
	c, app, clk, settings := mustNewSweepClient(t, store, func(cfg *apitest.Config) {
		cfg.Sender = &fakeSender{status: 200}
		cfg.SweepInterval = 10 * time.Millisecond
	})
	expired := clk.Now().Add(-time.Second)
	if err := store.PutBlob(t.Context(), app.ID(), "cursor/old", []byte("x"), expired); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, c, settings) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v", err)
		}
	}()
	// Asked as of before its expiry, the blob is there until swept.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := store.GetBlob(t.Context(), app.ID(), "cursor/old", expired.Add(-time.Hour))
		if unical.ErrorCode(err) == unical.CodeNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the expired blob is still stored 10 s after Run started (GetBlob: %v)", err)
		}
	}
}

// noEnqueueStore refuses EnqueueMessages, so that only messages queued
// with the account change itself reach the outbox.
type noEnqueueStore struct{ unical.Store }

func (noEnqueueStore) EnqueueMessages(context.Context, []*outbox.Message) error {
	return unical.Errorf(unical.CodeInternal, "EnqueueMessages is not for account messages")
}

// TestApp_AccountMessagesQueuedWithChange checks that enduseraccount.*
// messages go to the Store with the change they report, not in a separate
// write after it that could fail or be lost in a crash.
func TestApp_AccountMessagesQueuedWithChange(t *testing.T) {
	t.Parallel()
	store := mustOpenBolt(t)
	c, app, clk, _ := mustNewSweepClient(t, noEnqueueStore{store}, nil)
	ctx := t.Context()
	if _, _, err := admin.Of(c).UpdateApplication(ctx, app.ID(), &admin.ApplicationParams{WebhookURL: unical.Some("https://hooks.example.com/app")}); err != nil {
		t.Fatal(err)
	}
	queued := func() []string {
		msgs, err := store.ClaimMessages(ctx, "test", clk.Now(), time.Minute, 100)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, m := range msgs {
			types = append(types, m.EventType)
		}
		slices.Sort(types)
		return types
	}
	params := &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")}
	acct, err := app.CreateAccount(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{unical.EventTypeAccountCreated}, queued()); d != "" {
		t.Errorf("queued after create (-want +got):\n%s", d)
	}
	if _, err := app.CreateAccount(ctx, params); err != nil { // the same account again: an update
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{unical.EventTypeAccountCredentialUpdated, unical.EventTypeAccountUpdated}, queued()); d != "" {
		t.Errorf("queued after reconnect (-want +got):\n%s", d)
	}
	if _, err := app.DeleteAccount(ctx, acct.ID); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{unical.EventTypeAccountDeleted}, queued()); d != "" {
		t.Errorf("queued after delete (-want +got):\n%s", d)
	}
}
