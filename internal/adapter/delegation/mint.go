package delegation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/unical/unical"
)

// Secret is the sealed part of a delegation credential: package admin
// seals it as JSON, and the providers read it from
// [unical.DelegationGrant.Secret].
type Secret struct {
	ServiceAccountKey json.RawMessage `json:"serviceAccountKey,omitempty"`
	ClientSecret      string          `json:"clientSecret,omitempty"`
}

// GoogleOf returns the Workspace credential of g.
func GoogleOf(g *unical.DelegationGrant) (*Google, error) {
	var s Secret
	if err := json.Unmarshal(g.Secret, &s); err != nil || len(s.ServiceAccountKey) == 0 {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return &Google{ServiceAccountKey: s.ServiceAccountKey, ClientID: g.Credential.ClientID, TokenURL: g.Credential.TokenURL, APIBaseURL: g.Credential.APIBaseURL}, nil
}

// MicrosoftOf returns the Microsoft 365 credential of g.
func MicrosoftOf(g *unical.DelegationGrant) (*Microsoft, error) {
	var s Secret
	if err := json.Unmarshal(g.Secret, &s); err != nil || s.ClientSecret == "" {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return &Microsoft{TenantID: g.Credential.TenantID, ClientID: g.Credential.ClientID, ClientSecret: s.ClientSecret,
		TokenURL: g.Credential.TokenURL, APIBaseURL: g.Credential.APIBaseURL}, nil
}

// Minter mints the tokens of delegated accounts and keeps each until
// shortly before it expires, so that a session costs no token request.
// A provider holds one; it is safe for concurrent use.
type Minter struct {
	// HTTPClient sends the token requests.
	HTTPClient *http.Client
	// Now is the clock of token expiry; nil is time.Now.
	Now func() time.Time

	mu     sync.Mutex
	tokens map[string]*oauth2.Token
}

// minterMargin is how long before its expiry a kept token is minted
// again, so that no request goes out with a token about to expire.
const minterMargin = 2 * time.Minute

// maxMinted bounds the kept tokens; past it, the Minter starts over.
const maxMinted = 10_000

// GoogleToken returns an access token that acts for user through g, a
// Workspace credential (the JWT bearer grant with sub = user). force
// mints a new one, after the API refused the kept one.
func (m *Minter) GoogleToken(ctx context.Context, g *unical.DelegationGrant, user string, force bool) (unical.Token, error) {
	cred, err := GoogleOf(g)
	if err != nil {
		return unical.Token{}, err
	}
	// The key hashes the whole key file: a replaced credential mints anew.
	key := fingerprint("google", string(cred.ServiceAccountKey), cred.TokenURL, strings.ToLower(user))
	return m.token(ctx, key, force, func(ctx context.Context) (*oauth2.Token, error) {
		ts, err := cred.TokenSource(ctx, user)
		if err != nil {
			return nil, err
		}
		return ts.Token()
	})
}

// MicrosoftToken returns the app-only token of g, a Microsoft 365
// credential (the client credentials grant); it acts for every user of
// the tenant, so one token serves them all.
func (m *Minter) MicrosoftToken(ctx context.Context, g *unical.DelegationGrant, force bool) (unical.Token, error) {
	cred, err := MicrosoftOf(g)
	if err != nil {
		return unical.Token{}, err
	}
	key := fingerprint("microsoft", cred.TenantID, cred.ClientID, cred.ClientSecret, cred.TokenURL)
	return m.token(ctx, key, force, func(ctx context.Context) (*oauth2.Token, error) {
		return cred.TokenSource(ctx).Token()
	})
}

// token returns the token kept under key, or mints and keeps one. A
// refusal of the token endpoint is CodeAccountExpired with
// delegation_revoked; a failure to reach it, CodeUnavailable.
func (m *Minter) token(ctx context.Context, key string, force bool, mint func(context.Context) (*oauth2.Token, error)) (unical.Token, error) {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	m.mu.Lock()
	tok := m.tokens[key]
	m.mu.Unlock()
	if tok == nil || force || !now().Add(minterMargin).Before(tok.Expiry) {
		var err error
		if tok, err = mint(context.WithValue(ctx, oauth2.HTTPClient, m.HTTPClient)); err != nil {
			return unical.Token{}, mintError(err)
		}
		m.mu.Lock()
		if m.tokens == nil || len(m.tokens) >= maxMinted {
			m.tokens = map[string]*oauth2.Token{}
		}
		m.tokens[key] = tok
		m.mu.Unlock()
	}
	return unical.Token{AccessToken: tok.AccessToken, Expiry: tok.Expiry}, nil
}

// mintError translates a failed token request. An OAuth error answer
// (RFC 6749 §5.2: a 4xx with an error code) says the credential no
// longer acts for the user: the grant or consent was withdrawn, the
// secret expired, or the user left the domain. A 429, a 5xx or a
// network failure says nothing about the credential.
func mintError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 && re.Response.StatusCode != http.StatusTooManyRequests {
		code, desc := tokenError(err)
		return &unical.Error{Code: unical.CodeAccountExpired, Reason: unical.StatusReasonDelegationRevoked, Err: err,
			Message: "The provider refused the application's delegation credential for this user (" + code + ": " + firstLine(desc) + "); verify it in the admin API."}
	}
	return unical.WrapError(unical.CodeUnavailable, err, "The provider's token endpoint cannot be reached or failed; try again later.")
}

// fingerprint identifies a credential and user without holding the
// secret itself.
func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ConnectError turns a token refusal met while connecting a user into
// CodeInvalid, so that nothing is stored: naming email when the provider
// does not know the user (Google's invalid_grant "Invalid email or User
// ID"), providerType when it refuses the credential itself.
func ConnectError(err error) error {
	if unical.ErrorCode(err) != unical.CodeAccountExpired {
		return err
	}
	if code, desc := tokenError(err); code == "invalid_grant" && strings.Contains(strings.ToLower(desc), "email") {
		return &unical.Error{Code: unical.CodeInvalid, Field: "email", Message: "The provider knows no such user in the delegated domain.", Err: err}
	}
	return &unical.Error{Code: unical.CodeInvalid, Field: "providerType", Err: err,
		Message: "The provider refused the application's delegation credential; the operator can see why with POST /admin/v1/applications/{appId}/delegations/{provider}/verify."}
}
