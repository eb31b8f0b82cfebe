package unical

import (
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/webhook"
)

// Keys seals and opens, under keys derived from the Client's master key,
// the secrets the parts beside the Client keep in the Store: an
// application's client secrets, delegation credential and mail settings
// (package admin), webhook endpoints' signing secrets (packages admin,
// subscriptions and engine) and OAuth states (package oauth). Get it from
// [Client.Keys]; every replica with the same master key opens what
// another sealed.
type Keys struct {
	credentials *seal.Sealer // secrets of applications, endpoints and accounts
	flows       *seal.Sealer // OAuth states (internal/oauthstate)
}

// SealClientSecret seals an OAuth client secret of app for provider type
// t into app.SealedSecrets; an empty secret removes it.
func (k *Keys) SealClientSecret(app *Application, t ProviderType, secret string) {
	if secret == "" {
		delete(app.SealedSecrets, t)
		return
	}
	if app.SealedSecrets == nil {
		app.SealedSecrets = map[ProviderType][]byte{}
	}
	app.SealedSecrets[t] = k.credentials.Seal([]byte(secret), seal.ClientSecretBinding(app.ID, string(t)))
}

// SealDelegation seals app's delegation secret for provider type t.
func (k *Keys) SealDelegation(app *Application, t ProviderType, secret []byte) []byte {
	return k.credentials.Seal(secret, seal.DelegationBinding(app.ID, string(t)))
}

// OpenDelegation opens what SealDelegation sealed for app and t.
func (k *Keys) OpenDelegation(app *Application, t ProviderType, sealed []byte) ([]byte, error) {
	return k.credentials.Open(sealed, seal.DelegationBinding(app.ID, string(t)))
}

// MailSealer seals Application.SealedMail, bound by seal.MailBinding.
func (k *Keys) MailSealer() *seal.Sealer { return k.credentials }

// RevocationSealer seals the grants of queued revocations, bound by
// internal/revocation.
func (k *Keys) RevocationSealer() *seal.Sealer { return k.credentials }

// NewWebhookSecret gives app's own webhook endpoint a new whsec_ secret,
// sealed into app.SealedWebhookSecret, and returns it to be shown once.
func (k *Keys) NewWebhookSecret(app *Application) string {
	secret := webhook.NewSecret()
	app.SealedWebhookSecret = k.credentials.Seal([]byte(secret), seal.WebhookSecretBinding(app.ID))
	return secret
}

// SubscriptionSecret opens the signing secret of sub's webhook endpoint,
// with which the engine signs sub's messages. It fails when the secret
// was sealed under another master key, or is damaged.
func (k *Keys) SubscriptionSecret(sub *SubscriptionRecord) (string, error) {
	secret, err := k.credentials.Open(sub.SealedSecret, seal.SubscriptionSecretBinding(sub.ID))
	return string(secret), err
}

// SealSubscriptionSecret seals secret, the signing secret of a new
// subscription's endpoint, into sub.SealedSecret, bound to sub's id.
func (k *Keys) SealSubscriptionSecret(sub *SubscriptionRecord, secret string) {
	sub.SealedSecret = k.credentials.Seal([]byte(secret), seal.SubscriptionSecretBinding(sub.ID))
}

// WebhookSecret opens the signing secret of app's own webhook endpoint
// (enduseraccount.* messages), as SubscriptionSecret does a
// subscription's.
func (k *Keys) WebhookSecret(app *Application) (string, error) {
	secret, err := k.credentials.Open(app.SealedWebhookSecret, seal.WebhookSecretBinding(app.ID))
	return string(secret), err
}

// OAuthStates returns the sealer of OAuth states (internal/oauthstate),
// under a key derived from the master key: every replica opens the states
// another made.
func (k *Keys) OAuthStates() *seal.Sealer { return k.flows }
