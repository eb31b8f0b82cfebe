package subscriptions

import (
	"context"
	"errors"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/webhook"
)

// Hooks is the [unical.SubscriptionHooks] of this package: set it as
// unical.Config.Subscriptions (cmd/unicald does) so that a write to a
// VIRTUAL calendar reaches its subscriptions at once and deleting an
// account stops its provider watches. The zero value is ready to use.
type Hooks struct {
	// ChangePollInterval is the engine's (engine.Config.ChangePollInterval),
	// with the same default of 1 minute and negative for none: a new
	// subscription's first check comes at a random point of the first
	// interval, so that subscriptions made together are not checked
	// together.
	ChangePollInterval time.Duration
}

// changePoll is the change poll interval of c's Hooks, with its default.
func changePoll(c *unical.Client) time.Duration {
	h, _ := c.Config().Subscriptions.(*Hooks)
	if h == nil || h.ChangePollInterval == 0 {
		return time.Minute
	}
	return h.ChangePollInterval
}

// CalendarChanged reports a write to a VIRTUAL calendar to its webhook
// subscriptions at once. Such a calendar changes only through a Client,
// so the writer itself runs each subscription's check right after the
// write, instead of leaving the change to the next poll: the check is the
// poll's own (detectChanges), which queues calendar.event.changed and
// moves the subscription's cursor, so the poll that follows finds nothing
// new and sends no second message. A failed check is only logged: the poll
// still reports the change later.
func (*Hooks) CalendarChanged(ctx context.Context, a *unical.App, rec *unical.AccountRecord, calendarID string) {
	if rec.ProviderType != unical.ProviderVirtual {
		return
	}
	c := a.Client()
	log := c.Config().Logger
	subs, err := c.Store().ListSubscriptions(ctx, a.ID(), rec.ID, "", 0)
	if err != nil {
		log.WarnContext(ctx, "list subscriptions after a VIRTUAL write", "account", rec.ID, "err", err)
		return
	}
	for _, sub := range subs {
		if sub.CalendarID != calendarID {
			continue
		}
		if err := detectChanges(ctx, a, sub, false); err != nil {
			log.WarnContext(ctx, "check subscription after a VIRTUAL write", "subscription", sub.ID, "err", err)
		}
	}
}

// StopWatch is [StopWatch]: the Client calls it before it deletes an
// account, while the credentials to do so are still there.
func (*Hooks) StopWatch(ctx context.Context, a *unical.App, sub *unical.SubscriptionRecord) {
	StopWatch(ctx, a, sub)
}

// StopWatch ends a subscription's provider watch, best effort: a watch
// left behind expires on its own, and its notifications no longer match a
// subscription.
func StopWatch(ctx context.Context, a *unical.App, sub *unical.SubscriptionRecord) {
	if sub.Watch == nil {
		return
	}
	_, p, s, err := a.Session(ctx, sub.EndUserAccountID)
	if err == nil {
		if w, ok := unical.WatcherOf(p); ok {
			err = w.StopWatch(ctx, s, sub.Watch)
		}
	}
	if err != nil {
		a.Client().Config().Logger.WarnContext(ctx, "stop provider watch", "subscription", sub.ID, "err", err)
	}
}

// Check is change detection, the one call of the engine (package engine)
// for a subscription. A subscription without a provider watch is checked
// for changes with its sync cursor, listing the calendar's events since
// the cursor. One with a watch has the watch renewed when renew is set
// (see [RenewWatch]) and is checked with its sync cursor when reconcile
// is set, in case push missed a change.
//
// Without reconcile (a subscription without a provider watch, on the
// engine's change polls) the check queues one calendar.event.changed
// message when anything changed, however much did. A cursor the provider
// no longer accepts is replaced by a fresh one and reported as
// calendar.event.unknown, because what changed in between cannot be told.
// An EXPIRED or deleted account is skipped.
//
// With reconcile, changes found are reported as calendar.event.changed
// (coalesced with a push message still waiting), and the check's time is
// recorded on the subscription. The cursor is not moved by push, so a
// check may report again a change push reported; that is harmless, a
// message only tells the receiver to sync.
func Check(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord, renew, reconcile bool) error {
	if sub.Watch == nil {
		return checkWithCursor(ctx, c, sub, false)
	}
	var err error
	if renew {
		err = RenewWatch(ctx, c, sub)
	}
	if reconcile {
		err = errors.Join(err, checkWithCursor(ctx, c, sub, true))
	}
	return err
}

