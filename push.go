package unical

import "context"

// The provider watches behind webhook subscriptions (starting, renewing,
// replacing them) and the push notifications providers send are package
// subscriptions'. The Client stops an account's watches itself when it
// deletes the account, while the credentials to do so are still there.

// StopWatch ends a subscription's provider watch, best effort: a watch
// left behind expires on its own, and its notifications no longer match a
// subscription.
func (a *App) StopWatch(ctx context.Context, sub *SubscriptionRecord) {
	if sub.Watch == nil {
		return
	}
	_, p, s, err := a.Session(ctx, sub.EndUserAccountID)
	if err == nil {
		if w, ok := WatcherOf(p); ok {
			err = w.StopWatch(ctx, s, sub.Watch)
		}
	}
	if err != nil {
		a.c.log.WarnContext(ctx, "stop provider watch", "subscription", sub.ID, "err", err)
	}
}
