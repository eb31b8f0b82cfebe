package outbox_test

import (
	"testing"

	"github.com/unical/unical/outbox"
)

// An attached engine runs until the Queue is closed: its context ends,
// Close waits for it to detach, and no engine attaches afterwards.
func TestQueue_CloseStopsAttachedEngine(t *testing.T) {
	t.Parallel()
	q := outbox.NewQueue()
	if q.Running() {
		t.Fatal("Running() = true before any engine attached")
	}
	run, detach, err := q.Attach(t.Context())
	if err != nil {
		t.Fatalf("Attach() = %v", err)
	}
	if !q.Running() {
		t.Error("Running() = false with an engine attached")
	}
	stopped := make(chan struct{})
	go func() {
		<-run.Done()
		close(stopped)
		detach()
	}()
	q.Close()
	select {
	case <-stopped:
	default:
		t.Fatal("Close returned before the attached engine detached")
	}
	if q.Running() {
		t.Error("Running() = true after Close")
	}
	if _, _, err := q.Attach(t.Context()); err == nil {
		t.Error("Attach after Close succeeded, want an error")
	}
}

// Notify never blocks: wake-ups while one is pending merge into it.
func TestQueue_NotifyMergesWakeups(t *testing.T) {
	t.Parallel()
	q := outbox.NewQueue()
	for range 3 {
		q.Notify()
	}
	got := 0
	for drained := false; !drained; {
		select {
		case <-q.Queued():
			got++
		default:
			drained = true
		}
	}
	if got != 1 {
		t.Errorf("Queued() signalled %d times after three Notify calls, want 1", got)
	}
}

// An engine whose own context ends detaches without Close.
func TestQueue_DetachWithoutClose(t *testing.T) {
	t.Parallel()
	q := outbox.NewQueue()
	_, detach, err := q.Attach(t.Context())
	if err != nil {
		t.Fatalf("Attach() = %v", err)
	}
	detach()
	if q.Running() {
		t.Error("Running() = true after detach")
	}
	q.Close() // returns: nothing is attached
}
