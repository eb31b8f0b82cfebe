package microsoft

// This file holds the Microsoft Graph v1.0 JSON shapes the provider reads
// and writes, named as in Graph's resource documentation
// (https://learn.microsoft.com/graph/api/resources/event,
// .../calendar, .../patternedrecurrence). Only the fields unical maps are
// declared; encoding/json ignores the rest of Graph's responses.

// dateTimeTimeZone is a local date-time and the zone it is read in. Graph
// writes DateTime without an offset and with seven fractional digits
// ("2026-01-05T09:00:00.0000000"); TimeZone is a Windows zone name, one of
// Graph's accepted IANA names, or "UTC".
type dateTimeTimeZone struct {
	DateTime string `json:"dateTime"`
	TimeZone string `json:"timeZone"`
}

// itemBody is an event body; ContentType is "text" or "html".
type itemBody struct {
	ContentType string `json:"contentType"`
	Content     string `json:"content"`
}

// emailAddress is a name and an SMTP address.
type emailAddress struct {
	Name    string `json:"name,omitempty"`
	Address string `json:"address,omitempty"`
}

// recipient wraps an emailAddress (organizer).
type recipient struct {
	EmailAddress emailAddress `json:"emailAddress"`
}

// responseStatus is a response to a meeting request. Response is one of
// none, organizer, tentativelyAccepted, accepted, declined, notResponded.
type responseStatus struct {
	Response string `json:"response,omitempty"`
	Time     string `json:"time,omitempty"`
}

// attendee is an event attendee; Type is required, optional or resource.
type attendee struct {
	Type         string          `json:"type,omitempty"`
	Status       *responseStatus `json:"status,omitempty"`
	EmailAddress emailAddress    `json:"emailAddress"`
}

// location is the part of Graph's location resource unical maps.
type location struct {
	DisplayName string `json:"displayName"`
}

// onlineMeetingInfo is an event's online meeting (read-only in Graph).
type onlineMeetingInfo struct {
	JoinURL      string `json:"joinUrl,omitempty"`
	ConferenceID string `json:"conferenceId,omitempty"`
	TollNumber   string `json:"tollNumber,omitempty"`
}

// singleValueExtendedProperty is a MAPI named property on an item. ID has
// the form "String {GUID} Name PropertyName".
type singleValueExtendedProperty struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

// patternedRecurrence is Graph's recurrence of a series master.
type patternedRecurrence struct {
	Pattern recurrencePattern `json:"pattern"`
	Range   recurrenceRange   `json:"range"`
}

// recurrencePattern says how often a series repeats. Graph refuses
// properties that do not belong to the pattern type, so every optional
// field is omitted when zero.
type recurrencePattern struct {
	// Type is daily, weekly, absoluteMonthly, relativeMonthly,
	// absoluteYearly or relativeYearly.
	Type     string `json:"type"`
	Interval int    `json:"interval"`
	// Month is 1 to 12 (yearly patterns).
	Month int `json:"month,omitempty"`
	// DayOfMonth is 1 to 31 (absolute patterns).
	DayOfMonth int `json:"dayOfMonth,omitempty"`
	// DaysOfWeek holds sunday..saturday (weekly and relative patterns).
	DaysOfWeek []string `json:"daysOfWeek,omitempty"`
	// FirstDayOfWeek is the week start of weekly patterns; Graph's
	// default is sunday.
	FirstDayOfWeek string `json:"firstDayOfWeek,omitempty"`
	// Index is first, second, third, fourth or last (relative patterns).
	Index string `json:"index,omitempty"`
}

// recurrenceRange says when a series starts and ends. Graph answers
// endDate "0001-01-01" for ranges that are not of type endDate.
type recurrenceRange struct {
	// Type is endDate, noEnd or numbered.
	Type                string `json:"type"`
	StartDate           string `json:"startDate"`
	EndDate             string `json:"endDate,omitempty"`
	NumberOfOccurrences int    `json:"numberOfOccurrences,omitempty"`
	RecurrenceTimeZone  string `json:"recurrenceTimeZone,omitempty"`
}

// removed marks a delta tombstone: {"@removed": {"reason": "deleted"}}.
type removed struct {
	Reason string `json:"reason"`
}

// outlookItem holds the properties an event inherits from Graph's
// outlookItem base type (EntityType event has BaseType graph.outlookItem in
// the v1.0 $metadata), which messages and contacts share: when it was
// created and last changed, and the changeKey that is the event's version.
type outlookItem struct {
	CreatedDateTime      string `json:"createdDateTime,omitempty"`
	LastModifiedDateTime string `json:"lastModifiedDateTime,omitempty"`
	ChangeKey            string `json:"changeKey,omitempty"`
}

