package unical

import (
	"sync"
	"time"
)

// ttlCache keeps values for a short time. The Client uses it for
// applications and API keys, which every request reads and which rarely
// change: a change made through this Client invalidates its entry at once;
// one made by another replica is seen as soon as the Store's version moves
// (a [VersionedStore] shared by replicas learns of their changes), and
// after at most the TTL with any Store.
type ttlCache[V any] struct {
	ttl time.Duration
	now func() time.Time
	// version is the Store's version (Client.StoreVersion).
	version func() (uint64, bool)

	mu      sync.Mutex
	entries map[string]ttlEntry[V]
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
	version uint64 // the Store's version before value was read
}

// maxCacheEntries bounds the cache; past it, the cache starts over.
const maxCacheEntries = 10_000

func newTTLCache[V any](ttl time.Duration, now func() time.Time, version func() (uint64, bool)) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, now: now, version: version, entries: map[string]ttlEntry[V]{}}
}

// load returns the value kept for key, or else what read returns, which
// it keeps unless it is an error.
func (c *ttlCache[V]) load(key string, read func() (V, error)) (V, error) {
	if c.ttl <= 0 {
		return read()
	}
	// Read before the value, so that a value is never filed under a
	// version newer than what it shows.
	version, versioned := c.version()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && !c.now().After(e.expires) && (!versioned || e.version == version) {
		return e.value, nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCacheEntries {
		c.entries = map[string]ttlEntry[V]{}
	}
	c.entries[key] = ttlEntry[V]{value: v, expires: c.now().Add(c.ttl), version: version}
	return v, nil
}

func (c *ttlCache[V]) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}
