package webhookreceiver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/webhook"
	"github.com/unical/unical/outbox"
)

// Message is a verified delivery.
type Message struct {
	// ID is webhook-id: the message's id, the same on every retry and
	// resend. Deduplicate on it.
	ID string
	// Timestamp is webhook-timestamp: when this attempt was sent (whole
	// seconds). The payload's own timestamp is when the change was found.
	Timestamp time.Time
	// Event is the decoded payload: a *CalendarEvent, an *AccountEvent, a
	// *TestEvent, or an *UnknownEvent for an event type this package does
	// not know.
	Event Event
	// Body is the raw, verified request body.
	Body []byte
}

// Event is a decoded message payload. Switch on its concrete type:
// *CalendarEvent, *AccountEvent, *TestEvent or *UnknownEvent.
type Event interface {
	// EventType is the payload's eventType, one of the unical.EventType…
	// constants for the known types.
	EventType() string
	isEvent()
}

// CalendarEvent is a calendar.event.* message, sent to a subscription's
// webhookUrl: unical.EventTypeCalendarEventChanged (events of the calendar
// changed; list them with the account's sync token to see which) or
// unical.EventTypeCalendarEventUnknown (changes may have been missed;
// resynchronise the calendar from scratch).
type CalendarEvent struct {
	Type string
	// Timestamp is when the change was detected (milliseconds).
	Timestamp        time.Time
	SubscriptionID   string
	EndUserAccountID string
	CalendarID       string
	// Changes are the changed events of a calendar.event.changed message
	// to a subscription created with includeEvents, in order; nil
	// otherwise.
	Changes []Change
	// ChangesTruncated is set when more events changed than Changes
	// lists: sync to see them all.
	ChangesTruncated bool
}

// Change is one changed event of an includeEvents message.
type Change struct {
	// Type is created, updated or deleted.
	Type    string
	EventID string
	// Event is the event as GET returns it (only ID and IsCancelled for a
	// deleted one); nil when Truncated.
	Event *unical.Event
	// Truncated is set when the message had no room for the event's
	// body: get the event, or sync.
	Truncated bool
}

// AccountEvent is an enduseraccount.* message, sent to the application's
// own webhook URL: unical.EventTypeAccountCreated, EventTypeAccountUpdated
// (an EXPIRED account among others), EventTypeAccountDeleted or
// EventTypeAccountCredentialUpdated. Account is the account as it was
// after the change (before it, for a deletion).
type AccountEvent struct {
	Type string
	// Timestamp is when the account changed (milliseconds).
	Timestamp        time.Time
	EndUserAccountID string
	Account          unical.Account
}

// EventTypeTest is the event type of a test message, "webhook.test".
const EventTypeTest = webhook.EventTypeTest

// TestEvent is a webhook.test message, which an operator sends from
// unicald's dashboard ("Send a test event") to check that the endpoint
// receives and verifies what unical sends. It says nothing about a
// calendar or an account: acknowledge it. Sent to a subscription's
// webhookUrl it names the subscription, its account and its calendar;
// sent to the application's own webhook URL they are empty.
type TestEvent struct {
	Type             string
	Timestamp        time.Time
	SubscriptionID   string
	EndUserAccountID string
	CalendarID       string
}

// UnknownEvent is a message of an event type this version of the package
// does not know, from a newer unical. Acknowledge it (the Handler answers
// 204), or unical would retry it and finally disable the endpoint.
type UnknownEvent struct {
	Type      string
	Timestamp time.Time
	// Payload is the whole JSON body.
	Payload json.RawMessage
}

func (e *CalendarEvent) EventType() string { return e.Type }
func (e *AccountEvent) EventType() string  { return e.Type }
func (e *TestEvent) EventType() string     { return e.Type }
func (e *UnknownEvent) EventType() string  { return e.Type }
func (*CalendarEvent) isEvent()            {}
func (*AccountEvent) isEvent()             {}
func (*TestEvent) isEvent()                {}
func (*UnknownEvent) isEvent()             {}

