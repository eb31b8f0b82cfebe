package google

import (
	"encoding/json"

	"github.com/unical/unical"
)

// eventDateTime is Google's EventDateTime: date for all-day values, or
// dateTime (RFC 3339) with an optional IANA timeZone.
type eventDateTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// eventPerson is an event's organizer or creator. Self is set by Google
// when the person is the calendar the event is read through.
type eventPerson struct {
	Email       string `json:"email"`
	DisplayName string `json:"displayName"`
	Self        bool   `json:"self"`
}

type eventAttendee struct {
	ID             string `json:"id"`
	Email          string `json:"email"`
	DisplayName    string `json:"displayName"`
	Self           bool   `json:"self"`
	Optional       bool   `json:"optional"`
	ResponseStatus string `json:"responseStatus"`
}

type eventReminders struct {
	UseDefault bool `json:"useDefault"`
	Overrides  []struct {
		Method  string `json:"method"`
		Minutes int    `json:"minutes"`
	} `json:"overrides"`
}

// conferenceData is Google's ConferenceData. Its createRequest, entry
// points and solution have exactly the JSON shape of the unified types, so
// those are reused.
type conferenceData struct {
	ConferenceID       string                          `json:"conferenceId"`
	ConferenceSolution *unical.ConferenceSolution      `json:"conferenceSolution"`
	CreateRequest      *unical.ConferenceCreateRequest `json:"createRequest"`
	EntryPoints        []unical.ConferenceEntryPoint   `json:"entryPoints"`
}

// event is the part of Google's Event resource that the unified Event
// maps. Cancelled events in lists carry only id, status and, for
// cancelled instances, recurringEventId and originalStartTime (Event.status
// in the events reference).
type event struct {
	ID                 string          `json:"id"`
	Etag               string          `json:"etag"`
	Status             string          `json:"status"`
	HTMLLink           string          `json:"htmlLink"`
	Created            string          `json:"created"`
	Updated            string          `json:"updated"`
	Summary            string          `json:"summary"`
	Description        string          `json:"description"`
	Location           string          `json:"location"`
	ColorID            string          `json:"colorId"`
	Creator            *eventPerson    `json:"creator"`
	Organizer          *eventPerson    `json:"organizer"`
	Start              *eventDateTime  `json:"start"`
	End                *eventDateTime  `json:"end"`
	Recurrence         []string        `json:"recurrence"`
	RecurringEventID   string          `json:"recurringEventId"`
	OriginalStartTime  *eventDateTime  `json:"originalStartTime"`
	Transparency       string          `json:"transparency"`
	Visibility         string          `json:"visibility"`
	ICalUID            string          `json:"iCalUID"`
	Attendees          []eventAttendee `json:"attendees"`
	ExtendedProperties *struct {
		Private map[string]string `json:"private"`
		Shared  map[string]string `json:"shared"`
	} `json:"extendedProperties"`
	HangoutLink    string          `json:"hangoutLink"`
	ConferenceData *conferenceData `json:"conferenceData"`
	Reminders      *eventReminders `json:"reminders"`
	EventType      string          `json:"eventType"`
}

func (e *event) allDay() bool { return e.Start != nil && e.Start.Date != "" }

// selfAttendee returns the attendee entry of the calendar the event was
// read through, or nil.
func (e *event) selfAttendee() *eventAttendee {
	for i := range e.Attendees {
		if e.Attendees[i].Self {
			return &e.Attendees[i]
		}
	}
	return nil
}

// calendarListEntry is the part of a Calendar API CalendarListEntry (the
// user's view of a calendar) that the unified Calendar needs.
type calendarListEntry struct {
	ID                   string `json:"id"`
	Summary              string `json:"summary"`
	SummaryOverride      string `json:"summaryOverride"`
	TimeZone             string `json:"timeZone"`
	BackgroundColor      string `json:"backgroundColor"`
	AccessRole           string `json:"accessRole"`
	Primary              bool   `json:"primary"`
	Deleted              bool   `json:"deleted"`
	DataOwner            string `json:"dataOwner"`
	ConferenceProperties *struct {
		AllowedConferenceSolutionTypes []string `json:"allowedConferenceSolutionTypes"`
	} `json:"conferenceProperties"`
}

type calendarList struct {
	Items         []calendarListEntry `json:"items"`
	NextPageToken string              `json:"nextPageToken"`
}

// calendarResource is the part of a Calendar API Calendar we read back.
type calendarResource struct {
	ID string `json:"id"`
}

// events is Google's Events envelope (one page of events.list or
// events.instances).
type events struct {
	TimeZone      string            `json:"timeZone"`
	NextPageToken string            `json:"nextPageToken"`
	NextSyncToken string            `json:"nextSyncToken"`
	Items         []json.RawMessage `json:"items"`
}

// channel is Google's Channel resource. expiration is an int64 in
// milliseconds, which Google's JSON carries as a string.
type channel struct {
	ID         string `json:"id"`
	ResourceID string `json:"resourceId"`
	Expiration string `json:"expiration"`
}

type freeBusyResponse struct {
	Calendars map[string]struct {
		Busy []struct {
			Start string `json:"start"`
			End   string `json:"end"`
		} `json:"busy"`
		Errors []struct {
			Domain string `json:"domain"`
			Reason string `json:"reason"`
		} `json:"errors"`
	} `json:"calendars"`
}
