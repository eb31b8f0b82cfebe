package unical

import (
	"context"
	"errors"
	"fmt"

	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/webhook"
)

// endpoints resolves the webhook endpoint of a message (URL, signing
// secret, rate limit) and keeps each endpoint's delivery state. It is the
// engine's only way to the applications, and opens the sealed secrets
// with the Client's credentials sealer.
type endpoints struct {
	store       endpointStore
	credentials *seal.Sealer
	// apps is the Client's application cache, read through and dropped
	// when an application's endpoint state changes.
	apps *ttlCache[*Application]
}

// endpointStore is the part of the Store that endpoints read and write.
type endpointStore interface {
	ApplicationStore
	SubscriptionStore
}

// target is where and how one message goes.
type target struct {
	url    string
	signer *webhook.Signer
	// rate is the subscription's rate limit; 0 means none.
	rate int
	// state is the endpoint's delivery state as read with the target.
	state EndpointState
}

// errNoTarget marks a message that can never be delivered (the
// application removed its webhook URL); it fails at once.
var errNoTarget = errors.New("unical: message has no webhook target")

// errSealedSecret marks a message whose endpoint's signing secret does not
// open with this Client's master key (sealed under another key, or
// damaged). Retrying cannot help, so the message fails at once with the
// reason in the delivery log.
var errSealedSecret = errors.New("unical: the endpoint's signing secret cannot be unsealed with the master key")

// target resolves the URL and secret of a message: a subscription's, or
// the application's own endpoint for enduseraccount.* messages.
func (ep *endpoints) target(ctx context.Context, msg *OutboxMessage) (*target, error) {
	if msg.SubscriptionID != "" {
		sub, err := ep.store.GetSubscription(ctx, msg.ApplicationID, msg.SubscriptionID)
		if err != nil {
			return nil, err
		}
		secret, err := ep.credentials.Open(sub.SealedSecret, []byte("subscription/"+sub.ID))
		if err != nil {
			return nil, fmt.Errorf("%w: subscription %s: %w", errSealedSecret, sub.ID, err)
		}
		signer, err := webhook.NewSigner(string(secret))
		if err != nil {
			return nil, WrapError(CodeInternal, err, "Internal error.")
		}
		return &target{url: sub.URL, signer: signer, rate: sub.RateLimit, state: sub.EndpointState}, nil
	}
	app, err := cachedApplication(ctx, ep.store, ep.apps, msg.ApplicationID)
	if err != nil {
		return nil, err
	}
	if app.WebhookURL == "" || app.SealedWebhookSecret == nil {
		return nil, errNoTarget
	}
	secret, err := ep.credentials.Open(app.SealedWebhookSecret, []byte("webhook-secret/"+app.ID))
	if err != nil {
		return nil, fmt.Errorf("%w: application %s: %w", errSealedSecret, app.ID, err)
	}
	signer, err := webhook.NewSigner(string(secret))
	if err != nil {
		return nil, WrapError(CodeInternal, err, "Internal error.")
	}
	return &target{url: app.WebhookURL, signer: signer, state: app.webhookState()}, nil
}

// webhookState is the state of the application's current webhook URL.
func (app *Application) webhookState() EndpointState {
	if app.WebhookStateURL != app.WebhookURL {
		return EndpointState{} // a new URL starts afresh
	}
	return app.WebhookState
}

// updateEndpoint changes the state of an endpoint (subscriptionID "" for
// the application's own) with fn, which reports whether it changed
// anything. A subscription changes atomically. The application is read,
// changed and replaced, so an application update racing with it may undo
// the change; at worst that restarts the failure clock or enables the
// endpoint again, both of which the next attempts put right.
func (ep *endpoints) update(ctx context.Context, appID, subscriptionID string, fn func(*EndpointState) bool) error {
	if subscriptionID != "" {
		_, err := ep.store.UpdateSubscription(ctx, appID, subscriptionID, func(r *SubscriptionRecord) error {
			if !fn(&r.EndpointState) {
				return errUnchanged
			}
			return nil
		})
		if errors.Is(err, errUnchanged) || ErrorCode(err) == CodeNotFound {
			return nil
		}
		return err
	}
	app, err := ep.store.GetApplication(ctx, appID)
	if err != nil {
		return err
	}
	st := app.webhookState()
	if !fn(&st) {
		return nil
	}
	app.WebhookState, app.WebhookStateURL = st, app.WebhookURL
	if err := ep.store.UpdateApplication(ctx, app); err != nil {
		return err
	}
	ep.apps.drop(appID)
	return nil
}

// enableEndpoint clears an endpoint's state: no longer disabled, and
// failing only from its next failure on.
func enableEndpoint(st *EndpointState) bool {
	if *st == (EndpointState{}) {
		return false
	}
	*st = EndpointState{}
	return true
}
