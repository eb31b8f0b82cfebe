package httpclient

import (
	"context"
	"encoding/json"
	"net/url"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/invite/invitelog"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/rooms"
	"github.com/unical/unical/series"
	"github.com/unical/unical/subscriptions"
)

// Each method calls the route its namesake on *unical.App names in its doc
// comment, and returns what that method returns.

// call builds the path from parts (see path) and sends the request.
func call[T any](ctx context.Context, c *Client, method string, query url.Values, body any, parts ...string) (*T, error) {
	return write[T](ctx, c, nil, nil, method, query, body, parts...)
}

// The WriteOptions fields the writes take besides the Idempotency-Key.
var (
	notifyOnly = []string{unical.OptionNotifyAttendees}
	eventWrite = []string{unical.OptionNotifyAttendees, unical.OptionIfMatch}
	revokeOnly = []string{unical.OptionRevokeGrant}
)

// write is call for a write with the caller's options opts: at most one
// unical.WriteOptions, whose fields other than those takes names are
// refused as the in-process writes refuse them. Its notifyAttendees and
// revokeGrant go in the query, its key and If-Match in headers.
func write[T any](ctx context.Context, c *Client, opts []unical.WriteOptions, takes []string, method string, query url.Values, body any, parts ...string) (*T, error) {
	o, err := unical.OptionsOf(opts, takes...)
	if err != nil {
		return nil, err
	}
	for name, v := range o.Query() {
		if query == nil {
			query = url.Values{}
		}
		query.Set(name, v)
	}
	p, err := path(parts...)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := c.do(ctx, method, p, query, body, out, o); err != nil {
		return nil, err
	}
	return out, nil
}

// orEmpty sends an empty object for a nil body, as the in-process methods
// read a nil params.
func orEmpty[T any](p *T) any {
	if p == nil {
		return struct{}{}
	}
	return p
}

// ListAccounts lists the application's accounts: GET /v1/endUserAccounts.
func (c *Client) ListAccounts(ctx context.Context, params *unical.AccountListParams) (*unical.Page[*unical.Account], error) {
	q := queryBuilder{}
	if params != nil {
		q.str("search", params.Search)
		q.str("statusFilter", params.StatusFilter)
		q.str("pageToken", params.PageToken)
		q.integer("limit", params.Limit)
	}
	return call[unical.Page[*unical.Account]](ctx, c, "GET", url.Values(q), nil, "/v1/endUserAccounts")
}

// GetAccount returns one account: GET /v1/endUserAccounts/{id}.
func (c *Client) GetAccount(ctx context.Context, id string) (*unical.Account, error) {
	return call[unical.Account](ctx, c, "GET", nil, nil, "/v1/endUserAccounts/", id)
}

// CreateAccount creates an account or updates its credentials:
// POST /v1/endUserAccounts.
func (c *Client) CreateAccount(ctx context.Context, params *unical.AccountCreateParams, opts ...unical.WriteOptions) (*unical.Account, error) {
	return write[unical.Account](ctx, c, opts, nil, "POST", nil, orEmpty(params), "/v1/endUserAccounts")
}

// ConnectBasicAuth connects a CalDAV account with an app-specific password:
// POST /v1/basicAuth/connect/{app_id}/provider_c. It needs
// Options.ApplicationID. params.ServerURL and params.Username (our
// extensions) name the account's server and login when they are not the
// defaults.
func (c *Client) ConnectBasicAuth(ctx context.Context, params *unical.BasicAuthConnectParams, opts ...unical.WriteOptions) (*unical.Account, error) {
	if c.appID == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "ConnectBasicAuth needs the application id: set httpclient.Config.ApplicationID.")
	}
	return write[unical.Account](ctx, c, opts, nil, "POST", nil, orEmpty(params), "/v1/basicAuth/connect/", c.appID, "/"+unical.ProviderCalDAV.PathName())
}

// DeleteAccount deletes an account: DELETE /v1/endUserAccounts/{id}.
func (c *Client) DeleteAccount(ctx context.Context, id string, opts ...unical.WriteOptions) (*unical.AccountDeleted, error) {
	return write[unical.AccountDeleted](ctx, c, opts, revokeOnly, "DELETE", nil, nil, "/v1/endUserAccounts/", id)
}

// GetCredentials returns an account's provider credentials:
// GET /v1/endUserAccounts/{id}/credentials.
func (c *Client) GetCredentials(ctx context.Context, accountID string) (*unical.Credentials, error) {
	return call[unical.Credentials](ctx, c, "GET", nil, nil, "/v1/endUserAccounts/", accountID, "/credentials")
}

