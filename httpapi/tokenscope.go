package httpapi

import (
	"net/http"

	"github.com/unical/unical"
	"github.com/unical/unical/scopedtoken"
)

// routeAccess is what a scoped token (package scopedtoken) needs to use a
// route: its scope, and the path wildcards that name the account,
// calendar and booking type the token must cover. A route with no scope
// takes the API key only: a token is refused there whatever it holds.
type routeAccess struct {
	scope scopedtoken.Scope
	// account, calendar and bookingType are wildcard names of the
	// route's pattern; "" where the path names none.
	account, calendar, bookingType string
	// inBody marks a route whose accounts or booking type are named in
	// the request body or query, not the path: the token's cover of them
	// is checked once they are decoded.
	inBody bool
	// open marks a route that takes no credential at all (provider
	// callbacks, health, the OpenAPI document).
	open bool
	// anyToken marks a route every live token may use, whatever it
	// grants: GET /v1/tokens/current, and POST /v1/mcp, whose tools'
	// calls of other routes are each checked as requests of their own.
	anyToken bool
}

// routeAccesses holds every /v1 route (and the other routes NewHandler
// mounts), keyed by pattern, so that a token's check is a lookup by the
// request's pattern in one place. TestRouteAccesses holds it complete
// against the mounted routes: a new route without an entry fails it.
var routeAccesses = map[string]routeAccess{
	// Accounts, their credentials and connecting them are the
	// application's own business.
	"GET /v1/endUserAccounts":                       {},
	"POST /v1/endUserAccounts":                      {},
	"GET /v1/endUserAccounts/{id}":                  {},
	"DELETE /v1/endUserAccounts/{id}":               {},
	"GET /v1/endUserAccounts/{id}/credentials":      {},
	"GET /v1/oauth/authorize/{appID}/{provider}":    {open: true},
	"GET /v1/oauth/callback":                        {open: true},
	"POST /v1/basicAuth/connect/{appID}/{provider}": {},

	"GET /v1/calendars/{accountID}":                 {scope: scopedtoken.EventsRead, account: "accountID"},
	"POST /v1/calendars/{accountID}":                {},
	"GET /v1/calendars/{accountID}/{calendarID}":    {scope: scopedtoken.EventsRead, account: "accountID", calendar: "calendarID"},
	"PUT /v1/calendars/{accountID}/{calendarID}":    {},
	"DELETE /v1/calendars/{accountID}/{calendarID}": {},

	"GET /v1/events/{accountID}/{calendarID}":                       {scope: scopedtoken.EventsRead, account: "accountID", calendar: "calendarID"},
	"POST /v1/events/{accountID}/{calendarID}":                      {scope: scopedtoken.EventsWrite, account: "accountID", calendar: "calendarID"},
	"GET /v1/events/{accountID}/{calendarID}/{eventID}":             {scope: scopedtoken.EventsRead, account: "accountID", calendar: "calendarID"},
	"PUT /v1/events/{accountID}/{calendarID}/{eventID}":             {scope: scopedtoken.EventsWrite, account: "accountID", calendar: "calendarID"},
	"DELETE /v1/events/{accountID}/{calendarID}/{eventID}":          {scope: scopedtoken.EventsWrite, account: "accountID", calendar: "calendarID"},
	"GET /v1/events/{accountID}/{calendarID}/{eventID}/occurrences": {scope: scopedtoken.EventsRead, account: "accountID", calendar: "calendarID"},
	"POST /v1/events/{accountID}/{calendarID}/{eventID}/rsvp":       {scope: scopedtoken.EventsWrite, account: "accountID", calendar: "calendarID"},
	"GET /v1/events/{accountID}/{calendarID}/{eventID}/invitations": {scope: scopedtoken.EventsRead, account: "accountID", calendar: "calendarID"},
	"GET /v1/events/{accountID}/{calendarID}/ics":                   {scope: scopedtoken.EventsRead, account: "accountID", calendar: "calendarID"},
	"POST /v1/events/{accountID}/{calendarID}/ics":                  {scope: scopedtoken.EventsWrite, account: "accountID", calendar: "calendarID"},

	"POST /v1/freeBusy/{accountID}": {scope: scopedtoken.FreeBusyRead, account: "accountID"},
	"POST /v1/availability":         {scope: scopedtoken.FreeBusyRead, inBody: true},
	"GET /v1/rooms":                 {},

	"GET /v1/bookingTypes":              {},
	"POST /v1/bookingTypes":             {},
	"GET /v1/bookingTypes/{id}":         {scope: scopedtoken.SlotsRead, bookingType: "id"},
	"PUT /v1/bookingTypes/{id}":         {},
	"DELETE /v1/bookingTypes/{id}":      {},
	"GET /v1/bookingTypes/{id}/slots":   {scope: scopedtoken.SlotsRead, bookingType: "id"},
	"GET /v1/schedules":                 {},
	"POST /v1/schedules":                {},
	"GET /v1/schedules/{id}":            {},
	"PUT /v1/schedules/{id}":            {},
	"DELETE /v1/schedules/{id}":         {},
	"POST /v1/holds":                    {scope: scopedtoken.HoldsWrite, inBody: true},
	"GET /v1/bookings":                  {scope: scopedtoken.BookingsRead, inBody: true},
	"POST /v1/bookings":                 {scope: scopedtoken.BookingsWrite, inBody: true},
	"GET /v1/bookings/{id}":             {scope: scopedtoken.BookingsRead, inBody: true},
	"DELETE /v1/bookings/{id}":          {scope: scopedtoken.BookingsWrite, inBody: true},
	"POST /v1/bookings/{id}/reschedule": {scope: scopedtoken.BookingsWrite, inBody: true},

	"GET /v1/capabilities": {},

	// A token is issued and revoked with the API key only: a token never
	// makes or ends a token, its own included.
	"POST /v1/tokens":        {},
	"DELETE /v1/tokens/{id}": {},
	"GET /v1/tokens/current": {anyToken: true},

	// The MCP server lists and runs only the tools within the token's
	// scopes, each a call of the routes above.
	"POST /v1/mcp": {anyToken: true},

	// Webhooks are the application's server-to-server business.
	"GET /v1/calendarSubscriptions/{accountID}":                                               {},
	"POST /v1/calendarSubscriptions/{accountID}":                                              {},
	"DELETE /v1/calendarSubscriptions/{accountID}":                                            {},
	"GET /v1/calendarSubscriptions/{accountID}/{subscriptionID}/deliveries":                   {},
	"POST /v1/calendarSubscriptions/{accountID}/{subscriptionID}/messages/{messageID}/resend": {},
	"GET /v1/applicationWebhook/deliveries":                                                   {},
	"POST /v1/applicationWebhook/messages/{messageID}/resend":                                 {},
	// Inbound iMIP mail is authorized by the application's inbound
	// secret, sent as its own Bearer; a scoped token never opens it.
	"POST /v1/imip/{applicationID}":                              {open: true},
	"POST /v1/notifications/{provider}/{appID}/{subscriptionID}": {open: true},

	"GET /metrics":         {open: true},
	"GET /healthz":         {open: true},
	"GET /readyz":          {open: true},
	"GET /v1/openapi.json": {open: true},
}

// allowToken returns nil when grant g may make the routed request r as
// far as its path tells (a route marked inBody has its resources checked
// once decoded), else the 403 naming the scope or resource g lacks. It
// reads only g and r, never the store, so the answer is the same whether
// or not what r names exists.
func allowToken(g *scopedtoken.Grant, r *http.Request) error {
	a, ok := routeAccesses[r.Pattern]
	if a.anyToken {
		return nil
	}
	if !ok || a.scope == "" {
		return &unical.Error{Code: scopedtoken.CodeForbidden, Field: "Authorization",
			Message: "This endpoint takes the application's x-api-key, not a scoped token."}
	}
	u := scopedtoken.Use{Scope: a.scope}
	if a.account != "" {
		u.AccountID = pathValue(r, a.account)
	}
	if a.calendar != "" {
		u.CalendarID = pathValue(r, a.calendar)
	}
	if a.bookingType != "" {
		u.BookingType = pathValue(r, a.bookingType)
	}
	return g.Allow(u)
}
