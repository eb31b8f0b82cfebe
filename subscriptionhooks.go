package unical

import "context"

// SubscriptionHooks is what the Client tells the webhook subscriptions of
// its applications (package subscriptions' Hooks, which cmd/unicald sets
// as Config.Subscriptions): change detection and provider watches are
// theirs, not the calendar domain's. Without hooks the Client works as a
// library without webhooks.
type SubscriptionHooks interface {
	// CalendarChanged runs after a write through the Client to calendarID
	// of account rec, so that the subscriptions of a VIRTUAL calendar,
	// which changes only through a Client, hear of it at once.
	CalendarChanged(ctx context.Context, a *App, rec *AccountRecord, calendarID string)
	// StopWatch ends sub's provider watch, best effort, before its
	// account is deleted, while the credentials to do so are still there.
	StopWatch(ctx context.Context, a *App, sub *SubscriptionRecord)
}

// noSubscriptions are the hooks of a Client without any.
type noSubscriptions struct{}

func (noSubscriptions) CalendarChanged(context.Context, *App, *AccountRecord, string) {}
func (noSubscriptions) StopWatch(context.Context, *App, *SubscriptionRecord)          {}