// event is Graph's event resource as the provider reads it. Writes are
// built as maps by graphEventBody, because PATCH must tell absent fields
// from null ones.
type event struct {
	ODataETag string   `json:"@odata.etag,omitempty"`
	Removed   *removed `json:"@removed,omitempty"`
	ID        string   `json:"id"`
	outlookItem
	ICalUID                       string                        `json:"iCalUId,omitempty"`
	Subject                       string                        `json:"subject,omitempty"`
	Body                          *itemBody                     `json:"body,omitempty"`
	Start                         *dateTimeTimeZone             `json:"start,omitempty"`
	End                           *dateTimeTimeZone             `json:"end,omitempty"`
	OriginalStart                 string                        `json:"originalStart,omitempty"`
	OriginalStartTimeZone         string                        `json:"originalStartTimeZone,omitempty"`
	OriginalEndTimeZone           string                        `json:"originalEndTimeZone,omitempty"`
	IsAllDay                      bool                          `json:"isAllDay"`
	IsCancelled                   bool                          `json:"isCancelled"`
	IsOrganizer                   bool                          `json:"isOrganizer"`
	Type                          string                        `json:"type,omitempty"`
	SeriesMasterID                string                        `json:"seriesMasterId,omitempty"`
	Recurrence                    *patternedRecurrence          `json:"recurrence,omitempty"`
	ResponseStatus                *responseStatus               `json:"responseStatus,omitempty"`
	Attendees                     []attendee                    `json:"attendees,omitempty"`
	Organizer                     *recipient                    `json:"organizer,omitempty"`
	ShowAs                        string                        `json:"showAs,omitempty"`
	Sensitivity                   string                        `json:"sensitivity,omitempty"`
	Location                      *location                     `json:"location,omitempty"`
	WebLink                       string                        `json:"webLink,omitempty"`
	IsOnlineMeeting               bool                          `json:"isOnlineMeeting"`
	OnlineMeetingProvider         string                        `json:"onlineMeetingProvider,omitempty"`
	OnlineMeeting                 *onlineMeetingInfo            `json:"onlineMeeting,omitempty"`
	IsReminderOn                  bool                          `json:"isReminderOn"`
	ReminderMinutesBeforeStart    int                           `json:"reminderMinutesBeforeStart"`
	SingleValueExtendedProperties []singleValueExtendedProperty `json:"singleValueExtendedProperties,omitempty"`
}

// calendar is Graph's calendar resource.
type calendar struct {
	ID                            string        `json:"id"`
	Name                          string        `json:"name"`
	Color                         string        `json:"color,omitempty"`
	HexColor                      string        `json:"hexColor,omitempty"`
	ChangeKey                     string        `json:"changeKey,omitempty"`
	IsDefaultCalendar             bool          `json:"isDefaultCalendar"`
	IsRemovable                   bool          `json:"isRemovable"`
	CanEdit                       bool          `json:"canEdit"`
	CanShare                      bool          `json:"canShare"`
	CanViewPrivateItems           bool          `json:"canViewPrivateItems"`
	Owner                         *emailAddress `json:"owner,omitempty"`
	AllowedOnlineMeetingProviders []string      `json:"allowedOnlineMeetingProviders,omitempty"`
	DefaultOnlineMeetingProvider  string        `json:"defaultOnlineMeetingProvider,omitempty"`
}

// user is the part of /me the provider reads.
type user struct {
	ID                string `json:"id"`
	DisplayName       string `json:"displayName,omitempty"`
	Mail              string `json:"mail,omitempty"`
	UserPrincipalName string `json:"userPrincipalName,omitempty"`
}

// collection is one page of a Graph collection, with its paging links.
type collection[T any] struct {
	Value     []T    `json:"value"`
	NextLink  string `json:"@odata.nextLink,omitempty"`
	DeltaLink string `json:"@odata.deltaLink,omitempty"`
}

// subscription is Graph's subscription resource, as the provider reads it.
type subscription struct {
	ID                 string `json:"id"`
	Resource           string `json:"resource"`
	ExpirationDateTime string `json:"expirationDateTime"`
	ClientState        string `json:"clientState,omitempty"`
}

// changeNotification is one item of a notification POST: a change
// notification (changeType set) or a lifecycle notification
// (lifecycleEvent set).
type changeNotification struct {
	SubscriptionID string `json:"subscriptionId"`
	ClientState    string `json:"clientState"`
	ChangeType     string `json:"changeType,omitempty"`
	LifecycleEvent string `json:"lifecycleEvent,omitempty"`
}

// scheduleInformation is one entry of getSchedule's answer.
type scheduleInformation struct {
	ScheduleID    string         `json:"scheduleId"`
	ScheduleItems []scheduleItem `json:"scheduleItems"`
	Error         *struct {
		Message      string `json:"message"`
		ResponseCode string `json:"responseCode"`
	} `json:"error,omitempty"`
}

// scheduleItem is one item of a schedule; Status is free, tentative,
// busy, oof, workingElsewhere or unknown. The API reference shows the
// values in lower case, the free/busy concept page ("Tentative", "Busy")
// capitalised, so they are compared without case.
type scheduleItem struct {
	Status string           `json:"status"`
	Start  dateTimeTimeZone `json:"start"`
	End    dateTimeTimeZone `json:"end"`
}
