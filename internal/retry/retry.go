// Package retry holds what the providers share when they retry a throttled
// or failing HTTP call: reading Retry-After (RFC 9110 §10.2.3), a bounded
// exponential backoff with jitter, and the Policy that runs the attempts
// (Google, Microsoft Graph and both token endpoints use it; each caller
// keeps only its classification of which failures are transient).
package retry

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// After reads a Retry-After header, in delay-seconds or as an HTTP date
// relative to now. It reports false when there is none or it cannot be
// read; a date in the past is a zero wait.
func After(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Backoff is a bounded exponential backoff: the wait before retry n
// (0-based) is Base·2ⁿ, capped at Max, of which the upper half is random
// so that clients throttled together do not retry together.
type Backoff struct {
	Base, Max time.Duration
	// Jitter returns a random duration in [0, d); nil uses math/rand.
	Jitter func(d time.Duration) time.Duration
}

// Wait returns the wait before retry n.
func (b Backoff) Wait(n int) time.Duration {
	d := b.Max
	if n < 30 {
		if w := b.Base << n; w > 0 && w < d {
			d = w
		}
	}
	half := d / 2
	jitter := b.Jitter
	if jitter == nil {
		jitter = func(d time.Duration) time.Duration {
			if d <= 0 {
				return 0
			}
			return rand.N(d)
		}
	}
	return half + jitter(d-half)
}
