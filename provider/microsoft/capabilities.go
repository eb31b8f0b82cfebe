package microsoft

import (
	"fmt"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/captable"
)

var _ unical.CapabilityReporter = (*Provider)(nil)

// Capabilities implements [unical.CapabilityReporter]. The value rules
// the notes describe are checked by checkEventParams and graphEventBody
// before anything is sent.
func (p *Provider) Capabilities() unical.Capabilities {
	noColour := "Graph colours events by category, not by a colour of their own."
	return unical.Capabilities{
		Calendar: captable.Fields{
			unical.MappedWithLoss: {"hexColor": "Graph keeps one of its colour presets (calendar.color): the nearest preset is stored and its colour read back."},
			unical.Refused:        {"timeZone": "Graph calendars have no time zone of their own (the mailbox has one)."},
		}.Table(),
		Event: captable.Fields{
			unical.Supported: {
				"myResponseStatus": "Sent as the accept, tentativelyAccept or decline action. needsAction is refused, and so is any answer but accepted on an event the account organizes (Graph reads the organizer as accepted).",
				"organizer":        "Graph makes the signed-in account the organizer: the account (or the organizer as read) is accepted, another organizer is refused.",
				"eventType":        "outOfOffice is Graph's showAs oof (transparency then reads opaque); focusTime is refused: Graph has no such event.",
			},
			unical.MappedWithLoss: {
				"generateMeetingUrlProvider": "teamsForBusiness only (another provider is refused): Graph creates a Teams meeting, read back as conferenceData; the field itself is not read back.",
				"isCancelled":                "true is sent as the event's cancel action, which only the organizer may call (an attendee is refused: decline instead): Graph moves the event to Deleted Items, so it then reads as not found and a sync reports it cancelled. true on create is refused.",
				"recurrence":                 "Graph keeps a pattern, not RRULE text: a rule reads back in the equivalent form of Graph's pattern (for example with BYDAY spelled out); a rule Graph has no pattern for is refused.",
				"reminders":                  "Graph keeps one popup reminder (reminderMinutesBeforeStart): of several overrides the earliest is kept, email becomes popup, and useDefault keeps Graph's current minutes.",
				"visibility":                 "Graph has no public sensitivity: public is stored as normal and read back as default.",
			},
			unical.Refused: {
				"colorId":        noColour,
				"customColor":    noColour,
				"conferenceData": "Graph attaches only the Teams meetings it creates: ask for one with generateMeetingUrlProvider teamsForBusiness.",
			},
		}.Table(),
		Parameters: captable.NotifyAttendees(
			"Graph emails the attendees itself: a meeting request when the organizer creates an event with attendees or adds some, an update when the organizer changes the meeting, a cancellation when the organizer deletes it or ends the series.",
			captable.Fields{
				unical.Supported: {"true": "What Graph does anyway."},
				unical.Refused:   {"false": "Graph has no parameter that suppresses the meeting requests, updates and cancellations it sends when the organizer creates, changes or deletes an event with attendees."},
			}),
	}
}

// checkEventParams refuses, before anything is sent, what the capability
// notes say Graph cannot do. cur is the event updated, nil for a create;
// self is the account's email.
func checkEventParams(params *unical.EventParams, cur *event, self string) error {
	if o, ok := params.Organizer.Get(); ok && o.Email != "" {
		own := strings.EqualFold(o.Email, self)
		if cur != nil && cur.Organizer != nil {
			own = own || strings.EqualFold(o.Email, cur.Organizer.EmailAddress.Address)
		}
		if !own {
			return unical.FieldError("organizer", "Microsoft Graph makes the account the organizer; it cannot be %s.", o.Email)
		}
	}
	for i, a := range params.Attendees.Value() {
		if a.ResponseStatus == "" {
			continue
		}
		current := unical.ResponseNeedsAction
		if cur != nil {
			for _, c := range cur.Attendees {
				if strings.EqualFold(c.EmailAddress.Address, a.Email) {
					current = responseFromGraph(c.Status)
				}
			}
		}
		if a.ResponseStatus != current {
			return unical.FieldError(fmt.Sprintf("attendees[%d].responseStatus", i), "Microsoft Graph takes an attendee's response only from the attendee; it is %s.", current)
		}
	}
	organizes := cur == nil || cur.IsOrganizer
	if params.IsCancelled.Value() {
		if cur == nil {
			return unical.FieldError("isCancelled", "An event cannot be created cancelled.")
		}
		if !organizes {
			// event-cancel: "An attendee calling this action gets an error
			// (HTTP 400 Bad Request)".
			return unical.FieldError("isCancelled", "Only the organizer can cancel a meeting at Microsoft Graph; decline it with myResponseStatus instead.")
		}
	}
	if my, ok := params.MyResponseStatus.Get(); ok && my != "" {
		if _, ok := rsvpActions[my]; !ok {
			return unical.FieldError("myResponseStatus", "Microsoft Graph cannot reset a response to needsAction; answer accepted, tentative or declined.")
		}
		if organizes && my != unical.ResponseAccepted {
			return unical.FieldError("myResponseStatus", "The account organizes this event: Graph counts the organizer as accepted, and the organizer cannot respond.")
		}
	}
	return nil
}
