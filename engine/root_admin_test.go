package engine_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
)

// TestClient_DeleteApplication_OwnMessagesFail deletes an application
// with a message for its own webhook endpoint still queued: the engine
// fails that message for good instead of claiming it again and again, and
// sends nothing.
func TestClient_DeleteApplication_OwnMessagesFail(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) { cfg.Sender = rcv.Sender() })
	ctx := context.Background()
	if _, err := admin.Of(env.Client).SetApplicationWebhook(ctx, env.App.ID(), rcv.URL+"/app"); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	body, _ := json.Marshal(unical.MessagePayload{EventType: unical.EventTypeAccountUpdated, Timestamp: unical.FormatTimestamp(now)})
	msg := &outbox.Message{ID: "msg_left_behind", ApplicationID: env.App.ID(), EventType: unical.EventTypeAccountUpdated,
		Payload: body, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now}
	if err := env.Store.EnqueueMessages(ctx, []*outbox.Message{msg}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Of(env.Client).DeleteApplication(ctx, env.App.ID(), false); unical.ErrorCode(err) != unical.CodeConflict {
		t.Fatalf("DeleteApplication(with accounts, no cascade) = %v, want CodeConflict", err)
	}
	deleted, err := admin.Of(env.Client).DeleteApplication(ctx, env.App.ID(), true)
	if err != nil {
		t.Fatal(err)
	}
	if deleted.AccountsDeleted != 2 {
		t.Errorf("AccountsDeleted = %d, want 2", deleted.AccountsDeleted)
	}
	env.run(t)
	got := env.waitStatus(t, msg.ID, outbox.Failed)
	if got.LastError != "The application no longer exists." {
		t.Errorf("LastError = %q", got.LastError)
	}
	if n := len(rcv.Deliveries()); n != 0 {
		t.Errorf("the receiver got %d requests for a deleted application", n)
	}
}

// TestClient_APIKeyLastUsed checks that a key's use is recorded, at most
// once per APIKeyUsedEvery.
func TestClient_APIKeyLastUsed(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clock := time.Date(2031, 5, 1, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) { cfg.Now = now; cfg.CacheTTL = -1 })
	ctx := context.Background()
	created, err := admin.Of(env.Client).CreateAPIKey(ctx, env.App.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	id, key := created.Key.ID, created.APIKey
	lastUsed := func() *time.Time {
		t.Helper()
		keys, err := admin.Of(env.Client).ListAPIKeyViews(ctx, env.App.ID())
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.ID == id {
				return k.LastUsedAt
			}
		}
		t.Fatalf("key %s not listed", id)
		return nil
	}
	if got := lastUsed(); got != nil {
		t.Fatalf("a new key was used at %v", got)
	}
	use := func() {
		t.Helper()
		if _, err := env.Client.AppByAPIKey(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	first := now()
	use()
	advance(30 * time.Second)
	use()
	if got := lastUsed(); got == nil || !got.Equal(first) {
		t.Errorf("after two uses 30s apart LastUsedAt = %v, want the first, %v", got, first)
	}
	advance(unical.APIKeyUsedEvery)
	use()
	if got := lastUsed(); got == nil || !got.Equal(now()) {
		t.Errorf("a minute later LastUsedAt = %v, want %v", got, now())
	}
	if _, err := env.Client.AppByAPIKey(ctx, key+"x"); unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("a wrong key = %v", err)
	}
}

// unversionedStore hides the bolt store's version, so that a Client keeps
// what it caches until its CacheTTL passes or it is told otherwise.
type unversionedStore struct{ unical.Store }

// TestClient_RevokeAPIKey_Uncached revokes a key on a Client whose Store
// has no version and whose cache keeps keys for an hour: the next request
// with the key is refused at once, since the revocation drops the cached
// key.
func TestClient_RevokeAPIKey_Uncached(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, func(cfg *apitest.Config) {
		cfg.Store = unversionedStore{cfg.Store}
		cfg.CacheTTL = time.Hour
	})
	appID, _ := st.CreateApp(t, &admin.ApplicationParams{})
	created, err := st.Admin.CreateAPIKey(t.Context(), appID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Client.AppByAPIKey(t.Context(), created.APIKey); err != nil {
		t.Fatalf("AppByAPIKey(new key) = %v", err)
	}
	if err := st.Admin.RevokeAPIKey(t.Context(), appID, created.Key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Client.AppByAPIKey(t.Context(), created.APIKey); unical.ErrorCode(err) != unical.CodeUnauthorized {
		t.Errorf("AppByAPIKey(revoked key) = %v, want CodeUnauthorized", err)
	}
}
