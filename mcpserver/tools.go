package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/scopedtoken"
)

// toolSpec is one tool: its definition, the token scope its /v1 route
// needs, and how it is added to a server with its caller.
type toolSpec struct {
	scope scopedtoken.Scope
	tool  *mcp.Tool
	add   func(s *mcp.Server, c *caller)
}

// newTool defines a tool whose arguments are In (their JSON schema is
// In's, with the field descriptions of its jsonschema tags) and whose
// work is run: one /v1 call whose answer becomes the tool's result.
func newTool[In any](scope scopedtoken.Scope, t *mcp.Tool, run func(ctx context.Context, c *caller, in In) (answer, error)) toolSpec {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: tool %s: %v", t.Name, err))
	}
	t.InputSchema = schema
	return toolSpec{scope: scope, tool: t, add: func(s *mcp.Server, c *caller) {
		mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			a, err := run(ctx, c, in)
			if err != nil {
				return refusal(err), nil, nil
			}
			return toolResult(a)
		})
	}}
}

// withEnum limits the string property prop of spec's arguments to values.
func withEnum(spec toolSpec, prop string, values ...string) toolSpec {
	s := spec.tool.InputSchema.(*jsonschema.Schema).Properties[prop]
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return spec
}

// tools are the server's tools (tools/list answers them by name).
var tools = []toolSpec{
	newTool(scopedtoken.EventsRead, &mcp.Tool{
		Name:        "list_calendars",
		Title:       "List calendars",
		Description: "Lists the calendars of an end-user account: GET /v1/calendars/{endUserAccountId}. The result is the API's answer, {\"data\": [calendar, ...], \"nextSyncToken\"}.",
		Annotations: readOnly("List calendars"),
	}, listCalendars),
	newTool(scopedtoken.EventsRead, &mcp.Tool{
		Name:        "list_events",
		Title:       "List events",
		Description: "Lists the events of a calendar: GET /v1/events/{endUserAccountId}/{calendarId}. Give startDateTime and endDateTime to see a window, with expandRecurrences to get each occurrence of a recurring event. When the answer has nextPageToken, call again with it as pageToken for the next page.",
		Annotations: readOnly("List events"),
	}, listEvents),
	newTool(scopedtoken.FreeBusyRead, &mcp.Tool{
		Name:        "find_availability",
		Title:       "Find availability",
		Description: "Finds the times when the participants (accounts of the application) can meet: POST /v1/availability. The result is {\"data\": [{\"start\", \"end\", \"participants\"}, ...]}, the slots in start order.",
		Annotations: readOnly("Find availability"),
	}, findAvailability),
	newTool(scopedtoken.SlotsRead, &mcp.Tool{
		Name:        "get_slots",
		Title:       "Get bookable slots",
		Description: "Lists the free slots of a booking type between two times: GET /v1/bookingTypes/{bookingTypeId}/slots. Each slot's start is what hold_slot and book take as startDateTime.",
		Annotations: readOnly("Get bookable slots"),
	}, getSlots),
	newTool(scopedtoken.HoldsWrite, &mcp.Tool{
		Name:        "hold_slot",
		Title:       "Hold a slot",
		Description: "Holds a slot of a booking type for a few minutes while the guest decides: POST /v1/holds. The result is the hold, whose id book takes as holdId. " + idempotencyNote,
		Annotations: &mcp.ToolAnnotations{Title: "Hold a slot", IdempotentHint: true, DestructiveHint: hint(false), OpenWorldHint: hint(false)},
	}, holdSlot),
	newTool(scopedtoken.BookingsWrite, &mcp.Tool{
		Name:        "book",
		Title:       "Book a slot",
		Description: "Books a slot of a booking type for a guest: POST /v1/bookings, with startDateTime (a slot's start from get_slots) or holdId (from hold_slot). The result is the booking, with its id and the events written. " + idempotencyNote,
		Annotations: &mcp.ToolAnnotations{Title: "Book a slot", IdempotentHint: true, DestructiveHint: hint(false), OpenWorldHint: hint(true)},
	}, book),
	newTool(scopedtoken.BookingsRead, &mcp.Tool{
		Name:        "list_bookings",
		Title:       "List bookings",
		Description: "Lists the application's bookings, optionally of one booking type and meeting a window: GET /v1/bookings (with a scoped token, name one of its booking types as bookingTypeId). When the answer has nextPageToken, call again with it as pageToken.",
		Annotations: readOnly("List bookings"),
	}, listBookings),
	newTool(scopedtoken.BookingsWrite, &mcp.Tool{
		Name:        "cancel_booking",
		Title:       "Cancel a booking",
		Description: "Cancels a booking and deletes its events: DELETE /v1/bookings/{bookingId}. It cannot be undone, so it needs \"confirm\": true, given only once the user has agreed. " + idempotencyNote,
		Annotations: &mcp.ToolAnnotations{Title: "Cancel a booking", IdempotentHint: true, DestructiveHint: hint(true), OpenWorldHint: hint(true)},
	}, cancelBooking),
	withEnum(newTool(scopedtoken.EventsWrite, &mcp.Tool{
		Name:        "rsvp",
		Title:       "Answer an invitation",
		Description: "Answers an event's invitation for the account: POST /v1/events/{endUserAccountId}/{calendarId}/{eventId}/rsvp. Declining tells the organizer the account will not come, so \"declined\" needs \"confirm\": true, given only once the user has agreed. " + idempotencyNote,
		Annotations: &mcp.ToolAnnotations{Title: "Answer an invitation", IdempotentHint: true, DestructiveHint: hint(true), OpenWorldHint: hint(true)},
	}, rsvp), "responseStatus", string(unical.ResponseAccepted), string(unical.ResponseTentative), string(unical.ResponseDeclined), string(unical.ResponseNeedsAction)),
}

