// Package ics exports a calendar as an iCalendar object (RFC 5545) and
// imports one into a calendar, through the events operations of any
// [unical.API]: an in-process [unical.App], or a remote unicald through
// package httpclient. Package httpapi serves both as
// GET and POST /v1/events/{endUserAccountId}/{calendarId}/ics.
//
// Export writes series with their recurrence lines, changed occurrences
// as RECURRENCE-ID components under the series' UID, cancelled ones as
// EXDATEs, and a VTIMEZONE for every zone used. Import creates, updates or
// leaves alone the event of each UID, so that importing a file twice
// changes nothing the second time; see [Import] for what is refused and
// how.
package ics
