package unical

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/url"
	"time"
)

// watchLifetime is the watch lifetime asked for; providers shorten it to
// their maximum (Google about a week, Graph about three days).
const watchLifetime = 7 * 24 * time.Hour

// lifecycleTimeout bounds the provider calls that answer a lifecycle
// notification, which run on after the notifier hangs up.
const lifecycleTimeout = time.Minute

// notificationURL is the address a provider posts a subscription's
// notifications to. The subscription is in the path, so a notification is
// matched with one read and no index; the watch token, not the address,
// is what authenticates it.
func (c *Client) notificationURL(t ProviderType, appID, subID string) string {
	return c.publicURL + "/v1/notifications/" + t.PathName() + "/" + url.PathEscape(appID) + "/" + url.PathEscape(subID)
}

// startWatch asks the provider to push changes of sub's calendar, when the
// server has a public URL and the provider can push. On any failure the
// subscription is polled instead, so the failure is only logged.
func (a *App) startWatch(ctx context.Context, p Provider, s *Session, sub *SubscriptionRecord) {
	w, ok := watcherOf(p)
	if !ok || a.c.publicURL == "" {
		return
	}
	req := &WatchRequest{
		CalendarID: sub.CalendarID, Address: a.c.notificationURL(sub.Provider, a.id, sub.ID),
		Token: randomString(24), Expiration: a.c.now().Add(watchLifetime),
	}
	watch, err := w.Watch(ctx, s, req)
	if err != nil {
		a.c.log.WarnContext(ctx, "provider watch failed; polling instead", "subscription", sub.ID, "err", err)
		return
	}
	setWatch(sub, watch, req.Token)
}

// setWatch records a provider watch on a subscription, with the token we
// chose (a provider need not echo it in its answer).
func setWatch(sub *SubscriptionRecord, w *Watch, token string) {
	if w == nil {
		sub.Watch, sub.SubscriptionID, sub.ResourceID, sub.Expiration = nil, "", "", nil
		return
	}
	w.Token = token
	exp := w.Expiration.UTC()
	sub.Watch, sub.SubscriptionID, sub.ResourceID, sub.Expiration = w, w.ID, w.ResourceID, &exp
}

// stopWatch ends a subscription's provider watch, best effort: a watch
// left behind expires on its own, and its notifications no longer match a
// subscription.
func (a *App) stopWatch(ctx context.Context, sub *SubscriptionRecord) {
	if sub.Watch == nil {
		return
	}
	_, p, s, err := a.session(ctx, sub.EndUserAccountID)
	if err == nil {
		if w, ok := watcherOf(p); ok {
			err = w.StopWatch(ctx, s, sub.Watch)
		}
	}
	if err != nil {
		a.c.log.WarnContext(ctx, "stop provider watch", "subscription", sub.ID, "err", err)
	}
}

// RenewWatch renews sub's watch with the provider. The engine (package
// engine) calls it when the watch ends within Config.WatchRenewBefore. A
// watch that has ended without renewal is dropped, and the subscription
// is polled from then on; while it still runs, a failed renewal leaves it
// for the next try.
func (c *Client) RenewWatch(ctx context.Context, sub *SubscriptionRecord) error {
	now := c.now()
	renewed, token, err := c.providerRenewWatch(ctx, sub)
	if err != nil && now.Before(sub.Watch.Expiration) {
		return err // try again on the next pass while the watch still runs
	}
	if uerr := c.replaceWatch(ctx, sub, renewed, token); uerr != nil {
		return uerr
	}
	return err
}

// providerRenewWatch asks the provider to renew sub's watch and returns
// the renewed watch with the token it carries.
func (c *Client) providerRenewWatch(ctx context.Context, sub *SubscriptionRecord) (*Watch, string, error) {
	a := &App{c: c, id: sub.ApplicationID}
	// The token stays: Graph cannot change a subscription's clientState,
	// so a new token would force a new subscription (and handshake) on
	// every renewal. Only a watch stored without one gets a fresh token.
	token := sub.Watch.Token
	if token == "" {
		token = randomString(24)
	}
	_, p, s, err := a.session(ctx, sub.EndUserAccountID)
	if err != nil {
		return nil, token, err
	}
	w, ok := watcherOf(p)
	if !ok || c.publicURL == "" {
		return nil, token, Errorf(CodeNotImplemented, "push is no longer available")
	}
	renewed, err := w.RenewWatch(ctx, s, sub.Watch, &WatchRequest{
		CalendarID: sub.CalendarID, Address: c.notificationURL(sub.Provider, sub.ApplicationID, sub.ID),
		Token: token, Expiration: c.now().Add(watchLifetime),
	})
	return renewed, token, err
}

