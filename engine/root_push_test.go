package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/clientenv"
	"github.com/unical/unical/outbox"
	memprovider "github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// pushEnv is a Client with a public URL over a Google provider that
// pushes, and one subscription with a watch.
type pushEnv struct {
	Client *unical.Client
	Store  *bolt.Store
	Google *memprovider.WatchProvider
	App    *unical.App
	SubID  string
	// AccountID and CalendarID are the subscribed account and calendar.
	AccountID, CalendarID string
	// Engine are the engine's settings.
	Engine engine.Settings
}

func mustNewPushEnv(tb testing.TB) *pushEnv {
	tb.Helper()
	return mustNewPushEnvWith(tb, nil)
}

// mustNewPushEnvWith builds a pushEnv; configure may change the Config
// first.
func mustNewPushEnvWith(tb testing.TB, configure func(*apitest.Config)) *pushEnv {
	tb.Helper()
	store := clientenv.OpenBolt(tb)
	env := &pushEnv{Store: store, Google: memprovider.NewWatcher(memprovider.Config{Type: unical.ProviderGoogle})}
	calID := env.Google.AddUser("ada@example.com", "refresh-ada", "")
	cfg := apitest.Config{Config: unical.Config{
		Store: store, Providers: []unical.Provider{env.Google}, MasterKey: seal.NewKey(),
		PublicURL: "https://unical.example.com",
	}, Settings: engine.Settings{ChangePollInterval: -1}}
	if configure != nil {
		configure(&cfg)
	}
	cfg.Subscriptions, env.Engine = &subscriptions.Hooks{ChangePollInterval: cfg.ChangePollInterval}, cfg.Settings
	var err error
	env.Client, err = unical.New(cfg.Config)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { env.Client.Close() })
	env.App = clientenv.NewApp(tb, env.Client, "push test")
	accountID := clientenv.ConnectAda(tb, env.App)
	sub, err := subscriptions.Create(context.Background(), env.App, accountID, &subscriptions.CreateParams{CalendarID: calID, WebhookURL: "https://hooks.example.com/x"})
	if err != nil {
		tb.Fatal(err)
	}
	env.SubID = sub.WebhookSubscriptionID
	env.AccountID, env.CalendarID = accountID, calID
	return env
}

// watch returns the subscription's stored watch, nil when it is polled.
func (env *pushEnv) watch(tb testing.TB) *unical.Watch {
	tb.Helper()
	sub, err := env.Store.GetSubscription(context.Background(), env.App.ID(), env.SubID)
	if err != nil {
		tb.Fatal(err)
	}
	return sub.Watch
}

// notify hands the Client a notification of watch w in state.
func (env *pushEnv) notify(tb testing.TB, w *unical.Watch, state string) {
	tb.Helper()
	aw := &memprovider.ActiveWatch{Watch: *w}
	n := &unical.Notification{Method: "POST", Header: memprovider.NotificationHeader(aw, state)}
	if _, err := subscriptions.HandleNotification(context.Background(), env.Client, unical.ProviderGoogle.PathName(), env.App.ID(), env.SubID, n); err != nil {
		tb.Fatalf("HandleNotification(%s) = %v", state, err)
	}
}

// queued takes every due message off the queue and returns their types.
func (env *pushEnv) queued(tb testing.TB) []string {
	tb.Helper()
	msgs, err := env.Store.ClaimMessages(context.Background(), "test", time.Now().Add(time.Second), time.Hour, 100)
	if err != nil {
		tb.Fatal(err)
	}
	var types []string
	for _, m := range msgs {
		m.Status = outbox.Delivered
		if err := env.Store.UpdateMessage(context.Background(), m); err != nil {
			tb.Fatal(err)
		}
		types = append(types, m.EventType)
	}
	return types
}

func TestClient_HandleNotification_Lifecycle(t *testing.T) {
	t.Parallel()
	unknown := []string{unical.EventTypeCalendarEventUnknown}
	for _, tc := range []struct {
		name       string
		state      string // the lifecycle notification
		fail       bool   // the provider refuses new and renewed watches
		wantPush   bool   // the subscription keeps a watch
		wantQueued []string
	}{
		{"ReauthorizeRenews", "reauthorizationRequired", false, true, nil},
		{"ReauthorizeFailsToPolling", "reauthorizationRequired", true, false, unknown},
		{"RemovedRewatches", "subscriptionRemoved", false, true, unknown},
		{"RemovedFailsToPolling", "subscriptionRemoved", true, false, unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := mustNewPushEnv(t)
			before := env.watch(t)
			if before == nil {
				t.Fatal("the subscription has no watch")
			}
			if tc.state == "subscriptionRemoved" {
				env.Google.Remove(before.ID)
			}
			if tc.fail {
				env.Google.FailWatches(unical.Errorf(unical.CodeUpstream, "refused"))
			}
			env.notify(t, before, tc.state)

			after := env.watch(t)
			if got := after != nil; got != tc.wantPush {
				t.Fatalf("after %s the subscription has a watch: %v, want %v", tc.state, got, tc.wantPush)
			}
			if diff := cmp.Diff(tc.wantQueued, env.queued(t)); diff != "" {
				t.Errorf("queued messages mismatch (-want +got):\n%s", diff)
			}
			if !tc.wantPush {
				return
			}
			active := env.Google.Watches()
			if len(active) != 1 || active[0].ID != after.ID {
				t.Errorf("provider watches = %+v, want only the stored %s", active, after.ID)
			}
			if tc.state == "reauthorizationRequired" {
				if after.Token != before.Token || env.Google.Renewals() != 1 {
					t.Errorf("reauthorized with token %q and %d renewals, want the old token %q renewed once", after.Token, env.Google.Renewals(), before.Token)
				}
			}
			// Push goes on: a change on the stored watch queues a message.
			env.notify(t, after, "exists")
			if diff := cmp.Diff([]string{unical.EventTypeCalendarEventChanged}, env.queued(t)); diff != "" {
				t.Errorf("messages after a change mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
