package googletest

// The types in this file mirror the JSON schemas of the Calendar API v3
// discovery document (Event, EventDateTime, EventAttendee, ConferenceData,
// …). Tests use them to seed events with [Server.AddEvent]; the server also
// stores events in this shape. Only the fields unical maps are modelled:
// other fields a client sends are dropped, where Google would keep them.

// Event is Google's Event resource (calendar#event). Read-only fields (id,
// etag, created, updated, htmlLink, iCalUID, creator, …) are filled by the
// server; when seeding, ID and ICalUID may be preset.
type Event struct {
	Kind                    string              `json:"kind,omitempty"`
	Etag                    string              `json:"etag,omitempty"`
	ID                      string              `json:"id,omitempty"`
	Status                  string              `json:"status,omitempty"`
	HTMLLink                string              `json:"htmlLink,omitempty"`
	Created                 string              `json:"created,omitempty"`
	Updated                 string              `json:"updated,omitempty"`
	Summary                 string              `json:"summary,omitempty"`
	Description             string              `json:"description,omitempty"`
	Location                string              `json:"location,omitempty"`
	ColorID                 string              `json:"colorId,omitempty"`
	Creator                 *EventPerson        `json:"creator,omitempty"`
	Organizer               *EventPerson        `json:"organizer,omitempty"`
	Start                   *EventDateTime      `json:"start,omitempty"`
	End                     *EventDateTime      `json:"end,omitempty"`
	EndTimeUnspecified      bool                `json:"endTimeUnspecified,omitempty"`
	Recurrence              []string            `json:"recurrence,omitempty"`
	RecurringEventID        string              `json:"recurringEventId,omitempty"`
	OriginalStartTime       *EventDateTime      `json:"originalStartTime,omitempty"`
	Transparency            string              `json:"transparency,omitempty"`
	Visibility              string              `json:"visibility,omitempty"`
	ICalUID                 string              `json:"iCalUID,omitempty"`
	Sequence                int64               `json:"sequence"`
	Attendees               []EventAttendee     `json:"attendees,omitempty"`
	AttendeesOmitted        bool                `json:"attendeesOmitted,omitempty"`
	ExtendedProperties      *ExtendedProperties `json:"extendedProperties,omitempty"`
	HangoutLink             string              `json:"hangoutLink,omitempty"`
	ConferenceData          *ConferenceData     `json:"conferenceData,omitempty"`
	AnyoneCanAddSelf        *bool               `json:"anyoneCanAddSelf,omitempty"`
	GuestsCanInviteOthers   *bool               `json:"guestsCanInviteOthers,omitempty"`
	GuestsCanModify         *bool               `json:"guestsCanModify,omitempty"`
	GuestsCanSeeOtherGuests *bool               `json:"guestsCanSeeOtherGuests,omitempty"`
	PrivateCopy             *bool               `json:"privateCopy,omitempty"`
	Locked                  *bool               `json:"locked,omitempty"`
	Reminders               *EventReminders     `json:"reminders,omitempty"`
	Source                  *EventSource        `json:"source,omitempty"`
	EventType               string              `json:"eventType,omitempty"`
}

// EventDateTime is Google's EventDateTime: Date ("yyyy-mm-dd") for all-day
// events, or DateTime (RFC 3339) with an optional IANA TimeZone.
type EventDateTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// EventPerson is the organizer or creator of an event. Self is computed by
// the server relative to the calendar or user reading it.
type EventPerson struct {
	ID          string `json:"id,omitempty"`
	Email       string `json:"email,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	Self        bool   `json:"self,omitempty"`
}

// EventAttendee is Google's EventAttendee. Organizer and Self are computed by
// the server.
type EventAttendee struct {
	ID               string `json:"id,omitempty"`
	Email            string `json:"email,omitempty"`
	DisplayName      string `json:"displayName,omitempty"`
	Organizer        bool   `json:"organizer,omitempty"`
	Self             bool   `json:"self,omitempty"`
	Resource         bool   `json:"resource,omitempty"`
	Optional         bool   `json:"optional,omitempty"`
	ResponseStatus   string `json:"responseStatus,omitempty"`
	Comment          string `json:"comment,omitempty"`
	AdditionalGuests int    `json:"additionalGuests,omitempty"`
}

// ExtendedProperties holds an event's private (per calendar copy) and shared
// (per event, all attendees) string maps.
type ExtendedProperties struct {
	Private map[string]string `json:"private,omitempty"`
	Shared  map[string]string `json:"shared,omitempty"`
}

// EventReminders is an event's reminder setting.
type EventReminders struct {
	UseDefault bool            `json:"useDefault"`
	Overrides  []EventReminder `json:"overrides,omitempty"`
}

// EventReminder is one reminder override or calendar default reminder.
type EventReminder struct {
	Method  string `json:"method,omitempty"`
	Minutes int    `json:"minutes"`
}

// EventSource is the source an event was created from.
type EventSource struct {
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

// ConferenceData is Google's ConferenceData: the Meet (or add-on) conference
// attached to an event.
type ConferenceData struct {
	ConferenceID       string                   `json:"conferenceId,omitempty"`
	ConferenceSolution *ConferenceSolution      `json:"conferenceSolution,omitempty"`
	CreateRequest      *CreateConferenceRequest `json:"createRequest,omitempty"`
	EntryPoints        []EntryPoint             `json:"entryPoints,omitempty"`
	Notes              string                   `json:"notes,omitempty"`
	Signature          string                   `json:"signature,omitempty"`
}

// CreateConferenceRequest asks the server to create a conference; honoured
// only with the conferenceDataVersion=1 query parameter.
type CreateConferenceRequest struct {
	RequestID             string                   `json:"requestId,omitempty"`
	ConferenceSolutionKey *ConferenceSolutionKey   `json:"conferenceSolutionKey,omitempty"`
	Status                *ConferenceRequestStatus `json:"status,omitempty"`
}

// ConferenceSolutionKey names a conference solution, e.g. "hangoutsMeet".
type ConferenceSolutionKey struct {
	Type string `json:"type,omitempty"`
}

// ConferenceRequestStatus is the state of a create request: "pending",
// "success" or "failure".
type ConferenceRequestStatus struct {
	StatusCode string `json:"statusCode,omitempty"`
}

// ConferenceSolution describes the solution a conference uses.
type ConferenceSolution struct {
	Key     ConferenceSolutionKey `json:"key"`
	Name    string                `json:"name,omitempty"`
	IconURI string                `json:"iconUri,omitempty"`
}

// EntryPoint is one way to join a conference (video, phone, sip, more).
type EntryPoint struct {
	EntryPointType string `json:"entryPointType,omitempty"`
	URI            string `json:"uri,omitempty"`
	Label          string `json:"label,omitempty"`
	MeetingCode    string `json:"meetingCode,omitempty"`
	Passcode       string `json:"passcode,omitempty"`
	Password       string `json:"password,omitempty"`
	Pin            string `json:"pin,omitempty"`
	AccessCode     string `json:"accessCode,omitempty"`
	RegionCode     string `json:"regionCode,omitempty"`
}
