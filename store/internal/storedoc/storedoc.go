// Package storedoc is the stored format the bolt and PostgreSQL stores
// share: the JSON documents they keep for applications, accounts,
// subscriptions and OAuth flows, the conversions between those documents
// and the root package's record types, and the checks both stores apply
// before they write anything.
//
// The documents are the stored format of both stores, so their JSON names
// and field order are fixed: bbolt files of every earlier version must
// still open, and PostgreSQL's jsonb columns hold the same names. Change a
// tag or a field only together with a migration in each store. Keeping
// them in one place means the two stores cannot drift apart on what a
// record holds.
package storedoc

import (
	"errors"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
)

// Internal wraps a storage failure; callers see only "Internal error.",
// and the cause is kept for the logs.
func Internal(err error) *unical.Error {
	return unical.WrapError(unical.CodeInternal, err, "Internal error.")
}

// NotFound is the error for a missing what named id.
func NotFound(what, id string) *unical.Error {
	return unical.Errorf(unical.CodeNotFound, "%s %q not found.", what, id)
}

// Conflict is a CodeConflict error with a formatted message.
func Conflict(format string, args ...any) *unical.Error {
	return unical.Errorf(unical.CodeConflict, format, args...)
}

// CheckID refuses empty ids and ids with a NUL byte. bbolt has no empty
// keys and uses NUL as the separator of composite keys; PostgreSQL cannot
// store a NUL in text. Both stores refuse the same ids, so that they agree
// on what is valid.
func CheckID(what, id string) error {
	if id == "" {
		return unical.Errorf(unical.CodeInvalid, "%s is required.", what)
	}
	if strings.IndexByte(id, 0) >= 0 {
		return unical.Errorf(unical.CodeInvalid, "%s must not contain a NUL byte.", what)
	}
	return nil
}

// ApplicationRecords is the account id of an application's own records
// in the records.Store, which belong to no account.
const ApplicationRecords = ""

// CheckRecordKey refuses ids, collections and keys that CheckID refuses;
// in bbolt they are parts of a records-bucket key.
func CheckRecordKey(appID, accountID, collection, key string) error {
	if err := CheckID("Application id", appID); err != nil {
		return err
	}
	if accountID != ApplicationRecords {
		if err := CheckID("Account id", accountID); err != nil {
			return err
		}
	}
	if err := CheckID("Record collection", collection); err != nil {
		return err
	}
	return CheckID("Record key", key)
}

// CheckIdempotencyKey refuses an application id and Idempotency-Key that
// CheckID refuses; in bbolt they are the parts of an idempotency key.
func CheckIdempotencyKey(appID, key string) error {
	if err := CheckID("Application id", appID); err != nil {
		return err
	}
	return CheckID("Idempotency key", key)
}

// Free reports whether BeginIdempotent's claim rec may take the key from
// old, the record that holds it: when old expired at rec.CreatedAt, or
// when it is an unanswered attempt of the same request whose lease
// expired then (its process may have died).
func Free(old, rec *idempotency.Record) bool {
	now := rec.CreatedAt
	return !now.Before(old.ExpiresAt) ||
		(old.Response == nil && old.Fingerprint == rec.Fingerprint && !now.Before(old.LeaseExpiry))
}

// CheckHeld is CompleteIdempotent's refusal of a key it cannot complete:
// CodeNotFound when the store found no record of it, CodeConflict when
// the record is no longer held by the claim completing it (another
// request claimed the key since, or it already has its response).
func CheckHeld(key string, found, held bool) error {
	if !found {
		return NotFound("Idempotency key", key)
	}
	if !held {
		return Conflict("Idempotency key %q is no longer held by this request.", key)
	}
	return nil
}

// IdempotencyBound is BeginIdempotent's refusal of a new key of an
// application that holds maxKeys records or maxBytes bytes of answers.
func IdempotencyBound(maxKeys int, maxBytes int64) *unical.Error {
	return unical.Errorf(unical.CodeRateLimited, "This application holds the most Idempotency-Key records kept at once (%d keys, %d bytes of answers).", maxKeys, maxBytes)
}

// CheckStatus refuses a message status UpdateMessage does not know.
func CheckStatus(status unical.MessageStatus) error {
	switch status {
	case unical.MessagePending, unical.MessageDelivered, unical.MessageFailed:
		return nil
	}
	return unical.Errorf(unical.CodeInvalid, "Message status %q is unknown.", status)
}

// CheckDeliveries checks the results of RecordDeliveries before anything
// is written, each with checkDelivery: errs[i] is the refusal of
// results[i], or nil. newest is the time of the newest attempt among the
// accepted results, by which the stores prune expired attempts (zero when
// there is none).
func CheckDeliveries(results []unical.DeliveryResult) (errs []error, newest time.Time) {
	errs = make([]error, len(results))
	for i, r := range results {
		errs[i] = checkDelivery(r)
		if errs[i] == nil && r.Attempt != nil && r.Attempt.At.After(newest) {
			newest = r.Attempt.At
		}
	}
	return errs, newest
}

// checkDelivery checks one result of RecordDeliveries: a known status
// and, when there is an attempt, an attempt id and the same message,
// application and subscription as the message.
func checkDelivery(r unical.DeliveryResult) error {
	if err := CheckStatus(r.Message.Status); err != nil {
		return err
	}
	a := r.Attempt
	if a == nil {
		return nil
	}
	if err := CheckID("Attempt id", a.ID); err != nil {
		return err
	}
	if a.ApplicationID != r.Message.ApplicationID || a.MessageID != r.Message.ID || a.SubscriptionID != r.Message.SubscriptionID {
		return unical.Errorf(unical.CodeInvalid, "An attempt must name its message, application and subscription.")
	}
	return nil
}

// UTC returns t in UTC, the location every stored time is written and read
// in (pgx reads timestamptz in the local time zone).
func UTC(t time.Time) time.Time { return t.UTC() }

// UTCPtr is UTC for optional times.
func UTCPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// FnError carries an error returned by a caller's update function through
// a store's transaction, so that it reaches the caller unchanged.
type FnError struct{ Err error }

func (e FnError) Error() string { return e.Err.Error() }

// Passed returns the error a store hands on as it is: the caller's own
// (an FnError's) or one that is already an *unical.Error. ok is false for
// any other error, which the store translates.
func Passed(err error) (passed error, ok bool) {
	var fe FnError
	if errors.As(err, &fe) {
		return fe.Err, true
	}
	var ue *unical.Error
	if errors.As(err, &ue) {
		return err, true
	}
	return nil, false
}