// ListCalendars lists an account's calendars:
// GET /v1/calendars/{endUserAccountId}.
func (c *Client) ListCalendars(ctx context.Context, accountID string, params *unical.CalendarListParams) (*unical.SyncPage[*unical.Calendar], error) {
	q := queryBuilder{}
	if params != nil {
		q.str("syncToken", params.SyncToken)
		q.str("pageToken", params.PageToken)
		q.integer("limit", params.Limit)
	}
	return call[unical.SyncPage[*unical.Calendar]](ctx, c, "GET", url.Values(q), nil, "/v1/calendars/", accountID)
}

// GetCalendar returns one calendar:
// GET /v1/calendars/{endUserAccountId}/{calendarId}.
func (c *Client) GetCalendar(ctx context.Context, accountID, calendarID string) (*unical.Calendar, error) {
	return call[unical.Calendar](ctx, c, "GET", nil, nil, "/v1/calendars/", accountID, "/", calendarID)
}

// CreateCalendar creates a calendar: POST /v1/calendars/{endUserAccountId}.
func (c *Client) CreateCalendar(ctx context.Context, accountID string, params *unical.CalendarParams, opts ...unical.WriteOptions) (*unical.Calendar, error) {
	return write[unical.Calendar](ctx, c, opts, nil, "POST", nil, orEmpty(params), "/v1/calendars/", accountID)
}

// UpdateCalendar changes a calendar:
// PUT /v1/calendars/{endUserAccountId}/{calendarId}.
func (c *Client) UpdateCalendar(ctx context.Context, accountID, calendarID string, params *unical.CalendarParams, opts ...unical.WriteOptions) (*unical.Calendar, error) {
	return write[unical.Calendar](ctx, c, opts, nil, "PUT", nil, orEmpty(params), "/v1/calendars/", accountID, "/", calendarID)
}

// DeleteCalendar deletes a calendar:
// DELETE /v1/calendars/{endUserAccountId}/{calendarId}.
func (c *Client) DeleteCalendar(ctx context.Context, accountID, calendarID string, opts ...unical.WriteOptions) (*unical.Success, error) {
	return write[unical.Success](ctx, c, opts, nil, "DELETE", nil, nil, "/v1/calendars/", accountID, "/", calendarID)
}

// eventQuery holds the parameters events and occurrences share.
type eventQuery struct {
	syncToken, timeZone, search, orderBy, pageToken string
	start, end                                      time.Time
	metadata                                        *unical.MetadataFilters
	limit                                           int
}

func (e *eventQuery) values() (url.Values, error) {
	q := queryBuilder{}
	q.str("syncToken", e.syncToken)
	q.time("startDateTime", e.start)
	q.time("endDateTime", e.end)
	q.str("timeZone", e.timeZone)
	if err := q.metadata("metadataFilters", e.metadata); err != nil {
		return nil, err
	}
	q.str("search", e.search)
	q.str("orderBy", e.orderBy)
	q.str("pageToken", e.pageToken)
	q.integer("limit", e.limit)
	return url.Values(q), nil
}

// ListEvents lists a calendar's events:
// GET /v1/events/{endUserAccountId}/{calendarId}.
func (c *Client) ListEvents(ctx context.Context, accountID, calendarID string, params *unical.EventListParams) (*unical.SyncPage[*unical.Event], error) {
	if params == nil {
		params = &unical.EventListParams{}
	}
	q, err := (&eventQuery{syncToken: params.SyncToken, start: params.Start, end: params.End, timeZone: params.TimeZone,
		metadata: params.MetadataFilters, search: params.Search, orderBy: params.OrderBy, pageToken: params.PageToken,
		limit: params.Limit}).values()
	if err != nil {
		return nil, err
	}
	queryBuilder(q).boolean("expandRecurrences", params.ExpandRecurrences)
	return call[unical.SyncPage[*unical.Event]](ctx, c, "GET", q, nil, "/v1/events/", accountID, "/", calendarID)
}

// ListOccurrences lists the instances of a recurring event:
// GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}/occurrences.
func (c *Client) ListOccurrences(ctx context.Context, accountID, calendarID, eventID string, params *unical.OccurrenceListParams) (*unical.SyncPage[*unical.Event], error) {
	if params == nil {
		params = &unical.OccurrenceListParams{}
	}
	q, err := (&eventQuery{syncToken: params.SyncToken, start: params.Start, end: params.End, timeZone: params.TimeZone,
		metadata: params.MetadataFilters, search: params.Search, orderBy: params.OrderBy, pageToken: params.PageToken,
		limit: params.Limit}).values()
	if err != nil {
		return nil, err
	}
	return call[unical.SyncPage[*unical.Event]](ctx, c, "GET", q, nil, "/v1/events/", accountID, "/", calendarID, "/", eventID, "/occurrences")
}

