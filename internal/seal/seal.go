// Package seal encrypts secrets at rest and in opaque tokens with
// AES-256-GCM (NIST SP 800-38D), derives purpose-bound keys from one master
// key, and loads or creates that master key.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the size of a master key: 32 bytes for AES-256.
const KeySize = 32

// Key is a 256-bit key.
type Key [KeySize]byte

// ErrOpen is returned when sealed data is not authentic: tampered with,
// truncated, sealed under another key or for another purpose.
var ErrOpen = errors.New("seal: message authentication failed")

// NewKey returns a random key.
func NewKey() Key {
	var k Key
	if _, err := rand.Read(k[:]); err != nil {
		panic("seal: no randomness: " + err.Error())
	}
	return k
}

// ParseKey reads a key written as 64 hex digits or as standard or URL-safe
// base64 of 32 bytes.
func ParseKey(s string) (Key, error) {
	var k Key
	s = strings.TrimSpace(s)
	var b []byte
	var err error
	switch {
	case len(s) == 2*KeySize:
		b, err = hex.DecodeString(s)
	default:
		b, err = base64.StdEncoding.DecodeString(s)
		if err != nil {
			b, err = base64.URLEncoding.DecodeString(s)
		}
		if err != nil {
			b, err = base64.RawURLEncoding.DecodeString(s)
		}
	}
	if err != nil || len(b) != KeySize {
		return k, errors.New("seal: a master key is 32 bytes written as 64 hex digits or base64")
	}
	copy(k[:], b)
	return k, nil
}

// String writes the key as base64; it is what ParseKey reads.
func (k Key) String() string { return base64.StdEncoding.EncodeToString(k[:]) }

// LoadOrCreateKeyFile reads the key in path, or creates the file with a
// new random key and mode 0600 when it does not exist. A key file readable
// by group or others is refused, as ssh does with private keys.
//
// A new key file is synced to disk, and so is its folder's entry for it,
// before the key is returned: data sealed with a key that a crash then
// loses could never be opened again.
func LoadOrCreateKeyFile(path string) (k Key, created bool, err error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		k = NewKey()
		if err := writeKeyFile(path, k); err != nil {
			return Key{}, false, err
		}
		return k, true, nil
	case err != nil:
		return k, false, fmt.Errorf("seal: key file: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return k, false, fmt.Errorf("seal: key file %s has mode %v; it must not be readable by group or others (chmod 600)", path, info.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return k, false, fmt.Errorf("seal: read key file: %w", err)
	}
	k, err = ParseKey(string(b))
	return k, false, err
}

// writeKeyFile creates path with k, durably. A failure removes what was
// written, so that the next start does not find half a key.
func writeKeyFile(path string, k Key) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("seal: create key file: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(path)
		}
	}()
	_, err = f.WriteString(k.String() + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("seal: write key file: %w", err)
	}
	// The file's contents are on disk; its name is not until the folder is
	// synced too.
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("seal: sync key file folder: %w", err)
	}
	err = dir.Sync()
	if cerr := dir.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("seal: sync key file folder: %w", err)
	}
	return nil
}

// Derive returns the subkey of k for purpose, HMAC-SHA256(k, purpose), so
// that one master key serves several purposes without reuse across them.
func (k Key) Derive(purpose string) Key {
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte("unical/" + purpose))
	var out Key
	copy(out[:], m.Sum(nil))
	return out
}

// Sealer seals and opens data with AES-256-GCM. It is safe for concurrent use.
type Sealer struct {
	aead cipher.AEAD
}

// New returns a Sealer for key.
func New(key Key) *Sealer {
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic("seal: " + err.Error()) // cannot happen with a 32-byte key
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("seal: " + err.Error())
	}
	return &Sealer{aead: aead}
}

// Seal encrypts and authenticates plaintext, binding it to ad (associated
// data that must be given again to open it). The result is nonce||ciphertext.
func (s *Sealer) Seal(plaintext, ad []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic("seal: no randomness: " + err.Error())
	}
	return s.aead.Seal(nonce, nonce, plaintext, ad)
}

// Open decrypts what Seal returned for the same ad, or returns ErrOpen.
func (s *Sealer) Open(sealed, ad []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return nil, ErrOpen
	}
	out, err := s.aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return out, nil
}

// SealString seals plaintext into URL-safe base64 without padding, for
// tokens that travel in query strings.
func (s *Sealer) SealString(plaintext, ad []byte) string {
	return base64.RawURLEncoding.EncodeToString(s.Seal(plaintext, ad))
}

// OpenString opens what SealString returned.
func (s *Sealer) OpenString(token string, ad []byte) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return nil, ErrOpen
	}
	return s.Open(b, ad)
}

// HashSecret returns the SHA-256 of an API key's secret part. API keys carry
// 256 random bits, so a fast unsalted hash is enough: there is nothing to
// brute-force.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// Equal compares two hashes in constant time.
func Equal(a, b []byte) bool { return hmac.Equal(a, b) }

// SecretMatches reports whether secret hashes to hash (HashSecret),
// comparing in constant time. It hashes into an array, not a new slice,
// because it runs on every API request.
func SecretMatches(hash []byte, secret string) bool {
	h := sha256.Sum256([]byte(secret))
	return hmac.Equal(hash, h[:])
}
