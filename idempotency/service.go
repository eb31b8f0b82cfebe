package idempotency

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"
)

// KeyField is how errors about the key name it: the header.
const KeyField = "Idempotency-Key"

// The codes, as strings, of package unical's error codes that a Service
// makes and keeps: this package does not import unical, whose tests check
// that they are its codes.
const (
	CodeInvalid     = "invalid"
	CodeConflict    = "conflict"
	CodeKeyReused   = "key_reused"
	CodeRateLimited = "rate_limited"
	CodeInternal    = "internal"
)

// keptCodes are the codes of the answers Keeps accepts.
var keptCodes = []string{"", "not_found", CodeConflict, "precondition_failed", "gone", "slot_unavailable", "limit_reached"}

// Keeps reports whether an answer with code is kept. A success is, and so
// are the refusals that are the request's outcome for good and are given
// after the request has been looked at (not found, a conflict, a changed
// resource, a dropped cursor, a taken slot, a full booking limit). Not
// kept, so that the key is freed and a retry runs again:
//   - invalid requests and oversized bodies: nothing was done, and the
//     client may fix the request and send it with the same key;
//   - rate limits, an expired account, refused credentials: nothing was
//     done and the same request may succeed later;
//   - every 5xx (provider errors, unavailability, timeouts, our own
//     failures, not implemented): were they kept, the same failure would
//     answer every retry for a day although the write may succeed now,
//     and the client's only way out would be a new key, which is no
//     safer. The risk of not keeping them is a second write when the
//     first reached the provider but its answer did not reach us; the
//     attempt runs to its deadline even when the client goes away, so a
//     lost client connection is never such a case.
func Keeps(code string) bool { return slices.Contains(keptCodes, code) }

