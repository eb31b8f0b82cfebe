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
// Addresses count as in Config.IPRateLimit (IPv6 by /64). It is safe
// for concurrent use; one limiter may serve several handlers, so that a
// guess counts the same wherever it is made.
type FailureLimiter struct {
	a AddressLimiter
}

// LimiterConfig configures NewFailureLimiter and NewAddressLimiter.
type LimiterConfig struct {
	// Rate is the limit per address; a zero PerSecond is no limit.
	Rate RateLimit
	// TrustForwardedFor takes the address from X-Forwarded-For, as
	// Config.TrustForwardedFor does for /v1.
	TrustForwardedFor bool
}

// NewFailureLimiter returns a limiter of cfg.Rate failures per address;
// nil when cfg.Rate has no rate.
func NewFailureLimiter(cfg LimiterConfig) *FailureLimiter {
	a := NewAddressLimiter(cfg)
	if a == nil {
		return nil
	}
	return &FailureLimiter{a: *a}
}

// Wait returns how long r's address must wait before its next attempt is
// looked at; zero when it may try now. A nil limiter never waits.
func (f *FailureLimiter) Wait(r *http.Request) time.Duration {
	if f == nil {
		return 0
	}
	return f.a.l.waitAt(clientAddr(r, f.a.trustForwardedFor), int64(time.Since(f.a.l.epoch)))
}

// Fail counts a failed attempt of r's address.
func (f *FailureLimiter) Fail(r *http.Request) {
	if f != nil {
		f.a.Allow(r)
	}
}

// AddressLimiter is a rate limit per client address (IPv6 by /64) for
// handlers served beside /v1, such as the public booking page: the front
// door's token buckets, taking the address as Config.TrustForwardedFor
// says. It is safe for concurrent use.
type AddressLimiter struct {
	l                 *limiter[netip.Addr]
	trustForwardedFor bool
}

// NewAddressLimiter returns a limiter of cfg.Rate requests per address;
// nil (no limit) when cfg.Rate has no rate.
func NewAddressLimiter(cfg LimiterConfig) *AddressLimiter {
	l := newLimiter(cfg.Rate, DefaultLimiterSize, hashAddr)
	if l == nil {
		return nil
	}
	return &AddressLimiter{l: l, trustForwardedFor: cfg.TrustForwardedFor}
}

// Allow takes a token of r's address, and otherwise reports how long it
// must wait. A nil limiter always allows.
func (a *AddressLimiter) Allow(r *http.Request) (bool, time.Duration) {
	if a == nil {
		return true, 0
	}
	return a.l.allow(clientAddr(r, a.trustForwardedFor))
}

// ClientAddr is the address r counts under in the per-address limits:
// the connection's peer, or with trustForwardedFor the last
// X-Forwarded-For entry; an IPv6 address as its /64.
func ClientAddr(r *http.Request, trustForwardedFor bool) netip.Addr {
	return clientAddr(r, trustForwardedFor)
}