// checkWithCursor is detectChanges for sub's application.
func checkWithCursor(ctx context.Context, c *unical.Client, sub *unical.SubscriptionRecord, reconcile bool) error {
	app, err := c.App(ctx, sub.ApplicationID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	return detectChanges(ctx, app, sub, reconcile)
}

// detectChanges checks one subscription with its sync cursor; reconcile
// tells a watched subscription's check from a poll.
func detectChanges(ctx context.Context, a *unical.App, sub *unical.SubscriptionRecord, reconcile bool) error {
	c := a.Client()
	now := c.Config().Now().UTC()
	_, p, s, err := a.Session(ctx, sub.EndUserAccountID)
	if err != nil {
		if unical.ErrorCode(err) == unical.CodeAccountExpired || unical.ErrorCode(err) == unical.CodeNotFound {
			return nil // nothing to poll until the account is reconnected
		}
		return err
	}
	eventType := ""
	cursor, listed, err := syncCursor(ctx, p, s, sub.CalendarID, sub.Cursor, sub.IncludeEvents)
	switch {
	case unical.ErrorCode(err) == unical.CodeGone:
		cursor, _, err = syncCursor(ctx, p, s, sub.CalendarID, "", false)
		eventType = unical.EventTypeCalendarEventUnknown
	case err == nil && sub.Cursor != "" && listed.n > 0:
		eventType = unical.EventTypeCalendarEventChanged
	}
	if err != nil {
		return a.ProviderFailed(ctx, sub.EndUserAccountID, err)
	}
	// The message goes in before the cursor moves: a crash in between
	// sends it twice rather than never.
	switch {
	case eventType == unical.EventTypeCalendarEventChanged && sub.IncludeEvents:
		// The step's own listing is the message's content, so it is not
		// coalesced with a waiting message (which carries other changes).
		_, err = c.Outbox().EnqueueSubscriptionMessage(ctx, sub, eventType, changeData(listed.events, sub.CursorAt))
	case eventType == unical.EventTypeCalendarEventChanged && reconcile:
		err = c.Outbox().EnqueueCoalesced(ctx, sub)
	case eventType != "":
		_, err = c.Outbox().EnqueueSubscriptionMessage(ctx, sub, eventType, nil)
	}
	if err != nil {
		return err
	}
	if cursor == sub.Cursor && !reconcile {
		return nil
	}
	_, err = c.Store().UpdateSubscription(ctx, sub.ApplicationID, sub.ID, func(r *unical.SubscriptionRecord) error {
		r.Cursor, r.CursorAt = cursor, now
		if reconcile {
			r.ReconciledAt = now
		}
		return nil
	})
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil // deleted meanwhile
	}
	return err
}

// baselineCursor walks a calendar's events to the end and returns the
// provider's sync cursor for its current state: the baseline of a new
// subscription, whose first check then reports the changes made after it.
func baselineCursor(ctx context.Context, p unical.Provider, s *unical.Session, calendarID string) (string, error) {
	cursor, _, err := syncCursor(ctx, p, s, calendarID, "", false)
	return cursor, err
}

// syncListing is what syncCursor listed: how many changed events, and the
// first MaxChangesListed+1 of them when asked to keep them.
type syncListing struct {
	n      int
	events []*unical.Event
}

// syncCursor walks a calendar's event changes since cursor ("" for all
// events) to the end and returns the provider's next sync cursor and what
// was listed; keep keeps the events for an includeEvents message.
func syncCursor(ctx context.Context, p unical.Provider, s *unical.Session, calendarID, cursor string, keep bool) (string, syncListing, error) {
	var listed syncListing
	page := ""
	for {
		batch, err := p.ListEvents(ctx, s, calendarID, &unical.EventQuery{SyncCursor: cursor, WantSync: true, PageCursor: page, PageSize: 250})
		if err != nil {
			return "", syncListing{}, err
		}
		listed.n += len(batch.Events)
		if keep {
			room := max(unical.MaxChangesListed+1-len(listed.events), 0)
			listed.events = append(listed.events, batch.Events[:min(room, len(batch.Events))]...)
		}
		if batch.NextPageCursor == "" {
			return batch.NextSyncCursor, listed, nil
		}
		page = batch.NextPageCursor
	}
}

// changeData is the data of an includeEvents message: the events one
// sync step listed since a cursor taken at since, as webhook.Changes
// lists them (oldest change first, bodies within MaxChangeBodies and
// MaxChangeBytes, at most MaxChangesListed).
func changeData(events []*unical.Event, since time.Time) *unical.ChangeData {
	items := make([]webhook.Changed, len(events))
	for i, e := range events {
		items[i] = webhook.Changed{ID: e.ID, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Deleted: e.IsCancelled, Body: e}
	}
	list, truncated := webhook.Changes(items, since)
	d := &unical.ChangeData{Events: make([]unical.EventChange, len(list)), Truncated: truncated}
	for i, ch := range list {
		d.Events[i] = unical.EventChange(ch)
	}
	return d
}
