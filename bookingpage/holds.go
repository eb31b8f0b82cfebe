package bookingpage

import (
	"net/netip"
	"sync"
	"time"
)

// maxTrackedAddresses bounds the addresses holdCounter remembers; past it
// an address with no live hold is refused a hold until some expire, so
// that rotating addresses cannot grow the table without end.
const maxTrackedAddresses = 50_000

// holdCounter counts the live holds placed from each client address, so
// that one address cannot hold every slot of a page. It counts the holds
// this process placed (a replica's own count): a hold leaves the count
// when it expires or is booked.
type holdCounter struct {
	mu    sync.Mutex
	max   int
	holds map[netip.Addr]map[string]time.Time // address -> hold id -> expiry
}

func newHoldCounter(limit int) *holdCounter {
	return &holdCounter{max: limit, holds: map[netip.Addr]map[string]time.Time{}}
}

// reserve counts a hold about to be placed from addr under a provisional
// key, and reports false when addr already has its limit of live holds.
func (c *holdCounter) reserve(addr netip.Addr, key string, until, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := c.holds[addr]
	for id, exp := range live {
		if !now.Before(exp) {
			delete(live, id)
		}
	}
	if len(live) >= c.max {
		return false
	}
	if live == nil {
		if len(c.holds) >= maxTrackedAddresses {
			c.prune(now)
			if len(c.holds) >= maxTrackedAddresses {
				return false
			}
		}
		live = map[string]time.Time{}
		c.holds[addr] = live
	}
	live[key] = until
	return true
}

// settle replaces the provisional key by the hold's id and expiry; with
// id "" (the hold failed) it only drops the provisional key.
func (c *holdCounter) settle(addr netip.Addr, key, id string, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := c.holds[addr]
	delete(live, key)
	if id != "" && live != nil {
		live[id] = until
	}
	if len(live) == 0 {
		delete(c.holds, addr)
	}
}

// release drops a hold that was booked.
func (c *holdCounter) release(addr netip.Addr, id string) { c.settle(addr, id, "", time.Time{}) }

// prune drops the addresses whose holds have all expired.
func (c *holdCounter) prune(now time.Time) {
	for addr, live := range c.holds {
		for id, exp := range live {
			if !now.Before(exp) {
				delete(live, id)
			}
		}
		if len(live) == 0 {
			delete(c.holds, addr)
		}
	}
}