// idempotencyNote ends the description of every write tool.
const idempotencyNote = "Send a new idempotencyKey for each action and the same one when retrying it: a repeated call with the same key is done once and answers the first result."

// hint is the address of an annotation's value.
func hint(v bool) *bool { return &v }

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: hint(false)}
}

// toolScopes is each tool's scope, by name.
var toolScopes = func() map[string]scopedtoken.Scope {
	m := map[string]scopedtoken.Scope{}
	for _, t := range tools {
		m[t.tool.Name] = t.scope
	}
	return m
}()

type listCalendarsInput struct {
	EndUserAccountID string `json:"endUserAccountId" jsonschema:"the end-user account whose calendars to list"`
}

func listCalendars(ctx context.Context, c *caller, in listCalendarsInput) (answer, error) {
	return c.call(ctx, http.MethodGet, "/v1/calendars/"+url.PathEscape(in.EndUserAccountID), nil, nil, "")
}

type listEventsInput struct {
	EndUserAccountID  string `json:"endUserAccountId" jsonschema:"the end-user account"`
	CalendarID        string `json:"calendarId" jsonschema:"the calendar, an id from list_calendars"`
	StartDateTime     string `json:"startDateTime,omitempty" jsonschema:"ISO 8601 date-time: the window's start"`
	EndDateTime       string `json:"endDateTime,omitempty" jsonschema:"ISO 8601 date-time: the window's end"`
	TimeZone          string `json:"timeZone,omitempty" jsonschema:"IANA time zone the event times are answered in"`
	ExpandRecurrences bool   `json:"expandRecurrences,omitempty" jsonschema:"answer each occurrence of a recurring event; needs startDateTime and endDateTime"`
	Search            string `json:"search,omitempty" jsonschema:"only events whose title contains this text"`
	PageToken         string `json:"pageToken,omitempty" jsonschema:"nextPageToken of the previous answer, for the next page"`
	Limit             int    `json:"limit,omitempty" jsonschema:"at most this many events per page"`
}

