package unical

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// tokenVersion is bumped when the token payload changes incompatibly; old
// tokens then answer 400 instead of being misread.
const tokenVersion = 1

// maxInlineCursor is the largest provider cursor carried inside a token;
// larger ones (CalDAV snapshots) are kept in the BlobStore and the token
// carries their key.
const maxInlineCursor = 1024

// cursorTTL is how long a stored cursor stays valid.
const cursorTTL = 30 * 24 * time.Hour

// tokenPayload is what page and sync tokens carry, sealed with AES-GCM so
// clients can neither read nor forge them. Scope binds a token to one
// listing of one application; a token presented elsewhere does not open.
type tokenPayload struct {
	V      int    `json:"v"`
	Kind   string `json:"k"`
	Scope  string `json:"s"`
	Query  string `json:"q,omitempty"` // hash of the sync token an incremental listing's page token continues
	Cursor string `json:"c,omitempty"` // provider cursor, or "" with BlobKey
	Blob   string `json:"b,omitempty"`
	Offset int    `json:"o,omitempty"`
	After  string `json:"a,omitempty"` // last id of a store listing
	Sync   bool   `json:"y,omitempty"` // the page belongs to an incremental sync
	// Pos is where a listing the Client expands resumes (see listPosition).
	Pos *listPosition `json:"p,omitempty"`
	// Saved is the query (filters) a page or sync token belongs to.
	Saved json.RawMessage `json:"z,omitempty"`
}

func (a *App) sealToken(p tokenPayload) string {
	p.V = tokenVersion
	b, _ := json.Marshal(p)
	return a.c.tokens.SealString(b, []byte(a.id+"/"+p.Kind))
}

// openToken opens a token of the given kind and scope; anything else is a
// 400 naming field.
func (a *App) openToken(field, kind, scope, token string) (*tokenPayload, error) {
	bad := invalidf(field, "%s is not a token this listing issued.", field)
	b, err := a.c.tokens.OpenString(token, []byte(a.id+"/"+kind))
	if err != nil {
		return nil, bad
	}
	var p tokenPayload
	if err := json.Unmarshal(b, &p); err != nil || p.V != tokenVersion || p.Kind != kind || p.Scope != scope {
		return nil, bad
	}
	return &p, nil
}

// storeCursor puts a provider cursor into p, inline or in the BlobStore.
func (a *App) storeCursor(ctx context.Context, p *tokenPayload, cursor string) error {
	if len(cursor) <= maxInlineCursor {
		p.Cursor = cursor
		return nil
	}
	sum := sha256.Sum256([]byte(cursor))
	key := "cursor/" + hex.EncodeToString(sum[:16])
	sealed := a.c.tokens.Seal([]byte(cursor), []byte(a.id+"/"+key))
	if err := a.c.store.PutBlob(ctx, a.id, key, sealed, a.c.now().Add(cursorTTL)); err != nil {
		return err
	}
	p.Blob = key
	return nil
}

// loadCursor returns the provider cursor of p. A cursor that has been
// dropped from the store is CodeGone: the client must sync from scratch.
func (a *App) loadCursor(ctx context.Context, p *tokenPayload) (string, error) {
	if p.Blob == "" {
		return p.Cursor, nil
	}
	sealed, err := a.c.store.GetBlob(ctx, a.id, p.Blob, a.c.now())
	if ErrorCode(err) == CodeNotFound {
		return "", &Error{Code: CodeGone, Field: "syncToken", Message: "The sync token has expired; list again without syncToken."}
	}
	if err != nil {
		return "", err
	}
	b, err := a.c.tokens.Open(sealed, []byte(a.id+"/"+p.Blob))
	if err != nil {
		return "", WrapError(CodeInternal, err, "Internal error.")
	}
	return string(b), nil
}

// queryHash identifies a query so that a page token is only accepted by the
// listing it came from.
func queryHash(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// pageLimit checks a page size: 0 means DefaultPageSize.
func pageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultPageSize, nil
	case limit < 1 || limit > MaxPageSize:
		return 0, invalidf("limit", "limit must be between 1 and %d.", MaxPageSize)
	}
	return limit, nil
}

// storeListing describes one page of a Store listing in id order: the
// token kind and scope, and the page parameters the caller gave.
type storeListing struct {
	kind, scope string
	pageToken   string
	limit       int
	// filters, when not nil, points to the listing's filters, a struct
	// that marshals to JSON. Page tokens carry them: a request with the
	// token alone lists with the token's filters (listPage writes them
	// into *filters), one that repeats them unchanged too, and one with
	// other filters is a 400 naming pageToken.
	filters any
	// filtered reports whether the request set any filter.
	filtered bool
}

// listPage runs one page of a Store listing: it checks the limit, opens
// the page token, asks list for one record more than the page holds (so it
// knows whether another page follows), and seals the next page token from
// the last record's id.
func listPage[R, T any](ctx context.Context, a *App, l storeListing, list func(after string, limit int) ([]R, error), id func(R) string, view func(R) T) (*Page[T], error) {
	limit, err := pageLimit(l.limit)
	if err != nil {
		return nil, err
	}
	after := ""
	var saved json.RawMessage
	if l.filters != nil {
		saved, _ = json.Marshal(l.filters)
	}
	if l.pageToken != "" {
		p, err := a.openToken("pageToken", l.kind, l.scope, l.pageToken)
		if err != nil {
			return nil, err
		}
		if l.filters != nil {
			if l.filtered && !bytes.Equal(saved, p.Saved) {
				return nil, invalidf("pageToken", "pageToken belongs to a listing with other query parameters; send the parameters that listing had, or only pageToken.")
			}
			if err := json.Unmarshal(p.Saved, l.filters); err != nil {
				return nil, invalidf("pageToken", "pageToken is not a token this listing issued.")
			}
			saved = p.Saved
		}
		after = p.After
	}
	recs, err := list(after, limit+1)
	if err != nil {
		return nil, err
	}
	page := &Page[T]{Data: []T{}}
	for i, rec := range recs {
		if i == limit {
			tok := a.sealToken(tokenPayload{Kind: l.kind, Scope: l.scope, After: id(recs[i-1]), Saved: saved})
			page.NextPageToken = &tok
			break
		}
		page.Data = append(page.Data, view(rec))
	}
	return page, nil
}