// Decode decodes a message payload, as unical sends it, into its typed
// Event. It does not verify anything: use it on bodies already verified
// (Verifier.Verify verifies and decodes). It fails with a CodeInvalid
// *unical.Error wrapping ErrBadPayload and naming the field at fault when
// the body is not JSON, has no eventType, a timestamp that is not RFC 3339,
// or lacks the ids its event type carries. Unknown fields are ignored, so
// that additions to the payload do not break receivers.
func Decode(body []byte) (Event, error) {
	var p unical.MessagePayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, badPayload("", "The body is not a JSON message payload.")
	}
	if p.EventType == "" {
		return nil, badPayload("eventType", "eventType is required.")
	}
	ts, err := time.Parse(time.RFC3339Nano, p.Timestamp)
	if err != nil {
		return nil, badPayload("timestamp", "timestamp must be an RFC 3339 date-time.")
	}
	switch p.EventType {
	case unical.EventTypeCalendarEventChanged, unical.EventTypeCalendarEventUnknown:
		for _, f := range []struct{ name, value string }{
			{"webhookSubscriptionId", p.SubscriptionID}, {"endUserAccountId", p.EndUserAccountID}, {"calendarId", p.CalendarID},
		} {
			if f.value == "" {
				return nil, badPayload(f.name, "%s is required in a %s message.", f.name, p.EventType)
			}
		}
		ev := &CalendarEvent{Type: p.EventType, Timestamp: ts, SubscriptionID: p.SubscriptionID, EndUserAccountID: p.EndUserAccountID, CalendarID: p.CalendarID}
		if p.Data != nil {
			changes, err := decodeChanges(p.Data)
			if err != nil {
				return nil, err
			}
			ev.Changes, ev.ChangesTruncated = changes, p.Data.Truncated
		}
		return ev, nil
	case unical.EventTypeAccountCreated, unical.EventTypeAccountUpdated, unical.EventTypeAccountDeleted, unical.EventTypeAccountCredentialUpdated:
		if p.EndUserAccount == nil {
			return nil, badPayload("endUserAccount", "endUserAccount is required in a %s message.", p.EventType)
		}
		if p.EndUserAccountID == "" {
			p.EndUserAccountID = p.EndUserAccount.ID
		}
		return &AccountEvent{Type: p.EventType, Timestamp: ts, EndUserAccountID: p.EndUserAccountID, Account: *p.EndUserAccount}, nil
	case EventTypeTest:
		return &TestEvent{Type: p.EventType, Timestamp: ts, SubscriptionID: p.SubscriptionID, EndUserAccountID: p.EndUserAccountID, CalendarID: p.CalendarID}, nil
	}
	return &UnknownEvent{Type: p.EventType, Timestamp: ts, Payload: json.RawMessage(body)}, nil
}

// decodeChanges decodes data.events, naming the entry at fault.
func decodeChanges(d *outbox.ChangeData) ([]Change, error) {
	changes := make([]Change, len(d.Events))
	for i, c := range d.Events {
		field := fmt.Sprintf("data.events[%d]", i)
		switch c.ChangeType {
		case "created", "updated", "deleted":
		default:
			return nil, badPayload(field+".changeType", "changeType must be created, updated or deleted.")
		}
		if c.EventID == "" {
			return nil, badPayload(field+".eventId", "eventId is required.")
		}
		changes[i] = Change{Type: c.ChangeType, EventID: c.EventID, Truncated: c.Truncated}
		if len(c.Event) > 0 {
			var e unical.Event
			if err := json.Unmarshal(c.Event, &e); err != nil {
				return nil, badPayload(field+".event", "event is not an event.")
			}
			changes[i].Event = &e
		}
	}
	return changes, nil
}

func badPayload(field, format string, args ...any) error {
	e := unical.FieldError(field, format, args...)
	e.Err = ErrBadPayload
	return e
}