func listEvents(ctx context.Context, c *caller, in listEventsInput) (answer, error) {
	q := url.Values{}
	set(q, "startDateTime", in.StartDateTime)
	set(q, "endDateTime", in.EndDateTime)
	set(q, "timeZone", in.TimeZone)
	if in.ExpandRecurrences {
		q.Set("expandRecurrences", "true")
	}
	set(q, "search", in.Search)
	set(q, "pageToken", in.PageToken)
	if in.Limit != 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	return c.call(ctx, http.MethodGet, "/v1/events/"+url.PathEscape(in.EndUserAccountID)+"/"+url.PathEscape(in.CalendarID), q, nil, "")
}

// availabilityInput is the body of POST /v1/availability
// (availability.Params, whose optional required flag is a *bool here).
type availabilityInput struct {
	Participants         []participantInput   `json:"participants" jsonschema:"1 to 20 accounts of the application, each at most once"`
	StartDateTime        string               `json:"startDateTime" jsonschema:"ISO 8601 date-time, the search's start; without an offset it is read in timeZone"`
	EndDateTime          string               `json:"endDateTime" jsonschema:"ISO 8601 date-time, the search's end, at most 62 days after the start"`
	DurationMinutes      int                  `json:"durationMinutes" jsonschema:"the meeting's length in minutes, at least 5"`
	IntervalMinutes      int                  `json:"intervalMinutes,omitempty" jsonschema:"minutes between slot starts, counted from midnight in timeZone; default 15"`
	BufferBeforeMinutes  int                  `json:"bufferBeforeMinutes,omitempty" jsonschema:"minutes before a slot that must be free too"`
	BufferAfterMinutes   int                  `json:"bufferAfterMinutes,omitempty" jsonschema:"minutes after a slot that must be free too"`
	MinimumNoticeMinutes int                  `json:"minimumNoticeMinutes,omitempty" jsonschema:"no slot starts sooner than this many minutes from now"`
	TimeZone             string               `json:"timeZone,omitempty" jsonschema:"IANA time zone of the answer and of slot alignment; default UTC"`
	MaxResults           int                  `json:"maxResults,omitempty" jsonschema:"at most this many slots; default 100"`
	Groups               []availability.Group `json:"groups,omitempty" jsonschema:"groups of which required members must be free, such as one room of three"`
}

type participantInput struct {
	EndUserAccountID string                     `json:"endUserAccountId" jsonschema:"an end-user account of the application"`
	CalendarIDs      []string                   `json:"calendarIds,omitempty" jsonschema:"the calendars whose busy time counts; default the primary calendar"`
	WorkingHours     *availability.WorkingHours `json:"workingHours,omitempty" jsonschema:"weekly hours in the participant's zone: {timeZone, intervals: [{day: monday..sunday, start: HH:MM, end: HH:MM}]}; default any time"`
	Required         *bool                      `json:"required,omitempty" jsonschema:"default true; of the participants that are not required, at least one must be free"`
	Group            string                     `json:"group,omitempty" jsonschema:"the name of the group this participant belongs to"`
}

func findAvailability(ctx context.Context, c *caller, in availabilityInput) (answer, error) {
	return c.call(ctx, http.MethodPost, "/v1/availability", nil, in, "")
}

type slotsInput struct {
	BookingTypeID string `json:"bookingTypeId" jsonschema:"the booking type"`
	StartDateTime string `json:"startDateTime" jsonschema:"ISO 8601 date-time, the search's start"`
	EndDateTime   string `json:"endDateTime" jsonschema:"ISO 8601 date-time, the search's end"`
	TimeZone      string `json:"timeZone,omitempty" jsonschema:"IANA time zone of the answer; default the booking type's"`
}

