package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/clientenv"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

// engineEnv is the shared test Client (clientenv.Env), with this
// package's helpers as methods.
type engineEnv struct {
	*clientenv.Env
	// Engine are the engine's settings.
	Engine engine.Settings
}

// mustNewEngineEnv builds the environment; configure may change the
// Config first.
func mustNewEngineEnv(tb testing.TB, configure func(*apitest.Config)) *engineEnv {
	tb.Helper()
	return mustNewEngineEnvOn(tb, clientenv.OpenBolt(tb), configure)
}

// mustNewEngineEnvOn is mustNewEngineEnv over a given Store.
func mustNewEngineEnvOn(tb testing.TB, store unical.Store, configure func(*apitest.Config)) *engineEnv {
	tb.Helper()
	// The engine's settings ride beside the Client's Config, and change
	// detection is package subscriptions' hook, polling as they say.
	env := &engineEnv{}
	hooks := &subscriptions.Hooks{}
	env.Env = clientenv.NewOn(tb, store, func(c *unical.Config) {
		cfg := apitest.Config{Config: *c, Settings: engine.Settings{OutboxPollInterval: 20 * time.Millisecond, ChangePollInterval: -1,
			RetryJitter: -1,
		}}
		cfg.Subscriptions = hooks
		if configure != nil {
			configure(&cfg)
		}
		hooks.ChangePollInterval = cfg.ChangePollInterval
		env.Engine = cfg.Settings
		*c = cfg.Config
	})
	return env
}

// run starts the engine until the test ends.
func (env *engineEnv) run(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run() = %v", err)
		}
	})
}

// mustSubscribe subscribes url with the given rate limit (0 for the
// default) and returns the subscription id and secret.
func (env *engineEnv) mustSubscribe(tb testing.TB, url string, rate int) (string, string) {
	tb.Helper()
	params := &subscriptions.CreateParams{CalendarID: env.CalendarID, WebhookURL: url}
	if rate > 0 {
		params.RateLimit = unical.Some(rate)
	}
	created, err := subscriptions.Create(context.Background(), env.App, env.AccountID, params)
	if err != nil {
		tb.Fatal(err)
	}
	return created.WebhookSubscriptionID, created.EndpointSecret
}

// mustSubscribe2 subscribes a loopback URL to a calendar of an account.
func (env *engineEnv) mustSubscribe2(tb testing.TB, accountID, calendarID string) (string, string) {
	tb.Helper()
	created, err := subscriptions.Create(context.Background(), env.App, accountID, &subscriptions.CreateParams{CalendarID: calendarID, WebhookURL: "https://hooks.example.com/poll"})
	if err != nil {
		tb.Fatal(err)
	}
	return created.WebhookSubscriptionID, created.EndpointSecret
}

