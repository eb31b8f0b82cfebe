package unical

import (
	"context"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/unical/unical/internal/recur"
	"github.com/unical/unical/internal/timefmt"
)

// ResponseStatus is an attendee's answer to an invitation.
type ResponseStatus string

// Attendee response states.
const (
	ResponseNeedsAction ResponseStatus = "needsAction"
	ResponseDeclined    ResponseStatus = "declined"
	ResponseTentative   ResponseStatus = "tentative"
	ResponseAccepted    ResponseStatus = "accepted"
)

// Visibility of an event to others who can see the calendar.
type Visibility string

// Visibility values.
const (
	VisibilityDefault      Visibility = "default"
	VisibilityPublic       Visibility = "public"
	VisibilityPrivate      Visibility = "private"
	VisibilityConfidential Visibility = "confidential"
)

// Transparency says whether an event blocks time.
type Transparency string

// Transparency values: opaque events block time, transparent ones do not.
const (
	TransparencyOpaque      Transparency = "opaque"
	TransparencyTransparent Transparency = "transparent"
)

// EventType is the kind of an event.
type EventType string

// Event kinds.
const (
	EventTypeDefault     EventType = "default"
	EventTypeOutOfOffice EventType = "outOfOffice"
	EventTypeFocusTime   EventType = "focusTime"
)

// Allowed enum values, in the order error messages list them.
var (
	responseStatuses = []string{string(ResponseNeedsAction), string(ResponseDeclined), string(ResponseTentative), string(ResponseAccepted)}
	visibilities     = []string{string(VisibilityDefault), string(VisibilityPublic), string(VisibilityPrivate), string(VisibilityConfidential)}
	transparencies   = []string{string(TransparencyTransparent), string(TransparencyOpaque)}
	eventTypes       = []string{string(EventTypeDefault), string(EventTypeOutOfOffice), string(EventTypeFocusTime)}
)