// GetEvent returns one event or instance:
// GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}.
func (c *Client) GetEvent(ctx context.Context, accountID, calendarID, eventID string) (*unical.Event, error) {
	return call[unical.Event](ctx, c, "GET", nil, nil, "/v1/events/", accountID, "/", calendarID, "/", eventID)
}

// CreateEvent creates an event: POST /v1/events/{endUserAccountId}/{calendarId}.
func (c *Client) CreateEvent(ctx context.Context, accountID, calendarID string, params *unical.EventParams, opts ...unical.WriteOptions) (*unical.Event, error) {
	return write[unical.Event](ctx, c, opts, notifyOnly, "POST", nil, orEmpty(params), "/v1/events/", accountID, "/", calendarID)
}

// UpdateEvent changes an event:
// PUT /v1/events/{endUserAccountId}/{calendarId}/{eventId}.
func (c *Client) UpdateEvent(ctx context.Context, accountID, calendarID, eventID string, params *unical.EventParams, opts ...unical.WriteOptions) (*unical.Event, error) {
	return write[unical.Event](ctx, c, opts, eventWrite, "PUT", nil, orEmpty(params), "/v1/events/", accountID, "/", calendarID, "/", eventID)
}

// DeleteEvent deletes an event:
// DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}.
func (c *Client) DeleteEvent(ctx context.Context, accountID, calendarID, eventID string, opts ...unical.WriteOptions) (*unical.Success, error) {
	return write[unical.Success](ctx, c, opts, eventWrite, "DELETE", nil, nil, "/v1/events/", accountID, "/", calendarID, "/", eventID)
}

// UpdateEventWithScope changes an occurrence, or it and the following ones:
// PUT /v1/events/{endUserAccountId}/{calendarId}/{eventId}?scope=.
func (c *Client) UpdateEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope series.EditScope, params *unical.EventParams, opts ...unical.WriteOptions) (*unical.Event, error) {
	return write[unical.Event](ctx, c, opts, eventWrite, "PUT", scopeQuery(scope), orEmpty(params), "/v1/events/", accountID, "/", calendarID, "/", eventID)
}

// DeleteEventWithScope deletes an occurrence, or it and the following ones:
// DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}?scope=.
func (c *Client) DeleteEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope series.EditScope, opts ...unical.WriteOptions) (*unical.Success, error) {
	return write[unical.Success](ctx, c, opts, eventWrite, "DELETE", scopeQuery(scope), nil, "/v1/events/", accountID, "/", calendarID, "/", eventID)
}

// scopeQuery is the query of a scoped write; the default scope is left out.
func scopeQuery(scope series.EditScope) url.Values {
	if scope == "" {
		return nil
	}
	return url.Values{"scope": {string(scope)}}
}

// RSVP answers an invitation:
// POST /v1/events/{endUserAccountId}/{calendarId}/{eventId}/rsvp.
func (c *Client) RSVP(ctx context.Context, accountID, calendarID, eventID string, params *unical.RSVPParams, opts ...unical.WriteOptions) (*unical.Success, error) {
	return write[unical.Success](ctx, c, opts, nil, "POST", nil, orEmpty(params), "/v1/events/", accountID, "/", calendarID, "/", eventID, "/rsvp")
}

// ListInvitations returns the delivery log of an event's emailed
// invitations (as invite.ListInvitations does in-process):
// GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}/invitations.
func (c *Client) ListInvitations(ctx context.Context, accountID, calendarID, eventID string) (*invitelog.List, error) {
	return call[invitelog.List](ctx, c, "GET", nil, nil, "/v1/events/", accountID, "/", calendarID, "/", eventID, "/invitations")
}

// QueryFreeBusy returns busy slots: POST /v1/freeBusy/{endUserAccountId}.
func (c *Client) QueryFreeBusy(ctx context.Context, accountID string, params *unical.FreeBusyParams, opts ...unical.WriteOptions) ([]*unical.FreeBusyResult, error) {
	res, err := write[[]*unical.FreeBusyResult](ctx, c, opts, nil, "POST", nil, orEmpty(params), "/v1/freeBusy/", accountID)
	if err != nil {
		return nil, err
	}
	return *res, nil
}

// Availability finds meeting slots across accounts: POST /v1/availability.
func (c *Client) Availability(ctx context.Context, params *availability.Params) (*availability.Result, error) {
	return call[availability.Result](ctx, c, "POST", nil, orEmpty(params), "/v1/availability")
}

// Capabilities lists what each provider type does with each writable
// field: GET /v1/capabilities.
func (c *Client) Capabilities(ctx context.Context) (*unical.CapabilityList, error) {
	return call[unical.CapabilityList](ctx, c, "GET", nil, nil, "/v1/capabilities")
}