// mustEnqueue queues n calendar.event.changed messages for a subscription
// directly in the outbox and returns their ids.
func (env *engineEnv) mustEnqueue(tb testing.TB, subID string, n int) []string {
	tb.Helper()
	var msgs []*outbox.Message
	var ids []string
	now := time.Now().UTC()
	for i := range n {
		id := subID + "_msg" + string(rune('a'+i))
		body, _ := json.Marshal(unical.MessagePayload{EventType: unical.EventTypeCalendarEventChanged, Timestamp: unical.FormatTimestamp(now), SubscriptionID: subID,
			EndUserAccountID: "acc_enqueued", CalendarID: "primary"})
		msgs = append(msgs, &outbox.Message{
			ID: id, ApplicationID: env.App.ID(), SubscriptionID: subID, EventType: unical.EventTypeCalendarEventChanged,
			Payload: body, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
		})
		ids = append(ids, id)
	}
	if err := env.Store.EnqueueMessages(context.Background(), msgs); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// waitStatus polls the Store until a message has the status, or fails.
func (env *engineEnv) waitStatus(tb testing.TB, id string, want outbox.Status) *outbox.Message {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msg, err := env.Store.GetMessage(context.Background(), env.App.ID(), id)
		if err != nil {
			tb.Fatal(err)
		}
		if msg.Status == want {
			return msg
		}
		if time.Now().After(deadline) {
			tb.Fatalf("message %s is %s after 20s, want %s", id, msg.Status, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestClient_Run_RetriesKeepWebhookID(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiverAnswering(t, func(n int) int {
		if n < 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.RetrySchedule = []time.Duration{0, 10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}
	})
	subID, secret := env.mustSubscribe(t, rcv.URL+"/hook", 0)
	rcv.SetSecret(secret)
	ids := env.mustEnqueue(t, subID, 1)
	env.run(t)
	got := rcv.WaitFor(t, 4)
	for i, d := range got {
		if d.ID != ids[0] || !d.Verified {
			t.Errorf("request %d: webhook-id %q verified %v; want %q, verified", i, d.ID, d.Verified, ids[0])
		}
	}
	msg := env.waitStatus(t, ids[0], outbox.Delivered)
	if msg.Attempts != 4 {
		t.Errorf("Attempts = %d, want 4", msg.Attempts)
	}
	// The receiver rejects a tampered copy of what it accepted.
	last := got[3]
	wh, _ := standardwebhooks.NewWebhook(secret)
	tampered := append([]byte(nil), last.Body...)
	tampered[len(tampered)-2] ^= 1
	if err := wh.Verify(tampered, last.Header); err == nil {
		t.Error("Verify(tampered body) = nil, want an error")
	}
	var payload unical.MessagePayload
	if err := json.Unmarshal(last.Body, &payload); err != nil || payload.EventType != unical.EventTypeCalendarEventChanged || payload.SubscriptionID != subID {
		t.Errorf("payload = %+v (%v)", payload, err)
	}
}

func TestClient_Run_AttemptsExhausted(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiverAnswering(t, func(int) int { return http.StatusServiceUnavailable })
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.RetrySchedule = []time.Duration{0, 5 * time.Millisecond, 5 * time.Millisecond}
	})
	subID, secret := env.mustSubscribe(t, rcv.URL, 0)
	rcv.SetSecret(secret)
	ids := env.mustEnqueue(t, subID, 1)
	env.run(t)
	msg := env.waitStatus(t, ids[0], outbox.Failed)
	if msg.Attempts != 3 || msg.LastError != "HTTP 503" {
		t.Errorf("failed message = %d attempts, %q; want 3, HTTP 503", msg.Attempts, msg.LastError)
	}
	if n := len(rcv.Deliveries()); n != 3 {
		t.Errorf("receiver got %d requests, want 3", n)
	}
}

// TestClient_Run_RateLimit checks the limit on the real clock: six
// messages at five per second have send times 200 ms apart, so the last
// cannot arrive sooner than a second after the engine started, however
// loaded the machine is (a delay only makes it later). Without the limit
// all six arrive within milliseconds. TestClient_Run_RateLimitExact
// checks the exact spacing on a fake clock.
func TestClient_Run_RateLimit(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) { cfg.Sender = rcv.Sender() })
	subID, secret := env.mustSubscribe(t, rcv.URL, 5)
	rcv.SetSecret(secret)
	env.mustEnqueue(t, subID, 6)
	started := time.Now()
	env.run(t)
	got := rcv.WaitFor(t, 6)
	if took := got[5].At.Sub(started); took < 900*time.Millisecond {
		t.Errorf("6 messages at 5/s all arrived %v after the engine started, want at least 1s", took)
	}
}

func TestClient_Run_DeletedSubscriptionGetsNothing(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiverAnswering(t, func(int) int { return http.StatusBadGateway })
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.RetrySchedule = []time.Duration{0, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	})
	subID, secret := env.mustSubscribe(t, rcv.URL, 0)
	rcv.SetSecret(secret)
	env.mustEnqueue(t, subID, 1)
	env.run(t)
	rcv.WaitFor(t, 1)
	if _, err := subscriptions.Delete(context.Background(), env.App, env.AccountID, &subscriptions.DeleteParams{SubscriptionID: subID}); err != nil {
		t.Fatal(err)
	}
	settled := len(rcv.Deliveries())
	time.Sleep(500 * time.Millisecond) // ten retry intervals
	// One attempt may have been in flight when the delete committed.
	if n := len(rcv.Deliveries()); n > settled+1 {
		t.Errorf("receiver got %d requests after the delete (had %d), want no more", n, settled)
	}
}

func TestClient_Run_AccountMessagesToApplicationEndpoint(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) { cfg.Sender = rcv.Sender() })
	_, secret, err := admin.Of(env.Client).UpdateApplication(context.Background(), env.App.ID(), &admin.ApplicationParams{WebhookURL: unical.Some(rcv.URL + "/app")})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(secret)
	env.run(t)
	if _, err := env.App.DeleteAccount(context.Background(), env.AccountID); err != nil {
		t.Fatal(err)
	}
	got := rcv.WaitFor(t, 1)
	var payload unical.MessagePayload
	if err := json.Unmarshal(got[0].Body, &payload); err != nil {
		t.Fatal(err)
	}
	if !got[0].Verified || payload.EventType != unical.EventTypeAccountDeleted || payload.EndUserAccountID != env.AccountID {
		t.Errorf("got %s verified=%v, want a verified enduseraccount.deleted for %s", got[0].Body, got[0].Verified, env.AccountID)
	}
}

