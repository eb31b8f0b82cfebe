package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/bolt"
)

// TestNew_WrongMasterKey: a key that does not open the Store's data stops
// New with ErrWrongMasterKey, also for a Store that predates the key check
// (judged by an application's sealed secret); the right key still starts.
func TestNew_WrongMasterKey(t *testing.T) {
	t.Parallel()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	right, wrong := seal.NewKey(), seal.NewKey()
	open := func(key seal.Key) error {
		c, err := unical.New(unical.Config{Store: store, MasterKey: key, AllowPrivateTargets: true})
		if err == nil {
			c.Close()
		}
		return err
	}
	c, err := unical.New(unical.Config{Store: store, MasterKey: right})
	if err != nil {
		t.Fatalf("New(first key) = %v", err)
	}
	if _, err := admin.Of(c).CreateApplication(t.Context(), &admin.ApplicationParams{
		Name: unical.Some("a"), WebhookURL: unical.Some("https://hooks.example.com/a"),
	}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := open(wrong); !errors.Is(err, unical.ErrWrongMasterKey) {
		t.Errorf("New(another key) = %v, want ErrWrongMasterKey", err)
	}
	if err := open(right); err != nil {
		t.Errorf("New(the same key again) = %v", err)
	}

	// A Store from before the check: expire it, as if it was never written.
	if err := store.PutBlob(t.Context(), "unical", "master-key-check", []byte("x"), time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := open(wrong); !errors.Is(err, unical.ErrWrongMasterKey) {
		t.Errorf("New(another key) without a check = %v, want ErrWrongMasterKey", err)
	}
	if err := open(right); err != nil {
		t.Errorf("New(the right key) without a check = %v", err)
	}
	// That start wrote the check again.
	if err := open(wrong); !errors.Is(err, unical.ErrWrongMasterKey) {
		t.Errorf("New(another key) after the check was rewritten = %v, want ErrWrongMasterKey", err)
	}
}

// TestClient_Run_UnsealableSecret: a message whose subscription's signing
// secret was sealed under another key fails at once with the reason in
// the delivery log and LastError, instead of waiting for its lease again
// and again; the receiver gets nothing.
func TestClient_Run_UnsealableSecret(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	env := mustNewEngineEnv(t, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		// A short lease: the old code gave the message back to it forever.
		cfg.DeliveryTimeout, cfg.DeliveryLease = 50*time.Millisecond, 100*time.Millisecond
	})
	subID, _ := env.mustSubscribe(t, rcv.URL+"/hook", 0)
	other := seal.New(seal.NewKey())
	if _, err := env.Store.UpdateSubscription(t.Context(), env.App.ID(), subID, func(r *unical.SubscriptionRecord) error {
		r.SealedSecret = other.Seal([]byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), []byte("subscription/"+subID))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ids := env.mustEnqueue(t, subID, 1)
	env.run(t)
	msg := env.waitStatus(t, ids[0], outbox.Failed)
	if !strings.Contains(msg.LastError, "cannot be unsealed") {
		t.Errorf("LastError = %q, want the unsealing failure", msg.LastError)
	}
	page, err := engine.ListDeliveries(context.Background(), env.App, env.AccountID, subID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].Error != msg.LastError || page.Data[0].StatusCode != 0 {
		t.Errorf("delivery log = %+v, want one attempt without a request, with the reason", page.Data)
	}
	if n := len(rcv.Deliveries()); n != 0 {
		t.Errorf("receiver got %d requests, want none", n)
	}
}

// TestLoadOrCreateMasterKeyFile: the first call creates a private key file,
// later calls read the same key back, ParseMasterKey reads the file's text,
// and a key file others can read is refused.
func TestLoadOrCreateMasterKeyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "master.key")
	first, created, err := admin.LoadOrCreateMasterKeyFile(path)
	if err != nil || !created {
		t.Fatalf("first LoadOrCreateMasterKeyFile() = created %v, %v; want a new key", created, err)
	}
	if first == ([32]byte{}) {
		t.Fatal("the new master key is all zeros")
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("key file mode = %v, want 0600", perm)
	}
	again, created, err := admin.LoadOrCreateMasterKeyFile(path)
	if err != nil || created || again != first {
		t.Errorf("second LoadOrCreateMasterKeyFile() = created %v, %v, same key %v; want the first key read back", created, err, again == first)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if parsed, err := admin.ParseMasterKey(string(text)); err != nil || parsed != first {
		t.Errorf("ParseMasterKey(file text) = same key %v, %v; want the file's key", parsed == first, err)
	}
	if _, err := admin.ParseMasterKey("too short"); err == nil {
		t.Error("ParseMasterKey(\"too short\") succeeded")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin.LoadOrCreateMasterKeyFile(path); err == nil {
		t.Error("a key file readable by others was accepted")
	}
	if admin.NewMasterKey() == admin.NewMasterKey() { //nolint:staticcheck // two calls, two keys: the point of the test
		t.Error("two NewMasterKey() calls returned the same key")
	}
}
