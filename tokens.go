package unical

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/unical/unical/internal/pagetoken"
)

// openToken opens a token of the given kind and scope; anything else is a
// 400 naming field.
func (a *App) openToken(field, kind, scope, token string) (*pagetoken.Payload, error) {
	p, ok := a.c.pages.Open(a.id, kind, scope, token)
	if !ok {
		return nil, invalidf(field, "%s is not a token this listing issued.", field)
	}
	return p, nil
}

// loadCursor returns the provider cursor of p. A cursor that has been
// dropped from the store is CodeGone: the client must sync from scratch.
func (a *App) loadCursor(ctx context.Context, p *pagetoken.Payload) (string, error) {
	cursor, err := a.c.pages.LoadCursor(ctx, a.id, p)
	if ErrorCode(err) == CodeNotFound {
		return "", &Error{Code: CodeGone, Field: "syncToken", Message: "The sync token has expired; list again without syncToken."}
	}
	return cursor, err
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

// ListStorePage runs one page of a listing of the App's Store records
// that a package beside the root keeps (the room directory of package
// rooms, the application-wide subscription listing of package admin, the
// delivery log of package engine, subscriptions) as the root's own
// listings run, in key order: it checks limit (default DefaultPageSize,
// at most MaxPageSize), opens pageToken as a token of application a for
// listings of kind and scope (another listing's token, or another
// application's, is CodeInvalid naming pageToken), asks list for the
// records after the key it holds, and seals the next page token from the
// last record's key; view is what the page shows of a record.
func ListStorePage[R, T any](ctx context.Context, a *App, kind, scope, pageToken string, limit int, list func(after string, limit int) ([]R, error), key func(R) string, view func(R) T) (*Page[T], error) {
	return listPage(ctx, a, storeListing{kind: kind, scope: scope, pageToken: pageToken, limit: limit}, list, key, view)
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
			tok := a.c.pages.Seal(a.id, pagetoken.Payload{Kind: l.kind, Scope: l.scope, After: id(recs[i-1]), Saved: saved})
			page.NextPageToken = &tok
			break
		}
		page.Data = append(page.Data, view(rec))
	}
	return page, nil
}