// fakeSender records the fake-clock time of each send and answers with
// status and retryAfter.
type fakeSender struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
	at         []time.Time
}

func (f *fakeSender) Send(ctx context.Context, url string, header map[string][]string, body []byte) (engine.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at = append(f.at, time.Now())
	return engine.Response{StatusCode: f.status, RetryAfter: f.retryAfter}, nil
}

func (f *fakeSender) setStatus(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = status
}

func (f *fakeSender) times() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.at...)
}

// TestClient_Run_BackoffSchedule runs the engine in a synctest bubble,
// where the clock is fake and exact, so the retry gaps can be checked
// against the schedule without waiting for it.
func TestClient_Run_BackoffSchedule(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusInternalServerError}
		schedule := []time.Duration{0, time.Second, 5 * time.Second, 30 * time.Second}
		const poll = 100 * time.Millisecond
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.RetrySchedule = schedule
			cfg.OutboxPollInterval = poll
		})
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
		ids := env.mustEnqueue(t, subID, 1)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
		time.Sleep(time.Minute)
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		at := sender.times()
		if len(at) != len(schedule) {
			t.Fatalf("%d attempts, want %d", len(at), len(schedule))
		}
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < schedule[i] || gap > schedule[i]+poll {
				t.Errorf("gap before attempt %d = %v, want %v (+ up to one poll)", i+1, gap, schedule[i])
			}
		}
		msg, err := env.Store.GetMessage(context.Background(), env.App.ID(), ids[0])
		if err != nil || msg.Status != outbox.Failed {
			t.Errorf("message = %+v, %v; want failed", msg, err)
		}
	})
}

// TestClient_Run_RetryAfter checks on the fake clock that a "slow down"
// answer stretches the retry to its Retry-After, never past the longest
// delay of the schedule, and that other failures keep the schedule.
func TestClient_Run_RetryAfter(t *testing.T) {
	t.Parallel()
	schedule := []time.Duration{0, time.Second, time.Second, time.Minute}
	// Each idle poll is a bolt commit: few polls keep the test quick.
	const poll = 500 * time.Millisecond
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter time.Duration
		want       []time.Duration // gaps before attempts 2, 3 and 4
	}{
		{"TooManyRequests", http.StatusTooManyRequests, 20 * time.Second, []time.Duration{20 * time.Second, 20 * time.Second, time.Minute}},
		{"BadGateway", http.StatusBadGateway, 20 * time.Second, []time.Duration{20 * time.Second, 20 * time.Second, time.Minute}},
		{"ServiceUnavailableCapped", http.StatusServiceUnavailable, 1000 * time.Hour, []time.Duration{time.Minute, time.Minute, time.Minute}},
		{"GatewayTimeout", http.StatusGatewayTimeout, 20 * time.Second, []time.Duration{20 * time.Second, 20 * time.Second, time.Minute}},
		{"InternalServerErrorIgnored", http.StatusInternalServerError, 20 * time.Second, []time.Duration{time.Second, time.Second, time.Minute}},
		{"NoHeader", http.StatusTooManyRequests, 0, []time.Duration{time.Second, time.Second, time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				sender := &fakeSender{status: tc.status, retryAfter: tc.retryAfter}
				env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
					cfg.Sender = sender
					cfg.RetrySchedule = schedule
					cfg.OutboxPollInterval = poll
				})
				subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
				env.mustEnqueue(t, subID, 1)
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error)
				go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
				time.Sleep(4 * time.Minute) // the longest case needs 3
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				at := sender.times()
				if len(at) != len(schedule) {
					t.Fatalf("%d attempts, want %d", len(at), len(schedule))
				}
				for i := 1; i < len(at); i++ {
					if gap, want := at[i].Sub(at[i-1]), tc.want[i-1]; gap < want || gap > want+poll {
						t.Errorf("gap before attempt %d = %v, want %v (+ up to one poll)", i+1, gap, want)
					}
				}
			})
		})
	}
}

