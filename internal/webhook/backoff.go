package webhook

import (
	"math/rand/v2"
	"slices"
	"time"
)

// DefaultSchedule is Svix's documented retry schedule: the first attempt
// at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each
// failure, eight attempts over about 28 hours.
var DefaultSchedule = []time.Duration{
	0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// DefaultJitter is the fraction by which a retry delay is spread.
const DefaultJitter = 0.2

// Backoff decides when a failed message is tried again.
type Backoff struct {
	// Schedule holds the delay before each attempt, measured from the
	// failure of the one before; Schedule[0] is the first attempt's and is
	// not used by Next. Its length is the number of attempts. Empty means
	// DefaultSchedule.
	Schedule []time.Duration
	// Jitter spreads each delay uniformly over ±Jitter of itself, so that
	// messages that failed together (a receiver outage) do not come back
	// together. Zero means none; it is capped at 1.
	Jitter float64
	// Rand returns a number in [0, 1); nil means math/rand/v2.Float64.
	Rand func() float64
}

// Attempts returns how many attempts a message gets.
func (b *Backoff) Attempts() int { return len(b.schedule()) }

// Longest returns the longest delay of the schedule, without jitter.
func (b *Backoff) Longest() time.Duration {
	return slices.Max(b.schedule())
}

func (b *Backoff) schedule() []time.Duration {
	if len(b.Schedule) == 0 {
		return DefaultSchedule
	}
	return b.Schedule
}

// Next returns the delay before the next attempt of a message that has
// failed attempts times, and false when the attempts are used up.
func (b *Backoff) Next(attempts int) (time.Duration, bool) {
	s := b.schedule()
	if attempts < 1 || attempts >= len(s) {
		return 0, false
	}
	d := s[attempts]
	j := min(b.Jitter, 1)
	if j <= 0 || d <= 0 {
		return d, true
	}
	r := rand.Float64
	if b.Rand != nil {
		r = b.Rand
	}
	return time.Duration(float64(d) * (1 + j*(2*r()-1))), true
}
