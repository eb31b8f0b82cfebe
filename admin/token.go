package admin

import (
	"context"
	"strings"
	"unicode"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/internal/reserved"
	"github.com/unical/unical/internal/seal"
)

// The operator token authenticates the admin API and the dashboard's
// log-in. It is kept only as its SHA-256 hash, as a reserved blob of the
// Store (internal/reserved).

// adminTokenPrefix starts the tokens NewAdminToken makes, so that a
// leaked one is recognisable (and told apart from an API key, uk_).
const adminTokenPrefix = "uat_"

// MinAdminTokenLength is the shortest operator token accepted from the
// operator (UNICAL_ADMIN_TOKEN): its hash is only as strong as the token
// is hard to guess.
const MinAdminTokenLength = 32

// NewAdminToken returns a new random operator token: "uat_" and 32
// random bytes in base32.
func NewAdminToken() string { return adminTokenPrefix + ids.Random(32) }

// SetAdminToken makes token the operator token, replacing any earlier
// one. Only its SHA-256 hash is stored. Returns CodeInvalid naming
// adminToken when it is shorter than MinAdminTokenLength or holds spaces
// or control characters (it travels in an Authorization header).
func (s *Service) SetAdminToken(ctx context.Context, token string) error {
	if len(token) < MinAdminTokenLength {
		return unical.FieldError("adminToken", "The admin token must be at least %d characters long.", MinAdminTokenLength)
	}
	if strings.IndexFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f || r > unicode.MaxASCII }) >= 0 {
		return unical.FieldError("adminToken", "The admin token must be printable ASCII without spaces.")
	}
	return s.store.PutBlob(ctx, reserved.App, reserved.AdminTokenHash, seal.HashSecret(token), reserved.Never)
}

// EnsureAdminToken creates the operator token when the Store has none and
// returns it, to be shown once; it returns "" when one exists already.
func (s *Service) EnsureAdminToken(ctx context.Context) (string, error) {
	_, err := s.store.GetBlob(ctx, reserved.App, reserved.AdminTokenHash, s.now())
	if err == nil {
		return "", nil
	}
	if unical.ErrorCode(err) != unical.CodeNotFound {
		return "", err
	}
	token := NewAdminToken()
	if err := s.SetAdminToken(ctx, token); err != nil {
		return "", err
	}
	return token, nil
}

// VerifyAdminToken checks an operator token against the stored hash in
// constant time. A missing, wrong or unset token, and an application API
// key, are CodeUnauthorized naming Authorization.
func (s *Service) VerifyAdminToken(ctx context.Context, token string) error {
	if token == "" {
		return &unical.Error{Code: unical.CodeUnauthorized, Field: "Authorization", Message: "Admin routes need the operator token: Authorization: Bearer <admin token>."}
	}
	if strings.HasPrefix(token, unical.APIKeyPrefix) {
		return &unical.Error{Code: unical.CodeUnauthorized, Field: "Authorization", Message: "This is an application API key; admin routes take only the operator token."}
	}
	hash, err := s.store.GetBlob(ctx, reserved.App, reserved.AdminTokenHash, s.now())
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return &unical.Error{Code: unical.CodeUnauthorized, Field: "Authorization", Message: "No admin token is set on this server; start unicald serve once, or set UNICAL_ADMIN_TOKEN."}
	}
	if err != nil {
		return err
	}
	if !seal.Equal(hash, seal.HashSecret(token)) {
		return &unical.Error{Code: unical.CodeUnauthorized, Field: "Authorization", Message: "The admin token is wrong."}
	}
	return nil
}