// TestClient_Run_RetryAfterHoldsSubscription checks that a Retry-After
// holds back the subscription's next message too, not only the one that
// got it.
func TestClient_Run_RetryAfterHoldsSubscription(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusTooManyRequests, retryAfter: 20 * time.Second}
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.OutboxPollInterval = 100 * time.Millisecond
		})
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
		env.mustEnqueue(t, subID, 1)
		env.run(t)
		time.Sleep(time.Second)
		sender.setStatus(http.StatusOK)
		now := time.Now().UTC()
		if err := env.Store.EnqueueMessages(context.Background(), []*outbox.Message{{
			ID: subID + "_next", ApplicationID: env.App.ID(), SubscriptionID: subID, EventType: unical.EventTypeCalendarEventChanged,
			Payload: []byte(`{}`), CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
		}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		at := sender.times()
		if len(at) < 2 {
			t.Fatalf("%d sends, want the next message sent", len(at))
		}
		if gap := at[1].Sub(at[0]); gap < 20*time.Second {
			t.Errorf("next message sent %v after the 429, want at least its Retry-After of 20s", gap)
		}
	})
}

// TestClient_Run_RateLimitExact checks the limiter's spacing on the fake
// clock: at 4 per second the sends are exactly 250ms apart.
func TestClient_Run_RateLimitExact(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusOK}
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) { cfg.Sender = sender })
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 4)
		env.mustEnqueue(t, subID, 8)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
		time.Sleep(10 * time.Second)
		cancel()
		<-done
		at := sender.times()
		if len(at) != 8 {
			t.Fatalf("%d sends, want 8", len(at))
		}
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap != 250*time.Millisecond {
				t.Errorf("gap %d = %v, want 250ms", i, gap)
			}
		}
	})
}

func TestClient_Run_ErrNoSender(t *testing.T) {
	t.Parallel()
	env := mustNewEngineEnv(t, nil)
	if err := engine.Run(t.Context(), env.Client, env.Engine); err == nil {
		t.Error("Run() without a WebhookSender = nil, want an error")
	}
}