// Failure is an error in the terms of a Service's caller: the parts of
// package unical's *Error that a refusal has and that a Go call's kept
// error keeps (Code goes to the Answer, the rest to its body).
type Failure struct {
	Code    string   `json:"-"`
	Message string   `json:"message"`
	Field   string   `json:"field,omitempty"`
	Allowed []string `json:"allowed,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	// RetryAfter is how long the caller should wait; never kept.
	RetryAfter time.Duration `json:"-"`
	// Err is the cause, for logs; never kept.
	Err error `json:"-"`
}

// Errors is how a Service speaks its caller's error type (package
// unical's *Error), so that this package needs none of it.
type Errors interface {
	// Make returns f as the caller's error.
	Make(f Failure) error
	// Read returns err as a Failure; an error of another type than the
	// caller's reads as CodeInternal, "Internal error.".
	Read(err error) Failure
}

// Config configures a Service. Store, MasterKey and Errors are required.
type Config struct {
	// Store keeps the records (unical.Store is one).
	Store Store
	// MasterKey is the Client's master key; the keys that seal kept
	// answers and hash fingerprints are derived from it, so every replica
	// with the same master key replays what another kept.
	MasterKey [32]byte
	// Errors makes the caller's errors.
	Errors Errors
	// Now returns the current time; default time.Now.
	Now func() time.Time
	// Logger receives the failures to keep an answer; default discards.
	Logger *slog.Logger
	// SweepInterval is how often expired records are removed: a new key
	// refused because the application holds too many is told to retry
	// after it, and after a minute at the least.
	SweepInterval time.Duration
}

// Service runs the writes of every application once per Idempotency-Key:
// the one implementation behind the Idempotency-Key header and the Go
// write methods' WriteOptions.IdempotencyKey. [Service.App] gives one
// application's side of it.
type Service struct {
	runner    *Runner
	store     Store
	errors    Errors
	fullRetry time.Duration
}

// NewService returns the Service cfg describes.
func NewService(cfg Config) *Service {
	return &Service{runner: New(cfg), store: cfg.Store, errors: cfg.Errors, fullRetry: max(cfg.SweepInterval, time.Minute)}
}

// App returns the side of s of the application appID.
func (s *Service) App(appID string) App { return App{s: s, id: appID} }

// App runs one application's writes once per key.
type App struct {
	s  *Service
	id string
}

// Run runs run at most once for the application's key. fingerprint
// identifies the request (the HTTP layer hashes the method, path, query
// and body; a Go call its method's name, arguments and options); a
// request is a retry when its key and fingerprint match.
//
//   - The first request claims the key and runs run with a context that
//     the caller's cancellation does not end (its deadline stays; without
//     one, two minutes). A kept answer (see [Keeps]) is returned and
//     stored, sealed, for a day (over 64 KiB, its status alone: a retry
//     is CodeConflict); another is returned, key freed.
//   - A retry gets the kept answer with replayed true; run is not called.
//   - A retry while the first runs is CodeConflict, with RetryAfter; once
//     the first attempt's lease (its deadline plus a margin) has passed
//     without an answer, its process is taken to have died: the retry runs.
//   - A request with a key first used with another fingerprint is
//     CodeKeyReused; a bad key is CodeInvalid; a new key of an
//     application holding 100,000 records or 64 MiB of kept answers is
//     CodeRateLimited. All name Idempotency-Key.
func (a App) Run(ctx context.Context, key, fingerprint string, run func(context.Context) Answer) (Answer, bool, error) {
	if msg := CheckKey(key); msg != "" {
		return Answer{}, false, a.s.errors.Make(Failure{Code: CodeInvalid, Field: KeyField, Message: msg})
	}
	ans, replayed, err := a.s.runner.Run(ctx, storeKeys{a, key}, a.id, key, fingerprint, Keeps, run)
	refuse := func(f Failure) (Answer, bool, error) {
		f.Field = KeyField
		return ans, false, a.s.errors.Make(f)
	}
	switch {
	case errors.Is(err, ErrKeyReused):
		return refuse(Failure{Code: CodeKeyReused,
			Message: "This Idempotency-Key was used with another request (method, path, query or body); use a new key for a new request."})
	case errors.Is(err, ErrRunning):
		// A second: most writes finish within it, and the lease, which
		// may be minutes away, is only the bound for a dead attempt.
		return refuse(Failure{Code: CodeConflict, RetryAfter: time.Second,
			Message: "A request with this Idempotency-Key is still running; retry after the seconds in Retry-After to get its answer."})
	case errors.Is(err, ErrNotKept):
		return refuse(Failure{Code: CodeConflict, Message: fmt.Sprintf("The request with this Idempotency-Key was done, but its answer was larger than %d KiB and is not kept; read the resource to see it.", MaxKeptBody>>10)})
	case errors.Is(err, ErrUnopened):
		return ans, false, a.s.errors.Make(Failure{Code: CodeInternal, Message: "Internal error.", Err: err})
	}
	return ans, replayed, err
}

// storeKeys is the Store's records of one key of the application.
type storeKeys struct {
	a   App
	key string
}

func (k storeKeys) Begin(ctx context.Context, c *Claim) (*Held, error) {
	s := k.a.s
	held, err := s.store.BeginIdempotent(ctx, &Record{ApplicationID: k.a.id, Key: k.key, Fingerprint: c.Fingerprint,
		Claim: c.ID, CreatedAt: c.CreatedAt, LeaseExpiry: c.LeaseExpiry, ExpiresAt: c.ExpiresAt}, MaxKeys, MaxBytes)
	if err != nil && s.errors.Read(err).Code == CodeRateLimited {
		// Space comes back when the sweep removes expired records.
		return nil, s.errors.Make(Failure{Code: CodeRateLimited, Field: KeyField, RetryAfter: s.fullRetry,
			Message: fmt.Sprintf("This application holds the most Idempotency-Keys kept (%d keys or %d MiB of answers of the last %s); retry after the seconds in Retry-After, or send the write without a key.", MaxKeys, MaxBytes>>20, TTL)})
	}
	if err != nil || held == nil {
		return nil, err
	}
	out := &Held{Fingerprint: held.Fingerprint}
	if r := held.Response; r != nil {
		out.Kept = &Answer{Status: r.Status, Code: r.Code, Body: r.SealedBody}
	}
	return out, nil
}

func (k storeKeys) Complete(ctx context.Context, c *Claim, kept *Answer) error {
	var resp *Response
	if kept != nil {
		resp = &Response{Status: kept.Status, Code: kept.Code, SealedBody: kept.Body}
	}
	return k.a.s.store.CompleteIdempotent(ctx, k.a.id, k.key, c.ID, resp)
}
