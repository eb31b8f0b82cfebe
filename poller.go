package unical

import (
	"context"

	"github.com/unical/unical/outbox"
)

// DetectChanges is change detection, the one call of the engine (package
// engine) into the Client for a subscription: it checks the subscription
// for changes with its sync cursor, listing the calendar's events since
// the cursor.
//
// Without reconcile (a subscription without a provider watch, on the
// engine's change polls) it queues one calendar.event.changed message
// when anything changed, however much did. A cursor the provider no
// longer accepts is replaced by a fresh one and reported as
// calendar.event.unknown, because what changed in between cannot be told.
// An EXPIRED or deleted account is skipped.
//
// With reconcile (a subscription with a provider watch, in case push
// missed a change) changes found are reported as calendar.event.changed
// (coalesced with a push message still waiting), and the check's time is
// recorded on the subscription. The cursor is not moved by push, so a
// check may report again a change push reported; that is harmless, a
// message only tells the receiver to sync.
func (c *Client) DetectChanges(ctx context.Context, sub *SubscriptionRecord, reconcile bool) error {
	return c.syncSubscription(ctx, sub, reconcile)
}

// syncSubscription checks one subscription with its sync cursor; reconcile
// tells a watched subscription's check from a poll.
func (c *Client) syncSubscription(ctx context.Context, sub *SubscriptionRecord, reconcile bool) error {
	now := c.now().UTC()
	a := &App{c: c, id: sub.ApplicationID}
	_, p, s, err := a.Session(ctx, sub.EndUserAccountID)
	if err != nil {
		if ErrorCode(err) == CodeAccountExpired || ErrorCode(err) == CodeNotFound {
			return nil // nothing to poll until the account is reconnected
		}
		return err
	}
	eventType := ""
	cursor, listed, err := syncCursor(ctx, p, s, sub.CalendarID, sub.Cursor, sub.IncludeEvents)
	switch {
	case ErrorCode(err) == CodeGone:
		cursor, _, err = syncCursor(ctx, p, s, sub.CalendarID, "", false)
		eventType = EventTypeCalendarEventUnknown
	case err == nil && sub.Cursor != "" && listed.n > 0:
		eventType = EventTypeCalendarEventChanged
	}
	if err != nil {
		return a.ProviderFailed(ctx, sub.EndUserAccountID, err)
	}
	// The message goes in before the cursor moves: a crash in between
	// sends it twice rather than never.
	switch {
	case eventType == EventTypeCalendarEventChanged && sub.IncludeEvents:
		// The step's own listing is the message's content, so it is not
		// coalesced with a waiting message (which carries other changes).
		_, err = c.Outbox().EnqueueSubscriptionMessage(ctx, sub, eventType, changeData(listed.events, sub.CursorAt))
	case eventType == EventTypeCalendarEventChanged && reconcile:
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
	_, err = c.store.UpdateSubscription(ctx, sub.ApplicationID, sub.ID, func(r *SubscriptionRecord) error {
		r.Cursor, r.CursorAt = cursor, now
		if reconcile {
			r.ReconciledAt = now
		}
		return nil
	})
	if ErrorCode(err) == CodeNotFound {
		return nil // deleted meanwhile
	}
	return err
}

// SyncCursor walks a calendar's events to the end and returns the
// provider's sync cursor for its current state: the baseline of a new
// subscription, whose first check then reports the changes made after it.
func SyncCursor(ctx context.Context, p Provider, s *Session, calendarID string) (string, error) {
	cursor, _, err := syncCursor(ctx, p, s, calendarID, "", false)
	return cursor, err
}

// syncListing is what syncCursor listed: how many changed events, and the
// first MaxChangesListed+1 of them when asked to keep them.
type syncListing struct {
	n      int
	events []*Event
}

// syncCursor walks a calendar's event changes since cursor ("" for all
// events) to the end and returns the provider's next sync cursor and what
// was listed; keep keeps the events for an includeEvents message.
func syncCursor(ctx context.Context, p Provider, s *Session, calendarID, cursor string, keep bool) (string, syncListing, error) {
	var listed syncListing
	page := ""
	for {
		batch, err := p.ListEvents(ctx, s, calendarID, &EventQuery{SyncCursor: cursor, WantSync: true, PageCursor: page, PageSize: 250})
		if err != nil {
			return "", syncListing{}, err
		}
		listed.n += len(batch.Events)
		if keep {
			room := max(outbox.MaxChangesListed+1-len(listed.events), 0)
			listed.events = append(listed.events, batch.Events[:min(room, len(batch.Events))]...)
		}
		if batch.NextPageCursor == "" {
			return batch.NextSyncCursor, listed, nil
		}
		page = batch.NextPageCursor
	}
}

// localChanged reports a write to a VIRTUAL calendar to its webhook
// subscriptions at once. Such a calendar changes only through a Client,
// so the writer itself runs each subscription's check right after the
// write, instead of leaving the change to the next poll: the check is the
// poll's own (syncSubscription), which queues calendar.event.changed and
// moves the subscription's cursor, so the poll that follows finds nothing
// new and sends no second message. A failed check is only logged: the poll
// still reports the change later.
func (a *App) localChanged(ctx context.Context, rec *AccountRecord, calendarID string) {
	if rec.ProviderType != ProviderVirtual {
		return
	}
	subs, err := a.c.store.ListSubscriptions(ctx, a.id, rec.ID, "", 0)
	if err != nil {
		a.c.log.WarnContext(ctx, "list subscriptions after a VIRTUAL write", "account", rec.ID, "err", err)
		return
	}
	for _, sub := range subs {
		if sub.CalendarID != calendarID {
			continue
		}
		if err := a.c.syncSubscription(ctx, sub, false); err != nil {
			a.c.log.WarnContext(ctx, "check subscription after a VIRTUAL write", "subscription", sub.ID, "err", err)
		}
	}
}