func TestApp_ListDeliveries_ResendMessage(t *testing.T) {
	t.Parallel()
	var fail sync.Map // while set, the receiver answers 500
	fail.Store("on", true)
	rcv := apitest.NewReceiverAnswering(t, func(int) int {
		if _, ok := fail.Load("on"); ok {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.RetrySchedule = []time.Duration{0, 5 * time.Millisecond}
	})
	subID, secret := env.mustSubscribe(t, rcv.URL, 0)
	rcv.SetSecret(secret)
	ids := env.mustEnqueue(t, subID, 1)
	env.run(t)
	env.waitStatus(t, ids[0], outbox.Failed)

	ctx := context.Background()
	page, err := engine.ListDeliveries(ctx, env.App, env.AccountID, subID, &outbox.ListParams{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.NextPageToken == nil {
		t.Fatalf("ListDeliveries(limit 1) = %d attempts, next %v; want 1 and a next page", len(page.Data), page.NextPageToken)
	}
	rest, err := engine.ListDeliveries(ctx, env.App, env.AccountID, subID, &outbox.ListParams{PageToken: *page.NextPageToken})
	if err != nil {
		t.Fatal(err)
	}
	all := append(page.Data, rest.Data...)
	if len(all) != 2 || rest.NextPageToken != nil {
		t.Fatalf("delivery log has %d attempts, want 2", len(all))
	}
	for i, a := range all {
		if a.MessageID != ids[0] || a.Attempt != i+1 || a.StatusCode != 500 || a.Error != "HTTP 500" || a.At.IsZero() {
			t.Errorf("attempt %d = %+v", i, a)
		}
	}
	b, _ := json.Marshal(all[0])
	var wire map[string]any
	json.Unmarshal(b, &wire)
	for _, k := range []string{"id", "messageId", "webhookSubscriptionId", "eventType", "attempt", "timestamp", "statusCode", "latencyMs", "error"} {
		if _, ok := wire[k]; !ok {
			t.Errorf("attempt JSON %s lacks %q", b, k)
		}
	}

	if _, err := engine.ResendMessage(ctx, env.App, env.AccountID, subID, "msg_unknown"); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("ResendMessage(unknown) = %v, want CodeNotFound", err)
	}
	fail.Delete("on")
	if _, err := engine.ResendMessage(ctx, env.App, env.AccountID, subID, ids[0]); err != nil {
		t.Fatal(err)
	}
	env.waitStatus(t, ids[0], outbox.Delivered)
	got := rcv.Deliveries()
	if last := got[len(got)-1]; last.ID != ids[0] || !last.Verified {
		t.Errorf("resent request: id %q verified %v", last.ID, last.Verified)
	}
	if _, err := engine.ResendMessage(ctx, env.App, env.AccountID, subID, ids[0]); unical.ErrorCode(err) != unical.CodeConflict {
		t.Errorf("ResendMessage(delivered) = %v, want CodeConflict", err)
	}
	if _, err := engine.ListDeliveries(ctx, env.App, env.AccountID, "sub_other", nil); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("ListDeliveries(unknown subscription) = %v, want CodeNotFound", err)
	}
}

// TestApp_ResendMessage_Pending checks "retry now" on a message waiting an
// hour for its second attempt: resending it (three times, at once) brings
// that attempt forward, so the message is delivered without the hour's
// wait, verified, and exactly once.
func TestApp_ResendMessage_Pending(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiverAnswering(t, func(n int) int {
		if n < 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.RetrySchedule = []time.Duration{0, time.Hour}
	})
	subID, secret := env.mustSubscribe(t, rcv.URL, 0)
	rcv.SetSecret(secret)
	ids := env.mustEnqueue(t, subID, 1)
	env.run(t)
	rcv.WaitFor(t, 1)
	deadline := time.Now().Add(20 * time.Second)
	for {
		msg, err := env.Store.GetMessage(t.Context(), env.App.ID(), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if msg.Status == outbox.Pending && msg.Attempts == 1 && msg.LeaseOwner == "" {
			if wait := time.Until(msg.NextAttemptAt); wait < 30*time.Minute {
				t.Fatalf("after the failed attempt the next is due in %v, want about an hour", wait)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first attempt's failure is not recorded after 20 s: %+v", msg)
		}
		time.Sleep(5 * time.Millisecond)
	}

	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			// A resend that comes after the delivery finds it delivered.
			if _, err := engine.ResendMessage(t.Context(), env.App, env.AccountID, subID, ids[0]); err != nil && unical.ErrorCode(err) != unical.CodeConflict {
				t.Errorf("ResendMessage(pending) = %v", err)
			}
		})
	}
	wg.Wait()
	delivered := env.waitStatus(t, ids[0], outbox.Delivered)
	if delivered.Attempts != 2 {
		t.Errorf("delivered after %d attempts, want 2 (the failed one kept)", delivered.Attempts)
	}
	got := rcv.Deliveries()
	if len(got) != 2 {
		t.Fatalf("the receiver got %d requests, want 2 (one failed, one delivered)", len(got))
	}
	if last := got[1]; last.ID != ids[0] || !last.Verified {
		t.Errorf("the brought-forward request: id %q verified %v", last.ID, last.Verified)
	}
	if _, err := engine.ResendMessage(t.Context(), env.App, env.AccountID, subID, ids[0]); unical.ErrorCode(err) != unical.CodeConflict {
		t.Errorf("ResendMessage(delivered) = %v, want CodeConflict", err)
	}
}

// TestClient_Run_GoneStopsRetries checks that a 410 answer fails the
// message at once instead of retrying it, and disables the endpoint, so
// the next message is not sent either (Standard Webhooks: the receiver
// opts out).
func TestClient_Run_GoneStopsRetries(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusGone}
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.OutboxPollInterval = time.Minute // each idle poll is a bolt commit; keep them few
		})
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
		ids := env.mustEnqueue(t, subID, 1)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
		time.Sleep(10 * time.Minute) // the default schedule would have retried at 5 s and 5 min
		cancel()
		<-done
		if n := len(sender.times()); n != 1 {
			t.Errorf("%d attempts, want 1", n)
		}
		msg, err := env.Store.GetMessage(context.Background(), env.App.ID(), ids[0])
		if err != nil || msg.Status != outbox.Failed || !strings.HasPrefix(msg.LastError, "HTTP 410. Disabled") {
			t.Errorf("message: %v; want failed with HTTP 410 and the endpoint disabled", describeMessage(msg, err))
		}
		if st := env.endpointState(t); st.DisabledAt == nil || !strings.Contains(st.DisabledReason, "410 Gone") {
			t.Errorf("endpoint state = %+v, want disabled for the 410", st)
		}
		next := subID + "_next"
		now := time.Now().UTC()
		if err := env.Store.EnqueueMessages(context.Background(), []*outbox.Message{{
			ID: next, ApplicationID: env.App.ID(), SubscriptionID: subID, EventType: unical.EventTypeCalendarEventChanged,
			Payload: []byte(`{}`), CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
		}}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel = context.WithCancel(t.Context())
		go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
		time.Sleep(2 * time.Minute)
		cancel()
		<-done
		if n := len(sender.times()); n != 1 {
			t.Errorf("%d attempts after the next message, want still 1", n)
		}
		if msg, err := env.Store.GetMessage(context.Background(), env.App.ID(), next); err != nil || msg.Status != outbox.Failed {
			t.Errorf("next message: %v; want failed unsent", describeMessage(msg, err))
		}
	})
}

