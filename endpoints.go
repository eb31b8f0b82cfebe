package unical

import "github.com/unical/unical/internal/seal"

// The engine (package engine) resolves where a message goes and keeps
// each endpoint's delivery state; the signing secrets it needs are sealed
// under the master key, which stays with the Client, so the Client opens
// them for it.

// SubscriptionSecret opens the signing secret of sub's webhook endpoint,
// with which the engine signs sub's messages. It fails when the secret
// was sealed under another master key, or is damaged.
func (c *Client) SubscriptionSecret(sub *SubscriptionRecord) (string, error) {
	secret, err := c.credentials.Open(sub.SealedSecret, seal.SubscriptionSecretBinding(sub.ID))
	return string(secret), err
}

// SealSubscriptionSecret seals secret, the signing secret of a new
// subscription's endpoint, into sub.SealedSecret, bound to sub's id.
func (c *Client) SealSubscriptionSecret(sub *SubscriptionRecord, secret string) {
	sub.SealedSecret = c.credentials.Seal([]byte(secret), seal.SubscriptionSecretBinding(sub.ID))
}

// WebhookSecret opens the signing secret of app's own webhook endpoint
// (enduseraccount.* messages), as SubscriptionSecret does a
// subscription's.
func (c *Client) WebhookSecret(app *Application) (string, error) {
	secret, err := c.credentials.Open(app.SealedWebhookSecret, seal.WebhookSecretBinding(app.ID))
	return string(secret), err
}

// CurrentWebhookState is the delivery state of the application's current
// webhook URL.
func (app *Application) CurrentWebhookState() EndpointState {
	if app.WebhookStateURL != app.WebhookURL {
		return EndpointState{} // a new URL starts afresh
	}
	return app.WebhookState
}
