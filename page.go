package unical

import (
	"context"
	"iter"
)

// Page is the paginated-list envelope: one page of records and the token
// of the next page, or null on the last one.
type Page[T any] struct {
	Data          []T     `json:"data"`
	NextPageToken *string `json:"nextPageToken"`
}

// SyncPage is the sync-list envelope. NextSyncToken is set on the last page
// only; NextPageToken on every page but the last.
type SyncPage[T any] struct {
	Data          []T    `json:"data"`
	NextPageToken string `json:"nextPageToken,omitempty"`
	NextSyncToken string `json:"nextSyncToken,omitempty"`
}

// All walks every page of a paginated listing: fetch is called with the page
// token of each page in turn ("" first). The error, if any, is the last
// element yielded.
func All[T any](ctx context.Context, fetch func(ctx context.Context, pageToken string) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		token := ""
		for {
			page, err := fetch(ctx, token)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, v := range page.Data {
				if !yield(v, nil) {
					return
				}
			}
			if page.NextPageToken == nil || *page.NextPageToken == "" {
				return
			}
			token = *page.NextPageToken
		}
	}
}

// AllSync walks every page of a sync listing and returns, through
// nextSyncToken, the token of the last page once the walk has finished.
func AllSync[T any](ctx context.Context, nextSyncToken *string, fetch func(ctx context.Context, pageToken string) (*SyncPage[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		token := ""
		for {
			page, err := fetch(ctx, token)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, v := range page.Data {
				if !yield(v, nil) {
					return
				}
			}
			if page.NextPageToken == "" {
				if nextSyncToken != nil {
					*nextSyncToken = page.NextSyncToken
				}
				return
			}
			token = page.NextPageToken
		}
	}
}
