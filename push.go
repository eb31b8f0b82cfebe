package unical

import (
	"context"
	"crypto/subtle"
	"net/url"
	"sync"
	"time"
)

// watchLifetime is the watch lifetime asked for; providers shorten it to
// their maximum (Google about a week, Graph about three days).
const watchLifetime = 7 * 24 * time.Hour

// coalescer remembers each subscription's newest queued push message, so
// that a burst of notifications queues one message while it waits.
type coalescer struct {
	mu   sync.Mutex
	last map[string]string // subscription id → message id
}

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
	w, ok := p.(Watcher)
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
		if w, ok := p.(Watcher); ok {
			err = w.StopWatch(ctx, s, sub.Watch)
		}
	}
	if err != nil {
		a.c.log.WarnContext(ctx, "stop provider watch", "subscription", sub.ID, "err", err)
	}
}

// renewWatch renews sub's watch when it ends within Config.WatchRenewBefore.
// A watch that has ended without renewal is dropped, and the subscription
// is polled from then on.
func (c *Client) renewWatch(ctx context.Context, sub *SubscriptionRecord) error {
	now := c.now()
	if now.Add(c.engine.watchRenewBefore).Before(sub.Watch.Expiration) {
		return nil
	}
	a := &App{c: c, id: sub.ApplicationID}
	var renewed *Watch
	// The token stays: Graph cannot change a subscription's clientState,
	// so a new token would force a new subscription (and handshake) on
	// every renewal. Only a watch stored without one gets a fresh token.
	token := sub.Watch.Token
	if token == "" {
		token = randomString(24)
	}
	_, p, s, err := a.session(ctx, sub.EndUserAccountID)
	if err == nil {
		w, ok := p.(Watcher)
		if !ok || c.publicURL == "" {
			err = Errorf(CodeNotImplemented, "push is no longer available")
		} else {
			renewed, err = w.RenewWatch(ctx, s, sub.Watch, &WatchRequest{
				CalendarID: sub.CalendarID, Address: c.notificationURL(sub.Provider, sub.ApplicationID, sub.ID),
				Token: token, Expiration: now.Add(watchLifetime),
			})
		}
	}
	if err != nil && now.Before(sub.Watch.Expiration) {
		return err // try again on the next pass while the watch still runs
	}
	old := sub.Watch.ID
	_, uerr := c.store.UpdateSubscription(ctx, sub.ApplicationID, sub.ID, func(r *SubscriptionRecord) error {
		if r.Watch == nil || r.Watch.ID != old {
			return errUnchanged // someone else renewed it
		}
		setWatch(r, renewed, token)
		r.UpdatedAt = now.UTC()
		return nil
	})
	if uerr != nil && uerr != errUnchanged && ErrorCode(uerr) != CodeNotFound {
		return uerr
	}
	return err
}

// HandleNotification takes a push notification from a provider for one
// subscription: the provider's Watcher reads it, each change whose watch
// id and token match the subscription's stored watch becomes a message
// (calendar.event.changed, coalesced while one is still waiting;
// calendar.event.unknown for missed or ended watches, which then fall
// back to polling), and the answer the provider expects is returned.
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
	w, ok := p.(Watcher)
	if !ok {
		return nil, Errorf(CodeNotFound, "Provider %q has no push notifications.", providerPath)
	}
	res, err := w.ParseNotification(n)
	if err != nil {
		return nil, err
	}
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
		switch ch.Kind {
		case "changed":
			err = c.enqueueCoalesced(ctx, sub)
		case "missed":
			_, err = c.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventUnknown)
		case "removed", "reauthorize":
			// The provider ended the watch: poll from now on, and tell the
			// receiver to resync since changes may have been missed.
			_, err = c.store.UpdateSubscription(ctx, appID, subID, func(r *SubscriptionRecord) error {
				setWatch(r, nil, "")
				return nil
			})
			if err == nil {
				_, err = c.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventUnknown)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// enqueueCoalesced queues a calendar.event.changed message unless the
// subscription's previous one is still waiting untouched: that one will
// make the receiver sync, and the sync sees this change too.
func (c *Client) enqueueCoalesced(ctx context.Context, sub *SubscriptionRecord) error {
	co := c.engine.coalesce
	co.mu.Lock()
	last := co.last[sub.ID]
	co.mu.Unlock()
	if last != "" {
		msg, err := c.store.GetMessage(ctx, sub.ApplicationID, last)
		if err == nil && msg.Status == MessagePending && msg.Attempts == 0 && msg.LeaseOwner == "" {
			return nil
		}
	}
	id, err := c.enqueueSubscriptionMessage(ctx, sub, EventTypeCalendarEventChanged)
	if err != nil {
		return err
	}
	co.mu.Lock()
	co.last[sub.ID] = id
	co.mu.Unlock()
	return nil
}
