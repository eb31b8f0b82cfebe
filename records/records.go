// Package records is the storage contract of the small versioned records
// that the parts built over a Store keep for an end user account or an
// application: VIRTUAL's calendars and events (provider/virtual), package
// grants' check schedule, package booking's ledgers and bookings, package
// invite's sent invitations. unical.Store embeds [Store], so every Store
// implements it, and store/storetest checks it.
//
// The package imports nothing of unical's: a Store's errors are
// *unical.Error values as everywhere else (CodeNotFound, CodeConflict,
// CodeInvalid below).
package records

import "context"

// Record is one record of a [Store].
type Record struct {
	// Key names the record within its account and collection.
	Key string
	// Data is the record's content, opaque to the Store.
	Data []byte
	// Version changes with every write of the record; see PutRecord.
	Version uint64
}

// Store keeps small opaque records of an end user account in named
// collections; every write is a compare-and-set on the record's version,
// so replicas never lose each other's changes. They go with the account
// (unical.AccountStore.DeleteAccount); account id "" keeps the
// application's own (bookings; DeleteApplication).
//
// Collections and keys are non-empty and hold no NUL byte (CodeInvalid).
type Store interface {
	// PutRecord stores data under the account's collection and key when
	// the record's version is ifVersion, 0 meaning that there must be no
	// such record, and returns the new version. Versions are positive and
	// a key never gets a version it had before, even after a delete, so
	// that a version read before a delete does not match the record
	// written after it. CodeConflict when the version differs (or the
	// record exists, for 0); CodeNotFound when the application has no such
	// account.
	PutRecord(ctx context.Context, appID, accountID, collection, key string, data []byte, ifVersion uint64) (uint64, error)
	// GetRecord returns one record; CodeNotFound if there is none.
	GetRecord(ctx context.Context, appID, accountID, collection, key string) (*Record, error)
	// DeleteRecord removes a record when its version is ifVersion, 0
	// meaning any version. CodeNotFound if there is no such record,
	// CodeConflict when the version differs.
	DeleteRecord(ctx context.Context, appID, accountID, collection, key string, ifVersion uint64) error
	// ListRecords returns the collection's records whose key starts with
	// prefix, in key order (byte-wise) after the key after ("" from the
	// start), at most limit of them.
	ListRecords(ctx context.Context, appID, accountID, collection, prefix, after string, limit int) ([]*Record, error)
}

// Write is one write of [BatchStore.WriteRecords]: PutRecord of Data, or
// with Delete, DeleteRecord, with their compare-and-set on IfVersion.
type Write struct {
	AccountID, Collection, Key string
	Data                       []byte
	IfVersion                  uint64
	Delete                     bool
}

// BatchStore is implemented by a Store that commits several record
// writes of one application in one atomic write (one fsync on bbolt, one
// transaction on PostgreSQL). Package booking claims a slot and records
// its booking this way, and writes the records one by one on a Store
// without it.
type BatchStore interface {
	// WriteRecords makes every write or none, and returns each write's
	// new version (0 for a delete); the first write that fails gives its
	// error as PutRecord or DeleteRecord would.
	WriteRecords(ctx context.Context, appID string, writes []Write) ([]uint64, error)
}