func getSlots(ctx context.Context, c *caller, in slotsInput) (answer, error) {
	q := url.Values{}
	set(q, "startDateTime", in.StartDateTime)
	set(q, "endDateTime", in.EndDateTime)
	set(q, "timeZone", in.TimeZone)
	return c.call(ctx, http.MethodGet, "/v1/bookingTypes/"+url.PathEscape(in.BookingTypeID)+"/slots", q, nil, "")
}

type holdInput struct {
	BookingTypeID  string `json:"bookingTypeId" jsonschema:"the booking type"`
	StartDateTime  string `json:"startDateTime" jsonschema:"the slot's start, as get_slots answered it"`
	TTLSeconds     int    `json:"ttlSeconds,omitempty" jsonschema:"how long the hold lives: 1 to 900 seconds, default 300"`
	IdempotencyKey string `json:"idempotencyKey" jsonschema:"a new key (1 to 128 visible ASCII characters, such as a UUID or your tool-call id) for this action; the same key when retrying it"`
}

func holdSlot(ctx context.Context, c *caller, in holdInput) (answer, error) {
	key, err := c.idempotencyKey("hold_slot", in.IdempotencyKey)
	if err != nil {
		return answer{}, err
	}
	body := booking.HoldParams{BookingTypeID: in.BookingTypeID, StartDateTime: in.StartDateTime, TTLSeconds: in.TTLSeconds}
	return c.call(ctx, http.MethodPost, "/v1/holds", nil, body, key)
}

type bookInput struct {
	BookingTypeID   string            `json:"bookingTypeId" jsonschema:"the booking type"`
	StartDateTime   string            `json:"startDateTime,omitempty" jsonschema:"the slot's start, as get_slots answered it; or give holdId"`
	HoldID          string            `json:"holdId,omitempty" jsonschema:"the id of a hold from hold_slot; or give startDateTime"`
	Guest           booking.Guest     `json:"guest" jsonschema:"who books: {email, name, timeZone}; email is required"`
	Metadata        map[string]string `json:"metadata,omitempty" jsonschema:"string pairs kept with the booking"`
	NotifyAttendees bool              `json:"notifyAttendees,omitempty" jsonschema:"send the invitation to the guest and the participants"`
	IdempotencyKey  string            `json:"idempotencyKey" jsonschema:"a new key (1 to 128 visible ASCII characters, such as a UUID or your tool-call id) for this action; the same key when retrying it"`
}

func book(ctx context.Context, c *caller, in bookInput) (answer, error) {
	key, err := c.idempotencyKey("book", in.IdempotencyKey)
	if err != nil {
		return answer{}, err
	}
	body := booking.BookingParams{BookingTypeID: in.BookingTypeID, StartDateTime: in.StartDateTime, HoldID: in.HoldID, Guest: in.Guest, Metadata: in.Metadata}
	return c.call(ctx, http.MethodPost, "/v1/bookings", notify(in.NotifyAttendees), body, key)
}

type listBookingsInput struct {
	BookingTypeID string `json:"bookingTypeId,omitempty" jsonschema:"only bookings of this booking type"`
	StartDateTime string `json:"startDateTime,omitempty" jsonschema:"ISO 8601 date-time: only bookings ending after it"`
	EndDateTime   string `json:"endDateTime,omitempty" jsonschema:"ISO 8601 date-time: only bookings starting before it"`
	PageToken     string `json:"pageToken,omitempty" jsonschema:"nextPageToken of the previous answer, for the next page"`
	Limit         int    `json:"limit,omitempty" jsonschema:"at most this many bookings per page"`
}

func listBookings(ctx context.Context, c *caller, in listBookingsInput) (answer, error) {
	q := url.Values{}
	set(q, "bookingTypeId", in.BookingTypeID)
	set(q, "startDateTime", in.StartDateTime)
	set(q, "endDateTime", in.EndDateTime)
	set(q, "pageToken", in.PageToken)
	if in.Limit != 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	return c.call(ctx, http.MethodGet, "/v1/bookings", q, nil, "")
}

