// Package revocation is the sealed form of a grant revocation that failed
// when its account was deleted and waits in the outbox for the engine to
// try again. The root queues it (App.DeleteAccount) and package grants
// opens it; both go through this package, so the message's event type,
// its payload and what the payload is bound to are written once.
//
// The payload holds the grant's tokens, so it is sealed with the
// credentials sealer and bound to the application and the message id: a
// sealed payload copied to another message or application does not open.
package revocation

import (
	"encoding/json"
	"strings"

	"github.com/unical/unical/internal/seal"
)

// EventType is the outbox event type of a queued revocation. Messages
// whose type starts with InternalPrefix are the server's own work: the
// engine acts on them itself, never posts them to a webhook endpoint, and
// writes no delivery attempt for them.
const (
	InternalPrefix = "unical.internal."
	EventType      = InternalPrefix + "grant.revoke"
)

// IsInternal reports whether an outbox message of eventType is the
// server's own work rather than a webhook message.
func IsInternal(eventType string) bool { return strings.HasPrefix(eventType, InternalPrefix) }

// Grant is what the engine needs to revoke a deleted account's grant: the
// provider type (its settings are read from the application when the
// revocation is tried, so a corrected revocation URL applies), the
// account it belonged to (for logs) and the tokens.
type Grant struct {
	ProviderType string `json:"t"`
	AccountID    string `json:"a"`
	AccessToken  string `json:"at,omitempty"`
	RefreshToken string `json:"rt,omitempty"`
}

// binding binds a sealed Grant to its application and message.
func binding(appID, messageID string) []byte {
	return []byte("revocation/" + appID + "/" + messageID)
}

// Seal seals g for the outbox message messageID of application appID.
func Seal(s *seal.Sealer, appID, messageID string, g Grant) []byte {
	b, _ := json.Marshal(g) // a struct of strings always encodes
	return s.Seal(b, binding(appID, messageID))
}

// Open opens what Seal sealed for the same application and message.
func Open(s *seal.Sealer, appID, messageID string, sealed []byte) (Grant, error) {
	var g Grant
	b, err := s.Open(sealed, binding(appID, messageID))
	if err != nil {
		return g, err
	}
	err = json.Unmarshal(b, &g)
	return g, err
}
