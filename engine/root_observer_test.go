package engine_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/observe"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu         sync.Mutex
	calls      map[string]int // "provider op outcome"
	retries    map[string]int // "provider op"
	deliveries map[string]int
	disabled   int
	polls      int
	push       map[bool]int
}

func newRecorder() *recorder {
	return &recorder{calls: map[string]int{}, retries: map[string]int{}, deliveries: map[string]int{}, push: map[bool]int{}}
}

func (r *recorder) ProviderCall(t unical.ProviderType, op, outcome string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[string(t)+" "+op+" "+outcome]++
}

func (r *recorder) ProviderRetry(t unical.ProviderType, op string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retries[string(t)+" "+op]++
}

func (r *recorder) DeliveryAttempt(outcome string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deliveries[outcome]++
}

func (r *recorder) EndpointDisabled() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.disabled++
}

func (r *recorder) PollCycle(int, time.Duration, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.polls++
}

func (r *recorder) PushNotification(_ unical.ProviderType, ignored bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.push[ignored]++
}

// WrapProvider makes the recorder hear the providers' calls.
func (r *recorder) WrapProvider(p unical.Provider) unical.Provider { return observe.Provider(p, r) }

func (r *recorder) snapshot() (calls, retries, deliveries map[string]int, disabled int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return clone(r.calls), clone(r.retries), clone(r.deliveries), r.disabled
}

func clone(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// retryOnList reports one retry in every ListCalendars.
type retryOnList struct{ *memory.Provider }

func (p retryOnList) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	observe.NoteRetry(ctx)
	return p.Provider.ListCalendars(ctx, s)
}

// TestObserver_ProviderCalls checks what the Observer hears of provider
// calls: each call with its outcome, retries the provider notes, and that
// observing a provider does not give it push it lacks (the Google
// subscription is polled) nor take away the push it has (the Microsoft
// one is watched).
func TestObserver_ProviderCalls(t *testing.T) {
	t.Parallel()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	googleCal := google.AddUser("ada@example.com", "refresh-ada", "")
	outlook := memory.NewWatcher(memory.Config{Type: unical.ProviderMicrosoft})
	outlookCal := outlook.AddUser("grace@example.com", "refresh-grace", "")
	rec := newRecorder()
	client, err := unical.New(unical.Config{
		Store: store, Providers: []unical.Provider{retryOnList{google}, outlook}, MasterKey: seal.NewKey(),
		PublicURL: "https://unical.example.com", Observer: rec,
		Subscriptions: &subscriptions.Hooks{ChangePollInterval: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	ctx := t.Context()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("observed")})
	if err != nil {
		t.Fatal(err)
	}
	app, _ := client.App(ctx, created.ApplicationID)
	ada, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		t.Fatal(err)
	}
	grace, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "grace@example.com", ProviderType: unical.ProviderMicrosoft, RefreshToken: unical.Some("refresh-grace")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.ListCalendars(ctx, ada.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := app.GetCalendar(ctx, ada.ID, "no-such-calendar"); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Fatalf("GetCalendar(missing) = %v, want not found", err)
	}
	polled, err := subscriptions.Create(ctx, app, ada.ID, &subscriptions.CreateParams{CalendarID: googleCal, WebhookURL: "https://hooks.example.com/a"})
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := subscriptions.Create(ctx, app, grace.ID, &subscriptions.CreateParams{CalendarID: outlookCal, WebhookURL: "https://hooks.example.com/b"})
	if err != nil {
		t.Fatal(err)
	}
	for id, wantWatch := range map[string]bool{polled.WebhookSubscriptionID: false, pushed.WebhookSubscriptionID: true} {
		sub, err := store.GetSubscription(ctx, app.ID(), id)
		if err != nil {
			t.Fatal(err)
		}
		if (sub.Watch != nil) != wantWatch {
			t.Errorf("subscription %s has watch %v, want a watch: %v", id, sub.Watch, wantWatch)
		}
	}
	google.Revoke("ada@example.com")
	if _, err := app.ListCalendars(ctx, ada.ID, nil); unical.ErrorCode(err) != unical.CodeAccountExpired {
		t.Fatalf("ListCalendars after a revoke = %v, want account expired", err)
	}

	calls, retries, _, _ := rec.snapshot()
	for key, want := range map[string]int{
		"PROVIDER_A Connect ok":            1,
		"PROVIDER_A ListCalendars ok":      1,
		"PROVIDER_A GetCalendar error":     1,
		"PROVIDER_A ListCalendars expired": 1,
		"PROVIDER_B Connect ok":            1,
		"PROVIDER_B Watch ok":              1,
	} {
		if calls[key] != want {
			t.Errorf("calls[%q] = %d, want %d (all: %v)", key, calls[key], want, calls)
		}
	}
	if calls["PROVIDER_A Watch ok"] != 0 {
		t.Errorf("the Google provider without push was asked to watch: %v", calls)
	}
	if diff := cmp.Diff(map[string]int{"PROVIDER_A ListCalendars": 2}, retries); diff != "" {
		t.Errorf("retries (-want +got):\n%s", diff)
	}
}

// TestObserver_Deliveries checks the delivery outcomes the Observer hears
// from a running engine, and the endpoint it disables: a receiver that
// answers 500 once, then 410 Gone.
func TestObserver_Deliveries(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiverAnswering(t, func(n int) int {
		if n == 0 {
			return 500
		}
		return 410
	})
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	cal := google.AddUser("ada@example.com", "refresh-ada", "")
	rec := newRecorder()
	client, err := unical.New(unical.Config{
		Store: store, Providers: []unical.Provider{google}, MasterKey: seal.NewKey(), Observer: rec,
		AllowPrivateTargets: true,
	})
	settings := engine.Settings{
		Sender: rcv.Sender(), OutboxPollInterval: 20 * time.Millisecond,
		RetrySchedule: []time.Duration{0, 10 * time.Millisecond, 10 * time.Millisecond}, RetryJitter: -1, ChangePollInterval: -1,
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	ctx := t.Context()
	created, _ := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("deliveries")})
	app, _ := client.App(ctx, created.ApplicationID)
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := subscriptions.Create(ctx, app, acct.ID, &subscriptions.CreateParams{CalendarID: cal, WebhookURL: rcv.URL})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(sub.EndpointSecret)
	if _, err := enqueueChange(ctx, client, app.ID(), sub.WebhookSubscriptionID); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(runCtx, client, settings) }()
	rcv.WaitFor(t, 2)
	// The second answer's outcome is reported once it is written; wait
	// for it, boundedly.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, _, deliveries, _ := rec.snapshot()
		if deliveries[engine.DeliveryFailed] > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	_, _, deliveries, disabled := rec.snapshot()
	if diff := cmp.Diff(map[string]int{engine.DeliveryRetrying: 1, engine.DeliveryFailed: 1}, deliveries); diff != "" {
		t.Errorf("delivery outcomes (-want +got):\n%s", diff)
	}
	if disabled != 1 {
		t.Errorf("endpoints disabled = %d, want 1", disabled)
	}
}
