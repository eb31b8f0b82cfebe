package outbox

import (
	"encoding/json"
	"time"

	"github.com/unical/unical/internal/webhook"
)

// This file holds what a webhook message and its endpoint show the
// developer beside the message itself: the changes a
// calendar.event.changed message carries, and how deliveries to an
// endpoint are going.

// EndpointState is how deliveries to a webhook endpoint (a subscription's
// URL or an application's own) are going. An endpoint that answers 410
// Gone, or has failed continuously for the engine's EndpointDisableAfter, is
// disabled: its messages fail without an attempt until the developer
// resends one (or, for the application's endpoint, sets a new URL). An
// extension of the spec, after Svix.
type EndpointState struct {
	// FailingSince is the first failed attempt since the last delivered
	// one; nil while the endpoint works.
	FailingSince *time.Time `json:"failingSince,omitempty"`
	// DisabledAt is when the endpoint was disabled; nil while enabled.
	DisabledAt *time.Time `json:"disabledAt,omitempty"`
	// DisabledReason says why, and how to enable it again.
	DisabledReason string `json:"disabledReason,omitempty"`
}

// ChangeData is what a calendar.event.changed message of an includeEvents
// subscription carries: the changes one sync step found, in the order the
// provider listed them (our extension).
type ChangeData struct {
	Events []EventChange `json:"events"`
	// Truncated is set when more events changed than Events lists
	// (MaxChangesListed): sync with the calendar's sync token to see them.
	Truncated bool `json:"truncated,omitempty"`
}

// EventChange is one changed event. Event is the event as GET returns it
// ({"id", "isCancelled": true} for a deleted one); it is left out, and
// Truncated set, once the message holds MaxChangeBodies bodies or
// MaxChangeBytes of them: then get the event, or sync.
type EventChange struct {
	// ChangeType is created, updated or deleted.
	ChangeType string          `json:"changeType"`
	EventID    string          `json:"eventId"`
	Event      json.RawMessage `json:"event,omitempty"`
	Truncated  bool            `json:"truncated,omitempty"`
}

// Limits of a calendar.event.changed message with includeEvents: 100
// bodies, 256 KiB of them, 1,000 changes listed.
const (
	MaxChangeBodies  = webhook.MaxChangeBodies
	MaxChangeBytes   = webhook.MaxChangeBytes
	MaxChangesListed = webhook.MaxChangesListed
)
