package subscriptions

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/url"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/ids"
)

// watchLifetime is the watch lifetime asked for; providers shorten it to
// their maximum (Google about a week, Graph about three days).
const watchLifetime = 7 * 24 * time.Hour

// lifecycleTimeout bounds the provider calls that answer a lifecycle
// notification, which run on after the notifier hangs up.
const lifecycleTimeout = time.Minute

// errUnchanged aborts an UpdateSubscription whose change is already in
// place (someone else replaced the watch); it is recognised with
// errors.Is, as a Store may wrap the error of fn.
var errUnchanged = errors.New("subscriptions: unchanged")

// notificationURL is the address a provider posts a subscription's
// notifications to. The subscription is in the path, so a notification is
// matched with one read and no index; the watch token, not the address,
// is what authenticates it.
func notificationURL(c *unical.Client, sub *unical.SubscriptionRecord) string {
	return c.Config().PublicURL + "/v1/notifications/" + sub.Provider.PathName() + "/" + url.PathEscape(sub.ApplicationID) + "/" + url.PathEscape(sub.ID)
}

// session opens the provider session of sub's account.
func session(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord) (*unical.AccountRecord, unical.Provider, *unical.Session, error) {
	app, err := c.App(ctx, sub.ApplicationID)
	if err != nil {
		return nil, nil, nil, err
	}
	return app.Session(ctx, sub.EndUserAccountID)
}

// startWatch asks the provider to push changes of sub's calendar, when the
// server has a public URL and the provider can push. On any failure the
// subscription is polled instead, so the failure is only logged.
func startWatch(ctx context.Context, c *unical.Client, p unical.Provider, s *unical.Session, sub *unical.SubscriptionRecord) {
	w, ok := unical.WatcherOf(p)
	if !ok || c.Config().PublicURL == "" {
		return
	}
	req := &unical.WatchRequest{
		CalendarID: sub.CalendarID, Address: notificationURL(c, sub),
		Token: ids.Random(24), Expiration: c.Config().Now().Add(watchLifetime),
	}
	watch, err := w.Watch(ctx, s, req)
	if err != nil {
		c.Config().Logger.WarnContext(ctx, "provider watch failed; polling instead", "subscription", sub.ID, "err", err)
		return
	}
	setWatch(sub, watch, req.Token)
}

// setWatch records a provider watch on a subscription, with the token we
// chose (a provider need not echo it in its answer).
func setWatch(sub *unical.SubscriptionRecord, w *unical.Watch, token string) {
	if w == nil {
		sub.Watch, sub.SubscriptionID, sub.ResourceID, sub.Expiration = nil, "", "", nil
		return
	}
	w.Token = token
	exp := w.Expiration.UTC()
	sub.Watch, sub.SubscriptionID, sub.ResourceID, sub.Expiration = w, w.ID, w.ResourceID, &exp
}

// RenewWatch renews sub's watch with the provider. The engine (package
// engine) calls it when the watch ends within engine.Config.WatchRenewBefore. A
// watch that has ended without renewal is dropped, and the subscription
// is polled from then on; while it still runs, a failed renewal leaves it
// for the next try.
func RenewWatch(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord) error {
	now := c.Config().Now()
	renewed, token, err := providerRenewWatch(ctx, c, sub)
	if err != nil && now.Before(sub.Watch.Expiration) {
		return err // try again on the next pass while the watch still runs
	}
	if uerr := replaceWatch(ctx, c, sub, renewed, token); uerr != nil {
		return uerr
	}
	return err
}

// providerRenewWatch asks the provider to renew sub's watch and returns
// the renewed watch with the token it carries.
func providerRenewWatch(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord) (*unical.Watch, string, error) {
	// The token stays: Graph cannot change a subscription's clientState,
	// so a new token would force a new subscription (and handshake) on
	// every renewal. Only a watch stored without one gets a fresh token.
	token := sub.Watch.Token
	if token == "" {
		token = ids.Random(24)
	}
	_, p, s, err := session(ctx, c, sub)
	if err != nil {
		return nil, token, err
	}
	w, ok := unical.WatcherOf(p)
	if !ok || c.Config().PublicURL == "" {
		return nil, token, unical.Errorf(unical.CodeNotImplemented, "push is no longer available")
	}
	renewed, err := w.RenewWatch(ctx, s, sub.Watch, &unical.WatchRequest{
		CalendarID: sub.CalendarID, Address: notificationURL(c, sub),
		Token: token, Expiration: c.Config().Now().Add(watchLifetime),
	})
	return renewed, token, err
}

