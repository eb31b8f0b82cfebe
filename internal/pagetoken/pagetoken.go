// Package pagetoken seals the page and sync tokens of listings: a
// versioned payload, sealed with AES-256-GCM so that clients can neither
// read nor forge it, and bound to one application and one kind of
// listing, so that a token presented elsewhere does not open. A provider
// cursor too long for a token (a CalDAV snapshot) is kept, sealed too,
// in the Store's blobs, and the token carries its key.
package pagetoken

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/unical/unical/internal/seal"
)

// Version is bumped when the payload changes incompatibly; old tokens then
// no longer open instead of being misread.
const Version = 1

// maxInlineCursor is the largest provider cursor carried inside a token.
const maxInlineCursor = 1024

// cursorTTL is how long a stored cursor stays valid.
const cursorTTL = 30 * 24 * time.Hour

// Payload is what a token carries. Scope binds a token to one listing of
// one application (an account, a calendar, a subscription).
type Payload struct {
	V      int    `json:"v"`
	Kind   string `json:"k"`
	Scope  string `json:"s"`
	Query  string `json:"q,omitempty"` // hash of the sync token an incremental listing's page token continues
	Cursor string `json:"c,omitempty"` // provider cursor, or "" with Blob
	Blob   string `json:"b,omitempty"`
	Offset int    `json:"o,omitempty"`
	After  string `json:"a,omitempty"` // last id of a store listing
	Sync   bool   `json:"y,omitempty"` // the page belongs to an incremental sync
	// Pos is where a listing the Client expands resumes.
	Pos *Position `json:"p,omitempty"`
	// Saved is the query (filters) a page or sync token belongs to.
	Saved json.RawMessage `json:"z,omitempty"`
}

// Position is where a page of a listing the Client expands stopped: the
// sort key (start, or last update) and id of its last event.
type Position struct {
	Key time.Time `json:"k"`
	ID  string    `json:"i"`
}

// Blobs keeps the cursors too long for a token: the Store's BlobStore.
type Blobs interface {
	PutBlob(ctx context.Context, appID, key string, data []byte, expires time.Time) error
	GetBlob(ctx context.Context, appID, key string, now time.Time) ([]byte, error)
}

// Tokens seals and opens the tokens of every application.
type Tokens struct {
	sealer *seal.Sealer
	blobs  Blobs
	now    func() time.Time
}

// New returns Tokens sealing with sealer and keeping long cursors in
// blobs.
func New(sealer *seal.Sealer, blobs Blobs, now func() time.Time) *Tokens {
	return &Tokens{sealer: sealer, blobs: blobs, now: now}
}

// Seal returns p as a token of application appID.
func (t *Tokens) Seal(appID string, p Payload) string {
	p.V = Version
	b, _ := json.Marshal(p)
	return t.sealer.SealString(b, []byte(appID+"/"+p.Kind))
}

// Open opens a token of application appID with the given kind and scope;
// ok is false for anything else.
func (t *Tokens) Open(appID, kind, scope, token string) (p *Payload, ok bool) {
	b, err := t.sealer.OpenString(token, []byte(appID+"/"+kind))
	if err != nil {
		return nil, false
	}
	p = &Payload{}
	if err := json.Unmarshal(b, p); err != nil || p.V != Version || p.Kind != kind || p.Scope != scope {
		return nil, false
	}
	return p, true
}

// StoreCursor puts a provider cursor into p: inline, or sealed in the
// blobs when it is long.
func (t *Tokens) StoreCursor(ctx context.Context, appID string, p *Payload, cursor string) error {
	if len(cursor) <= maxInlineCursor {
		p.Cursor = cursor
		return nil
	}
	sum := sha256.Sum256([]byte(cursor))
	key := "cursor/" + hex.EncodeToString(sum[:16])
	sealed := t.sealer.Seal([]byte(cursor), []byte(appID+"/"+key))
	if err := t.blobs.PutBlob(ctx, appID, key, sealed, t.now().Add(cursorTTL)); err != nil {
		return err
	}
	p.Blob = key
	return nil
}

// LoadCursor returns the provider cursor of p. The blobs' error is
// returned as it is, so that the caller can tell a dropped cursor.
func (t *Tokens) LoadCursor(ctx context.Context, appID string, p *Payload) (string, error) {
	if p.Blob == "" {
		return p.Cursor, nil
	}
	sealed, err := t.blobs.GetBlob(ctx, appID, p.Blob, t.now())
	if err != nil {
		return "", err
	}
	b, err := t.sealer.Open(sealed, []byte(appID+"/"+p.Blob))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// QueryHash identifies a query, so that a page token is only accepted by
// the listing it came from.
func QueryHash(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}