// gateSender blocks every send until its context ends while closed is
// set, and otherwise answers 200, recording the send like fakeSender.
type gateSender struct {
	fakeSender
	closed atomic.Bool
}

func (g *gateSender) Send(ctx context.Context, url string, header map[string][]string, body []byte) (engine.Response, error) {
	if g.closed.Load() {
		<-ctx.Done()
		return engine.Response{}, ctx.Err()
	}
	return g.fakeSender.Send(ctx, url, header, body)
}

// TestClient_Run_ShutdownReleasesClaims stops an engine that holds one
// message in a send and one claimed but not yet handed to a worker: both
// must be back in the queue, unleased and without a counted attempt, so
// that the next engine sends them at once instead of after the lease.
func TestClient_Run_ShutdownReleasesClaims(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &gateSender{fakeSender: fakeSender{status: http.StatusOK}}
		sender.closed.Store(true)
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.DeliveryWorkers = 1 // claims one at a time: the second waits for the worker
			cfg.DeliveryLease = time.Hour
			cfg.OutboxPollInterval = time.Minute
		})
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
		ids := env.mustEnqueue(t, subID, 2)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
		time.Sleep(time.Second)
		synctest.Wait()
		for _, id := range ids {
			if msg, err := env.Store.GetMessage(context.Background(), env.App.ID(), id); err != nil || msg.LeaseOwner == "" {
				t.Fatalf("before the stop, message %s is not claimed (%v)", id, err)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			msg, err := env.Store.GetMessage(context.Background(), env.App.ID(), id)
			if err != nil || msg.LeaseOwner != "" || msg.Status != outbox.Pending || msg.Attempts != 0 {
				t.Errorf("after the stop, message %s: %v; want pending, unleased, no attempts", id, describeMessage(msg, err))
			}
		}

		// A restart sends both long before the hour-long lease would end.
		sender.closed.Store(false)
		ctx, cancel = context.WithCancel(t.Context())
		go func() { done <- engine.Run(ctx, env.Client, env.Engine) }()
		time.Sleep(time.Second)
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if msg, err := env.Store.GetMessage(context.Background(), env.App.ID(), id); err != nil || msg.Status != outbox.Delivered {
				t.Errorf("after the restart, message %s: %v; want delivered", id, describeMessage(msg, err))
			}
		}
	})
}

// describeMessage is a message's delivery state for a failure report.
func describeMessage(msg *outbox.Message, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("status %s, %d attempts, lease owner %q, last error %q", msg.Status, msg.Attempts, msg.LeaseOwner, msg.LastError)
}

// endpointState returns the listed state of the env's only subscription.
func (env *engineEnv) endpointState(tb testing.TB) outbox.EndpointState {
	tb.Helper()
	page, err := subscriptions.List(context.Background(), env.App, env.AccountID, nil)
	if err != nil || len(page.Data) != 1 {
		tb.Fatalf("ListSubscriptions() = %v, %v; want one subscription", page, err)
	}
	return page.Data[0].EndpointState
}

