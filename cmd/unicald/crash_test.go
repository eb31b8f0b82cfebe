package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// Environment of the child process of TestServe_CrashResumesDeliveries.
const (
	crashChildData = "UNICALD_CRASH_CHILD_DATA"
)

// crashReceiver counts verified deliveries by webhook-id.
type crashReceiver struct {
	mu       sync.Mutex
	wh       *standardwebhooks.Webhook
	seen     map[string]int
	bad      int
	progress chan struct{}
}

func (r *crashReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	if r.wh == nil || r.wh.Verify(body, req.Header) != nil {
		r.bad++
		r.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.seen[req.Header.Get("webhook-id")]++
	r.mu.Unlock()
	select {
	case r.progress <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *crashReceiver) unique() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// TestServe_CrashResumesDeliveries queues 1,000 messages, starts unicald in
// a child process, kills it with SIGKILL while deliveries are under way,
// starts it again over the same data folder and checks that every message
// id reached the receiver at least once. The child trusts the receiver's
// self-signed certificate only through SSL_CERT_FILE.
func TestServe_CrashResumesDeliveries(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts unicald twice in child processes")
	}
	const total = 1000
	dir := t.TempDir()
	key := seal.NewKey()
	rcv := &crashReceiver{seen: map[string]int{}, progress: make(chan struct{}, 1)}
	srv := httptest.NewTLSServer(rcv)
	t.Cleanup(srv.Close)
	bundle := filepath.Join(dir, "receiver-ca.pem")
	if err := os.WriteFile(bundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	// Queue the messages with a Client of our own before unicald starts:
	// bolt lets one process at a time hold the file.
	ids := queueCrashMessages(t, dir, key, srv.URL, total, rcv)

	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
		cmd.Env = append(os.Environ(), crashChildData+"="+dir, "UNICAL_MASTER_KEY="+key.String(),
			"SSL_CERT_FILE="+bundle, "SSL_CERT_DIR=")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	first := start()
	deadline := time.After(60 * time.Second)
	for rcv.unique() < total/10 {
		select {
		case <-rcv.progress:
		case <-deadline:
			first.Process.Kill()
			t.Fatalf("the first unicald delivered %d messages in 60 s", rcv.unique())
		}
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	atKill := rcv.unique()
	if atKill >= total {
		t.Logf("all %d messages were delivered before the kill; the restart has nothing left to do", total)
	}

	second := start()
	t.Cleanup(func() {
		second.Process.Kill()
		_ = second.Wait()
	})
	deadline = time.After(90 * time.Second)
	for rcv.unique() < total {
		select {
		case <-rcv.progress:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("after the restart %d of %d messages arrived (%d before the kill)", rcv.unique(), total, atKill)
		}
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	for _, id := range ids {
		if rcv.seen[id] == 0 {
			t.Errorf("message %s never arrived", id)
		}
	}
	dups := 0
	for _, n := range rcv.seen {
		dups += n - 1
	}
	if rcv.bad != 0 {
		t.Errorf("%d requests failed verification", rcv.bad)
	}
	t.Logf("%d delivered before the kill, %d after; %d duplicates (allowed: at least once)", atKill, total-atKill, dups)
}

// queueCrashMessages creates an application, an account and a
// subscription to url in the data folder and queues total messages for it.
func queueCrashMessages(tb testing.TB, dir string, key seal.Key, url string, total int, rcv *crashReceiver) []string {
	tb.Helper()
	ctx := context.Background()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(dir, "unicald.db")})
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	client, err := unical.New(unical.Config{Store: store, Providers: crashProviders(), MasterKey: key, AllowPrivateTargets: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer client.Close()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("crash")})
	if err != nil {
		tb.Fatal(err)
	}
	app, _ := client.App(ctx, created.ApplicationID)
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		tb.Fatal(err)
	}
	sub, err := subscriptions.Create(ctx, app, acct.ID, &subscriptions.CreateParams{CalendarID: "primary/ada@example.com", WebhookURL: url + "/hook", RateLimit: unical.Some(100000)})
	if err != nil {
		tb.Fatal(err)
	}
	wh, err := standardwebhooks.NewWebhook(sub.EndpointSecret)
	if err != nil {
		tb.Fatal(err)
	}
	rcv.mu.Lock()
	rcv.wh = wh
	rcv.mu.Unlock()
	now := time.Now().UTC()
	var msgs []*outbox.Message
	var ids []string
	for i := range total {
		id := fmt.Sprintf("msg_crash_%04d", i)
		body, _ := json.Marshal(unical.MessagePayload{EventType: unical.EventTypeCalendarEventChanged, Timestamp: unical.FormatTimestamp(now), SubscriptionID: sub.WebhookSubscriptionID})
		msgs = append(msgs, &outbox.Message{ID: id, ApplicationID: app.ID(), SubscriptionID: sub.WebhookSubscriptionID,
			EventType: unical.EventTypeCalendarEventChanged, Payload: body, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now})
		ids = append(ids, id)
	}
	if err := store.EnqueueMessages(ctx, msgs); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// crashProviders is the in-memory Google provider both processes use.
func crashProviders() []unical.Provider {
	g := memory.New(memory.Config{Type: unical.ProviderGoogle})
	g.AddUser("ada@example.com", "refresh-ada", "")
	return []unical.Provider{g}
}

// TestCrashChild is the unicald process of TestServe_CrashResumesDeliveries;
// it serves until it is killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildData)
	if dir == "" {
		t.Skip("only run by TestServe_CrashResumesDeliveries")
	}
	m := &Main{Stdout: io.Discard, Stderr: io.Discard, Getenv: os.Getenv, Providers: crashProviders()}
	err := m.Run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", dir,
		"--allow-private-targets", "--delivery-timeout", "1s", "--delivery-lease", "3s"})
	t.Fatalf("serve returned: %v", err)
}