type cancelInput struct {
	BookingID       string `json:"bookingId" jsonschema:"the booking to cancel"`
	Confirm         bool   `json:"confirm,omitempty" jsonschema:"must be true: the user agreed to cancel"`
	NotifyAttendees bool   `json:"notifyAttendees,omitempty" jsonschema:"tell the guest and the participants"`
	IdempotencyKey  string `json:"idempotencyKey" jsonschema:"a new key (1 to 128 visible ASCII characters, such as a UUID or your tool-call id) for this action; the same key when retrying it"`
}

func cancelBooking(ctx context.Context, c *caller, in cancelInput) (answer, error) {
	if !in.Confirm {
		return answer{}, unical.FieldError("confirm", "Cancelling a booking cannot be undone: ask the user, then call again with \"confirm\": true.")
	}
	key, err := c.idempotencyKey("cancel_booking", in.IdempotencyKey)
	if err != nil {
		return answer{}, err
	}
	return c.call(ctx, http.MethodDelete, "/v1/bookings/"+url.PathEscape(in.BookingID), notify(in.NotifyAttendees), nil, key)
}

type rsvpInput struct {
	EndUserAccountID string `json:"endUserAccountId" jsonschema:"the invited end-user account"`
	CalendarID       string `json:"calendarId" jsonschema:"the calendar holding the event"`
	EventID          string `json:"eventId" jsonschema:"the event"`
	ResponseStatus   string `json:"responseStatus" jsonschema:"the answer: accepted, tentative, declined or needsAction"`
	Confirm          bool   `json:"confirm,omitempty" jsonschema:"must be true to decline: the user agreed"`
	IdempotencyKey   string `json:"idempotencyKey" jsonschema:"a new key (1 to 128 visible ASCII characters, such as a UUID or your tool-call id) for this action; the same key when retrying it"`
}

func rsvp(ctx context.Context, c *caller, in rsvpInput) (answer, error) {
	if in.ResponseStatus == string(unical.ResponseDeclined) && !in.Confirm {
		return answer{}, unical.FieldError("confirm", "Declining tells the organizer the account will not come: ask the user, then call again with \"confirm\": true.")
	}
	key, err := c.idempotencyKey("rsvp", in.IdempotencyKey)
	if err != nil {
		return answer{}, err
	}
	path := "/v1/events/" + url.PathEscape(in.EndUserAccountID) + "/" + url.PathEscape(in.CalendarID) + "/" + url.PathEscape(in.EventID) + "/rsvp"
	return c.call(ctx, http.MethodPost, path, nil, unical.RSVPParams{ResponseStatus: unical.ResponseStatus(in.ResponseStatus)}, key)
}

// maxIdempotencyKey bounds a tool's idempotencyKey, leaving room in the
// 255 characters of an Idempotency-Key for the tool's and token's names.
const maxIdempotencyKey = 128

// idempotencyKey returns the Idempotency-Key of a write tool's call:
// the agent's key within the tool and the token, so that the same key
// given to two tools, or by two tokens of one application, names two
// actions, and a repeated call of one tool with one key is one action.
func (c *caller) idempotencyKey(tool, key string) (string, error) {
	if len(key) > maxIdempotencyKey {
		return "", unical.FieldError("idempotencyKey", "idempotencyKey is longer than %d characters.", maxIdempotencyKey)
	}
	full := "mcp." + tool + "."
	if c.grantID != "" {
		full += c.grantID + "."
	}
	full += key
	if key == "" || idempotency.CheckKey(full) != "" {
		return "", unical.FieldError("idempotencyKey", "idempotencyKey must be 1 to %d visible ASCII characters, such as a UUID.", maxIdempotencyKey)
	}
	return full, nil
}

func set(q url.Values, name, value string) {
	if value != "" {
		q.Set(name, value)
	}
}

// notify is the query of a booking write that sends invitations.
func notify(on bool) url.Values {
	if !on {
		return nil
	}
	return url.Values{"notifyAttendees": {"true"}}
}
