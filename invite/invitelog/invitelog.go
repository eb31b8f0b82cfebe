// Package invitelog holds the types of the delivery log of invitations
// mailed by package invite (GET
// /v1/events/{endUserAccountId}/{calendarId}/{eventId}/invitations), apart
// from invite's iCalendar code, so that httpclient can share them.
package invitelog

import (
	"time"

	"github.com/unical/unical"
)

// Delivery statuses.
const (
	StatusPending = "pending"
	StatusSent    = "sent"
	StatusFailed  = "failed"
	StatusReplied = "replied"
)

// Delivery is the state of one attendee's invitation: the last message
// about the event sent (or being sent) to the attendee, and the answer.
type Delivery struct {
	// Email is the attendee's address.
	Email string `json:"email"`
	// Method is the last message's iTIP method: REQUEST or CANCEL.
	Method string `json:"method"`
	// Status is pending (queued or being retried), sent (the SMTP server
	// took it), failed (refused, or retries ran out) or replied (the
	// attendee answered).
	Status string `json:"status"`
	// Sequence is the event's SEQUENCE the message carried.
	Sequence int `json:"sequence"`
	// ResponseStatus is the attendee's last answer, and ReplySequence the
	// SEQUENCE it answered; an answer to an older SEQUENCE than Sequence
	// is recorded here but not applied (Status stays sent). For a REPLY a
	// room sent, ResponseStatus is its answer.
	ResponseStatus unical.ResponseStatus `json:"responseStatus,omitempty"`
	ReplySequence  int                   `json:"replySequence,omitempty"`
	// Attempts counts the sending attempts of the last message.
	Attempts int `json:"attempts"`
	// LastError is why the last attempt failed ("" after a success).
	LastError string `json:"lastError,omitempty"`
	// UpdatedAt is when the delivery last changed.
	UpdatedAt time.Time `json:"updatedAt"`
}

// List is the delivery log of an event's invitations.
type List struct {
	Data []*Delivery `json:"data"`
}
