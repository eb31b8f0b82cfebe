// Package webhookreceiver is the receiving end of unical's webhooks for Go
// programs: it verifies a delivery's Standard Webhooks signature and
// timestamp, decodes its JSON payload into typed events, and adapts both
// into an http.Handler that calls a typed callback.
//
// unical signs every delivery as Standard Webhooks
// (https://www.standardwebhooks.com/) describes: the headers webhook-id
// (the message id, the same on every retry), webhook-timestamp (Unix
// seconds of the attempt) and webhook-signature ("v1," and the base64 of
// HMAC-SHA256 over id "." timestamp "." body, keyed with the base64-decoded
// "whsec_" endpoint secret). A Verifier checks them over the raw request
// body, before anything is decoded.
//
// Delivery is at least once: the same message can arrive more than once,
// always with the same [Message.ID]. Receivers that must act once
// deduplicate on it.
package webhookreceiver

import (
	"crypto/hmac"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/webhook"
)

// DefaultTolerance is how far a delivery's webhook-timestamp may be from
// the receiver's clock, in either direction, when Config.Tolerance is zero:
// the five minutes Standard Webhooks recommends. unical stamps each attempt
// afresh, so a retry passes it too.
const DefaultTolerance = 5 * time.Minute

// Header names of the Standard Webhooks scheme, as unical sends them.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Causes of a refused delivery. The errors returned by [Verifier.Verify]
// and [Decode] are *unical.Error values (CodeInvalid or CodeUnauthorized,
// with Field naming the header or payload field) that wrap one of these,
// so both errors.Is and unical.ErrorCode work on them.
var (
	// ErrMissingHeader: one of the three headers is absent or empty.
	ErrMissingHeader = errors.New("webhookreceiver: missing header")
	// ErrBadTimestamp: webhook-timestamp is not whole Unix seconds.
	ErrBadTimestamp = errors.New("webhookreceiver: webhook-timestamp is not Unix seconds")
	// ErrNoMatchingSignature: no v1 signature in webhook-signature matches
	// the id, timestamp and body under any of the secrets.
	ErrNoMatchingSignature = errors.New("webhookreceiver: no matching signature")
	// ErrTooOld: the signature matches but the timestamp is older than the
	// tolerance: a replay, or a clock far behind.
	ErrTooOld = errors.New("webhookreceiver: message timestamp too old")
	// ErrTooNew: the signature matches but the timestamp is further ahead
	// than the tolerance.
	ErrTooNew = errors.New("webhookreceiver: message timestamp too new")
	// ErrBadPayload: the verified body is not a unical message.
	ErrBadPayload = errors.New("webhookreceiver: payload is not a unical message")
)

