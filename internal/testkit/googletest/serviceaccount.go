package googletest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// ServiceAccount is a Google Cloud service account whose client id a
// Workspace administrator has given domain-wide delegation: it may mint
// tokens for any user of the fake with the JWT bearer grant.
type ServiceAccount struct {
	// Email is the key file's client_email, the JWT's iss.
	Email string
	// ClientID is the numeric client id the Admin console grants scopes to.
	ClientID string
	// PublicKey checks the JWT's RS256 signature.
	PublicKey *rsa.PublicKey
	// Scopes are the scopes granted in the Admin console; a token request
	// for any other is refused.
	Scopes []string
}

// AddServiceAccount registers sa, as creating its key and granting its
// domain-wide delegation would.
func (s *Server) AddServiceAccount(sa ServiceAccount) {
	s.tb.Helper()
	if sa.Email == "" || sa.ClientID == "" || sa.PublicKey == nil {
		s.fatalf("AddServiceAccount: Email, ClientID and PublicKey are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.serviceAccounts == nil {
		s.st.serviceAccounts = map[string]*ServiceAccount{}
	}
	sa.Scopes = normalizeScopes(sa.Scopes)
	s.st.serviceAccounts[sa.Email] = &sa
}

// jwtBearerGrant is the grant_type of RFC 7523 §2.1, which Google's
// token endpoint takes from service accounts ("Using OAuth 2.0 for Server
// to Server Applications", "Making the access token request":
// https://developers.google.com/identity/protocols/oauth2/service-account).
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// jwtClaims are the claims of the assertion: the same guide's "Forming
// the JWT claim set" lists iss, scope, aud, exp and iat, and "Additional
// claims" sub, the user of the domain to act for.
type jwtClaims struct {
	Iss   string `json:"iss"`
	Scope string `json:"scope"`
	Aud   string `json:"aud"`
	Exp   int64  `json:"exp"`
	Iat   int64  `json:"iat"`
	Sub   string `json:"sub"`
}

// jwtBearerLocked answers the JWT bearer grant: an RS256 assertion signed
// by a registered service account, for a user of the fake, asking only
// for scopes delegated to it. The answer carries access_token, expires_in
// and token_type, never a refresh token ("Handling the response").
//
// The error bodies are those widely quoted from Google (UNVERIFIED
// against the guide, which shows none): invalid_grant "Invalid JWT
// Signature.", "Invalid email or User ID" for an unknown sub, "Invalid
// JWT: Token must be a short-lived token (60 minutes) and in a reasonable
// timeframe." and unauthorized_client "Client is unauthorized to retrieve
// access tokens using this method, or client not authorized for any of
// the scopes requested." when the Admin console grant is missing.
//
// The fake checks exp against its own clock and exp-iat against the hour,
// not iat against its clock: tests run it on a fixed clock while clients
// sign with the real one.
func (s *Server) jwtBearerLocked(form url.Values) (*tokenResponse, *oauthError) {
	badSignature := &oauthError{http.StatusBadRequest, "invalid_grant", "Invalid JWT Signature."}
	parts := strings.Split(form.Get("assertion"), ".")
	if len(parts) != 3 {
		return nil, badSignature
	}
	var header struct {
		Alg string `json:"alg"`
	}
	var claims jwtClaims
	if decodeJWTPart(parts[0], &header) != nil || decodeJWTPart(parts[1], &claims) != nil || header.Alg != "RS256" {
		return nil, badSignature
	}
	sa := s.st.serviceAccounts[claims.Iss]
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if sa == nil || err != nil {
		return nil, badSignature
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(sa.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return nil, badSignature
	}
	exp, iat := time.Unix(claims.Exp, 0), time.Unix(claims.Iat, 0)
	if !exp.After(iat) || exp.Sub(iat) > time.Hour || !s.now().Before(exp) || claims.Aud != s.URL+"/token" {
		return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."}
	}
	u := s.userByEmailLocked(claims.Sub)
	if u == nil {
		return nil, &oauthError{http.StatusBadRequest, "invalid_grant", "Invalid email or User ID"}
	}
	scopes := normalizeScopes(strings.Fields(claims.Scope))
	for _, sc := range scopes {
		if !slices.Contains(sa.Scopes, sc) {
			return nil, &oauthError{http.StatusUnauthorized, "unauthorized_client", "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested."}
		}
	}
	at := s.issueAccessLocked(sa.ClientID, u.sub, scopes, nil)
	return &tokenResponse{AccessToken: at.token, ExpiresIn: int(s.opts.AccessTokenTTL / time.Second), TokenType: "Bearer"}, nil
}

func decodeJWTPart(part string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// NewServiceAccount makes sa a new RSA key (sa.PublicKey, for
// AddServiceAccount) and returns the JSON key file Google hands out for
// it, with the private key as PKCS #8 PEM in "private_key": what an
// application stores as its delegation credential.
func NewServiceAccount(tb testing.TB, sa *ServiceAccount) map[string]any {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	sa.PublicKey = &key.PublicKey
	return map[string]any{
		"type": "service_account", "project_id": "corp-calendars", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": sa.Email, "client_id": sa.ClientID, "token_uri": "https://oauth2.googleapis.com/token",
	}
}
