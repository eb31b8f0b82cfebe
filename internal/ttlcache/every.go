package ttlcache

import (
	"sync"
	"time"
)

// Every says, for each key, whether a period has passed since it last
// said so: the Client records an API key's use at most once a period. A
// map under a mutex, not a sync.Map, so that the check on every request
// allocates nothing. The zero Every says yes every time.
type Every struct {
	period time.Duration

	mu   sync.Mutex
	last map[string]time.Time // key -> when Due last said yes
}

// NewEvery returns an Every of period.
func NewEvery(period time.Duration) *Every {
	return &Every{period: period}
}

// Due reports whether key is due at now, a period or more after it last
// was, and if so remembers now as the time it last was.
func (e *Every) Due(key string, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if last, ok := e.last[key]; ok && now.Sub(last) < e.period {
		return false
	}
	if e.last == nil {
		e.last = map[string]time.Time{}
	}
	e.last[key] = now
	return true
}

// Forget drops key, so that it is due at once.
func (e *Every) Forget(key string) {
	e.mu.Lock()
	delete(e.last, key)
	e.mu.Unlock()
}
