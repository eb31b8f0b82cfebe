// Package icalmap maps iCalendar VEVENT components (github.com/emersion/go-ical)
// to [unical.Event] values and back, for the CalDAV provider.
//
// # Mapping
//
//	unical.Event               iCalendar (RFC 5545)
//	title                      SUMMARY
//	description                DESCRIPTION
//	location                   LOCATION
//	start, end (timed)         DTSTART/DTEND;TZID=<IANA>:local, or ...Z for UTC
//	start, end (all-day)       DTSTART/DTEND;VALUE=DATE (end exclusive)
//	isAllDay                   DTSTART has VALUE=DATE
//	recurrence                 RRULE, EXRULE, RDATE, EXDATE lines, one value each
//	isRecurring                the master has an RRULE or RDATE
//	originalStart, isException RECURRENCE-ID (a date for all-day series)
//	attendees                  ATTENDEE;CN;PARTSTAT;ROLE=OPT-PARTICIPANT:mailto:
//	myResponseStatus           PARTSTAT of the attendee that is Options.Self
//	organizer                  ORGANIZER;CN:mailto: (isSelf: Options.Self)
//	transparency               TRANSP (absent = opaque, RFC 5545 default)
//	visibility                 CLASS PUBLIC/PRIVATE/CONFIDENTIAL (absent = default)
//	isCancelled                STATUS:CANCELLED
//	iCalUid                    UID
//	createdAt                  CREATED
//	updatedAt                  LAST-MODIFIED (else DTSTAMP)
//	publicExtendedProperties   X-UNICAL-PUBLIC;X-UNICAL-KEY="<key>":<text value>
//	privateExtendedProperties  X-UNICAL-PRIVATE;X-UNICAL-KEY="<key>":<text value>
//	customColor                COLOR (RFC 7986 §5.9), #RRGGBB
//	colorId                    X-UNICAL-COLOR-ID
//	eventType                  X-UNICAL-EVENT-TYPE: outOfOffice or focusTime (absent = default)
//	reminders.overrides        VALARM: TRIGGER -PT<minutes>M before the start;
//	                           ACTION DISPLAY (popup) or EMAIL (email, to the account)
//	reminders without overrides X-UNICAL-REMINDERS: DEFAULT (useDefault) or NONE
//
// A COLOR that is not #RRGGBB (RFC 7986 names CSS3 colours) is not read,
// and an alarm at a fixed time or relative to the end is not a reminder
// override (AUDIO reads as popup); both are kept when the event is
// updated, as the reminders and customColor fields are rewritten only
// when their value changes.
//
// Reading resolves a TZID as an IANA name first, then as a Windows zone
// name (Outlook exports), then with a "/mozilla.org/..."-style prefix
// removed, and last from the object's own VTIMEZONE ([Zones],
// [ParseVTimezone]): its STANDARD and DAYLIGHT rules are expanded into a
// Go zone, which becomes the IANA zone with the same offsets where CLDR has
// one, and otherwise shows its times in UTC. A TZID that is none of these
// is an error, never a silent fall back to UTC. Recurrence lines come out
// with IANA TZIDs (or UTC values), the only ones the recurrence engine
// reads. Floating times (no TZID, no Z) are read in [Options.Floating]
// (the CalDAV provider passes the calendar's calendar-timezone); when such
// an event's times are changed they are written back with that zone's
// TZID, since unical's times are instants.
//
// [ObjectEvents] reads a whole calendar object resource: the series master
// under the resource's id and each RECURRENCE-ID override under its
// instance id, with RecurringEventID. [AddTimezones] adds, when writing,
// the VTIMEZONE RFC 5545 §3.2.19 requires for each TZID used, built from
// Go's zone transitions for the years the event uses.
//
// Multi-valued EXDATE and RDATE lines ("EXDATE:a,b") are split into one
// recurrence line per value when read, and written one value per line,
// because go-ical's RecurrenceSet fails on comma lists.
//
// Extended properties are stored in the event itself, so on CalDAV the
// "private" ones are visible to everyone who can read the calendar; the
// scope survives a round trip but is not access control. A key may hold any
// text: a double quote and a percent sign in a key are written as %22 and
// %25, because iCalendar parameter values cannot hold a double quote.
//
// [Apply] writes only the properties of this table and keeps every other
// property and sub-component (VALARM, X-APPLE-*, SEQUENCE, ...), so an
// update through unical does not lose what other clients stored. Mapped
// properties whose value does not change are kept as written too (a
// Windows TZID, DURATION instead of DTEND, a LANGUAGE parameter).
package icalmap
