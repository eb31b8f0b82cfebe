package booking

import (
	"encoding/json"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
)

// Schedule is a named set of weekly hours with date overrides (GET
// /v1/schedules/{id}): one person's hours written once, named by
// participants of booking types with scheduleId.
type Schedule struct {
	ID        string                              `json:"id"`
	Name      string                              `json:"name"`
	TimeZone  string                              `json:"timeZone"`
	Intervals []availability.WorkingInterval      `json:"intervals"`
	Overrides []availability.WorkingHoursOverride `json:"overrides"`
	CreatedAt time.Time                           `json:"createdAt"`
	UpdatedAt time.Time                           `json:"updatedAt"`
}

// ScheduleParams is the body of POST and PUT /v1/schedules: every field
// is required on a create; an update changes the fields it sets.
type ScheduleParams struct {
	Name      unical.Optional[string]                              `json:"name,omitzero"`
	TimeZone  unical.Optional[string]                              `json:"timeZone,omitzero"`
	Intervals unical.Optional[[]availability.WorkingInterval]      `json:"intervals,omitzero"`
	Overrides unical.Optional[[]availability.WorkingHoursOverride] `json:"overrides,omitzero"`
}

// Participant is one participant of a booking type: a participant of POST
// /v1/availability, whose working hours may instead come from a stored
// schedule (ScheduleID, not with WorkingHours).
type Participant struct {
	availability.Participant
	ScheduleID string `json:"scheduleId,omitempty"`
}

// Limits bound the bookings of a type per participant, counted in the
// participant's working-hours zone (the type's zone without working
// hours); 0 is no limit.
type Limits struct {
	PerDay  int `json:"perDay,omitempty"`
	PerWeek int `json:"perWeek,omitempty"`
}

// EventTemplate is what a booking's event says.
type EventTemplate struct {
	Title                      string `json:"title,omitempty"`
	Description                string `json:"description,omitempty"`
	Location                   string `json:"location,omitempty"`
	GenerateMeetingURLProvider string `json:"generateMeetingUrlProvider,omitempty"`
}

