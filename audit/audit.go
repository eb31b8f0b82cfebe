// Package audit is the contract of the audit log of operator changes:
// the entries package admin writes whenever the admin API, the dashboard
// or unicald's commands change an application, and the part of a Store
// that keeps them. A unical.Store embeds [Store], so an outside Store
// implements it; store/storetest checks it. It imports nothing of the
// module, so the root package can embed it.
package audit

import (
	"context"
	"time"
)

// Entry is one change an operator made to an application through
// the admin API, the dashboard or unicald's commands: who, what and when.
// It names the records it changed by id and never holds a secret.
type Entry struct {
	// ID sorts in the order the entries were made.
	ID string    `json:"id"`
	At time.Time `json:"at"`
	// Actor is who made the change: admin-token, dashboard or cli.
	Actor string `json:"actor"`
	// Operation is what was done, as noun.verb: application.create,
	// apiKey.revoke, provider.set, ...
	Operation     string `json:"operation"`
	ApplicationID string `json:"applicationId,omitempty"`
	// TargetID is the id of the record changed within the application
	// (API key, account, subscription, message, provider type); "" when
	// the application itself changed.
	TargetID string `json:"targetId,omitempty"`
}

// Store keeps the audit log of operator changes.
type Store interface {
	// AppendAudit stores an entry and, in the same write, removes up to
	// 100 of the oldest entries made before removeBefore, so that the log
	// keeps a bounded retention without a sweep of its own.
	AppendAudit(ctx context.Context, e *Entry, removeBefore time.Time) error
	// ListAudit returns entries newest first, of one application (appID
	// "" for every application's), with ids before the id before (""
	// from the newest), at most limit of them.
	ListAudit(ctx context.Context, appID, before string, limit int) ([]*Entry, error)
}
