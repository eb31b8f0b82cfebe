// Package recur expands recurring events: an iCalendar recurrence set
// (RFC 5545 §3.8.5: DTSTART with RRULE, RDATE, EXDATE and the deprecated
// EXRULE) plus the overrides of single instances, into the instances that
// overlap a time window. The Client uses it where a provider does not
// expand for us: CalDAV event lists with expandRecurrences, the occurrences
// endpoint and free/busy.
//
// Rules are evaluated by github.com/teambition/rrule-go. This package
// covers what rrule-go does not:
//
//   - all-day series (DTSTART;VALUE=DATE), expanded as dates;
//   - several RRULE lines (a union) and EXRULE;
//   - RDATE;VALUE=PERIOD, with the period's own length;
//   - EXDATE and RDATE with TZID, VALUE=DATE and comma lists, matched by
//     instant for timed series and by date for all-day series;
//   - nonexistent and repeated local times read per RFC 5545 §3.3.5;
//   - DTSTART as the first instance even when the rule does not match it,
//     and COUNT counting it (RFC 5545 §3.3.10);
//   - COUNT with UNTIL, INTERVAL=0 and the other malformed rules refused
//     with a [*ParseError] that names the part;
//   - windows far from DTSTART expanded without walking from DTSTART.
//
// It also holds the instance id scheme ([InstanceID]) and the conversion
// of occurrences to the display time zone ([Occurrence.In]).
//
// References:
//   - RFC 5545, iCalendar: https://www.rfc-editor.org/rfc/rfc5545
//   - RFC 4791 §9.9, time-range overlap: https://www.rfc-editor.org/rfc/rfc4791#section-9.9
package recur
