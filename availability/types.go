package availability

import (
	"time"

	"github.com/unical/unical"
)

// Params is the body of POST /v1/availability, which Find answers over
// any API: find the slots of durationMinutes inside [startDateTime,
// endDateTime) that the participants can attend.
type Params struct {
	// Participants are the accounts whose time is asked about: 1 to
	// MaxParticipants, each at most once.
	Participants []Participant `json:"participants"`
	// StartDateTime and EndDateTime bound the search, at most MaxWindow
	// apart. A value without an offset is read in TimeZone.
	StartDateTime string `json:"startDateTime"`
	EndDateTime   string `json:"endDateTime"`
	// DurationMinutes is the length of a slot: at least 5, at most the
	// window.
	DurationMinutes int `json:"durationMinutes"`
	// IntervalMinutes is the step between slot starts, counted from
	// midnight in TimeZone each day: default 15, 5 to 1440.
	IntervalMinutes int `json:"intervalMinutes,omitempty"`
	// BufferBeforeMinutes and BufferAfterMinutes must be free of busy time
	// before and after a slot too (0 to 1440); they may fall outside
	// working hours.
	BufferBeforeMinutes int `json:"bufferBeforeMinutes,omitempty"`
	BufferAfterMinutes  int `json:"bufferAfterMinutes,omitempty"`
	// MinimumNoticeMinutes keeps slots from starting sooner than this after
	// now (0 to 525600).
	MinimumNoticeMinutes int `json:"minimumNoticeMinutes,omitempty"`
	// TimeZone is the IANA zone of the answer and of slot alignment;
	// default UTC.
	TimeZone string `json:"timeZone,omitempty"`
	// MaxResults bounds the slots returned: default
	// DefaultResults, at most MaxResults.
	MaxResults int `json:"maxResults,omitempty"`
	// Groups are the groups participants name, each with at least one
	// member.
	Groups []Group `json:"groups,omitempty"`
}

// Group asks that at least Required (1 to the group's size)
// of the participants naming it be free in a slot, such as one of
// several rooms.
type Group struct {
	Name     string `json:"name"`
	Required int    `json:"required"`
}

// Participant is one participant of an availability query.
type Participant struct {
	EndUserAccountID string `json:"endUserAccountId"`
	// CalendarIDs are the calendars whose busy time counts. When absent,
	// the account's primary calendar counts, or, for an account without
	// one (CalDAV), every calendar that is not shared with it.
	CalendarIDs []string `json:"calendarIds,omitempty"`
	// WorkingHours limit when the participant can meet; absent is any
	// time.
	WorkingHours *WorkingHours `json:"workingHours,omitempty"`
	// Required participants must be free in every slot (the default).
	// Of the participants that are not required, at least one must be.
	// A group member leaves it out: its group's rule applies instead.
	Required unical.Optional[bool] `json:"required,omitzero"`
	// Group names an entry of Params.Groups.
	Group string `json:"group,omitempty"`
}

// WorkingHours are weekly ranges of wall-clock time in TimeZone, so that
// 09:00 stays 09:00 across daylight saving changes.
type WorkingHours struct {
	// TimeZone is an IANA zone name, required.
	TimeZone string `json:"timeZone"`
	// Intervals are the ranges; on one day they may touch but not
	// overlap. At most MaxWorkingIntervals.
	Intervals []WorkingInterval `json:"intervals"`
	// Overrides replace the weekly intervals on their dates, read in
	// TimeZone: at most MaxWorkingOverrides, one per date.
	Overrides []WorkingHoursOverride `json:"overrides,omitempty"`
}

// WorkingHoursOverride gives the hours of one date (YYYY-MM-DD); an empty
// Intervals means not available that day. Day is left out of its
// intervals.
type WorkingHoursOverride struct {
	Date      string            `json:"date"`
	Intervals []WorkingInterval `json:"intervals"`
}

// WorkingInterval is one weekly range: Day is monday to sunday, Start and
// End are HH:MM with End after Start; End may be 24:00.
type WorkingInterval struct {
	Day   string `json:"day"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// Result is the answer of POST /v1/availability.
type Result struct {
	// Data holds the slots in start order.
	Data []*Slot `json:"data"`
}

// Slot is one slot and the participants free during it (every
// required one, and the optional ones that are free), in request order.
type Slot struct {
	Start        unical.EventDateTime `json:"start"`
	End          unical.EventDateTime `json:"end"`
	Participants []string             `json:"participants"`
}

// Bounds of an availability query.
const (
	MaxParticipants     = 20
	MaxWindow           = 62 * 24 * time.Hour
	MinDuration         = 5
	DefaultInterval     = 15
	DefaultResults      = 100
	MaxResults          = 1000
	MaxWorkingIntervals = 50
	MaxWorkingOverrides = 100
	// FanOut is how many participants' busy time is fetched at
	// once. It covers the usual meeting in one round trip and keeps a
	// 20-participant query from opening 20 provider calls at the same time.
	FanOut = 10
)
