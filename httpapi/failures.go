package httpapi

import (
	"net/http"
	"net/netip"
	"time"
)

// DefaultFailureLimit is unicald's limit on failed admin-token checks
// (dashboard logins, admin API calls) per client address: ten at once,
// then one a minute. It only slows guessing (an admin token made by
// unicald has 256 random bits); it never locks out an address that stops
// failing.
var DefaultFailureLimit = RateLimit{PerSecond: 1.0 / 60, Burst: 10}

// FailureLimiter counts failed attempts per client address with the
// front door's token buckets: each failure takes a token, and a failed
// attempt of an address without one is answered 429 until one has come
// back. Its users check the attempt first and ask Wait only when it
// failed, so the right secret always works: only failures are throttled.
// Addresses count as in Options.IPRateLimit (IPv6 by /64). It is safe
// for concurrent use; one limiter may serve several handlers, so that a
// guess counts the same wherever it is made.
type FailureLimiter struct {
	l                 *limiter[netip.Addr]
	trustForwardedFor bool
}

// NewFailureLimiter returns a limiter of rl failures per address, taking
// the address as Options.TrustForwardedFor says; nil when rl has no rate.
func NewFailureLimiter(rl RateLimit, trustForwardedFor bool) *FailureLimiter {
	l := newLimiter(rl, DefaultLimiterSize, hashAddr)
	if l == nil {
		return nil
	}
	return &FailureLimiter{l: l, trustForwardedFor: trustForwardedFor}
}

// Wait returns how long r's address must wait before its next attempt is
// looked at; zero when it may try now. A nil limiter never waits.
func (f *FailureLimiter) Wait(r *http.Request) time.Duration {
	if f == nil {
		return 0
	}
	return f.l.waitAt(clientAddr(r, f.trustForwardedFor), int64(time.Since(f.l.epoch)))
}

// Fail counts a failed attempt of r's address.
func (f *FailureLimiter) Fail(r *http.Request) {
	if f != nil {
		f.l.allow(clientAddr(r, f.trustForwardedFor))
	}
}
