package postgres

import (
	"bytes"
	"slices"
	"sync"

	"github.com/unical/unical"
)

// accountCache keeps decoded accounts by id with the stored JSON each was
// decoded from. Every read still fetches the JSON from the database and
// decodes it only when it differs from the cached copy, so a hit is never
// stale, whoever wrote the row, and writes need not invalidate anything.
// It saves the JSON decoding that dominates account reads (every API call
// on an account, 50 per page of the account list). The zero value is
// ready to use.
type accountCache struct {
	mu      sync.Mutex
	entries map[string]cachedAccount
}

type cachedAccount struct {
	data []byte                // the stored JSON
	rec  *unical.AccountRecord // decoded from data; never changed
}

// maxCachedAccounts bounds the cache (a few MB); past it, it starts over.
const maxCachedAccounts = 4096

// decodeCached decodes the account with that id stored as data, through
// the cache, and returns a copy the caller may change.
func (c *accountCache) decodeCached(id string, data []byte) (*unical.AccountRecord, error) {
	c.mu.Lock()
	e, ok := c.entries[id]
	c.mu.Unlock()
	if ok && bytes.Equal(e.data, data) {
		return cloneAccount(e.rec), nil
	}
	rec, err := decodeAccount(data)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCachedAccounts {
		c.entries = make(map[string]cachedAccount)
	}
	// pgx hands out a fresh slice per value, so data can be kept.
	c.entries[id] = cachedAccount{data: data, rec: rec}
	c.mu.Unlock()
	return cloneAccount(rec), nil
}

// cloneAccount returns a copy of rec that shares nothing with it.
func cloneAccount(rec *unical.AccountRecord) *unical.AccountRecord {
	out := *rec
	out.AuthorizedScopes = slices.Clone(rec.AuthorizedScopes)
	if rec.ProviderAccountID != nil {
		v := *rec.ProviderAccountID
		out.ProviderAccountID = &v
	}
	out.SealedSecrets = bytes.Clone(rec.SealedSecrets)
	out.ProviderState = bytes.Clone(rec.ProviderState)
	return &out
}
