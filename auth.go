package unical

import (
	"context"
)

// This file holds what the browser OAuth flow (package oauth) needs of
// the Client besides the provider and the application's settings
// (Provider, OAuthOf, ProviderSettings): the key of the sealed states, and
// saving the account it connected.

// OAuthCallbackPath is where providers send the browser back after
// consent, under the Client's PublicURL.
const OAuthCallbackPath = "/v1/oauth/callback"

// SaveOAuthConnection creates or updates the account of type t with the
// email a completed OAuth flow told, if conn's identity owns it (else a
// CodeConflict wrapping identity.ErrOtherSubject), and sends webhooks.
func (a *App) SaveOAuthConnection(ctx context.Context, t ProviderType, conn *Connection) (*Account, error) {
	return a.saveConnection(ctx, t, conn.Email, Optional[string]{}, conn, "", Optional[RoomDetails]{})
}