// mustListedSubscription returns the JSON of the env's only listed
// subscription, as the API sends it.
func (env *engineEnv) mustListedSubscription(tb testing.TB) string {
	tb.Helper()
	page, err := subscriptions.List(context.Background(), env.App, env.AccountID, nil)
	if err != nil || len(page.Data) != 1 {
		tb.Fatalf("ListSubscriptions() = %v, %v; want one subscription", page, err)
	}
	b, err := json.Marshal(page.Data[0])
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestClient_Run_DisableFailingEndpoint runs on the fake clock an endpoint
// that fails for longer than EndpointDisableAfter: it is disabled with a
// reason shown in the listed subscription, its messages fail unsent with
// the reason in the delivery log, and resending one enables it again.
func TestClient_Run_DisableFailingEndpoint(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusInternalServerError}
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.RetrySchedule = []time.Duration{0, 30 * time.Minute, 30 * time.Minute, 30 * time.Minute, 30 * time.Minute}
			cfg.OutboxPollInterval = time.Second
			cfg.EndpointDisableAfter = time.Hour
		})
		ctx := context.Background()
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
		first := env.mustEnqueue(t, subID, 1)[0]
		start := time.Now().UTC()
		env.run(t)

		if b := env.mustListedSubscription(t); strings.Contains(b, "failingSince") || strings.Contains(b, "disabled") {
			t.Errorf("a healthy subscription lists as %s, want the spec's fields only", b)
		}
		time.Sleep(time.Minute)
		st := env.endpointState(t)
		if st.FailingSince == nil || !st.FailingSince.Equal(start) || st.DisabledAt != nil {
			t.Fatalf("after one failure the state is %+v, want failing since %v and enabled", st, start)
		}

		// Attempts at 0, 30 and 60 minutes: the third is an hour into the
		// failure and disables the endpoint, which ends the message early.
		time.Sleep(time.Hour)
		st = env.endpointState(t)
		if st.DisabledAt == nil || !st.DisabledAt.Equal(start.Add(time.Hour)) || !strings.Contains(st.DisabledReason, "HTTP 500") {
			t.Fatalf("after an hour of failures the state is %+v, want disabled at %v with the last error", st, start.Add(time.Hour))
		}
		if msg, err := env.Store.GetMessage(ctx, env.App.ID(), first); err != nil || msg.Status != outbox.Failed || msg.Attempts != 3 {
			t.Errorf("first message: %v; want failed after 3 attempts", describeMessage(msg, err))
		}

		if b := env.mustListedSubscription(t); !strings.Contains(b, `"disabledAt":"`) || !strings.Contains(b, `"disabledReason":"`) || !strings.Contains(b, `"failingSince":"`) {
			t.Errorf("a disabled subscription lists as %s, want failingSince, disabledAt and disabledReason", b)
		}

		// A disabled endpoint gets nothing; the log says why.
		second := subID + "_second"
		now := time.Now().UTC()
		if err := env.Store.EnqueueMessages(ctx, []*outbox.Message{{
			ID: second, ApplicationID: env.App.ID(), SubscriptionID: subID, EventType: unical.EventTypeCalendarEventChanged,
			Payload: []byte(`{}`), CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now,
		}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		if n := len(sender.times()); n != 3 {
			t.Errorf("%d sends, want 3: none while disabled", n)
		}
		msg, err := env.Store.GetMessage(ctx, env.App.ID(), second)
		if err != nil || msg.Status != outbox.Failed || !strings.Contains(msg.LastError, "disabled") {
			t.Fatalf("message queued while disabled: %v; want failed as disabled", describeMessage(msg, err))
		}
		log, err := engine.ListDeliveries(ctx, env.App, env.AccountID, subID, nil)
		if err != nil {
			t.Fatal(err)
		}
		var disabling, logged bool
		for _, a := range log.Data {
			disabling = disabling || (a.MessageID == first && a.Attempt == 3 && a.StatusCode == 500 && a.Error == "HTTP 500. "+st.DisabledReason)
			logged = logged || (a.MessageID == second && a.StatusCode == 0 && strings.Contains(a.Error, st.DisabledReason))
		}
		if !disabling || !logged {
			t.Errorf("delivery log = %+v, want the disabling attempt and an entry for %s, both with the reason", log.Data, second)
		}

		// Resending enables the endpoint, which now answers.
		sender.setStatus(http.StatusNoContent)
		if _, err := engine.ResendMessage(ctx, env.App, env.AccountID, subID, second); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		if msg, err := env.Store.GetMessage(ctx, env.App.ID(), second); err != nil || msg.Status != outbox.Delivered {
			t.Errorf("resent message: %v; want delivered", describeMessage(msg, err))
		}
		if st := env.endpointState(t); st != (outbox.EndpointState{}) {
			t.Errorf("after the resend the state is %+v, want enabled and not failing", st)
		}
	})
}