// EventDateTime is a point in time of an event. Timed values carry DateTime
// with a UTC offset and the IANA TimeZone name; all-day values carry DateTime
// at midnight without an offset ("2026-01-05T00:00:00"), and all-day
// originalStart values carry Date ("2026-01-05") instead.
type EventDateTime struct {
	DateTime string `json:"dateTime,omitempty"`
	Date     string `json:"date,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// Layouts of EventDateTime strings.
const (
	LocalDateTimeLayout = "2006-01-02T15:04:05"
	DateLayout          = "2006-01-02"
)

// TimedAt returns the EventDateTime of t in t's location; t's location
// must be an IANA zone or UTC.
func TimedAt(t time.Time) *EventDateTime {
	t = recur.Clamp(t) // an instance ending after the year 9999
	name := t.Location().String()
	if name == "Local" {
		name = ""
	}
	return &EventDateTime{DateTime: t.Format(time.RFC3339), TimeZone: name}
}

// AllDayOn returns the all-day EventDateTime of the calendar date of t.
func AllDayOn(t time.Time) *EventDateTime {
	return &EventDateTime{DateTime: recur.Clamp(t).Format(DateLayout) + "T00:00:00"}
}

// Time resolves d to an instant. A DateTime with an offset is used as it is;
// one without an offset is read in TimeZone (UTC when there is none); a Date
// is midnight in TimeZone. The field name is used in errors, also for an
// instant outside the years 1 to 9999 in UTC.
func (d *EventDateTime) Time(field string) (t time.Time, err error) {
	loc := time.UTC
	if d.TimeZone != "" {
		if loc, err = LoadLocation(d.TimeZone); err != nil {
			return time.Time{}, invalidf(field+".timeZone", "%q is not an IANA time zone name.", d.TimeZone)
		}
	}
	switch {
	case d.DateTime != "":
		if t, err = time.Parse(time.RFC3339, d.DateTime); err == nil && d.TimeZone != "" {
			t = t.In(loc)
		} else if err != nil {
			t, err = recur.ParseLocal(LocalDateTimeLayout, d.DateTime, loc)
		}
		if err != nil {
			return time.Time{}, invalidf(field+".dateTime", "%q is not an ISO 8601 date-time such as 2026-01-05T09:00:00+01:00.", d.DateTime)
		}
	case d.Date != "":
		if t, err = recur.ParseLocal(DateLayout, d.Date, loc); err != nil {
			return time.Time{}, invalidf(field+".date", "%q is not a date such as 2026-01-05.", d.Date)
		}
	default:
		return time.Time{}, invalidf(field+".dateTime", "%s.dateTime is required.", field)
	}
	if !recur.InYears(t) {
		return time.Time{}, invalidf(field, "%s is outside the years 0001 to 9999 in UTC.", field)
	}
	return t, nil
}

// IsDateOnly reports whether d names a calendar day rather than an instant:
// a Date, or a DateTime at midnight without an offset.
func (d *EventDateTime) IsDateOnly() bool {
	if d.Date != "" && d.DateTime == "" {
		return true
	}
	if _, err := time.Parse(LocalDateTimeLayout, d.DateTime); err == nil {
		return strings.HasSuffix(d.DateTime, "T00:00:00")
	}
	return false
}

// Day returns the calendar date of an all-day value as midnight UTC.
func (d *EventDateTime) Day(field string) (time.Time, error) {
	s := d.Date
	if s == "" {
		s = d.DateTime
		if len(s) >= 10 {
			s = s[:10]
		}
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return time.Time{}, invalidf(field+".dateTime", "%q is not a date such as 2026-01-05T00:00:00.", d.DateTime)
	}
	return t, nil
}

// Attendee is a guest of an event.
type Attendee struct {
	ID             string         `json:"id,omitempty"`
	Name           string         `json:"name,omitempty"`
	Email          string         `json:"email"`
	ResponseStatus ResponseStatus `json:"responseStatus,omitempty"`
	// Optional marks a guest whose attendance is optional (our extension,
	// from Google's and Graph's attendee types).
	Optional bool `json:"optional,omitempty"`
}

// Organizer is the organizer of an event.
type Organizer struct {
	Name   string `json:"name,omitempty"`
	Email  string `json:"email,omitempty"`
	IsSelf bool   `json:"isSelf,omitempty"`
}

// Creator is the creator of an event.
type Creator struct {
	Name   string `json:"name,omitempty"`
	Email  string `json:"email,omitempty"`
	IsSelf bool   `json:"isSelf,omitempty"`
}

// Reminders are an event's notifications. UseDefault takes the calendar's
// defaults; Overrides (our extension) lists explicit ones.
type Reminders struct {
	UseDefault bool               `json:"useDefault"`
	Overrides  []ReminderOverride `json:"overrides,omitempty"`
}

// ReminderOverride is one explicit reminder.
type ReminderOverride struct {
	// Method is "popup" or "email".
	Method string `json:"method"`
	// Minutes before the start; 0 to 40320 (four weeks).
	Minutes int `json:"minutes"`
}

// ConferenceData describes an online meeting attached to an event.
type ConferenceData struct {
	ConferenceID      string             `json:"conferenceId,omitempty"`
	ConferenceType    string             `json:"conferenceType,omitempty"`
	JoinURL           string             `json:"joinUrl,omitempty"`
	ConferenceDetails *ConferenceDetails `json:"conferenceDetails,omitempty"`
}

// ConferenceDetails are the provider's details of a conference.
type ConferenceDetails struct {
	CreateRequest      *ConferenceCreateRequest `json:"createRequest,omitempty"`
	EntryPoints        []ConferenceEntryPoint   `json:"entryPoints,omitempty"`
	ConferenceSolution *ConferenceSolution      `json:"conferenceSolution,omitempty"`
	ConferenceID       string                   `json:"conferenceId,omitempty"`
}

// ConferenceCreateRequest is a request to generate a conference.
type ConferenceCreateRequest struct {
	RequestID             string                 `json:"requestId,omitempty"`
	ConferenceSolutionKey *ConferenceSolutionKey `json:"conferenceSolutionKey,omitempty"`
	Status                *ConferenceStatus      `json:"status,omitempty"`
}

// ConferenceSolutionKey names a conference solution ("hangoutsMeet", "teamsForBusiness").
type ConferenceSolutionKey struct {
	Type string `json:"type,omitempty"`
}

// ConferenceStatus is the state of a conference create request.
type ConferenceStatus struct {
	StatusCode string `json:"statusCode,omitempty"`
}

// ConferenceEntryPoint is one way to join a conference.
type ConferenceEntryPoint struct {
	EntryPointType string `json:"entryPointType,omitempty"`
	URI            string `json:"uri,omitempty"`
	Label          string `json:"label,omitempty"`
}

// ConferenceSolution describes the conference product.
type ConferenceSolution struct {
	Key     *ConferenceSolutionKey `json:"key,omitempty"`
	Name    string                 `json:"name,omitempty"`
	IconURI string                 `json:"iconUri,omitempty"`
}

// Meeting providers accepted in generateMeetingUrlProvider.
const (
	MeetingProviderGoogleMeet = "googleMeet"
	MeetingProviderTeams      = "teamsForBusiness"
)

var meetingProviders = []string{MeetingProviderGoogleMeet, MeetingProviderTeams}

// Event is a Calendar Event. Unset fields are omitted from JSON, except the
// booleans and recurrence, which is null for events that do not recur.
type Event struct {
	ID                         string            `json:"id"`
	Title                      string            `json:"title,omitempty"`
	Description                string            `json:"description,omitempty"`
	ETag                       string            `json:"etag,omitempty"`
	CreatedAt                  string            `json:"createdAt,omitempty"`
	UpdatedAt                  string            `json:"updatedAt,omitempty"`
	Start                      *EventDateTime    `json:"start,omitempty"`
	End                        *EventDateTime    `json:"end,omitempty"`
	IsAllDay                   bool              `json:"isAllDay"`
	PublicExtendedProperties   map[string]string `json:"publicExtendedProperties,omitempty"`
	PrivateExtendedProperties  map[string]string `json:"privateExtendedProperties,omitempty"`
	IsRecurring                bool              `json:"isRecurring"`
	IsException                bool              `json:"isException"`
	IsCancelled                bool              `json:"isCancelled"`
	Recurrence                 []string          `json:"recurrence"`
	OriginalStart              *EventDateTime    `json:"originalStart,omitempty"`
	RecurringEventID           string            `json:"recurringEventId,omitempty"`
	ColorID                    string            `json:"colorId,omitempty"`
	CustomColor                string            `json:"customColor,omitempty"`
	MyResponseStatus           ResponseStatus    `json:"myResponseStatus,omitempty"`
	Attendees                  []Attendee        `json:"attendees,omitempty"`
	Visibility                 Visibility        `json:"visibility,omitempty"`
	Location                   string            `json:"location,omitempty"`
	ConferenceData             *ConferenceData   `json:"conferenceData,omitempty"`
	WebLink                    string            `json:"webLink,omitempty"`
	ICalUID                    string            `json:"iCalUid,omitempty"`
	Transparency               Transparency      `json:"transparency,omitempty"`
	EventType                  EventType         `json:"eventType,omitempty"`
	Organizer                  *Organizer        `json:"organizer,omitempty"`
	Creator                    *Creator          `json:"creator,omitempty"`
	Reminders                  *Reminders        `json:"reminders,omitempty"`
	GenerateMeetingURLProvider string            `json:"generateMeetingUrlProvider,omitempty"`
}

// FormatTimestamp is how createdAt and updatedAt are written: RFC 3339 in
// UTC with milliseconds.
func FormatTimestamp(t time.Time) string { return timefmt.Format(t) }

// EventParams holds the writable fields of an event, for
// POST /v1/events/{endUserAccountId}/{calendarId} (title and start required)
// and PUT .../{eventId} (any subset: absent fields are left alone, null
// clears). The derived fields isRecurring, isException, originalStart,
// recurringEventId, webLink and creator are accepted so that a fetched event
// can be sent back, but they are set by the provider: isRecurring must agree
// with recurrence, and the others are ignored.
type EventParams struct {
	Title                      Optional[string]            `json:"title,omitzero"`
	Description                Optional[string]            `json:"description,omitzero"`
	Start                      Optional[EventDateTime]     `json:"start,omitzero"`
	End                        Optional[EventDateTime]     `json:"end,omitzero"`
	IsAllDay                   Optional[bool]              `json:"isAllDay,omitzero"`
	PublicExtendedProperties   Optional[map[string]string] `json:"publicExtendedProperties,omitzero"`
	PrivateExtendedProperties  Optional[map[string]string] `json:"privateExtendedProperties,omitzero"`
	IsRecurring                Optional[bool]              `json:"isRecurring,omitzero"`
	IsException                Optional[bool]              `json:"isException,omitzero"`
	IsCancelled                Optional[bool]              `json:"isCancelled,omitzero"`
	Recurrence                 Optional[[]string]          `json:"recurrence,omitzero"`
	OriginalStart              Optional[EventDateTime]     `json:"originalStart,omitzero"`
	RecurringEventID           Optional[string]            `json:"recurringEventId,omitzero"`
	ColorID                    Optional[string]            `json:"colorId,omitzero"`
	CustomColor                Optional[string]            `json:"customColor,omitzero"`
	MyResponseStatus           Optional[ResponseStatus]    `json:"myResponseStatus,omitzero"`
	Attendees                  Optional[[]Attendee]        `json:"attendees,omitzero"`
	Visibility                 Optional[Visibility]        `json:"visibility,omitzero"`
	Location                   Optional[string]            `json:"location,omitzero"`
	ConferenceData             Optional[ConferenceData]    `json:"conferenceData,omitzero"`
	WebLink                    Optional[string]            `json:"webLink,omitzero"`
	Transparency               Optional[Transparency]      `json:"transparency,omitzero"`
	EventType                  Optional[EventType]         `json:"eventType,omitzero"`
	Organizer                  Optional[Organizer]         `json:"organizer,omitzero"`
	Creator                    Optional[Creator]           `json:"creator,omitzero"`
	Reminders                  Optional[Reminders]         `json:"reminders,omitzero"`
	GenerateMeetingURLProvider Optional[string]            `json:"generateMeetingUrlProvider,omitzero"`
}

// UnmarshalJSON decodes p strictly, as the HTTP API reads it: a key that is
// misspelt, unknown at any depth or given twice is CodeInvalid naming its
// path (start.tz, attendees[0].mail). The read-only fields of an event
// (EventReadOnlyFields) are taken and ignored, so that a fetched event
// decodes; the HTTP API refuses them on a create.
func (p *EventParams) UnmarshalJSON(b []byte) error {
	type plain EventParams // without this method
	return unmarshalStrict(b, (*plain)(p), EventReadOnlyFields)
}

// ApplyCommon writes onto e the parameters that every provider that keeps
// whole events (CalDAV, the in-memory provider) stores one to one: title,
// description, location, start, end (null clears it), cancellation,
// attendees, both extended-property maps, visibility and transparency. A
// field absent from p is left alone. What differs by provider (all-day
// inference, recurrence, organizer and creator defaults, colours,
// reminders, the caller's response status) stays with the provider, so
// that this is the one copy of the shared part.
func (p *EventParams) ApplyCommon(e *Event) {
	p.Title.Apply(&e.Title)
	p.Description.Apply(&e.Description)
	p.Location.Apply(&e.Location)
	if v, ok := p.Start.Get(); ok {
		e.Start = &v
	}
	if p.End.IsSet() {
		e.End = nil
		if v, ok := p.End.Get(); ok {
			e.End = &v
		}
	}
	p.IsCancelled.Apply(&e.IsCancelled)
	p.Attendees.Apply(&e.Attendees)
	p.PublicExtendedProperties.Apply(&e.PublicExtendedProperties)
	p.PrivateExtendedProperties.Apply(&e.PrivateExtendedProperties)
	p.Visibility.Apply(&e.Visibility)
	p.Transparency.Apply(&e.Transparency)
}

// EventReadOnlyFields are the event fields set by the provider: a create
// body may not carry them; an update body may (a fetched event sent back),
// and they are ignored: the path names the event.
var EventReadOnlyFields = []string{"id", "etag", "createdAt", "updatedAt", "iCalUid"}

// CalendarReadOnlyFields are the calendar fields set by the provider,
// refused in a create body and ignored in an update, as for events.
var CalendarReadOnlyFields = []string{"id", "readOnly", "isPrimary", "isShared", "inviteEmail", "allowedOnlineMeetingProviders", "defaultOnlineMeetingProvider"}

// Validate checks an event write. For an update, current is the event as
// the provider has it, so that a new start is checked against the old end
// and the other way round; it is nil for a create.
func (p *EventParams) Validate(create bool, current *Event) error {
	if create {
		if !p.Title.IsSet() {
			return invalidf("title", "title is required.")
		}
		if !p.Start.IsSet() {
			return invalidf("start", "start is required.")
		}
	}
	for _, f := range []struct {
		name string
		null bool
	}{{"title", p.Title.IsNull()}, {"start", p.Start.IsNull()}, {"isAllDay", p.IsAllDay.IsNull()}} {
		if f.null {
			return invalidf(f.name, "%s cannot be null.", f.name)
		}
	}
	if t, ok := p.Title.Get(); ok && strings.TrimSpace(t) == "" {
		return invalidf("title", "title cannot be empty.")
	}
	if err := checkEnum("myResponseStatus", string(p.MyResponseStatus.Value()), responseStatuses); err != nil {
		return err
	}
	if err := checkEnum("visibility", string(p.Visibility.Value()), visibilities); err != nil {
		return err
	}
	if err := checkEnum("transparency", string(p.Transparency.Value()), transparencies); err != nil {
		return err
	}
	if err := checkEnum("eventType", string(p.EventType.Value()), eventTypes); err != nil {
		return err
	}
	if err := checkEnum("generateMeetingUrlProvider", p.GenerateMeetingURLProvider.Value(), meetingProviders); err != nil {
		return err
	}
	if c, ok := p.CustomColor.Get(); ok && c != "" && !validHexColor(c) {
		return invalidf("customColor", "customColor must look like #RRGGBB.")
	}
	for i, a := range p.Attendees.Value() {
		field := fmt.Sprintf("attendees[%d]", i)
		if _, err := mail.ParseAddress(a.Email); err != nil || !strings.Contains(a.Email, "@") || strings.ContainsAny(a.Email, "<> ") {
			return invalidf(field+".email", "%q is not an email address.", a.Email)
		}
		if err := checkEnum(field+".responseStatus", string(a.ResponseStatus), responseStatuses); err != nil {
			return err
		}
	}
	if o, ok := p.Organizer.Get(); ok && o.Email != "" {
		if _, err := mail.ParseAddress(o.Email); err != nil {
			return invalidf("organizer.email", "%q is not an email address.", o.Email)
		}
	}
	if r, ok := p.Reminders.Get(); ok {
		for i, o := range r.Overrides {
			field := fmt.Sprintf("reminders.overrides[%d]", i)
			if err := checkEnum(field+".method", o.Method, []string{"popup", "email"}); err != nil {
				return err
			}
			if o.Minutes < 0 || o.Minutes > 40320 {
				return invalidf(field+".minutes", "minutes must be between 0 and 40320.")
			}
		}
	}
	for _, props := range []struct {
		field string
		m     map[string]string
	}{{"publicExtendedProperties", p.PublicExtendedProperties.Value()}, {"privateExtendedProperties", p.PrivateExtendedProperties.Value()}} {
		for k := range props.m {
			if k == "" || len(k) > 44 {
				return invalidf(props.field, "extended property keys must be 1 to 44 characters long.")
			}
		}
	}
	if err := p.validateRecurrence(current); err != nil {
		return err
	}
	return p.validateTimes(current)
}

func (p *EventParams) validateRecurrence(current *Event) error {
	lines, ok := p.Recurrence.Get()
	recurs := ok && len(lines) > 0
	if !p.Recurrence.IsSet() && current != nil {
		recurs = current.IsRecurring
	}
	if v, ok := p.IsRecurring.Get(); ok && v != recurs {
		if v {
			return invalidf("isRecurring", "isRecurring is true but recurrence is empty; set recurrence to make an event recur.")
		}
		return invalidf("isRecurring", "isRecurring is false but recurrence holds rules; set recurrence to null to stop an event recurring.")
	}
	if !ok || len(lines) == 0 {
		return nil
	}
	allDay := p.IsAllDay.Value()
	if !p.IsAllDay.IsSet() && current != nil {
		allDay = current.IsAllDay
	}
	var start *EventDateTime
	if v, ok := p.Start.Get(); ok {
		start = &v
	} else if current != nil {
		start = current.Start
	}
	return validateRecurrenceFrom(lines, allDay, start)
}

// validateTimes checks start, end and isAllDay together, with the current
// event filling in what the update leaves out.
func (p *EventParams) validateTimes(current *Event) error {
	var start, end *EventDateTime
	allDay := false
	if current != nil {
		start, end, allDay = current.Start, current.End, current.IsAllDay
	}
	if v, ok := p.Start.Get(); ok {
		start = &v
	}
	if v, ok := p.End.Get(); ok {
		end = &v
	} else if p.End.IsNull() {
		end = nil
	}
	if v, ok := p.IsAllDay.Get(); ok {
		allDay = v
	}
	if start == nil {
		return nil
	}
	if allDay {
		if !start.IsDateOnly() && p.Start.IsSet() {
			return invalidf("start.dateTime", "an all-day event starts at a date: give start.dateTime as 2026-01-05T00:00:00 without an offset, or start.date.")
		}
		s, err := start.Day("start")
		if err != nil {
			return err
		}
		if end != nil {
			if !end.IsDateOnly() && p.End.IsSet() {
				return invalidf("end.dateTime", "an all-day event ends at a date: give end.dateTime as 2026-01-06T00:00:00 without an offset, or end.date.")
			}
			e, err := end.Day("end")
			if err != nil {
				return err
			}
			if !e.After(s) {
				return invalidf("end", "end must be after start (all-day ends are exclusive: a one-day event on 2026-01-05 ends on 2026-01-06).")
			}
		}
		return nil
	}
	s, err := start.Time("start")
	if err != nil {
		return err
	}
	if end == nil {
		return nil
	}
	e, err := end.Time("end")
	if err != nil {
		return err
	}
	if e.Before(s) {
		return invalidf("end", "end must not be before start.")
	}
	return nil
}

// checkEnum returns an error naming field and the allowed values when v is
// set and not one of them.
func checkEnum(field, v string, allowed []string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return &Error{Code: CodeInvalid, Field: field, Allowed: allowed,
		Message: fmt.Sprintf("%s must be one of %s.", field, strings.Join(allowed, ", "))}
}

// EventListParams are the query parameters of
// GET /v1/events/{endUserAccountId}/{calendarId}.
type EventListParams struct {
	// SyncToken returns only the events changed since the listing that
	// issued it; deleted events come back with isCancelled true. The token
	// carries the query it belongs to: the filters may be left out or
	// repeated unchanged; other ones are CodeInvalid naming syncToken.
	SyncToken string
	// Start keeps events that end after it (an overlap test).
	Start time.Time
	// End keeps events that start before it.
	End time.Time
	// TimeZone is the IANA zone all times are shown in.
	TimeZone string
	// MetadataFilters keeps events whose extended properties match.
	MetadataFilters *MetadataFilters
	// ExpandRecurrences returns instances instead of series; it needs Start and End.
	ExpandRecurrences bool
	// Search keeps events whose title contains it, case-insensitively.
	Search string
	// OrderBy is OrderByStartTime or OrderByUpdated; it needs ExpandRecurrences.
	OrderBy string
	// PageToken continues a listing. Like SyncToken it carries the query
	// (and the SyncToken) its listing had: leave them out or repeat them
	// unchanged; other ones are CodeInvalid naming pageToken. TimeZone and
	// Limit may change from page to page.
	PageToken string
	// Limit is the page size: default DefaultPageSize, at most MaxPageSize.
	Limit int
}

// OccurrenceListParams are the query parameters of
// GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}/occurrences.
// Start and End are required.
type OccurrenceListParams struct {
	SyncToken       string
	Start           time.Time
	End             time.Time
	TimeZone        string
	MetadataFilters *MetadataFilters
	Search          string
	OrderBy         string
	PageToken       string
	Limit           int
}

// Orderings of expanded event lists.
const (
	OrderByStartTime = "startTime"
	OrderByUpdated   = "updated"
)

// OrderByValues lists the accepted orderBy values.
var OrderByValues = []string{OrderByStartTime, OrderByUpdated}

// MetadataFilters is the JSON object of the metadataFilters query
// parameter: {"public": {"key": "value"}, "private": {"key": "value"}}.
// An event matches when every listed property has exactly the given value.
type MetadataFilters struct {
	Public  map[string]string `json:"public,omitempty"`
	Private map[string]string `json:"private,omitempty"`
}

// Match reports whether e carries every property of f.
func (f *MetadataFilters) Match(e *Event) bool {
	if f == nil {
		return true
	}
	for k, v := range f.Public {
		if got, ok := e.PublicExtendedProperties[k]; !ok || got != v {
			return false
		}
	}
	for k, v := range f.Private {
		if got, ok := e.PrivateExtendedProperties[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// RSVPParams is the body of POST .../{eventId}/rsvp.
type RSVPParams struct {
	ResponseStatus ResponseStatus `json:"responseStatus"`
}

// Success is the {success: true} acknowledgement.
type Success struct {
	Success bool `json:"success"`
}

// GetEvent returns one event, or one instance of a series by its instance id.
//
// HTTP: GET /v1/events/{endUserAccountId}/{calendarId}/{eventId}
//
// Returns CodeNotFound for an unknown account, calendar or event.
func (a *App) GetEvent(ctx context.Context, accountID, calendarID, eventID string) (*Event, error) {
	_, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	e, err := p.GetEvent(ctx, s, calendarID, eventID)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	return e, nil
}

// CreateEvent creates an event. Title and start are required. Without an
// end, CalDAV and Graph make a timed event last no time and an all-day
// event one day; Google refuses a timed event without an end (CodeInvalid
// naming end), so send one.
//
// HTTP: POST /v1/events/{endUserAccountId}/{calendarId}
//
// Returns CodeInvalid naming the field for missing or bad values (an end
// before the start, a malformed recurrence line, a bad enum value); nothing
// is written at the provider then.
func (a *App) CreateEvent(ctx context.Context, accountID, calendarID string, params *EventParams, opts ...WriteOptions) (*Event, error) {
	o, err := OptionsOf(opts, OptionNotifyAttendees)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "CreateEvent", func(ctx context.Context) (*Event, error) { return a.createEvent(ctx, accountID, calendarID, params, o) }, accountID, calendarID, params)
}

func (a *App) createEvent(ctx context.Context, accountID, calendarID string, params *EventParams, o WriteOptions) (*Event, error) {
	rec, p, s, err := a.eventWriteSession(ctx, accountID, params, true, o)
	if err != nil {
		return nil, err
	}
	e, err := p.CreateEvent(ctx, s, calendarID, params)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	a.c.subs.CalendarChanged(ctx, a, rec, calendarID)
	return e, nil
}

// eventWriteSession checks params for a create (creating) or an update
// and opens the account's session, refusing what its provider cannot
// honour (a field, notifyAttendees) before any call to the provider.
func (a *App) eventWriteSession(ctx context.Context, accountID string, params *EventParams, creating bool, o WriteOptions) (*AccountRecord, Provider, *Session, error) {
	if err := params.Validate(creating, nil); err != nil {
		return nil, nil, nil, err
	}
	rec, p, s, err := a.WriteSession(ctx, accountID, o)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := a.c.checkEvent(rec.ProviderType, params); err != nil {
		return nil, nil, nil, err
	}
	return rec, p, s, nil
}

// WriteSession opens the account's session for an event write with the
// caller's options o, refusing a notifyAttendees value its provider
// cannot honour, for the App's writes and package series'.
func (a *App) WriteSession(ctx context.Context, accountID string, o WriteOptions) (*AccountRecord, Provider, *Session, error) {
	rec, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := a.c.checkNotifyAttendees(o.NotifyAttendees, rec.ProviderType); err != nil {
		return nil, nil, nil, err
	}
	s.NotifyAttendees, s.IfMatch = o.NotifyAttendees, o.IfMatch
	return rec, p, s, nil
}

// UpdateEvent changes the fields params sets: absent fields are left alone,
// null ones are cleared. When only one of start and end changes, the other
// is read from the provider first so the pair is checked together.
//
// HTTP: PUT /v1/events/{endUserAccountId}/{calendarId}/{eventId}
//
// Returns CodeInvalid naming the field for bad values, CodeNotFound for an
// unknown event, CodePrecondition when the event changed at the provider
// meanwhile.
func (a *App) UpdateEvent(ctx context.Context, accountID, calendarID, eventID string, params *EventParams, opts ...WriteOptions) (*Event, error) {
	o, err := OptionsOf(opts, OptionNotifyAttendees, OptionIfMatch)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "UpdateEvent", func(ctx context.Context) (*Event, error) {
		return a.updateEvent(ctx, accountID, calendarID, eventID, params, o)
	}, accountID, calendarID, eventID, params)
}

func (a *App) updateEvent(ctx context.Context, accountID, calendarID, eventID string, params *EventParams, o WriteOptions) (*Event, error) {
	rec, p, s, err := a.eventWriteSession(ctx, accountID, params, false, o)
	if err != nil {
		return nil, err
	}
	needsCurrent := params.Start.IsSet() != params.End.IsSet() || params.IsAllDay.IsSet() ||
		(params.IsRecurring.IsSet() && !params.Recurrence.IsSet())
	if needsCurrent {
		current, err := p.GetEvent(ctx, s, calendarID, eventID)
		if err != nil {
			return nil, a.ProviderFailed(ctx, accountID, err)
		}
		if err := params.Validate(false, current); err != nil {
			return nil, err
		}
	}
	e, err := p.UpdateEvent(ctx, s, calendarID, eventID, params)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	a.c.subs.CalendarChanged(ctx, a, rec, calendarID)
	return e, nil
}

// DeleteEvent deletes an event; given a series id it deletes the series.
//
// HTTP: DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}
//
// Returns CodeNotFound for an unknown event.
func (a *App) DeleteEvent(ctx context.Context, accountID, calendarID, eventID string, opts ...WriteOptions) (*Success, error) {
	o, err := OptionsOf(opts, OptionNotifyAttendees, OptionIfMatch)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "DeleteEvent", func(ctx context.Context) (*Success, error) {
		return a.deleteEvent(ctx, accountID, calendarID, eventID, o)
	}, accountID, calendarID, eventID)
}

func (a *App) deleteEvent(ctx context.Context, accountID, calendarID, eventID string, o WriteOptions) (*Success, error) {
	rec, p, s, err := a.WriteSession(ctx, accountID, o)
	if err != nil {
		return nil, err
	}
	if err := p.DeleteEvent(ctx, s, calendarID, eventID); err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	a.c.subs.CalendarChanged(ctx, a, rec, calendarID)
	return &Success{Success: true}, nil
}

// RSVP sets the account's own response to an event it is invited to.
//
// HTTP: POST /v1/events/{endUserAccountId}/{calendarId}/{eventId}/rsvp
//
// Returns CodeInvalid for a missing or bad responseStatus, or when the
// account is not among the event's attendees.
func (a *App) RSVP(ctx context.Context, accountID, calendarID, eventID string, params *RSVPParams, opts ...WriteOptions) (*Success, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "RSVP", func(ctx context.Context) (*Success, error) {
		return a.rsvp(ctx, accountID, calendarID, eventID, params)
	}, accountID, calendarID, eventID, params)
}

func (a *App) rsvp(ctx context.Context, accountID, calendarID, eventID string, params *RSVPParams) (*Success, error) {
	if params.ResponseStatus == "" {
		return nil, invalidf("responseStatus", "responseStatus is required.")
	}
	if err := checkEnum("responseStatus", string(params.ResponseStatus), responseStatuses); err != nil {
		return nil, err
	}
	rec, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if err := p.RespondToEvent(ctx, s, calendarID, eventID, params.ResponseStatus); err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	a.c.subs.CalendarChanged(ctx, a, rec, calendarID)
	return &Success{Success: true}, nil
}
