package httpapi

import (
	"hash/maphash"
	"math"
	"net/netip"
	"sync"
	"time"
)

// RateLimit is a token bucket: each caller may send Burst requests at once
// and PerSecond requests a second after that. A zero PerSecond means no limit.
type RateLimit struct {
	PerSecond float64
	// Burst is the bucket's size; zero is twice PerSecond (at least 1).
	Burst int
}

// Defaults of unicald serve. The zero Config of an embedding program has
// no limits and no deadline: it may sit behind a front door of its own.
const (
	// DefaultKeyRate is the requests per second of one API key, with a
	// burst of twice as many.
	DefaultKeyRate = 100
	// DefaultIPRate is the requests per second of one client address
	// (IPv6: one /64), counted before authentication, with a burst of twice
	// as many. It is above DefaultKeyRate because one server may hold several
	// keys.
	DefaultIPRate = 200
	// DefaultRequestTimeout bounds each request.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultLimiterSize is how many API keys, and how many client
	// addresses, the limiters remember at most (about 100 bytes each).
	DefaultLimiterSize = 50_000
)

// limiter keeps one token bucket per caller K in a table of bounded size.
// The table is split into shards, each with its own lock, so that
// concurrent requests of different callers rarely wait for each other.
// A caller's bucket is found by its 64-bit hash alone, with the process's
// random seed: the table holds no caller's key (so no part of a request
// header), a lookup hashes the key once, not twice, and two callers share
// a bucket only if their hashes collide, which no caller can aim for.
//
// A bucket that has filled up again is the same as no bucket, so idle
// buckets are dropped without changing any answer. When a shard is full
// of callers that are all still active (an attacker rotating addresses or
// keys), callers not in the table share the shard's overflow bucket: the
// rotation buys no extra requests and the table does not grow.
type limiter[K comparable] struct {
	perNano   float64 // tokens added per nanosecond
	burst     float64
	shardCap  int
	shards    []limiterShard[K]
	shardMask uint64
	hash      func(K) uint64
	epoch     time.Time
}

type limiterShard[K comparable] struct {
	mu        sync.Mutex
	buckets   map[uint64]*bucket // by the caller's hash
	overflow  bucket
	lastSweep int64
	// pad keeps neighbouring shards' locks off one cache line.
	_ [64]byte
}

// bucket is a token bucket: tokens as of last (nanoseconds since epoch).
type bucket struct {
	tokens float64
	last   int64
}

// sweepEvery is how often a shard drops its idle buckets, at most.
const sweepEvery = int64(time.Minute)

// fullSweepEvery is how often a full shard looks for idle buckets, at most,
// so that a flood of new callers does not scan the shard on every request.
const fullSweepEvery = int64(time.Second)

// newLimiter returns a limiter of rl for at most size callers, or nil when
// rl has no rate.
func newLimiter[K comparable](rl RateLimit, size int, hash func(K) uint64) *limiter[K] {
	if rl.PerSecond <= 0 || math.IsNaN(rl.PerSecond) || math.IsInf(rl.PerSecond, 0) {
		return nil
	}
	burst := float64(rl.Burst)
	if rl.Burst <= 0 {
		burst = math.Max(1, math.Ceil(2*rl.PerSecond))
	}
	if size <= 0 {
		size = DefaultLimiterSize
	}
	// Shards of at least 256 callers each, at most 64 shards, a power of two.
	shards := 1
	for shards < 64 && size/(shards*2) >= 256 {
		shards *= 2
	}
	l := &limiter[K]{
		perNano: rl.PerSecond / 1e9, burst: burst,
		shardCap: size / shards, shards: make([]limiterShard[K], shards), shardMask: uint64(shards - 1),
		hash: hash, epoch: time.Now(),
	}
	for i := range l.shards {
		l.shards[i].buckets = map[uint64]*bucket{}
		l.shards[i].overflow = bucket{tokens: burst}
	}
	return l
}

// allow takes a token of caller k. When there is none it returns false and
// how long until there is one.
func (l *limiter[K]) allow(k K) (bool, time.Duration) {
	return l.allowAt(k, int64(time.Since(l.epoch)))
}

// allowTime is allow at now, a reading of the clock the caller has made
// anyway.
func (l *limiter[K]) allowTime(k K, now time.Time) (bool, time.Duration) {
	return l.allowAt(k, int64(now.Sub(l.epoch)))
}

// allowAt is allow at now nanoseconds after the limiter's epoch.
func (l *limiter[K]) allowAt(k K, now int64) (bool, time.Duration) {
	hk := l.hash(k)
	s := &l.shards[hk&l.shardMask]
	s.mu.Lock()
	b := s.buckets[hk]
	if b == nil {
		b = s.add(l, hk, now)
	}
	ok, wait := l.take(b, now)
	s.mu.Unlock()
	return ok, wait
}

// waitAt is how long until caller k has a token, at now nanoseconds after
// the limiter's epoch, without taking one; zero when it has one.
func (l *limiter[K]) waitAt(k K, now int64) time.Duration {
	hk := l.hash(k)
	s := &l.shards[hk&l.shardMask]
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buckets[hk]
	if b == nil {
		if len(s.buckets) < l.shardCap {
			return 0 // a new caller gets a full bucket
		}
		b = &s.overflow
	}
	tokens := math.Min(l.burst, b.tokens+float64(max(now-b.last, 0))*l.perNano)
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Min(math.Ceil((1-tokens)/l.perNano), float64(24*time.Hour)))
}

// add puts a full bucket for the caller of hash hk in the shard, or
// returns the overflow bucket when the shard is full of active callers.
// s.mu is held.
func (s *limiterShard[K]) add(l *limiter[K], hk uint64, now int64) *bucket {
	if now-s.lastSweep >= sweepEvery || (len(s.buckets) >= l.shardCap && now-s.lastSweep >= fullSweepEvery) {
		s.lastSweep = now
		for key, b := range s.buckets {
			if b.tokens+float64(now-b.last)*l.perNano >= l.burst {
				delete(s.buckets, key)
			}
		}
	}
	if len(s.buckets) >= l.shardCap {
		return &s.overflow
	}
	b := &bucket{tokens: l.burst, last: now}
	s.buckets[hk] = b
	return b
}

// take refills b up to now and takes one token. The caller holds the lock.
func (l *limiter[K]) take(b *bucket, now int64) (bool, time.Duration) {
	if now > b.last {
		b.tokens = math.Min(l.burst, b.tokens+float64(now-b.last)*l.perNano)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	// Capped at a day so that a tiny rate cannot overflow a Duration.
	return false, time.Duration(math.Min(math.Ceil((1-b.tokens)/l.perNano), float64(24*time.Hour)))
}

// size returns how many callers the table holds.
func (l *limiter[K]) size() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.buckets)
		s.mu.Unlock()
	}
	return n
}

var limiterSeed = maphash.MakeSeed()

func hashString(s string) uint64 { return maphash.String(limiterSeed, s) }

func hashAddr(a netip.Addr) uint64 {
	b := a.As16()
	return maphash.Bytes(limiterSeed, b[:])
}
