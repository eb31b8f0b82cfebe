package invite

import (
	"context"

	"github.com/unical/unical"
	"github.com/unical/unical/invite/invitelog"
)

// List is the delivery log of an event's invitations.
type List = invitelog.List

// ListInvitations returns the delivery log of an event's invitations:
// each attendee's last message (method, sequence, status, attempts, last
// error), in the order they were first invited. An event that sent none
// has an empty log; given an occurrence, the log is its series'.
//
// HTTP: GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}/invitations
//
// Returns CodeNotFound for an unknown account, calendar or event.
func ListInvitations(ctx context.Context, a *unical.App, accountID, calendarID, eventID string) (*List, error) {
	if _, err := a.GetAccount(ctx, accountID); err != nil {
		return nil, err
	}
	st := a.Client().Store()
	r, _, err := readRecord(ctx, st, a.ID(), accountID, recordKey(calendarID, eventID))
	if err != nil {
		return nil, err
	}
	if r == nil {
		e, err := a.GetEvent(ctx, accountID, calendarID, eventID)
		if err != nil {
			return nil, err
		}
		if e.RecurringEventID != "" {
			if r, _, err = readRecord(ctx, st, a.ID(), accountID, recordKey(calendarID, e.RecurringEventID)); err != nil {
				return nil, err
			}
		}
	}
	if r == nil {
		return &List{Data: []*Delivery{}}, nil
	}
	return &List{Data: r.Deliveries}, nil
}
