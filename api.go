package unical

import (
	"context"
	"iter"
)

// API is every /v1 operation of one application, as typed methods. The
// in-process [App] and the HTTP client of package httpclient both
// implement it with the same parameter and result types, so that a program
// written against API moves between running unical in-process and calling
// a unicald server by changing the one constructor it calls. A shared test
// suite (internal/testkit/apisuite) runs against both, so they cannot drift.
//
// The operations that are not an application's (applications, API keys,
// the OAuth redirect flow) are methods of [Client] only. Operations built
// on the App outside the root have entry points of their own, which
// httpclient matches: availability.Find works over this API, webhook
// subscriptions are subscriptions.API and their delivery log is
// engine.DeliveryLog, the scoped ("this and following") event writes are
// series.API.
//
// The writes take the per-call choices of a request (its Idempotency-Key,
// If-Match and notifyAttendees or revokeGrant) as an optional last
// argument, a [WriteOptions].
type API interface {
	ListAccounts(ctx context.Context, params *AccountListParams) (*Page[*Account], error)
	GetAccount(ctx context.Context, id string) (*Account, error)
	CreateAccount(ctx context.Context, params *AccountCreateParams, opts ...WriteOptions) (*Account, error)
	ConnectBasicAuth(ctx context.Context, params *BasicAuthConnectParams, opts ...WriteOptions) (*Account, error)
	DeleteAccount(ctx context.Context, id string, opts ...WriteOptions) (*AccountDeleted, error)
	GetCredentials(ctx context.Context, accountID string) (*Credentials, error)

	ListCalendars(ctx context.Context, accountID string, params *CalendarListParams) (*SyncPage[*Calendar], error)
	GetCalendar(ctx context.Context, accountID, calendarID string) (*Calendar, error)
	CreateCalendar(ctx context.Context, accountID string, params *CalendarParams, opts ...WriteOptions) (*Calendar, error)
	UpdateCalendar(ctx context.Context, accountID, calendarID string, params *CalendarParams, opts ...WriteOptions) (*Calendar, error)
	DeleteCalendar(ctx context.Context, accountID, calendarID string, opts ...WriteOptions) (*Success, error)

	ListEvents(ctx context.Context, accountID, calendarID string, params *EventListParams) (*SyncPage[*Event], error)
	ListOccurrences(ctx context.Context, accountID, calendarID, eventID string, params *OccurrenceListParams) (*SyncPage[*Event], error)
	GetEvent(ctx context.Context, accountID, calendarID, eventID string) (*Event, error)
	CreateEvent(ctx context.Context, accountID, calendarID string, params *EventParams, opts ...WriteOptions) (*Event, error)
	UpdateEvent(ctx context.Context, accountID, calendarID, eventID string, params *EventParams, opts ...WriteOptions) (*Event, error)
	DeleteEvent(ctx context.Context, accountID, calendarID, eventID string, opts ...WriteOptions) (*Success, error)
	RSVP(ctx context.Context, accountID, calendarID, eventID string, params *RSVPParams, opts ...WriteOptions) (*Success, error)

	QueryFreeBusy(ctx context.Context, accountID string, params *FreeBusyParams, opts ...WriteOptions) ([]*FreeBusyResult, error)
	Capabilities(ctx context.Context) (*CapabilityList, error)
}

var _ API = (*App)(nil)

// The iterators below walk every page of a listing of any API, with [All]
// and [AllSync]. params (nil for none) is the first page's request; later
// pages send the page token with what a token may be combined with. A
// failure is the last element yielded. The sync listings store the
// nextSyncToken of the last page in *nextSyncToken when it is not nil and
// the walk finished.

// AllAccounts walks the application's accounts.
func AllAccounts(ctx context.Context, api API, params *AccountListParams) iter.Seq2[*Account, error] {
	p := AccountListParams{}
	if params != nil {
		p = *params
	}
	return All(ctx, func(ctx context.Context, token string) (*Page[*Account], error) {
		if token != "" {
			// The token belongs to the search and status filter; they are
			// sent with it.
			p.PageToken = token
		}
		return api.ListAccounts(ctx, &p)
	})
}

// AllCalendars walks an account's calendars.
func AllCalendars(ctx context.Context, api API, accountID string, params *CalendarListParams, nextSyncToken *string) iter.Seq2[*Calendar, error] {
	p := CalendarListParams{}
	if params != nil {
		p = *params
	}
	return AllSync(ctx, nextSyncToken, func(ctx context.Context, token string) (*SyncPage[*Calendar], error) {
		if token != "" {
			// The page token carries the sync token.
			p = CalendarListParams{PageToken: token, Limit: p.Limit}
		}
		return api.ListCalendars(ctx, accountID, &p)
	})
}

// AllEvents walks the events of a calendar.
func AllEvents(ctx context.Context, api API, accountID, calendarID string, params *EventListParams, nextSyncToken *string) iter.Seq2[*Event, error] {
	p := EventListParams{}
	if params != nil {
		p = *params
	}
	return AllSync(ctx, nextSyncToken, func(ctx context.Context, token string) (*SyncPage[*Event], error) {
		if token != "" {
			// A token alone is always accepted: it carries the query.
			p = EventListParams{PageToken: token, TimeZone: p.TimeZone, Limit: p.Limit}
		}
		return api.ListEvents(ctx, accountID, calendarID, &p)
	})
}

// AllOccurrences walks the instances of a recurring event.
func AllOccurrences(ctx context.Context, api API, accountID, calendarID, eventID string, params *OccurrenceListParams, nextSyncToken *string) iter.Seq2[*Event, error] {
	p := OccurrenceListParams{}
	if params != nil {
		p = *params
	}
	return AllSync(ctx, nextSyncToken, func(ctx context.Context, token string) (*SyncPage[*Event], error) {
		if token != "" {
			p = OccurrenceListParams{PageToken: token, TimeZone: p.TimeZone, Limit: p.Limit}
		}
		return api.ListOccurrences(ctx, accountID, calendarID, eventID, &p)
	})
}
