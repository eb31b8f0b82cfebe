package google

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/captable"
)

var _ unical.CapabilityReporter = (*Provider)(nil)

// Capabilities implements [unical.CapabilityReporter]. The value rules
// the notes describe are checked by checkEventParams before anything is
// sent.
func (p *Provider) Capabilities() unical.Capabilities {
	return unical.Capabilities{
		Event: captable.Fields{
			unical.Supported: {
				"colorId":          `One of Google's event colours "1" to "11" (GET colors); another id is refused.`,
				"organizer":        "Google sets the organizer (the account, or the calendar for a secondary calendar): the organizer as read is accepted back, another one is refused.",
				"eventType":        "Set on create: Google cannot change an event's type, so another type on update is refused. Google's other types (birthday, workingLocation, fromGmail) read as default.",
				"reminders":        "At most 5 overrides of 0 to 40320 minutes, and none with useDefault true (Event.reminders); others are refused.",
				"myResponseStatus": "The response of the calendar's own attendee entry (the account's address); refused when the event has none.",
			},
			unical.MappedWithLoss: {
				"isCancelled":                "true deletes the event (events.delete): Google keeps a cancelled event only as a deletion, so it then reads as not found and a sync reports it cancelled; a cancelled instance of a series becomes a cancelled exception. true on create is refused.",
				"generateMeetingUrlProvider": "googleMeet only (another provider is refused): Google creates a Meet conference, read back as conferenceData; the field itself is not read back.",
			},
			unical.Refused: {
				"customColor": "Google colours events only from its palette: use colorId.",
			},
		}.Table(),
		Parameters: captable.NotifyAttendees(
			"No sendUpdates is sent, so Google's default applies: it emails no guest about the write.",
			captable.Fields{unical.Supported: {
				"true":  "Sent as sendUpdates=all: every guest is emailed.",
				"false": "Sent as sendUpdates=none: no guest is emailed.",
			}}),
	}
}

// maxReminderOverrides is Google's limit on reminders.overrides (Event
// reference: "The maximum number of override reminders is 5").
const maxReminderOverrides = 5

// eventColorIDs is how many event colours Google's palette has (GET
// colors, "event" palette: ids "1" to "11").
const eventColorIDs = 11

// checkEventParams refuses, before anything is sent, the values the
// capability notes say Google cannot keep. cur is the event updated (nil
// for a create), calendarID the calendar written to, self the account's
// email.
func checkEventParams(params *unical.EventParams, cur *event, calendarID, self string) error {
	if id, ok := params.ColorID.Get(); ok && id != "" {
		if n, err := strconv.Atoi(id); err != nil || n < 1 || n > eventColorIDs || strconv.Itoa(n) != id {
			return unical.FieldError("colorId", "Google's event colours are \"1\" to \"11\"; %q is not one.", id)
		}
	}
	if r, ok := params.Reminders.Get(); ok {
		if len(r.Overrides) > maxReminderOverrides {
			return unical.FieldError("reminders.overrides", "Google keeps at most %d reminder overrides.", maxReminderOverrides)
		}
		for i, o := range r.Overrides {
			if o.Minutes < 0 || o.Minutes > 40320 {
				return unical.FieldError(fmt.Sprintf("reminders.overrides[%d].minutes", i), "Google takes reminders 0 to 40320 minutes (four weeks) before the start.")
			}
		}
		if r.UseDefault && len(r.Overrides) > 0 {
			// Event reference: overrides apply "if the event doesn't use
			// the default reminders".
			return unical.FieldError("reminders.overrides", "Google takes overrides only with useDefault false.")
		}
	}
	if v, ok := params.IsCancelled.Get(); ok && v && cur == nil {
		return unical.FieldError("isCancelled", "An event cannot be created cancelled: at Google a cancelled event is a deleted one.")
	}
	if o, ok := params.Organizer.Get(); ok && o.Email != "" {
		own := strings.EqualFold(o.Email, self) || strings.EqualFold(o.Email, calendarID)
		if cur != nil && cur.Organizer != nil {
			own = strings.EqualFold(o.Email, cur.Organizer.Email)
		}
		if !own {
			return unical.FieldError("organizer", "Google sets the organizer itself; it cannot be %s.", o.Email)
		}
	}
	if v, ok := params.EventType.Get(); ok && v != "" && cur != nil && eventTypeOf(cur.EventType) != v {
		return unical.FieldError("eventType", "Google cannot change the type of an existing event; create a new %s event instead.", v)
	}
	if my, ok := params.MyResponseStatus.Get(); ok && my != "" {
		mine := false
		if params.Attendees.IsSet() {
			for _, a := range params.Attendees.Value() {
				mine = mine || isSelf(a.Email, cur, self)
			}
		} else if cur != nil {
			mine = cur.selfAttendee() != nil || ownAttendee(cur, self) != nil
		}
		if !mine {
			return unical.FieldError("myResponseStatus", "myResponseStatus is the account's own answer: the account must be among the attendees.")
		}
	}
	return nil
}

// isSelf reports whether email is the attendee entry of the calendar the
// event is read through: Google's self entry when cur has one, else the
// account's address.
func isSelf(email string, cur *event, self string) bool {
	if cur != nil {
		if a := cur.selfAttendee(); a != nil {
			return strings.EqualFold(a.Email, email)
		}
	}
	return strings.EqualFold(email, self)
}

// ownAttendee returns the attendee entry with the account's address, or
// nil.
func ownAttendee(g *event, self string) *eventAttendee {
	for i := range g.Attendees {
		if strings.EqualFold(g.Attendees[i].Email, self) {
			return &g.Attendees[i]
		}
	}
	return nil
}