// replaceWatch stores w (nil: none, poll from now on) in place of sub's
// watch, unless the stored watch is no longer the one sub shows: then
// someone else replaced it meanwhile and theirs stands. A deleted
// subscription is no error.
func (c *Client) replaceWatch(ctx context.Context, sub *SubscriptionRecord, w *Watch, token string) error {
	old := sub.Watch.ID
	_, err := c.store.UpdateSubscription(ctx, sub.ApplicationID, sub.ID, func(r *SubscriptionRecord) error {
		if r.Watch == nil || r.Watch.ID != old {
			return errUnchanged
		}
		setWatch(r, w, token)
		r.UpdatedAt = c.now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) && ErrorCode(err) != CodeNotFound {
		return err
	}
	return nil
}

// reauthorizeWatch answers Graph's reauthorizationRequired: the watch is
// renewed in place (same token, see providerRenewWatch) and push goes on;
// no change was lost, so no message is queued. If the provider refuses,
// the watch is dropped for polling, as when it ends.
func (c *Client) reauthorizeWatch(ctx context.Context, sub *SubscriptionRecord) error {
	renewed, token, err := c.providerRenewWatch(ctx, sub)
	if err != nil {
		c.log.WarnContext(ctx, "reauthorize provider watch failed; polling instead", "subscription", sub.ID, "err", err)
		return c.dropWatch(ctx, sub)
	}
	return c.replaceWatch(ctx, sub, renewed, token)
}

// rewatch answers Graph's subscriptionRemoved: one new watch is created
// in place of the removed one (there is nothing left to renew), else the
// subscription is polled. Either way changes may have happened while no
// watch ran, so the receiver is told to resync.
func (c *Client) rewatch(ctx context.Context, sub *SubscriptionRecord) error {
	a := &App{c: c, id: sub.ApplicationID}
	fresh := *sub
	fresh.Watch = nil
	if _, p, s, err := a.session(ctx, sub.EndUserAccountID); err == nil {
		a.startWatch(ctx, p, s, &fresh) // logs its own failure
	} else {
		c.log.WarnContext(ctx, "provider watch removed; polling instead", "subscription", sub.ID, "err", err)
	}
	if fresh.Watch == nil {
		return c.dropWatch(ctx, sub)
	}
	if err := c.replaceWatch(ctx, sub, fresh.Watch, fresh.Watch.Token); err != nil {
		return err
	}
	_, err := c.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventUnknown, nil)
	return err
}

// dropWatch forgets sub's ended watch, so that the subscription is polled
// from now on, and tells the receiver to resync since changes may have
// been missed.
func (c *Client) dropWatch(ctx context.Context, sub *SubscriptionRecord) error {
	if err := c.replaceWatch(ctx, sub, nil, ""); err != nil {
		return err
	}
	_, err := c.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventUnknown, nil)
	return err
}

// HandleNotification takes a push notification from a provider for one
// subscription: the provider's Watcher reads it, each change whose watch
// id and token match the subscription's stored watch becomes a message
// (calendar.event.changed, coalesced while one is still waiting;
// calendar.event.unknown for missed changes), and the answer the provider
// expects is returned. A watch that needs reauthorizing is renewed with
// the same token; one the provider removed is replaced by a new watch
// once (with calendar.event.unknown, as changes may have been missed).
// When either fails the subscription falls back to polling.
// Changes that do not match are ignored, so a forged notification queues
// nothing.
//
// HTTP: POST /v1/notifications/{provider}/{applicationId}/{subscriptionId}
// (an address of ours under Config.PublicURL, given to the provider)
//
// Returns CodeNotFound for a provider type without push, and what the
// Watcher returns for a request it cannot read (CodeInvalid).
func (c *Client) HandleNotification(ctx context.Context, providerPath, appID, subID string, n *Notification) (*NotificationResult, error) {
	t, ok := ParseProviderPath(providerPath)
	if !ok {
		return nil, Errorf(CodeNotFound, "No provider %q.", providerPath)
	}
	p, err := c.provider(t)
	if err != nil {
		return nil, Errorf(CodeNotFound, "No provider %q.", providerPath)
	}
	w, ok := watcherOf(p)
	if !ok {
		return nil, Errorf(CodeNotFound, "Provider %q has no push notifications.", providerPath)
	}
	// A notification is ignored when it cannot be read, or names changes
	// of which none matches (a handshake names none and is answered).
	ignored := true
	defer func() { c.obs.PushNotification(t, ignored) }()
	res, err := w.ParseNotification(n)
	if err != nil {
		return nil, err
	}
	ignored = len(res.Changes) > 0
	sub, err := c.store.GetSubscription(ctx, appID, subID)
	if ErrorCode(err) == CodeNotFound {
		return res, nil // deleted; its watch was stopped or will expire
	}
	if err != nil {
		return nil, err
	}
	for _, ch := range res.Changes {
		if sub.Watch == nil || ch.WatchID != sub.Watch.ID ||
			subtle.ConstantTimeCompare([]byte(ch.Token), []byte(sub.Watch.Token)) != 1 {
			c.log.WarnContext(ctx, "notification does not match the subscription's watch", "subscription", sub.ID, "watch", ch.WatchID)
			continue
		}
		ignored = false
		switch {
		case ch.Kind == WatchChanged && sub.IncludeEvents:
			// The changes are listed now, by the sync step a poll would
			// make, and the cursor moves past them: each notification's
			// message carries what changed since the previous one, a
			// burst's later notifications find nothing left and queue
			// nothing, and neither a reconcile nor a poll lists them again.
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lifecycleTimeout)
			err = c.syncSubscription(lctx, sub, false)
			cancel()
		case ch.Kind == WatchChanged:
			err = c.enqueueCoalesced(ctx, sub)
		case ch.Kind == WatchMissed:
			_, err = c.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventUnknown, nil)
		// The lifecycle answers call the provider before we reply. That
		// may take longer than Graph likes (it wants an answer within
		// seconds), but a notification it sends again is harmless: the
		// watch it names is then renewed once more, or no longer ours.
		// Graph hanging up must not cut the work short, though, or a
		// half-made watch would send us to polling for nothing.
		case ch.Kind == WatchReauthorize || ch.Kind == WatchRemoved:
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lifecycleTimeout)
			if ch.Kind == WatchReauthorize {
				err = c.reauthorizeWatch(lctx, sub)
			} else {
				err = c.rewatch(lctx, sub)
			}
			cancel()
		}
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}
