package scopedtoken

import (
	"context"
	"time"
)

// GrantStore keeps the grants of issued tokens. It is a part a
// [unical.Store] may add (store/bolt and store/postgres do); a Store
// without it cannot issue tokens. It takes plain values, so that a Store
// implements it without importing this package.
//
// A grant is opaque data to the Store: the JSON of a [Grant], which
// holds the SHA-256 hash of the token's secret and never the secret. The
// Store indexes it by id, by application and by expiry.
//
// Implementations must be safe for concurrent use by several processes.
// A Store that is a [storeversion.Store] must move its version when a
// grant is deleted, in every process that shares it (as for a deleted
// API key), since the Service keeps grants it has read for as long as
// the version stays.
type GrantStore interface {
	// CreateTokenGrant stores the grant data of token id, of application
	// appID, until expiresAt; CodeConflict if the id is taken,
	// CodeNotFound if there is no such application, CodeInvalid for an
	// empty id or application id.
	CreateTokenGrant(ctx context.Context, appID, id string, data []byte, expiresAt time.Time) error
	// GetTokenGrant returns the data of grant id, whatever its
	// application; CodeNotFound if there is none or it expired at now.
	GetTokenGrant(ctx context.Context, id string, now time.Time) ([]byte, error)
	// DeleteTokenGrant removes one of an application's grants;
	// CodeNotFound if the application has no such grant (another
	// application's grant is left alone).
	DeleteTokenGrant(ctx context.Context, appID, id string) error
	// SweepTokenGrants removes grants expired at now, at most limit of
	// them (no bound when limit is zero or less), and returns how many
	// it removed.
	SweepTokenGrants(ctx context.Context, now time.Time, limit int) (int, error)
}