// TestClient_Run_EndpointRecovers checks that one delivery ends a run of
// failures, so failures spread over a longer time with deliveries between
// them never disable the endpoint.
func TestClient_Run_EndpointRecovers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusInternalServerError}
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.RetrySchedule = []time.Duration{0, 30 * time.Minute, 30 * time.Minute}
			cfg.OutboxPollInterval = time.Second
			cfg.EndpointDisableAfter = time.Hour
		})
		subID, _ := env.mustSubscribe(t, "https://hooks.example.com/x", 0)
		ids := env.mustEnqueue(t, subID, 1)
		env.run(t)
		time.Sleep(time.Minute)
		if st := env.endpointState(t); st.FailingSince == nil {
			t.Fatalf("after a failure the state is %+v, want failing", st)
		}
		sender.setStatus(http.StatusOK)
		time.Sleep(30 * time.Minute)
		env.waitStatus(t, ids[0], outbox.Delivered)
		if st := env.endpointState(t); st != (outbox.EndpointState{}) {
			t.Errorf("after a delivery the state is %+v, want not failing", st)
		}
	})
}

// TestClient_Run_DisableApplicationEndpoint disables the application's own
// endpoint and checks that a new webhook URL starts afresh.
func TestClient_Run_DisableApplicationEndpoint(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusServiceUnavailable}
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.RetrySchedule = []time.Duration{0, 30 * time.Minute, 30 * time.Minute}
			cfg.OutboxPollInterval = time.Second
			cfg.EndpointDisableAfter = 30 * time.Minute
			cfg.CacheTTL = -1
		})
		ctx := context.Background()
		if _, _, err := admin.Of(env.Client).UpdateApplication(ctx, env.App.ID(), &admin.ApplicationParams{WebhookURL: unical.Some("https://app.example.com/hooks")}); err != nil {
			t.Fatal(err)
		}
		env.run(t)
		// Deleting the CalDAV account queues enduseraccount.deleted.
		if _, err := env.App.DeleteAccount(ctx, env.DavAccountID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		app, err := admin.Of(env.Client).GetApplication(ctx, env.App.ID())
		if err != nil {
			t.Fatal(err)
		}
		if app.WebhookState.DisabledAt == nil || !strings.Contains(app.WebhookState.DisabledReason, "new webhook URL") {
			t.Fatalf("application webhook state = %+v, want disabled with how to enable it", app.WebhookState)
		}
		sends := len(sender.times())

		// A new URL is a new endpoint: enabled, and its messages are sent.
		sender.setStatus(http.StatusOK)
		if _, _, err := admin.Of(env.Client).UpdateApplication(ctx, env.App.ID(), &admin.ApplicationParams{WebhookURL: unical.Some("https://app.example.com/v2")}); err != nil {
			t.Fatal(err)
		}
		if _, err := env.App.DeleteAccount(ctx, env.AccountID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		if got := len(sender.times()); got != sends+1 {
			t.Errorf("%d sends after the URL change, want %d", got, sends+1)
		}
	})
}

// TestClient_Run_ResendEnablesApplicationEndpoint disables the
// application's own endpoint and enables it again by resending its failed
// message.
func TestClient_Run_ResendEnablesApplicationEndpoint(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		sender := &fakeSender{status: http.StatusGone}
		env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
			cfg.Sender = sender
			cfg.OutboxPollInterval = time.Second
			cfg.CacheTTL = -1
		})
		ctx := context.Background()
		if _, _, err := admin.Of(env.Client).UpdateApplication(ctx, env.App.ID(), &admin.ApplicationParams{WebhookURL: unical.Some("https://app.example.com/hooks")}); err != nil {
			t.Fatal(err)
		}
		env.run(t)
		if _, err := env.App.DeleteAccount(ctx, env.DavAccountID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		app, err := admin.Of(env.Client).GetApplication(ctx, env.App.ID())
		if err != nil {
			t.Fatal(err)
		}
		if app.WebhookState.DisabledAt == nil {
			t.Fatalf("application webhook state = %+v, want disabled by the 410", app.WebhookState)
		}
		log, err := engine.ListDeliveries(ctx, env.App, "", "", nil)
		if err != nil || len(log.Data) != 1 {
			t.Fatalf("ListDeliveries() = %+v, %v; want the one attempt", log, err)
		}

		sender.setStatus(http.StatusOK)
		if _, err := engine.ResendMessage(ctx, env.App, "", "", log.Data[0].MessageID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		if msg, err := env.Store.GetMessage(ctx, env.App.ID(), log.Data[0].MessageID); err != nil || msg.Status != outbox.Delivered {
			t.Errorf("resent message: %v; want delivered", describeMessage(msg, err))
		}
		app, err = admin.Of(env.Client).GetApplication(ctx, env.App.ID())
		if err != nil {
			t.Fatal(err)
		}
		if app.WebhookState != (outbox.EndpointState{}) {
			t.Errorf("application webhook state after the resend = %+v, want enabled", app.WebhookState)
		}
	})
}
