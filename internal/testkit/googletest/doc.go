// Package googletest is an in-memory, protocol-faithful fake of Google
// Calendar API v3 and Google's OAuth 2.0 / OpenID Connect endpoints, served
// by an [httptest.Server] on 127.0.0.1.
//
// It exists because Google cannot be reached from the test machines: the
// Google provider is tested only against this fake, so the fake follows
// Google's published documentation, and where the two differ the fake is
// wrong. Behaviour that the documentation does not pin down is marked
// UNVERIFIED in comments next to the code that implements it.
//
// Sources (paraphrased, never copied):
//
//   - Calendar API v3 reference and discovery document:
//     https://developers.google.com/workspace/calendar/api/v3/reference
//   - Handle API errors (error bodies, reasons, status codes):
//     https://developers.google.com/workspace/calendar/api/guides/errors
//   - Synchronize resources efficiently (sync tokens, 410, paging):
//     https://developers.google.com/workspace/calendar/api/guides/sync
//   - Push notifications (watch, channel headers, sync message):
//     https://developers.google.com/workspace/calendar/api/guides/push
//   - Extended properties:
//     https://developers.google.com/workspace/calendar/api/guides/extended-properties
//   - Get specific versions of resources (If-Match, 412):
//     https://developers.google.com/workspace/calendar/api/guides/version-resources
//   - Recurring events:
//     https://developers.google.com/workspace/calendar/api/guides/recurringevents
//   - Using OAuth 2.0 for Web Server Applications:
//     https://developers.google.com/identity/protocols/oauth2/web-server
//   - Using OAuth 2.0 to Access Google APIs (refresh-token limits):
//     https://developers.google.com/identity/protocols/oauth2
//   - OpenID Connect reference (discovery document, userinfo):
//     https://developers.google.com/identity/openid-connect/reference
//   - RFC 6749 (OAuth 2.0), RFC 7636 (PKCE), RFC 5545 (iCalendar
//     recurrence), RFC 3339 (timestamps).
//
// A test creates a server with [NewServer], registers clients and users,
// seeds calendars and events, and points the code under test at
// [Server.AuthURL], [Server.TokenURL], [Server.APIBaseURL] and
// [Server.UserinfoURL]. Faults (rate limits, 5xx, delays), token revocation
// and sync-token expiry are injected through methods on [Server]. All state
// lives in memory behind one mutex, and the server shuts down in
// tb.Cleanup.
package googletest
