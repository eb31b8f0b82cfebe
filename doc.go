// Package unical is a unified calendar API: one typed Go API over Google
// Calendar (PROVIDER_A), Microsoft Outlook through Microsoft Graph
// (PROVIDER_B) and CalDAV servers such as iCloud (PROVIDER_C).
//
// A [Client] holds a [Store] (the bbolt one in store/bolt by default) and
// one [Provider] per provider type. [Client.AppByAPIKey] or [Client.App]
// returns an [App], the handle of one application, whose methods are the
// operations of the /v1 REST API in package httpapi: accounts, calendars,
// events, occurrences, RSVP, free/busy and webhook subscriptions. Calendars
// and events are not copied: every read and write goes to the provider, and
// the Client adds what a provider lacks (recurrence expansion, free/busy,
// title search, metadata filters, ordering, time-zone display, sync tokens).
//
// Errors are *[Error] values with a [Code]; [ErrorCode] reads it.
//
// The API follows the Unified Calendar API specification; docs/api.md lists
// every decision taken where the specification is silent. References:
// RFC 5545 (iCalendar), RFC 4791 (CalDAV), RFC 6578 (WebDAV sync),
// RFC 7636 (PKCE), https://www.standardwebhooks.com (webhook signatures).
package unical
