// Package idempotency runs a write at most once per application and
// Idempotency-Key, with Stripe's semantics: the first request claims the
// key and its answer is kept, sealed, for TTL; every retry of the same
// request gets that answer instead of running again. Its [Service] is the
// one implementation behind unical's Idempotency-Key header and the Go
// write methods' WriteOptions.IdempotencyKey alike: unical.New builds one
// over the Client's Store, and App.Idempotency gives an application's
// side of it ([App.Run] for an encoded answer, [Do] for a Go call). It
// also holds the contract a Store implements for it ([Store], part of
// unical.Store); [Runner] is the claim and replay over one key's records.
//
//   - The first request runs with a context that the caller's
//     cancellation does not end (its deadline stays; without one,
//     DefaultTimeout), so that an answer lost on the way back is still
//     kept.
//   - A retry while the first runs is [ErrRunning]; once the first
//     attempt's lease (its deadline plus a margin) has passed without an
//     answer, its process is taken to have died and the retry runs.
//   - A key first used with another fingerprint is [ErrKeyReused].
//
// The package does not import unical: it spells unical's error codes as
// strings and makes unical's errors through [Errors].
package idempotency

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/internal/seal"
)

// TTL is how long a kept answer, and the key with it, lasts.
const TTL = 24 * time.Hour

// MaxKeys bounds the records an application holds at once (each lasts
// TTL): one keyed write every 0.9 seconds, day and night. Past it a write
// with a new key is refused until the sweep removes expired ones; retries
// of held keys still get their answers, and writes without a key are not
// affected. Refusing is what a caller can act on, where dropping the
// oldest records would silently turn a late retry into a second write.
const MaxKeys = 100_000

// MaxKeptBody bounds the body of a kept answer, in bytes before sealing.
// A larger answer (a long page, an event with a large description read
// from a provider) keeps its status and code but not its body: a retry is
// then told, with [ErrNotKept], how the first request ended and that the
// resource must be read again. Keeping it whole would let one key hold
// megabytes for TTL.
const MaxKeptBody = 64 << 10

// MaxBytes bounds the kept bodies (sealed) an application holds at once:
// past it a write with a new key is refused as past MaxKeys, until the
// sweep removes expired records. With MaxKeptBody it bounds what one
// application's keys can add to the Store in a day.
const MaxBytes = 64 << 20

// MaxKeyLen is the longest key accepted, in bytes.
const MaxKeyLen = 255

// DefaultTimeout bounds an attempt whose context has no deadline, so that
// its claim's lease is always finite.
const DefaultTimeout = 2 * time.Minute

// leaseMargin is added to an attempt's deadline to make the lease of its
// claim: the time to write the answer after the deadline. Until the lease
// ends, a retry is told the first attempt runs; after, the retry runs
// again, because the first attempt's process died.
const leaseMargin = 30 * time.Second

// completeTimeout bounds writing the answer after the attempt, which runs
// even when the caller has gone away.
const completeTimeout = 10 * time.Second

// CheckKey returns what is wrong with key, "" when nothing: a key is 1 to
// MaxKeyLen visible ASCII characters (0x21 to 0x7E), so that a UUID or any
// token a client makes fits and the key travels in an HTTP header
// unchanged.
func CheckKey(key string) string {
	if key == "" || len(key) > MaxKeyLen {
		return fmt.Sprintf("Idempotency-Key must be 1 to %d characters long.", MaxKeyLen)
	}
	for i := range len(key) {
		if c := key[i]; c < 0x21 || c > 0x7e {
			return "Idempotency-Key must hold only visible ASCII characters (no spaces)."
		}
	}
	return ""
}

// Answer is an encoded answer: what Run keeps and replays.
type Answer struct {
	// Status is the HTTP status; 0 for an answer of a Go call.
	Status int
	// Code is the error code; "" for a success.
	Code string
	// Body is the encoded answer, byte for byte; sealed in the Store.
	Body []byte
}

// Claim is an attempt's hold on a key.
type Claim struct {
	// ID identifies the attempt, so that one whose lease ran out and was
	// taken over cannot complete the key.
	ID string
	// Fingerprint is the HMAC of the request's fingerprint: the Store
	// must not keep a guessable hash of a body that holds a password.
	Fingerprint string
	CreatedAt   time.Time
	LeaseExpiry time.Time
	ExpiresAt   time.Time
}

// Held is the record that holds a key when another attempt claimed it.
type Held struct {
	Fingerprint string
	// Kept is the kept answer, its body sealed; nil while that attempt
	// runs.
	Kept *Answer
}

