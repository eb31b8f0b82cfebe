package identity

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Claims are the claims of an ID token (OpenID Connect Core 1.0 §2) and
// of a userinfo answer (§5.3.2) that unical reads.
type Claims struct {
	Issuer   string   `json:"iss"`
	Audience Audience `json:"aud"`
	Subject  string   `json:"sub"`
	Email    string   `json:"email"`
	// EmailVerified is Google's email_verified: true only when the
	// provider verified the address.
	EmailVerified Bool `json:"email_verified"`
	// ObjectID and TenantID are Microsoft's oid and tid.
	ObjectID string `json:"oid"`
	TenantID string `json:"tid"`
	// PreferredUsername is Microsoft's sign-in name (the user principal
	// name of a work or school account), sent with the profile scope.
	PreferredUsername string `json:"preferred_username"`
}

// Audience is the aud claim: one string or an array of them (OpenID
// Connect Core §2).
type Audience []string

// UnmarshalJSON reads either form.
func (a *Audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = Audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("identity: aud is neither a string nor an array of strings")
	}
	*a = many
	return nil
}

// Bool is a boolean claim. Google documents email_verified as a boolean;
// some of its answers have carried the string "true", which is read as
// true too. Anything else, or nothing, is false.
type Bool bool

// UnmarshalJSON reads true, false, "true" and "false".
func (v *Bool) UnmarshalJSON(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "true", `"true"`:
		*v = true
	case "false", `"false"`, "null":
		*v = false
	default:
		return errors.New("identity: a boolean claim is neither true nor false")
	}
	return nil
}

// ErrMalformed is returned for an ID token that is not a JWT with a JSON
// object of claims.
var ErrMalformed = errors.New("identity: malformed ID token")

// maxIDToken bounds what DecodeIDToken reads; real ID tokens are a few
// kilobytes.
const maxIDToken = 16 << 10

// DecodeIDToken returns the claims of an ID token (a JWS in compact
// serialisation, RFC 7515 §7.1) issued to clientID, without checking
// its signature: unical takes ID tokens only from the provider's token
// endpoint, over TLS, in the same answer as the access token, where
// OpenID Connect Core §3.1.3.7 (6) lets "the TLS server validation" stand
// in for the signature. The audience must include clientID.
func DecodeIDToken(raw, clientID string) (*Claims, error) {
	if len(raw) > maxIDToken {
		return nil, ErrMalformed
	}
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return nil, ErrMalformed
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, ErrMalformed
	}
	var c Claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, ErrMalformed
	}
	if !slices.Contains(c.Audience, clientID) {
		return nil, errors.New("identity: the ID token was issued to another client")
	}
	return &c, nil
}
