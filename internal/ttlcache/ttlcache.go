// Package ttlcache keeps values for a short time, bounded in count.
package ttlcache

import (
	"sync"
	"time"
)

// Cache keeps values for a short time. The unical Client uses it for
// applications and API keys, which every request reads and which rarely
// change: a change made through this Client invalidates its entry at once;
// one made by another replica is seen after at most the TTL.
type Cache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]entry[V]
}

type entry[V any] struct {
	value   V
	expires time.Time
}

// maxEntries bounds the cache; past it, the cache starts over.
const maxEntries = 10_000

// New returns a cache that keeps a value for ttl by the clock now; a ttl
// of 0 or less keeps nothing.
func New[V any](ttl time.Duration, now func() time.Time) *Cache[V] {
	return &Cache[V]{ttl: ttl, now: now, entries: map[string]entry[V]{}}
}

// Get returns the value kept for key, unless it has expired.
func (c *Cache[V]) Get(key string) (V, bool) {
	var zero V
	if c.ttl <= 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || c.now().After(e.expires) {
		return zero, false
	}
	return e.value, true
}

// Put keeps v for key until the TTL has passed.
func (c *Cache[V]) Put(key string, v V) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxEntries {
		c.entries = map[string]entry[V]{}
	}
	c.entries[key] = entry[V]{value: v, expires: c.now().Add(c.ttl)}
}

// Drop forgets key, so that the next Get misses.
func (c *Cache[V]) Drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}
