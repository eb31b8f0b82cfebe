package seal

import (
	"crypto/sha256"
	"hash/maphash"
	"strings"
	"sync"
)

// CheckedSecrets is SecretMatches for a secret presented again and again:
// API keys, checked on every request. Once a secret has matched a key's
// hash, it remembers two 64-bit keyed hashes of it (hash/maphash, under
// seeds drawn at random for the process) together with that hash, and a
// later check of the same key with the same hash compares those instead
// of computing SHA-256 again (about 3,300 instructions of a cached
// account read's 67,000 over HTTP, and an allocation).
//
// Nothing is remembered of a secret that did not match, and the secret
// itself is never kept. A wrong secret passes only if both its keyed
// hashes equal those of the right one: a chance of 2^-128 per guess, with
// seeds the guesser never sees. The stored hash is part of the check, so
// a key whose hash changed is checked with SHA-256 again; a revoked key
// never gets here, since its record is no longer found.
//
// The zero value is ready to use and safe for concurrent use.
type CheckedSecrets struct {
	mu      sync.Mutex
	matched map[string]checkedSecret // by key id
}

type checkedSecret struct {
	hash     [sha256.Size]byte
	sum, alt uint64 // the secret's keyed hashes under checkSeed and altSeed
}

// maxCheckedSecrets bounds CheckedSecrets; past it, it starts over.
const maxCheckedSecrets = 10_000

var checkSeed, altSeed = maphash.MakeSeed(), maphash.MakeSeed()

// Matches reports whether secret hashes to hash (HashSecret), as
// SecretMatches does; id names the key the hash belongs to.
func (c *CheckedSecrets) Matches(id string, hash []byte, secret string) bool {
	if len(hash) != sha256.Size {
		return false
	}
	sum, alt := maphash.String(checkSeed, secret), maphash.String(altSeed, secret)
	c.mu.Lock()
	e, ok := c.matched[id]
	c.mu.Unlock()
	if ok && e.sum == sum && e.alt == alt && e.hash == [sha256.Size]byte(hash) {
		return true
	}
	if !SecretMatches(hash, secret) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.matched == nil || len(c.matched) >= maxCheckedSecrets {
		c.matched = map[string]checkedSecret{}
	}
	// A copy of id, in case it was cut from a request header: the map
	// must not pin the header (and the secret in it).
	c.matched[strings.Clone(id)] = checkedSecret{hash: [sha256.Size]byte(hash), sum: sum, alt: alt}
	return true
}
