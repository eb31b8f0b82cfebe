// Package keys seals and opens, under keys derived from unical's master
// key, the secrets kept in the Store: end user accounts' tokens and
// passwords, an application's client secrets, delegation credentials and
// mail settings, webhook endpoints' signing secrets, queued grant
// revocations and OAuth states. Each secret is bound to the record it
// belongs to (its id as associated data), so a sealed blob moved to
// another record does not open.
//
// cmd/unicald builds one [Keys] from the master key with [New] and hands
// it to the Client (unical.Config.Keys) and to the parts beside it; a
// library user who gives the Client none gets one built from
// unical.Config.MasterKey, which [unical.Client.Keys] returns. Every
// replica with the same master key opens what another sealed. The
// package takes ids and bytes, not the root's records, so the root
// package can use it.
package keys

import (
	"context"
	"encoding/json"
	"time"

	"github.com/unical/unical/internal/reserved"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/webhook"
)

// Keys seals and opens the Store's secrets. It is safe for concurrent use.
type Keys struct {
	master      seal.Key     // for the master key check
	credentials *seal.Sealer // secrets of applications, endpoints and accounts
	flows       *seal.Sealer // OAuth states (internal/oauthstate)
}

// FromMaster derives the sealing keys from the 32-byte master key: a
// value computed from a key, not a component with settings, so it takes
// the key alone (docs/development.md, Constructors).
func FromMaster(master [32]byte) *Keys {
	key := seal.Key(master)
	return &Keys{master: key, credentials: seal.New(key.Derive("credentials")), flows: seal.New(key.Derive("oauth-flows"))}
}

// AccountSecrets is the sealed part of an end user account: its tokens or
// password.
type AccountSecrets struct {
	AccessToken  string `json:"a,omitempty"`
	RefreshToken string `json:"r,omitempty"`
	Password     string `json:"p,omitempty"`
	// RefreshIssued is when the refresh token was handed to unical (the
	// connection, or the refresh that rotated it): Session.RefreshIssued.
	RefreshIssued time.Time `json:"ri,omitzero"`
}

// SealAccount seals s for the account id; the id is bound as associated
// data so that a sealed blob cannot be moved to another account.
func (k *Keys) SealAccount(accountID string, s AccountSecrets) []byte {
	b, _ := json.Marshal(s)
	return k.credentials.Seal(b, seal.AccountBinding(accountID))
}

// OpenAccount opens what SealAccount sealed for accountID; nothing sealed
// is no secrets.
func (k *Keys) OpenAccount(accountID string, sealed []byte) (AccountSecrets, error) {
	var s AccountSecrets
	if len(sealed) == 0 {
		return s, nil
	}
	b, err := k.credentials.Open(sealed, seal.AccountBinding(accountID))
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

// SealClientSecret seals an OAuth client secret of application appID for
// a provider type.
func (k *Keys) SealClientSecret(appID, providerType, secret string) []byte {
	return k.credentials.Seal([]byte(secret), seal.ClientSecretBinding(appID, providerType))
}

// OpenClientSecret opens what SealClientSecret sealed.
func (k *Keys) OpenClientSecret(appID, providerType string, sealed []byte) (string, error) {
	secret, err := k.credentials.Open(sealed, seal.ClientSecretBinding(appID, providerType))
	return string(secret), err
}

// SealDelegation seals the delegation secret of application appID for a
// provider type.
func (k *Keys) SealDelegation(appID, providerType string, secret []byte) []byte {
	return k.credentials.Seal(secret, seal.DelegationBinding(appID, providerType))
}

// OpenDelegation opens what SealDelegation sealed.
func (k *Keys) OpenDelegation(appID, providerType string, sealed []byte) ([]byte, error) {
	return k.credentials.Open(sealed, seal.DelegationBinding(appID, providerType))
}

// MailSealer seals an application's mail settings, bound by
// seal.MailBinding.
func (k *Keys) MailSealer() *seal.Sealer { return k.credentials }

// RevocationSealer seals the grants of queued revocations, bound by
// internal/revocation.
func (k *Keys) RevocationSealer() *seal.Sealer { return k.credentials }

// NewWebhookSecret makes a new whsec_ secret for the own webhook endpoint
// of application appID, and returns it, to be shown once, and sealed.
func (k *Keys) NewWebhookSecret(appID string) (secret string, sealed []byte) {
	secret = webhook.NewSecret()
	return secret, k.credentials.Seal([]byte(secret), seal.WebhookSecretBinding(appID))
}

// WebhookSecret opens the signing secret of application appID's own
// webhook endpoint (enduseraccount.* messages), as NewWebhookSecret
// sealed it. It fails when the secret was sealed under another master
// key, or is damaged.
func (k *Keys) WebhookSecret(appID string, sealed []byte) (string, error) {
	secret, err := k.credentials.Open(sealed, seal.WebhookSecretBinding(appID))
	return string(secret), err
}

// SealSubscriptionSecret seals secret, the signing secret of a new
// subscription's endpoint, bound to the subscription's id.
func (k *Keys) SealSubscriptionSecret(subscriptionID, secret string) []byte {
	return k.credentials.Seal([]byte(secret), seal.SubscriptionSecretBinding(subscriptionID))
}

// SubscriptionSecret opens the signing secret of a subscription's
// webhook endpoint, with which the engine signs its messages, as
// WebhookSecret does an application's.
func (k *Keys) SubscriptionSecret(subscriptionID string, sealed []byte) (string, error) {
	secret, err := k.credentials.Open(sealed, seal.SubscriptionSecretBinding(subscriptionID))
	return string(secret), err
}

// OAuthStates returns the sealer of OAuth states (internal/oauthstate),
// under a key derived from the master key: every replica opens the states
// another made.
func (k *Keys) OAuthStates() *seal.Sealer { return k.flows }

// ErrWrongKey is Check's answer when the master key does not open the
// data already in the Store.
var ErrWrongKey = reserved.ErrWrongKey

// SealedApp is what Check opens of an application in a Store from before
// the master key check: its own webhook secret and client secrets (by
// provider type), as sealed.
type SealedApp struct {
	ID            string
	WebhookSecret []byte
	ClientSecrets map[string][]byte
}

// Check opens the master key check the Store keeps in blobs (writing one
// when there is none) and returns ErrWrongKey when it does not open:
// starting anyway would fail every account, token and webhook signature
// one by one, and seal new data under a second key. notFound tells the
// Store's "no such blob" from its failures. A Store from before the check
// is judged by the first application with a sealed secret that apps
// lists.
func (k *Keys) Check(ctx context.Context, blobs reserved.Blobs, now time.Time, notFound func(error) bool, apps func() ([]SealedApp, error)) error {
	return reserved.CheckMasterKey(ctx, blobs, k.master, now, notFound, func() error {
		list, err := apps()
		if err != nil {
			return err
		}
		for _, app := range list {
			opened, err := k.openApp(app)
			if err != nil {
				return ErrWrongKey
			}
			if opened {
				break
			}
		}
		return nil
	})
}

// openApp opens an application's sealed secrets, and reports whether it
// had any.
func (k *Keys) openApp(app SealedApp) (bool, error) {
	opened := false
	if app.WebhookSecret != nil {
		if _, err := k.WebhookSecret(app.ID, app.WebhookSecret); err != nil {
			return false, err
		}
		opened = true
	}
	for t, sealed := range app.ClientSecrets {
		if _, err := k.OpenClientSecret(app.ID, t, sealed); err != nil {
			return false, err
		}
		opened = true
	}
	return opened, nil
}
