package webhook_test

import (
	"testing"
	"time"

	"github.com/unical/unical/internal/webhook"
)

func TestBackoff_Next(t *testing.T) {
	t.Parallel()
	t.Run("DefaultSchedule", func(t *testing.T) {
		t.Parallel()
		var b webhook.Backoff
		if got := b.Attempts(); got != 8 {
			t.Fatalf("Attempts() = %d, want 8", got)
		}
		want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
		for i, w := range want {
			got, ok := b.Next(i + 1)
			if !ok || got != w {
				t.Errorf("Next(%d) = %v, %v; want %v, true", i+1, got, ok, w)
			}
		}
		if _, ok := b.Next(8); ok {
			t.Error("Next(8) = true, want the attempts used up")
		}
	})
	t.Run("Jitter", func(t *testing.T) {
		t.Parallel()
		for _, r := range []float64{0, 0.5, 0.999999} {
			b := webhook.Backoff{Schedule: []time.Duration{0, 10 * time.Second}, Jitter: 0.2, Rand: func() float64 { return r }}
			got, ok := b.Next(1)
			if !ok || got < 8*time.Second || got > 12*time.Second {
				t.Errorf("Next(1) with rand %v = %v, want within 8s..12s", r, got)
			}
		}
	})
	t.Run("RealRandWithinBounds", func(t *testing.T) {
		t.Parallel()
		b := webhook.Backoff{Jitter: webhook.DefaultJitter}
		for range 1000 {
			got, _ := b.Next(2)
			if got < 4*time.Minute || got > 6*time.Minute {
				t.Fatalf("Next(2) = %v, want 5 min ± 20%%", got)
			}
		}
	})
}

func TestBackoff_Longest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		b    webhook.Backoff
		want time.Duration
	}{
		{"DefaultSchedule", webhook.Backoff{}, 10 * time.Hour},
		{"Custom", webhook.Backoff{Schedule: []time.Duration{0, time.Minute, time.Second}, Jitter: 0.5}, time.Minute},
	} {
		if got := tc.b.Longest(); got != tc.want {
			t.Errorf("%s: Longest() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
