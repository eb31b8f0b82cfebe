package webhook

import (
	"sync"
	"time"
)

// Limiter spaces the sends of each key (a subscription) at least 1/rate
// apart: a rate of 10 messages per second allows one send every 100 ms.
// Reservations, not tokens, so that concurrent workers sending for the same
// subscription share one schedule. It is safe for concurrent use.
type Limiter struct {
	mu   sync.Mutex
	next map[string]time.Time // earliest time of the key's next send
}

// NewLimiter returns an empty Limiter.
func NewLimiter() *Limiter {
	return &Limiter{next: map[string]time.Time{}}
}

// Reserve books the key's next send slot at or after now for the given
// rate (messages per second; below 1 counts as 1) and returns it. The
// caller sends at the returned time, or calls Cancel if it gives the slot
// up.
func (l *Limiter) Reserve(key string, rate int, now time.Time) time.Time {
	rate = max(rate, 1)
	gap := time.Second / time.Duration(rate)
	l.mu.Lock()
	defer l.mu.Unlock()
	at := now
	if n, ok := l.next[key]; ok && n.After(now) {
		at = n
	}
	l.next[key] = at.Add(gap)
	l.prune(now)
	return at
}

// Cancel gives back a slot that Reserve returned, if it is still the last
// one booked for the key, so that a send that will not happen does not hold
// up the next one.
func (l *Limiter) Cancel(key string, rate int, at time.Time) {
	gap := time.Second / time.Duration(max(rate, 1))
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.next[key]; ok && n.Equal(at.Add(gap)) {
		l.next[key] = at
	}
}

// Hold keeps the key's next send from starting before until, for a
// receiver that asked to be left alone that long (Retry-After): the wait
// applies to all its messages, not only to the one it answered.
func (l *Limiter) Hold(key string, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.next[key]; !ok || n.Before(until) {
		l.next[key] = until
	}
}

// prune drops keys whose next slot has passed once the map grows, so that
// deleted subscriptions do not stay forever. Their slot is free anyway.
func (l *Limiter) prune(now time.Time) {
	if len(l.next) < 1024 {
		return
	}
	for k, n := range l.next {
		if !n.After(now) {
			delete(l.next, k)
		}
	}
}