// replaceWatch stores w (nil: none, poll from now on) in place of sub's
// watch, unless the stored watch is no longer the one sub shows: then
// someone else replaced it meanwhile and theirs stands. A deleted
// subscription is no error.
func replaceWatch(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord, w *unical.Watch, token string) error {
	old := sub.Watch.ID
	_, err := c.Store().UpdateSubscription(ctx, sub.ApplicationID, sub.ID, func(r *unical.SubscriptionRecord) error {
		if r.Watch == nil || r.Watch.ID != old {
			return errUnchanged
		}
		setWatch(r, w, token)
		r.UpdatedAt = c.Config().Now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) && unical.ErrorCode(err) != unical.CodeNotFound {
		return err
	}
	return nil
}

// reauthorizeWatch answers Graph's reauthorizationRequired: the watch is
// renewed in place (same token, see providerRenewWatch) and push goes on;
// no change was lost, so no message is queued. If the provider refuses,
// the watch is dropped for polling, as when it ends.
func reauthorizeWatch(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord) error {
	renewed, token, err := providerRenewWatch(ctx, c, sub)
	if err != nil {
		c.Config().Logger.WarnContext(ctx, "reauthorize provider watch failed; polling instead", "subscription", sub.ID, "err", err)
		return dropWatch(ctx, c, sub)
	}
	return replaceWatch(ctx, c, sub, renewed, token)
}

// rewatch answers Graph's subscriptionRemoved: one new watch is created
// in place of the removed one (there is nothing left to renew), else the
// subscription is polled. Either way changes may have happened while no
// watch ran, so the receiver is told to resync.
func rewatch(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord) error {
	fresh := *sub
	fresh.Watch = nil
	if _, p, s, err := session(ctx, c, sub); err == nil {
		startWatch(ctx, c, p, s, &fresh) // logs its own failure
	} else {
		c.Config().Logger.WarnContext(ctx, "provider watch removed; polling instead", "subscription", sub.ID, "err", err)
	}
	if fresh.Watch == nil {
		return dropWatch(ctx, c, sub)
	}
	if err := replaceWatch(ctx, c, sub, fresh.Watch, fresh.Watch.Token); err != nil {
		return err
	}
	_, err := Enqueue(ctx, c, sub, unical.EventTypeCalendarEventUnknown, nil)
	return err
}

// dropWatch forgets sub's ended watch, so that the subscription is polled
// from now on, and tells the receiver to resync since changes may have
// been missed.
func dropWatch(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord) error {
	if err := replaceWatch(ctx, c, sub, nil, ""); err != nil {
		return err
	}
	_, err := Enqueue(ctx, c, sub, unical.EventTypeCalendarEventUnknown, nil)
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
func HandleNotification(ctx context.Context, c *unical.Client, providerPath, appID, subID string, n *unical.Notification) (*unical.NotificationResult, error) {
	t, ok := unical.ParseProviderPath(providerPath)
	if !ok {
		return nil, unical.Errorf(unical.CodeNotFound, "No provider %q.", providerPath)
	}
	p, err := c.Provider(t)
	if err != nil {
		return nil, unical.Errorf(unical.CodeNotFound, "No provider %q.", providerPath)
	}
	w, ok := unical.WatcherOf(p)
	if !ok {
		return nil, unical.Errorf(unical.CodeNotFound, "Provider %q has no push notifications.", providerPath)
	}
	// A notification is ignored when it cannot be read, or names changes
	// of which none matches (a handshake names none and is answered).
	ignored := true
	defer func() { c.Config().Observer.PushNotification(t, ignored) }()
	res, err := w.ParseNotification(n)
	if err != nil {
		return nil, err
	}
	ignored = len(res.Changes) > 0
	sub, err := c.Store().GetSubscription(ctx, appID, subID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return res, nil // deleted; its watch was stopped or will expire
	}
	if err != nil {
		return nil, err
	}
	log := c.Config().Logger
	for _, ch := range res.Changes {
		if sub.Watch == nil || ch.WatchID != sub.Watch.ID ||
			subtle.ConstantTimeCompare([]byte(ch.Token), []byte(sub.Watch.Token)) != 1 {
			log.WarnContext(ctx, "notification does not match the subscription's watch", "subscription", sub.ID, "watch", ch.WatchID)
			continue
		}
		ignored = false
		switch {
		case ch.Kind == unical.WatchChanged && sub.IncludeEvents:
			// The changes are listed now, by the sync step a poll would
			// make, and the cursor moves past them: each notification's
			// message carries what changed since the previous one, a
			// burst's later notifications find nothing left and queue
			// nothing, and neither a reconcile nor a poll lists them again.
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lifecycleTimeout)
			err = checkWithCursor(lctx, c, sub, false)
			cancel()
		case ch.Kind == unical.WatchChanged:
			err = enqueueCoalesced(ctx, c, sub)
		case ch.Kind == unical.WatchMissed:
			_, err = Enqueue(ctx, c, sub, unical.EventTypeCalendarEventUnknown, nil)
		// The lifecycle answers call the provider before we reply. That
		// may take longer than Graph likes (it wants an answer within
		// seconds), but a notification it sends again is harmless: the
		// watch it names is then renewed once more, or no longer ours.
		// Graph hanging up must not cut the work short, though, or a
		// half-made watch would send us to polling for nothing.
		case ch.Kind == unical.WatchReauthorize || ch.Kind == unical.WatchRemoved:
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lifecycleTimeout)
			if ch.Kind == unical.WatchReauthorize {
				err = reauthorizeWatch(lctx, c, sub)
			} else {
				err = rewatch(lctx, c, sub)
			}
			cancel()
		}
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}
