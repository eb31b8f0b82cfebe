// Package graphtest is an in-memory fake of the Microsoft identity platform
// (v2 authorize and token endpoints) and of the Microsoft Graph v1.0
// calendar API, for tests of unical's Microsoft provider. Microsoft cannot be
// reached from tests, so this fake follows the public documentation; where
// the two differ, the fake is wrong.
//
// A test starts one with NewServer, adds users and application
// registrations, and points a client at AuthURL/TokenURL (or Endpoint) and
// GraphBaseURL:
//
//	srv := graphtest.NewServer(t, graphtest.Options{})
//	uid := srv.AddUser(graphtest.User{UserPrincipalName: "ada@contoso.test"})
//	srv.AddClient(graphtest.Client{ID: "app", Secret: "s3cret", RedirectURIs: []string{"http://127.0.0.1/cb"}})
//	tok := srv.IssueAccessToken("app", uid)
//
// What it serves, and the documents it follows (paths in
// microsoftgraph/microsoft-graph-docs-contrib and MicrosoftDocs/entra-docs):
//
//   - /{tenant}/oauth2/v2.0/authorize and /token: authorization code with
//     PKCE, single-use codes, refresh tokens that rotate on every use
//     (entra-docs refresh-tokens.md), AADSTS error bodies
//     (v2-oauth2-auth-code-flow.md); see handleToken.
//   - /v1.0/me, /me/calendars (color writable from the calendarColor
//     presets, hexColor read-only: calendar.go), events, calendarView,
//     instances, RSVP actions, If-Match (resources/calendar.md,
//     resources/event.md, api/calendar-list-calendarview.md,
//     api/event-tentativelyaccept.md).
//   - Single-value extended properties: $expand by id and the
//     singleValueExtendedProperties/Any(...) $filter
//     (api/singlevaluelegacyextendedproperty-get.md; see extprop.go).
//   - /me/calendarView/delta with skip and delta tokens, @removed items and
//     expiry (api/event-delta.md, concepts/delta-query-events.md,
//     concepts/delta-query-overview.md).
//   - /me/calendar/getSchedule (api/calendar-getschedule.md).
//   - /v1.0/subscriptions with the validation handshake, change and
//     lifecycle notifications (concepts/change-notifications-*.md).
//   - Graph's error body (concepts/errors.md) and throttling
//     (https://learn.microsoft.com/graph/throttling).
//
// Windows time zone names in dateTimeTimeZone values are resolved with
// internal/winzone (CLDR windowsZones.xml). Outbound requests go only to
// loopback addresses and are bounded in time and number.
package graphtest
