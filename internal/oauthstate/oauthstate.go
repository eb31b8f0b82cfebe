// Package oauthstate carries an OAuth sign-in in progress inside the
// state parameter itself (RFC 6749 §4.1.1, §10.12), so that the authorize
// step writes nothing on the server.
//
// The state is the flow (its single-use id, application, provider, PKCE
// verifier, a hash of the redirect URL, the caller's state and login hint,
// and its expiry) sealed with AES-256-GCM under a key derived from the
// master key: only a server holding that key can make or read one, every
// replica can open what another made, and the browser carries it to the
// provider and back without learning the verifier. Single use is the
// caller's part: it records the id of a state it has accepted until the
// state expires.
package oauthstate

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"

	"github.com/unical/unical/internal/seal"
)

// Flow is what a state carries.
type Flow struct {
	// ID is random and names the flow for the single-use check.
	ID            string
	ApplicationID string
	ProviderType  string
	// RedirectHash is RedirectHash(redirectUrl): the URL itself need not
	// travel, because it must be one the application registered, and a
	// URL removed meanwhile no longer matches.
	RedirectHash []byte
	State        string
	LoginHint    string
	// Verifier is the PKCE code verifier (RFC 7636).
	Verifier  string
	ExpiresAt time.Time
}

// version is the first byte of a sealed flow; a later layout takes the
// next value, so that a state made by an older replica is recognised.
const version = 1

// ad binds a sealed state to its purpose.
var ad = []byte("unical/oauth-state/v1")

// ErrInvalid is returned for a state that was not made by this key, was
// changed, or is not a state.
var ErrInvalid = errors.New("oauthstate: not a state issued by this server")

// New returns a flow with a fresh random id and PKCE verifier.
func New() *Flow {
	return &Flow{ID: random(16), Verifier: random(32)}
}

// random returns n random bytes as URL-safe base64.
func random(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("oauthstate: no randomness: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// RedirectHash is the hash a Flow carries for a redirect URL.
func RedirectHash(redirectURL string) []byte {
	sum := sha256.Sum256([]byte(redirectURL))
	return sum[:16]
}

// Challenge is the S256 code challenge of the flow's verifier.
func (f *Flow) Challenge() string {
	sum := sha256.Sum256([]byte(f.Verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Seal returns f as a state value: URL-safe base64, about 1.4 times the
// length of the caller's state and login hint plus 150 bytes.
func Seal(s *seal.Sealer, f *Flow) string {
	b := []byte{version}
	b = binary.BigEndian.AppendUint64(b, uint64(f.ExpiresAt.Unix()))
	for _, field := range [][]byte{[]byte(f.ID), []byte(f.ApplicationID), []byte(f.ProviderType), f.RedirectHash,
		[]byte(f.State), []byte(f.LoginHint), []byte(f.Verifier)} {
		b = binary.AppendUvarint(b, uint64(len(field)))
		b = append(b, field...)
	}
	return s.SealString(b, ad)
}

// Open reads a state value made by Seal with the same key. It does not
// look at the expiry: that is the caller's clock's to judge.
func Open(s *seal.Sealer, state string) (*Flow, error) {
	b, err := s.OpenString(state, ad)
	if err != nil || len(b) < 9 || b[0] != version {
		return nil, ErrInvalid
	}
	f := &Flow{ExpiresAt: time.Unix(int64(binary.BigEndian.Uint64(b[1:9])), 0).UTC()}
	b = b[9:]
	var fields [7][]byte
	for i := range fields {
		n, size := binary.Uvarint(b)
		if size <= 0 || n > uint64(len(b)-size) {
			return nil, ErrInvalid
		}
		fields[i], b = b[size:size+int(n)], b[size+int(n):]
	}
	if len(b) != 0 {
		return nil, ErrInvalid
	}
	f.ID, f.ApplicationID, f.ProviderType, f.RedirectHash = string(fields[0]), string(fields[1]), string(fields[2]), fields[3]
	f.State, f.LoginHint, f.Verifier = string(fields[4]), string(fields[5]), string(fields[6])
	return f, nil
}
