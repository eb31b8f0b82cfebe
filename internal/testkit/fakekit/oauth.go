package fakekit

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
)

// PKCEMatches reports whether verifier answers the code challenge of an
// authorization request made with method "S256" or "plain" (RFC 7636
// §4.6: S256 compares BASE64URL(SHA256(verifier)) with the challenge). An
// empty verifier never matches.
func PKCEMatches(method, challenge, verifier string) bool {
	if verifier == "" {
		return false
	}
	want := verifier
	if method == "S256" {
		sum := sha256.Sum256([]byte(verifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

// RandomString returns n characters drawn from alphabet with crypto/rand:
// codes, tokens and ids a client must not guess.
func RandomString(n int, alphabet string) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("fakekit: crypto/rand: %v", err))
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// Alphabets for RandomString.
const (
	Alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	Lower = "abcdefghijklmnopqrstuvwxyz"
)

// signer is one RS256 key for every fake in the test binary, made on
// first use: RSA key generation is slow under -race.
var signer struct {
	once sync.Once
	key  *rsa.PrivateKey
	kid  string
}

func signingKey() (*rsa.PrivateKey, string) {
	signer.once.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(fmt.Sprintf("fakekit: generate RSA key: %v", err))
		}
		signer.key, signer.kid = k, "fake-"+RandomString(16, Alnum)
	})
	return signer.key, signer.kid
}

// SignJWT returns claims as a compact JWT signed with RS256 under the key
// JWKS publishes (RFC 7515, RFC 7519).
func SignJWT(claims map[string]any) string {
	k, kid := signingKey()
	signing := segment(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"}) + "." + segment(claims)
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:])
	if err != nil {
		panic(fmt.Sprintf("fakekit: sign JWT: %v", err))
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// UnsignedJWT returns claims as a compact JWT with "alg": "none" and an
// empty signature, for a fake whose client must not rely on a signature
// (a client that does fails instead of trusting it).
func UnsignedJWT(claims map[string]any) string {
	return segment(map[string]string{"typ": "JWT", "alg": "none"}) + "." + segment(claims) + "."
}

// JWKS returns the JSON Web Key Set (RFC 7517) that verifies SignJWT's
// tokens, as a certs or jwks_uri endpoint serves it.
func JWKS() map[string]any {
	k, kid := signingKey()
	return map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
		"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()),
	}}}
}

func segment(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakekit: encode JWT segment: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
