package admin

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/internal/seal"
)

// APIKeyView is an API key as listed: never its secret.
type APIKeyView struct {
	ID string `json:"id"`
	// Label is the operator's name for the key; "" when it has none.
	Label string `json:"label"`
	// Prefix is how the key begins (its public part), to tell keys apart.
	Prefix    string    `json:"prefix"`
	CreatedAt time.Time `json:"createdAt"`
	// LastUsedAt is when a request last authenticated with it, to within
	// unical.APIKeyUsedEvery; null when never.
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func apiKeyView(k *unical.APIKey) *APIKeyView {
	v := &APIKeyView{ID: k.ID, Label: k.Label, Prefix: unical.APIKeyPrefix + strings.TrimPrefix(k.ID, "key_") + "_", CreatedAt: k.CreatedAt}
	if !k.LastUsedAt.IsZero() {
		t := k.LastUsedAt
		v.LastUsedAt = &t
	}
	return v
}

// MaxAPIKeyLabelLength bounds an API key's label, in characters.
const MaxAPIKeyLabelLength = 100

// checkLabel refuses a label that is too long or holds control
// characters; it is shown in lists and tables.
func checkLabel(label string) error {
	if utf8.RuneCountInString(label) > MaxAPIKeyLabelLength {
		return unical.FieldError("label", "label may be at most %d characters long.", MaxAPIKeyLabelLength)
	}
	if !utf8.ValidString(label) || strings.IndexFunc(label, unicode.IsControl) >= 0 {
		return unical.FieldError("label", "label must be text without control characters.")
	}
	return nil
}

// ListAPIKeys lists an application's API keys as stored (never their
// secrets), oldest first.
func (s *Service) ListAPIKeys(ctx context.Context, appID string) ([]*unical.APIKey, error) {
	return s.store.ListAPIKeys(ctx, appID)
}

// ListAPIKeyViews lists an application's API keys, oldest first.
// Returns CodeNotFound for an unknown application.
func (s *Service) ListAPIKeyViews(ctx context.Context, appID string) ([]*APIKeyView, error) {
	if _, err := s.store.GetApplication(ctx, appID); err != nil {
		return nil, err
	}
	keys, err := s.store.ListAPIKeys(ctx, appID)
	if err != nil {
		return nil, err
	}
	views := make([]*APIKeyView, len(keys))
	for i, k := range keys {
		views[i] = apiKeyView(k)
	}
	return views, nil
}

// CreatedAPIKey is a new API key: its listing, and the key itself,
// shown only here.
type CreatedAPIKey struct {
	Key    *APIKeyView `json:"key"`
	APIKey string      `json:"apiKey"`
}

// CreateAPIKey creates an API key for an application, with an optional
// label. Returns CodeInvalid naming label, CodeNotFound for an unknown
// application.
func (s *Service) CreateAPIKey(ctx context.Context, appID, label string) (*CreatedAPIKey, error) {
	if err := checkLabel(label); err != nil {
		return nil, err
	}
	if _, err := s.store.GetApplication(ctx, appID); err != nil {
		return nil, err
	}
	stored, key, err := s.createAPIKey(ctx, appID, label)
	if err != nil {
		return nil, err
	}
	return &CreatedAPIKey{Key: apiKeyView(stored), APIKey: key}, nil
}

// createAPIKey stores a new key and records it; the key is returned to
// be shown once.
func (s *Service) createAPIKey(ctx context.Context, appID, label string) (*unical.APIKey, string, error) {
	short := ids.New("")[1:] // the random id without its prefix separator
	secret := ids.Random(32)
	stored := &unical.APIKey{ID: "key_" + short, ApplicationID: appID, Label: label, Hash: seal.HashSecret(secret), CreatedAt: s.now().UTC()}
	if err := s.store.CreateAPIKey(ctx, stored); err != nil {
		return nil, "", err
	}
	s.record(ctx, "apiKey.create", appID, stored.ID)
	return stored, unical.APIKeyPrefix + short + "_" + secret, nil
}

// LabelAPIKey sets the label of an application's API key ("" removes it).
// Returns CodeInvalid naming label, CodeNotFound when the application has
// no such key.
func (s *Service) LabelAPIKey(ctx context.Context, appID, keyID, label string) (*APIKeyView, error) {
	if err := checkLabel(label); err != nil {
		return nil, err
	}
	k, err := s.store.SetAPIKeyLabel(ctx, appID, keyID, label)
	if err != nil {
		return nil, err
	}
	s.client.Invalidate("", keyID)
	s.record(ctx, "apiKey.label", appID, keyID)
	return apiKeyView(k), nil
}

// RevokeAPIKey deletes an API key: requests with it fail from then on
// through this Client, and on the others once the Store's version moves
// (the PostgreSQL store's notification), within Config.CacheTTL at most.
// Returns CodeNotFound when the application has no such key.
func (s *Service) RevokeAPIKey(ctx context.Context, appID, keyID string) error {
	s.client.Invalidate("", keyID)
	err := s.store.DeleteAPIKey(ctx, appID, keyID)
	// Dropped again: a request that read the key while it was being
	// deleted may have cached it.
	s.client.Invalidate("", keyID)
	if err != nil {
		return err
	}
	s.record(ctx, "apiKey.revoke", appID, keyID)
	return nil
}
