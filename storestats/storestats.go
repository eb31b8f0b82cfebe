// Package storestats is the optional part of a Store that counts what
// monitoring asks about (accounts by provider type and status, pending
// webhook messages) in one cheap read: the Prometheus gauges of package
// metrics, the admin API's account counts and the dashboard's overview
// read it through [Of]. A Store outside the module implements [Store]
// with the root's types; store/storetest checks it.
package storestats

import (
	"context"
	"time"

	"github.com/unical/unical"
)

// Store is a unical.Store that can count what monitoring asks about in
// one cheap read. It is optional: [Of] needs it.
type Store interface {
	// Stats counts accounts by provider type and status, and the pending
	// outbox messages.
	Stats(ctx context.Context) (*Stats, error)
}

// Stats are the counts a [Store] keeps.
type Stats struct {
	// Accounts counts accounts by provider type and status, across every
	// application.
	Accounts map[unical.ProviderType]map[unical.AccountStatus]int
	// PendingMessages counts outbox messages waiting for delivery
	// (including retries scheduled later).
	PendingMessages int
	// OldestPending is when the oldest pending message was created; zero
	// when none is pending.
	OldestPending time.Time
}

// Of returns store's counts, or CodeNotImplemented when it is not a
// [Store].
func Of(ctx context.Context, store unical.Store) (*Stats, error) {
	s, ok := store.(Store)
	if !ok {
		return nil, unical.Errorf(unical.CodeNotImplemented, "The store keeps no statistics.")
	}
	return s.Stats(ctx)
}
