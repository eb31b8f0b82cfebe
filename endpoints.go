package unical

import (
	"context"
	"errors"
	"fmt"
)

// WebhookTarget is where and how one message goes: the endpoint's URL,
// its signing secret, the subscription's rate limit (0: none) and the
// endpoint's delivery state as read with it.
type WebhookTarget struct {
	URL       string
	Secret    string
	RateLimit int
	State     EndpointState
}

// ErrNoWebhookTarget marks a message that can never be delivered (the
// application removed its webhook URL); it fails at once.
var ErrNoWebhookTarget = errors.New("unical: message has no webhook target")

// ErrSealedSecret marks a message whose endpoint's signing secret does not
// open with this Client's master key (sealed under another key, or
// damaged). Retrying cannot help, so the message fails at once with the
// reason in the delivery log.
var ErrSealedSecret = errors.New("unical: the endpoint's signing secret cannot be unsealed with the master key")

// WebhookTarget resolves the URL and secret of a message for the webhook
// engine: a subscription's, or the application's own endpoint for
// enduseraccount.* messages.
func (c *Client) WebhookTarget(ctx context.Context, msg *OutboxMessage) (*WebhookTarget, error) {
	if msg.SubscriptionID != "" {
		sub, err := c.store.GetSubscription(ctx, msg.ApplicationID, msg.SubscriptionID)
		if err != nil {
			return nil, err
		}
		secret, err := c.credentials.Open(sub.SealedSecret, []byte("subscription/"+sub.ID))
		if err != nil {
			return nil, fmt.Errorf("%w: subscription %s: %w", ErrSealedSecret, sub.ID, err)
		}
		return &WebhookTarget{URL: sub.URL, Secret: string(secret), RateLimit: sub.RateLimit, State: sub.EndpointState}, nil
	}
	app, err := cachedApplication(ctx, c.store, c.apps, msg.ApplicationID)
	if err != nil {
		return nil, err
	}
	if app.WebhookURL == "" || app.SealedWebhookSecret == nil {
		return nil, ErrNoWebhookTarget
	}
	secret, err := c.credentials.Open(app.SealedWebhookSecret, []byte("webhook-secret/"+app.ID))
	if err != nil {
		return nil, fmt.Errorf("%w: application %s: %w", ErrSealedSecret, app.ID, err)
	}
	return &WebhookTarget{URL: app.WebhookURL, Secret: string(secret), State: app.webhookState()}, nil
}

// webhookState is the state of the application's current webhook URL.
func (app *Application) webhookState() EndpointState {
	if app.WebhookStateURL != app.WebhookURL {
		return EndpointState{} // a new URL starts afresh
	}
	return app.WebhookState
}
