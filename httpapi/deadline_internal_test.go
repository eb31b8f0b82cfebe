package httpapi

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// The lazy deadline behaves as context.WithTimeout does for everything a
// handler can observe: Done closes at the deadline, Err says why, values
// and the parent's cancellation come through, and contexts derived from
// it end with it.
func TestLazyDeadline(t *testing.T) {
	t.Run("Done closes at the deadline", func(t *testing.T) {
		d := newLazyDeadline(t.Context(), 20*time.Millisecond)
		defer d.release()
		if err := d.Err(); err != nil {
			t.Fatalf("Err() before the deadline = %v", err)
		}
		select {
		case <-d.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("Done did not close")
		}
		if err := d.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err() = %v, want DeadlineExceeded", err)
		}
	})
	t.Run("Err without Done after the deadline", func(t *testing.T) {
		d := newLazyDeadline(t.Context(), time.Millisecond)
		defer d.release()
		time.Sleep(5 * time.Millisecond)
		if err := d.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err() = %v, want DeadlineExceeded", err)
		}
		if d.armed.Load() {
			t.Error("Err set the timer")
		}
	})
	t.Run("parent cancellation", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.WithValue(t.Context(), ctxKey{}, "v"))
		d := newLazyDeadline(parent, time.Hour)
		defer d.release()
		child, stop := context.WithCancel(d) // arms through Done
		defer stop()
		if d.Value(ctxKey{}) != "v" || child.Value(ctxKey{}) != "v" {
			t.Error("value of the parent not seen")
		}
		cancel()
		select {
		case <-child.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("derived context not cancelled with the parent")
		}
		if err := d.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("Err() = %v, want Canceled", err)
		}
	})
	t.Run("Deadline is the earlier one", func(t *testing.T) {
		early := time.Now().Add(time.Minute)
		parent, cancel := context.WithDeadline(t.Context(), early)
		defer cancel()
		d := newLazyDeadline(parent, time.Hour)
		defer d.release()
		if got, ok := d.Deadline(); !ok || !got.Equal(early) {
			t.Errorf("Deadline() = %v, %v; want %v", got, ok, early)
		}
		d2 := newLazyDeadline(t.Context(), time.Minute)
		defer d2.release()
		if got, ok := d2.Deadline(); !ok || got.After(time.Now().Add(time.Minute)) {
			t.Errorf("Deadline() = %v, %v; want about a minute from now", got, ok)
		}
	})
	t.Run("release ends an armed deadline", func(t *testing.T) {
		d := newLazyDeadline(t.Context(), time.Hour)
		done := d.Done()
		d.release()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("release did not end the armed deadline")
		}
	})
	t.Run("release of an unarmed deadline sets no timer", func(t *testing.T) {
		d := newLazyDeadline(t.Context(), time.Hour)
		d.release()
		if d.ctx != t.Context() {
			t.Error("after release an unarmed deadline is not the parent's")
		}
	})
}
