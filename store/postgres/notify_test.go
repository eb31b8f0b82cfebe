package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/postgres"
)

// TestStore_OutboxWakeups: a process listening on the database hears of
// messages another process queues, and of a failed message sent again,
// but not of a queueing that failed.
func TestStore_OutboxWakeups(t *testing.T) {
	t.Parallel()
	url := pgtest.Shared(t).NewDatabase(t)
	open := func() *postgres.Store {
		s, err := postgres.Open(t.Context(), postgres.Config{URL: url, MaxConns: 2})
		if err != nil {
			t.Fatalf("Open(): %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	queuer, listener := open(), open()
	ctx, cancel := context.WithCancel(t.Context())
	wakeups := listener.OutboxWakeups(ctx)
	wait := func(what string) {
		t.Helper()
		select {
		case <-wakeups:
		case <-time.After(10 * time.Second):
			t.Fatalf("no wake-up 10 s after %s", what)
		}
	}
	wait("listening started") // the wake-up for what was queued before
	now := time.Now().UTC()
	msg := &outbox.Message{ID: "msg_1", ApplicationID: "app_1", EventType: "calendar.event.changed",
		Payload: []byte(`{}`), CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now}
	if err := queuer.EnqueueMessages(t.Context(), []*outbox.Message{msg}); err != nil {
		t.Fatal(err)
	}
	wait("EnqueueMessages in another process")
	// A failed queueing (the id is taken) rolls back, notification and all.
	if err := queuer.EnqueueMessages(t.Context(), []*outbox.Message{msg}); unical.ErrorCode(err) != unical.CodeConflict {
		t.Fatalf("EnqueueMessages(same id) = %v, want CodeConflict", err)
	}
	claimed, err := queuer.ClaimMessages(t.Context(), "w", now, time.Minute, 1)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("ClaimMessages() = %v, %v", claimed, err)
	}
	claimed[0].Status = outbox.Failed
	if err := queuer.UpdateMessage(t.Context(), claimed[0]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wakeups:
		t.Error("a wake-up for a queueing that failed, or for a message that failed")
	default:
	}
	if _, err := queuer.RetryMessage(t.Context(), "app_1", "msg_1", now); err != nil {
		t.Fatal(err)
	}
	wait("RetryMessage in another process")
	cancel()
	select {
	case _, ok := <-wakeups:
		if ok {
			// A last wake-up may still have been waiting; the next
			// receive must see the channel closed.
			_, ok = <-wakeups
		}
		if ok {
			t.Error("OutboxWakeups still open after its context ended")
		}
	case <-time.After(10 * time.Second):
		t.Error("OutboxWakeups not closed 10 s after its context ended")
	}
}
