package caldav

import (
	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/captable"
)

var _ unical.CapabilityReporter = (*Provider)(nil)

// Capabilities implements [unical.CapabilityReporter]: CalDAV keeps every
// writable field (internal/adapter/icalmap maps each to iCalendar) except
// conferencing, which CalDAV events do not have (the spec).
func (p *Provider) Capabilities() unical.Capabilities {
	return unical.Capabilities{
		ProviderType: ProviderType,
		Calendar: captable.Fields{unical.Supported: {
			"hexColor": "Kept in Apple's calendar-color property, which CalDAV clients share (the CalDAV form of X-APPLE-CALENDAR-COLOR).",
			"timeZone": "Kept in calendar-timezone; a server that does not keep it (Xandikos) refuses it with 501.",
		}}.Table(),
		Event: captable.Fields{
			unical.Supported: {
				"customColor": "Kept as RFC 7986 COLOR (in #RRGGBB form).",
				"colorId":     "Kept in X-UNICAL-COLOR-ID; other CalDAV clients do not show it.",
				"eventType":   "outOfOffice and focusTime are kept in X-UNICAL-EVENT-TYPE; other CalDAV clients show a plain event.",
				"reminders":   "Overrides are VALARMs (popup DISPLAY, email EMAIL to the account); useDefault and no reminders at all are kept in X-UNICAL-REMINDERS. useDefault together with overrides is refused.",
			},
			unical.Refused: {
				"conferenceData":             "CalDAV events have no conferencing.",
				"generateMeetingUrlProvider": "CalDAV events have no conferencing, so no meeting link can be made.",
			},
		}.Table(),
		Parameters: captable.NotifyAttendees(
			"Events are written as they are (ATTENDEE without SCHEDULE-AGENT): a server with scheduling (RFC 6638) sends or delivers invitations itself; one without sends nothing.",
			captable.Fields{unical.Supported: {
				"true":  "Only where the server schedules (RFC 6638: calendar-auto-schedule in its DAV header, as Cyrus, iCloud and Fastmail): SCHEDULE-AGENT is left out (SERVER), so the server sends the invitations, updates and cancellations. A server without scheduling (Radicale, Xandikos) refuses it with 400.",
				"false": "Every ATTENDEE and the ORGANIZER are written with SCHEDULE-AGENT=CLIENT (RFC 6638 §7.1), so a scheduling server sends nothing; a delete first writes the event back so. Later writes without the parameter keep it.",
			}}),
	}
}