// BookingType is a stored recipe for a kind of meeting (GET
// /v1/bookingTypes/{id}).
type BookingType struct {
	ID                   string               `json:"id"`
	Name                 string               `json:"name"`
	DurationMinutes      int                  `json:"durationMinutes"`
	IntervalMinutes      int                  `json:"intervalMinutes"`
	TimeZone             string               `json:"timeZone"`
	Participants         []Participant        `json:"participants"`
	Groups               []availability.Group `json:"groups"`
	BufferBeforeMinutes  int                  `json:"bufferBeforeMinutes"`
	BufferAfterMinutes   int                  `json:"bufferAfterMinutes"`
	MinimumNoticeMinutes int                  `json:"minimumNoticeMinutes"`
	HorizonDays          int                  `json:"horizonDays"`
	Limits               Limits               `json:"limits"`
	Event                EventTemplate        `json:"event"`
	// Public publishes the type's booking page at /book/{Slug}.
	Public bool `json:"public"`
	// Slug names the booking page: unique on the server, 3 to 64
	// lowercase letters, digits and hyphens.
	Slug string `json:"slug,omitempty"`
	// FrameAncestors are the origins whose pages may embed the booking
	// page in a frame; none: no page may.
	FrameAncestors []string  `json:"frameAncestors,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// BookingTypeParams is the body of POST and PUT /v1/bookingTypes: name,
// durationMinutes and participants are required on a create; an update
// changes the fields it sets (null puts limits, event, slug and
// frameAncestors back to none).
type BookingTypeParams struct {
	Name                 unical.Optional[string]               `json:"name,omitzero"`
	DurationMinutes      unical.Optional[int]                  `json:"durationMinutes,omitzero"`
	IntervalMinutes      unical.Optional[int]                  `json:"intervalMinutes,omitzero"`
	TimeZone             unical.Optional[string]               `json:"timeZone,omitzero"`
	Participants         unical.Optional[[]Participant]        `json:"participants,omitzero"`
	Groups               unical.Optional[[]availability.Group] `json:"groups,omitzero"`
	BufferBeforeMinutes  unical.Optional[int]                  `json:"bufferBeforeMinutes,omitzero"`
	BufferAfterMinutes   unical.Optional[int]                  `json:"bufferAfterMinutes,omitzero"`
	MinimumNoticeMinutes unical.Optional[int]                  `json:"minimumNoticeMinutes,omitzero"`
	HorizonDays          unical.Optional[int]                  `json:"horizonDays,omitzero"`
	Limits               unical.Optional[Limits]               `json:"limits,omitzero"`
	Event                unical.Optional[EventTemplate]        `json:"event,omitzero"`
	Public               unical.Optional[bool]                 `json:"public,omitzero"`
	Slug                 unical.Optional[string]               `json:"slug,omitzero"`
	FrameAncestors       unical.Optional[[]string]             `json:"frameAncestors,omitzero"`
}

// ListParams page a listing of booking types or schedules.
type ListParams struct {
	PageToken string
	Limit     int
}

// SlotParams is the query of GET /v1/bookingTypes/{id}/slots.
type SlotParams struct {
	// StartDateTime and EndDateTime bound the search, as in POST
	// /v1/availability; both required.
	StartDateTime string
	EndDateTime   string
	// TimeZone is the zone of the answer; default the type's.
	TimeZone string
}

// HoldParams is the body of POST /v1/holds.
type HoldParams struct {
	BookingTypeID string `json:"bookingTypeId"`
	StartDateTime string `json:"startDateTime"`
	// TTLSeconds is how long the hold lives: default 300, 1 to 900.
	TTLSeconds int `json:"ttlSeconds,omitempty"`
}

// Hold reserves a slot of a booking type for one guest until ExpiresAt.
type Hold struct {
	ID            string               `json:"id"`
	BookingTypeID string               `json:"bookingTypeId"`
	Start         unical.EventDateTime `json:"start"`
	End           unical.EventDateTime `json:"end"`
	ExpiresAt     time.Time            `json:"expiresAt"`
	Participants  []string             `json:"participants"`
}

// Guest is who books.
type Guest struct {
	Email    string `json:"email"`
	Name     string `json:"name,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// BookingParams is the body of POST /v1/bookings: StartDateTime or
// HoldID, not both.
type BookingParams struct {
	BookingTypeID string            `json:"bookingTypeId"`
	StartDateTime string            `json:"startDateTime,omitempty"`
	HoldID        string            `json:"holdId,omitempty"`
	Guest         Guest             `json:"guest"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

// Booking statuses.
const (
	StatusConfirmed = "confirmed"
	StatusCancelled = "cancelled"
)

// BookingEvent is one event a booking wrote.
type BookingEvent struct {
	EndUserAccountID string `json:"endUserAccountId"`
	CalendarID       string `json:"calendarId"`
	EventID          string `json:"eventId"`
}

// Booking is a booked meeting (GET /v1/bookings/{id}).
type Booking struct {
	ID            string               `json:"id"`
	BookingTypeID string               `json:"bookingTypeId"`
	Status        string               `json:"status"`
	Start         unical.EventDateTime `json:"start"`
	End           unical.EventDateTime `json:"end"`
	Participants  []string             `json:"participants"`
	Guest         Guest                `json:"guest"`
	Metadata      map[string]string    `json:"metadata,omitempty"`
	Events        []BookingEvent       `json:"events"`
	CreatedAt     time.Time            `json:"createdAt"`
	UpdatedAt     time.Time            `json:"updatedAt"`
}

// BookingListParams filter and page GET /v1/bookings.
type BookingListParams struct {
	// BookingTypeID keeps the bookings of one type.
	BookingTypeID string
	// StartDateTime and EndDateTime keep the bookings that meet the
	// window.
	StartDateTime string
	EndDateTime   string
	PageToken     string
	Limit         int
}

// RescheduleParams is the body of POST /v1/bookings/{id}/reschedule.
type RescheduleParams struct {
	StartDateTime string `json:"startDateTime"`
}

// Webhook event types of bookings, sent to the application's webhook
// endpoint with the booking as data.
const (
	EventTypeCreated     = "booking.created"
	EventTypeRescheduled = "booking.rescheduled"
	EventTypeCancelled   = "booking.cancelled"
)

// Message is the body of a booking.* webhook message.
type Message struct {
	EventType string          `json:"eventType"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// Bounds of the booking layer.
const (
	DefaultHoldTTL = 300
	MaxHoldTTL     = 900
	// DefaultHorizonDays is how far ahead slots go when a type says
	// nothing.
	DefaultHorizonDays = 60
	MaxHorizonDays     = 730
)
