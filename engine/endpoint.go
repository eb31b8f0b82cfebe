package engine

import (
	"context"
	"errors"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// This file writes an endpoint's delivery state (see
// [outbox.EndpointState]): the engine as its attempts fail, are delivered
// or disable it (noteOutcome), and ResendMessage when it enables the
// endpoint again.

// endpointStore is what writing an endpoint's state needs of the Store.
type endpointStore interface {
	unical.SubscriptionStore
	unical.ApplicationStore
}

// updateEndpointState changes the state of an endpoint (subscriptionID ""
// for the application's own) with fn, which reports whether it changed
// anything, and drops the application from the Client's cache (invalidate)
// when it changed it. A subscription changes atomically. The application
// is read, changed and replaced, so an application update racing with it
// may undo the change; at worst that restarts the failure clock or
// enables the endpoint again, both of which the next attempts put right.
func updateEndpointState(ctx context.Context, st endpointStore, invalidate func(appID string, keyIDs ...string), appID, subscriptionID string, fn func(*outbox.EndpointState) bool) error {
	if subscriptionID != "" {
		_, err := st.UpdateSubscription(ctx, appID, subscriptionID, func(r *unical.SubscriptionRecord) error {
			if !fn(&r.EndpointState) {
				return errUnchanged
			}
			return nil
		})
		if errors.Is(err, errUnchanged) || unical.ErrorCode(err) == unical.CodeNotFound {
			return nil
		}
		return err
	}
	app, err := st.GetApplication(ctx, appID)
	if err != nil {
		return err
	}
	state := app.CurrentWebhookState()
	if !fn(&state) {
		return nil
	}
	app.WebhookState, app.WebhookStateURL = state, app.WebhookURL
	if err := st.UpdateApplication(ctx, app); err != nil {
		return err
	}
	invalidate(appID)
	return nil
}

// enableEndpoint clears an endpoint's state: no longer disabled, and
// failing only from its next failure on.
func enableEndpoint(st *outbox.EndpointState) bool {
	if *st == (outbox.EndpointState{}) {
		return false
	}
	*st = outbox.EndpointState{}
	return true
}