// Config configures a Verifier.
type Config struct {
	// Secrets are the endpoint secrets ("whsec_" and base64, as unical
	// shows them once) that a delivery may be signed with; at least one.
	// Each subscription and the application's own endpoint have their own
	// secret, so a receiver that takes several of them on one URL lists
	// them all. The "whsec_" prefix is optional, as in the reference
	// libraries.
	Secrets []string
	// Tolerance is how far webhook-timestamp may be from Now, in either
	// direction; zero means DefaultTolerance. Negative is refused.
	Tolerance time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Verifier checks Standard Webhooks signatures and timestamps. It is safe
// for concurrent use.
type Verifier struct {
	signers   []*webhook.Signer
	tolerance time.Duration
	now       func() time.Time
}

// NewVerifier returns a Verifier for cfg. It fails with a CodeInvalid
// *unical.Error naming "secrets" or "tolerance" when there is no secret, a
// secret is not base64 after its optional "whsec_" prefix, or the tolerance
// is negative. The error never repeats a secret.
func NewVerifier(cfg Config) (*Verifier, error) {
	if len(cfg.Secrets) == 0 {
		return nil, unical.FieldError("secrets", "At least one endpoint secret is required.")
	}
	if cfg.Tolerance < 0 {
		return nil, unical.FieldError("tolerance", "The timestamp tolerance must not be negative.")
	}
	v := &Verifier{tolerance: cfg.Tolerance, now: cfg.Now}
	if v.tolerance == 0 {
		v.tolerance = DefaultTolerance
	}
	if v.now == nil {
		v.now = time.Now
	}
	for i, secret := range cfg.Secrets {
		s, err := webhook.NewSigner(secret)
		if err != nil {
			return nil, unical.FieldError("secrets", "Secret %d is not an endpoint secret (whsec_ followed by base64).", i+1)
		}
		v.signers = append(v.signers, s)
	}
	return v, nil
}

// Verify checks a delivery's headers against its raw body, exactly as
// received (before any decoding), and decodes the payload. It returns a
// CodeInvalid error for a missing or malformed header or a payload that is
// not a unical message, and a CodeUnauthorized one when no signature
// matches or the timestamp is outside the tolerance.
//
// webhook-signature may hold several space-separated signatures; any
// matching "v1," one is enough, and other versions are skipped, as
// Standard Webhooks requires. Signatures are compared in constant time.
func (v *Verifier) Verify(header http.Header, body []byte) (*Message, error) {
	id, ts, err := v.verify(header, body)
	if err != nil {
		return nil, err
	}
	ev, err := Decode(body)
	if err != nil {
		return nil, err
	}
	return &Message{ID: id, Timestamp: ts, Event: ev, Body: body}, nil
}

// verify checks the headers and signature and returns the message id and
// the attempt's timestamp.
func (v *Verifier) verify(header http.Header, body []byte) (string, time.Time, error) {
	id, rawTS := header.Get(HeaderID), header.Get(HeaderTimestamp)
	// Every webhook-signature line counts, in case a proxy split them.
	sigs := strings.Fields(strings.Join(header.Values(HeaderSignature), " "))
	for _, h := range []struct {
		name    string
		missing bool
	}{{HeaderID, id == ""}, {HeaderTimestamp, rawTS == ""}, {HeaderSignature, len(sigs) == 0}} {
		if h.missing {
			return "", time.Time{}, &unical.Error{Code: unical.CodeInvalid, Field: h.name, Message: "The " + h.name + " header is required.", Err: ErrMissingHeader}
		}
	}
	secs, err := strconv.ParseInt(rawTS, 10, 64)
	if err != nil {
		return "", time.Time{}, &unical.Error{Code: unical.CodeInvalid, Field: HeaderTimestamp, Message: "webhook-timestamp must be whole Unix seconds.", Err: ErrBadTimestamp}
	}
	ts := time.Unix(secs, 0)
	if !v.matches(id, ts, body, sigs) {
		return "", time.Time{}, &unical.Error{Code: unical.CodeUnauthorized, Field: HeaderSignature, Message: "No signature matches the message.", Err: ErrNoMatchingSignature}
	}
	// The timestamp is judged after the signature, so that an old or
	// future timestamp is reported only for an authentic message (clock
	// skew), and a forgery always reads as a forgery.
	now := v.now()
	switch {
	case now.Sub(ts) > v.tolerance:
		return "", time.Time{}, &unical.Error{Code: unical.CodeUnauthorized, Field: HeaderTimestamp, Message: "webhook-timestamp is older than the tolerance.", Err: ErrTooOld}
	case ts.Sub(now) > v.tolerance:
		return "", time.Time{}, &unical.Error{Code: unical.CodeUnauthorized, Field: HeaderTimestamp, Message: "webhook-timestamp is further ahead than the tolerance.", Err: ErrTooNew}
	}
	return id, ts, nil
}

// matches reports whether one of the v1 signatures is the message's under
// one of the secrets. The whole "v1,<base64>" token is compared, in
// constant time, with the one computed by the signer unical itself uses.
func (v *Verifier) matches(id string, ts time.Time, body []byte, sigs []string) bool {
	for _, s := range v.signers {
		want := []byte(s.Sign(id, ts, body))
		for _, sig := range sigs {
			if strings.HasPrefix(sig, "v1,") && hmac.Equal([]byte(sig), want) {
				return true
			}
		}
	}
	return false
}
