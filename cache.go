package unical

import (
	"sync"
	"time"
)

// ttlCache keeps values for a short time. The Client uses it for
// applications and API keys, which every request reads and which rarely
// change: a change made through this Client invalidates its entry at once;
// one made by another replica is seen after at most the TTL.
type ttlCache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
}

// maxCacheEntries bounds the cache; past it, the cache starts over.
const maxCacheEntries = 10_000

func newTTLCache[V any](ttl time.Duration, now func() time.Time) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, now: now, entries: map[string]ttlEntry[V]{}}
}

func (c *ttlCache[V]) get(key string) (V, bool) {
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

func (c *ttlCache[V]) put(key string, v V) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCacheEntries {
		c.entries = map[string]ttlEntry[V]{}
	}
	c.entries[key] = ttlEntry[V]{value: v, expires: c.now().Add(c.ttl)}
}

func (c *ttlCache[V]) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}