// Keys claims and completes one key of one application: a Service's
// are its [Store]'s records.
type Keys interface {
	// Begin claims the key for c in one atomic step and returns nil, or
	// stores nothing and returns the record that holds the key.
	Begin(ctx context.Context, c *Claim) (*Held, error)
	// Complete ends claim c: it keeps kept (its body sealed) as the key's
	// answer, or frees the key when kept is nil.
	Complete(ctx context.Context, c *Claim, kept *Answer) error
}

// The answers to a request whose key another attempt holds, when there is
// no kept answer to replay.
var (
	ErrKeyReused = errors.New("idempotency: the key was used with another request")
	ErrRunning   = errors.New("idempotency: the first request with the key still runs")
	// ErrUnopened wraps the failure to open a kept answer.
	ErrUnopened = errors.New("idempotency: the kept answer does not open")
	// ErrNotKept is a retry of a request whose answer was larger than
	// MaxKeptBody: Run returns it with the kept status and code, and no
	// body.
	ErrNotKept = errors.New("idempotency: the answer was too large to keep")
)

// Runner runs requests once per key.
type Runner struct {
	sealer         *seal.Sealer
	fingerprintKey seal.Key
	now            func() time.Time
	log            *slog.Logger
}

// New returns a Runner whose keys are derived from cfg.MasterKey, with
// cfg.Now and cfg.Logger (default time.Now and none); a Runner uses no
// other field of cfg.
func New(cfg Config) *Runner {
	now, log := cfg.Now, cfg.Logger
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	master := seal.Key(cfg.MasterKey)
	return &Runner{sealer: seal.New(master.Derive("idempotency")), fingerprintKey: master.Derive("idempotency-fingerprint"), now: now, log: log}
}

// Run runs run at most once for key of application appID, whose records
// keys holds. fingerprint identifies the request; a request is a retry
// when its key and fingerprint match. An answer whose code keep accepts
// is stored until TTL (its body only up to MaxKeptBody); another is
// returned and the key freed. A retry gets the kept answer with replayed
// true, or ErrNotKept, and run is not called.
func (r *Runner) Run(ctx context.Context, keys Keys, appID, key, fingerprint string, keep func(code string) bool, run func(context.Context) Answer) (ans Answer, replayed bool, err error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, false, err
	}
	// The attempt outlives its caller, but not its deadline.
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultTimeout)
	}
	runCtx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()

	mac := hmac.New(sha256.New, r.fingerprintKey[:])
	mac.Write([]byte(fingerprint))
	now := r.now().UTC()
	claim := &Claim{
		ID:          ids.New("claim"),
		Fingerprint: hex.EncodeToString(mac.Sum(nil)),
		CreatedAt:   now,
		LeaseExpiry: now.Add(time.Until(deadline) + leaseMargin),
		ExpiresAt:   now.Add(TTL),
	}
	ad := []byte("idempotency/" + appID + "/" + key)
	held, err := keys.Begin(ctx, claim)
	if err != nil {
		return Answer{}, false, err
	}
	if held != nil {
		switch {
		case held.Fingerprint != claim.Fingerprint:
			return Answer{}, false, ErrKeyReused
		case held.Kept == nil:
			return Answer{}, false, ErrRunning
		}
		if len(held.Kept.Body) == 0 {
			// A sealed body is never empty: this answer was too large.
			return Answer{Status: held.Kept.Status, Code: held.Kept.Code}, false, ErrNotKept
		}
		body, err := r.sealer.Open(held.Kept.Body, ad)
		if err != nil {
			return Answer{}, false, fmt.Errorf("%w: %w", ErrUnopened, err)
		}
		return Answer{Status: held.Kept.Status, Code: held.Kept.Code, Body: body}, true, nil
	}

	// kept is written when the attempt ends, also by a panic, which
	// frees the key as a 500 would.
	var kept *Answer
	defer func() {
		storeCtx, cancelStore := context.WithTimeout(context.WithoutCancel(ctx), completeTimeout)
		defer cancelStore()
		if err := keys.Complete(storeCtx, claim, kept); err != nil {
			// The caller still gets the answer; the claim lapses with
			// its lease and a retry then runs again.
			r.log.ErrorContext(ctx, "keep the answer of an idempotent request", "app", appID, "err", err)
		}
	}()
	ans = run(runCtx)
	switch {
	case !keep(ans.Code):
	case len(ans.Body) > MaxKeptBody:
		kept = &Answer{Status: ans.Status, Code: ans.Code}
	default:
		kept = &Answer{Status: ans.Status, Code: ans.Code, Body: r.sealer.Seal(ans.Body, ad)}
	}
	return ans, false, nil
}
