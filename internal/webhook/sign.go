package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header names of the Standard Webhooks scheme.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// secretPrefix starts a symmetric Standard Webhooks secret.
const secretPrefix = "whsec_"

// ErrBadSecret is returned for a secret that is not base64 after its
// optional whsec_ prefix, or is empty.
var ErrBadSecret = errors.New("webhook: secret is not whsec_ followed by base64")

// NewSecret returns a new secret as receivers get it: "whsec_" and the
// standard base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("webhook: no randomness: " + err.Error())
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Signer signs messages with one secret. It is safe for concurrent use.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer for a secret as receivers get it: "whsec_"
// and the standard base64 of the key bytes. The prefix is optional, as in
// the reference libraries.
func NewSigner(secret string) (*Signer, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) == 0 {
		return nil, ErrBadSecret
	}
	return &Signer{key: key}, nil
}

// Sign returns the webhook-signature value for one attempt of a message:
// "v1," and the base64 of HMAC-SHA256 over id "." timestamp "." body.
// Standard Webhooks forbids "." in the id and the timestamp is an integer,
// so the signed content is unambiguous.
func (s *Signer) Sign(id string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(ts.Unix(), 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Headers returns the three Standard Webhooks headers and the JSON content
// type for one attempt. The timestamp is the attempt's, so a retry carries a
// fresh one that passes the receivers' five-minute tolerance, while the id
// stays the message's.
func (s *Signer) Headers(id string, ts time.Time, body []byte) map[string][]string {
	return map[string][]string{
		HeaderID:        {id},
		HeaderTimestamp: {strconv.FormatInt(ts.Unix(), 10)},
		HeaderSignature: {s.Sign(id, ts, body)},
		"Content-Type":  {"application/json"},
	}
}

// EventTypeTest is the event type of a test message, which an operator
// sends to an endpoint to see it receive and verify a signed message
// (package engine's SendTestMessage). It says nothing about a calendar or
// an account: a receiver acknowledges it.
const EventTypeTest = "webhook.test"
