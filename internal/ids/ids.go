// Package ids makes the random identifiers unical hands out: record ids
// that sort in creation order, and random strings for secrets. The root
// package and the operator side (package admin) both make ids, and they
// must look alike.
package ids

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"sync"
	"time"
)

var encoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// last is the most recent id's time and random part. Ids made in the same
// millisecond by one process continue from it (the random part plus one),
// so a list sorted by id is in creation order even for records made
// together; with a fresh random part each, two records of one
// millisecond came back in either order.
var last struct {
	sync.Mutex
	ms  uint64
	rnd [10]byte
}

// New returns prefix_ + 26 characters: 48 bits of milliseconds and 80
// random bits in a sortable base32, so ids list in creation order, also
// within one millisecond of one process (and when the clock steps back).
func New(prefix string) string {
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	last.Lock()
	if ms > last.ms {
		last.ms = ms
		if _, err := rand.Read(last.rnd[:]); err != nil {
			panic("unical: no randomness: " + err.Error())
		}
	} else if increment(last.rnd[:]) {
		last.ms++ // the random part wrapped: move to the next millisecond
	}
	binary.BigEndian.PutUint64(b[:8], last.ms<<16)
	copy(b[6:], last.rnd[:])
	last.Unlock()
	return prefix + "_" + encoding.EncodeToString(b[:])
}

// increment adds one to the big-endian number in b and reports whether it
// wrapped around to zero.
func increment(b []byte) bool {
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return false
		}
	}
	return true
}

// Random returns n random bytes in URL-safe base32.
func Random(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("unical: no randomness: " + err.Error())
	}
	return encoding.EncodeToString(b)
}
