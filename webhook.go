package unical

import (
	"context"
	"encoding/json"
	"time"

	"github.com/unical/unical/outbox"
)

// Webhook event types. calendar.event.* go to a subscription's webhookUrl;
// enduseraccount.* go to the application's own webhook endpoint.
const (
	EventTypeCalendarEventChanged     = "calendar.event.changed"
	EventTypeCalendarEventUnknown     = "calendar.event.unknown"
	EventTypeAccountCreated           = "enduseraccount.created"
	EventTypeAccountUpdated           = "enduseraccount.updated"
	EventTypeAccountDeleted           = "enduseraccount.deleted"
	EventTypeAccountCredentialUpdated = "enduseraccount.credential.updated"
)

// Subscription is a listed webhook subscription record. SubscriptionID,
// ResourceID and Expiration describe the provider-side watch, when there is
// one; the EndpointState fields say whether its URL is failing or
// disabled.
type Subscription struct {
	ID               string       `json:"id"`
	Provider         ProviderType `json:"provider"`
	URL              string       `json:"url"`
	CalendarID       string       `json:"calendarId"`
	Expiration       *time.Time   `json:"expiration"`
	SubscriptionID   string       `json:"subscriptionId"`
	ResourceID       string       `json:"resourceId"`
	EndUserAccountID string       `json:"endUserAccountId"`
	CreatedAt        time.Time    `json:"createdAt"`
	UpdatedAt        time.Time    `json:"updatedAt"`
	// IncludeEvents (our extension) is whether calendar.event.changed
	// messages carry the changed events (MessagePayload.Data); left out
	// of the JSON when false, so the spec's record is unchanged.
	IncludeEvents bool `json:"includeEvents,omitempty"`
	outbox.EndpointState
}

// MarshalJSON writes the times as Account.MarshalJSON does.
func (s Subscription) MarshalJSON() ([]byte, error) {
	type plain Subscription // without this method
	return json.Marshal(struct {
		plain
		Expiration   *string `json:"expiration"`
		CreatedAt    string  `json:"createdAt"`
		UpdatedAt    string  `json:"updatedAt"`
		FailingSince *string `json:"failingSince,omitempty"`
		DisabledAt   *string `json:"disabledAt,omitempty"`
	}{plain(s), formatTimestampPtr(s.Expiration), FormatTimestamp(s.CreatedAt), FormatTimestamp(s.UpdatedAt),
		formatTimestampPtr(s.FailingSince), formatTimestampPtr(s.DisabledAt)})
}

// formatTimestampPtr is FormatTimestamp of an optional time: nil for nil.
func formatTimestampPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTimestamp(*t)
	return &s
}

// MessagePayload is the JSON body of a webhook message. calendar.event.*
// messages carry eventType and timestamp as the spec shows, plus the ids of
// the subscription, account and calendar; enduseraccount.* messages carry
// the account.
type MessagePayload struct {
	EventType        string   `json:"eventType"`
	Timestamp        string   `json:"timestamp"`
	SubscriptionID   string   `json:"webhookSubscriptionId,omitempty"`
	EndUserAccountID string   `json:"endUserAccountId,omitempty"`
	CalendarID       string   `json:"calendarId,omitempty"`
	EndUserAccount   *Account `json:"endUserAccount,omitempty"`
	// Data carries the changes of a calendar.event.changed message to a
	// subscription created with includeEvents.
	Data *outbox.ChangeData `json:"data,omitempty"`
}

// accountEvents builds the enduseraccount.* messages of an application's
// own webhook endpoint. The messages go to the Store with the account
// change they report (CreateAccount, UpdateAccountAndEnqueue and
// DeleteAccount take them), so that no change goes unreported and no
// report is sent of a change that did not happen.
type accountEvents struct {
	appID string
	// enabled is whether the application has a webhook URL; without one
	// there is nothing to queue.
	enabled bool
	now     time.Time
}

// accountEvents reads the application's webhook setting. It is called
// before the Store write, because the builder runs inside UpdateAccount's
// fn, which must not call the Store.
func (a *App) accountEvents(ctx context.Context) (*accountEvents, error) {
	app, err := a.c.Application(ctx, a.id)
	if err != nil {
		return nil, err
	}
	return &accountEvents{appID: a.id, enabled: app.WebhookURL != "", now: a.c.now().UTC()}, nil
}

// messages returns one message per event type about acct, or none when
// the application has no webhook URL.
func (ev *accountEvents) messages(acct *Account, eventTypes ...string) []*outbox.Message {
	if !ev.enabled {
		return nil
	}
	msgs := make([]*outbox.Message, len(eventTypes))
	for i, eventType := range eventTypes {
		body, _ := json.Marshal(MessagePayload{
			EventType: eventType, Timestamp: FormatTimestamp(ev.now),
			EndUserAccountID: acct.ID, EndUserAccount: accountView(&AccountRecord{Account: *acct}),
		})
		msgs[i] = &outbox.Message{
			ID: NewID("msg"), ApplicationID: ev.appID, EventType: eventType, Payload: body,
			CreatedAt: ev.now, Status: outbox.Pending, NextAttemptAt: ev.now,
		}
	}
	return msgs
}

// queued wakes a running engine when msgs were queued.
func (c *Client) queued(msgs []*outbox.Message) {
	if len(msgs) > 0 {
		c.cfg.Outbox.Notify()
	}
}
