// Package ttlcache keeps values for a short time, bounded in count.
package ttlcache

import (
	"sync"
	"time"
)

// Cache keeps values for a short time. The unical Client uses it for
// applications and API keys, which every request reads and which rarely
// change: a change made through this Client invalidates its entry at once;
// one made by another replica is seen as soon as the Store's version moves
// (a storeversion.Store shared by replicas learns of their changes), and
// after at most the TTL with any Store.
type Cache[V any] struct {
	ttl time.Duration
	now func() time.Time
	// version is the Store's version (storeversion.Of).
	version func() (uint64, bool)

	mu      sync.Mutex
	entries map[string]entry[V]
}

type entry[V any] struct {
	value   V
	expires time.Time
	version uint64 // the Store's version before value was read
}

// maxEntries bounds the cache; past it, the cache starts over.
const maxEntries = 10_000

// New returns a cache that keeps a value for ttl by the clock now, and
// while version, the Store's version when it has one, stays; a ttl of 0
// or less keeps nothing.
func New[V any](ttl time.Duration, now func() time.Time, version func() (uint64, bool)) *Cache[V] {
	return &Cache[V]{ttl: ttl, now: now, version: version, entries: map[string]entry[V]{}}
}

// Load returns the value kept for key, or else what read returns, which
// it keeps unless it is an error.
func (c *Cache[V]) Load(key string, read func() (V, error)) (V, error) {
	return c.LoadAt(key, c.now(), read)
}

// LoadAt is Load at now, a reading of the cache's clock the caller has
// made anyway.
func (c *Cache[V]) LoadAt(key string, now time.Time, read func() (V, error)) (V, error) {
	if c.ttl <= 0 {
		return read()
	}
	// Read before the value, so that a value is never filed under a
	// version newer than what it shows.
	version, versioned := c.version()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && !now.After(e.expires) && (!versioned || e.version == version) {
		return e.value, nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxEntries {
		c.entries = map[string]entry[V]{}
	}
	c.entries[key] = entry[V]{value: v, expires: c.now().Add(c.ttl), version: version}
	return v, nil
}

// Drop forgets key, so that the next Load reads it.
func (c *Cache[V]) Drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}
