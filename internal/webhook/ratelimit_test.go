package webhook_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/unical/unical/internal/webhook"
)

// TestLimiter_Reserve runs concurrent senders in a synctest bubble, where
// the clock is exact, and checks the spacing of their sends.
func TestLimiter_Reserve(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := webhook.NewLimiter()
		start := time.Now()
		var mu sync.Mutex
		var sends []time.Duration
		var other []time.Duration
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				at := l.Reserve("sub_a", 4, time.Now())
				time.Sleep(time.Until(at))
				mu.Lock()
				sends = append(sends, time.Since(start))
				mu.Unlock()
			})
		}
		wg.Go(func() {
			at := l.Reserve("sub_b", 1, time.Now())
			time.Sleep(time.Until(at))
			mu.Lock()
			other = append(other, time.Since(start))
			mu.Unlock()
		})
		wg.Wait()
		seen := map[time.Duration]bool{}
		for _, d := range sends {
			if d%(250*time.Millisecond) != 0 || d > 2250*time.Millisecond || seen[d] {
				t.Errorf("send at %v: want distinct multiples of 250ms up to 2.25s (all: %v)", d, sends)
			}
			seen[d] = true
		}
		if len(other) != 1 || other[0] != 0 {
			t.Errorf("other subscription's send at %v, want at once", other)
		}
	})
}

func TestLimiter_Cancel(t *testing.T) {
	t.Parallel()
	l := webhook.NewLimiter()
	now := time.Unix(1000, 0)
	a := l.Reserve("s", 2, now)
	b := l.Reserve("s", 2, now)
	if !a.Equal(now) || !b.Equal(now.Add(500*time.Millisecond)) {
		t.Fatalf("Reserve() = %v, %v", a, b)
	}
	l.Cancel("s", 2, b)
	if c := l.Reserve("s", 2, now); !c.Equal(b) {
		t.Errorf("Reserve() after Cancel = %v, want the given-back slot %v", c, b)
	}
}

func TestLimiter_Hold(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := webhook.NewLimiter()
	l.Hold("sub_a", now.Add(20*time.Second))
	if at := l.Reserve("sub_a", 10, now); !at.Equal(now.Add(20 * time.Second)) {
		t.Errorf("Reserve() after Hold = %v, want the held time %v", at, now.Add(20*time.Second))
	}
	// A shorter hold does not shorten what is booked.
	l.Hold("sub_a", now.Add(time.Second))
	if at := l.Reserve("sub_a", 10, now); !at.Equal(now.Add(20*time.Second + 100*time.Millisecond)) {
		t.Errorf("Reserve() after a shorter Hold = %v, want the next slot after the first hold", at)
	}
	if at := l.Reserve("sub_b", 10, now); !at.Equal(now) {
		t.Errorf("Reserve() of another key = %v, want now", at)
	}
}