// ListSubscriptions lists an account's webhook subscriptions:
// GET /v1/calendarSubscriptions/{endUserAccountId}.
func (c *Client) ListSubscriptions(ctx context.Context, accountID string, params *subscriptions.ListParams) (*unical.Page[*unical.Subscription], error) {
	q := queryBuilder{}
	if params != nil {
		q.str("pageToken", params.PageToken)
		q.integer("limit", params.Limit)
	}
	return call[unical.Page[*unical.Subscription]](ctx, c, "GET", url.Values(q), nil, "/v1/calendarSubscriptions/", accountID)
}

// CreateSubscription creates a webhook subscription:
// POST /v1/calendarSubscriptions/{endUserAccountId}.
func (c *Client) CreateSubscription(ctx context.Context, accountID string, params *subscriptions.CreateParams, opts ...unical.WriteOptions) (*subscriptions.Created, error) {
	return write[subscriptions.Created](ctx, c, opts, nil, "POST", nil, orEmpty(params), "/v1/calendarSubscriptions/", accountID)
}

// DeleteSubscription deletes a webhook subscription:
// DELETE /v1/calendarSubscriptions/{endUserAccountId}.
func (c *Client) DeleteSubscription(ctx context.Context, accountID string, params *subscriptions.DeleteParams, opts ...unical.WriteOptions) (*unical.Success, error) {
	return write[unical.Success](ctx, c, opts, nil, "DELETE", nil, orEmpty(params), "/v1/calendarSubscriptions/", accountID)
}

// deliveryWire is a delivery attempt as the server writes it: the latency
// travels as latencyMs (outbox.Attempt.Latency is not a JSON field).
type deliveryWire struct {
	attempt *outbox.Attempt
}

func (d *deliveryWire) UnmarshalJSON(b []byte) error {
	var w struct {
		outbox.Attempt
		LatencyMS int64 `json:"latencyMs"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	w.Latency = time.Duration(w.LatencyMS) * time.Millisecond
	d.attempt = &w.Attempt
	return nil
}

// ListDeliveries lists the delivery log of a subscription,
// GET /v1/calendarSubscriptions/{endUserAccountId}/{subscriptionId}/deliveries,
// or with both ids empty of the application's own webhook endpoint,
// GET /v1/applicationWebhook/deliveries. With ResendMessage it is the
// delivery log of package engine (engine.DeliveryLog), as the in-process
// engine.DeliveryLogOf(app) is.
func (c *Client) ListDeliveries(ctx context.Context, accountID, subscriptionID string, params *outbox.ListParams) (*unical.Page[*outbox.Attempt], error) {
	q := queryBuilder{}
	if params != nil {
		q.str("pageToken", params.PageToken)
		q.integer("limit", params.Limit)
	}
	parts := []string{"/v1/applicationWebhook/deliveries"}
	if accountID != "" || subscriptionID != "" {
		parts = []string{"/v1/calendarSubscriptions/", accountID, "/", subscriptionID, "/deliveries"}
	}
	wire, err := call[unical.Page[deliveryWire]](ctx, c, "GET", url.Values(q), nil, parts...)
	if err != nil {
		return nil, err
	}
	page := &unical.Page[*outbox.Attempt]{Data: make([]*outbox.Attempt, len(wire.Data)), NextPageToken: wire.NextPageToken}
	for i, d := range wire.Data {
		page.Data[i] = d.attempt
	}
	return page, nil
}

// ResendMessage queues a webhook message again,
// POST /v1/calendarSubscriptions/{endUserAccountId}/{subscriptionId}/messages/{messageId}/resend,
// or with both ids empty one of the application's own endpoint,
// POST /v1/applicationWebhook/messages/{messageId}/resend.
func (c *Client) ResendMessage(ctx context.Context, accountID, subscriptionID, messageID string, opts ...unical.WriteOptions) (*unical.Success, error) {
	if accountID == "" && subscriptionID == "" {
		return write[unical.Success](ctx, c, opts, nil, "POST", nil, nil, "/v1/applicationWebhook/messages/", messageID, "/resend")
	}
	return write[unical.Success](ctx, c, opts, nil, "POST", nil, nil, "/v1/calendarSubscriptions/", accountID, "/", subscriptionID, "/messages/", messageID, "/resend")
}

// ListRooms lists the application's room directory: GET /v1/rooms, which
// package rooms answers in process.
func (c *Client) ListRooms(ctx context.Context, params *rooms.ListParams) (*unical.Page[*unical.Room], error) {
	q := queryBuilder{}
	if params != nil {
		q.str("pageToken", params.PageToken)
		q.integer("limit", params.Limit)
	}
	return call[unical.Page[*unical.Room]](ctx, c, "GET", url.Values(q), nil, "/v1/rooms")
}
