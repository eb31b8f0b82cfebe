package googletest

import (
	"net/http"
	"sort"
	"strings"
	"time"
)

type freeBusyRequest struct {
	TimeMin              string `json:"timeMin"`
	TimeMax              string `json:"timeMax"`
	TimeZone             string `json:"timeZone"`
	GroupExpansionMax    int    `json:"groupExpansionMax"`
	CalendarExpansionMax int    `json:"calendarExpansionMax"`
	Items                []struct {
		ID string `json:"id"`
	} `json:"items"`
}

type busyPeriod struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// freeBusyError is a per-calendar error: domain and reason only, as the
// freeBusy reference shows.
type freeBusyError struct {
	Domain string `json:"domain"`
	Reason string `json:"reason"`
}

type freeBusyCalendar struct {
	Errors []freeBusyError `json:"errors,omitempty"`
	Busy   []busyPeriod    `json:"busy"`
}

type freeBusyResponse struct {
	Kind      string                      `json:"kind"`
	TimeMin   string                      `json:"timeMin"`
	TimeMax   string                      `json:"timeMax"`
	Calendars map[string]freeBusyCalendar `json:"calendars"`
}

// freeBusyQuery serves POST freeBusy. Busy time is computed from stored
// events: recurring series are expanded, and cancelled events, transparent
// events ("does not block time on the calendar", Event.transparency) and
// events the calendar's own attendee declined do not block time.
// UNVERIFIED for declined: neither the freeBusy reference nor the Event
// reference says how a declined invitation counts.
//
// Periods are clipped to the query range and merged (UNVERIFIED: the
// reference says only "List of time ranges during which this calendar
// should be regarded as busy"). timeZone is "Time zone used in the
// response. Optional. The default is UTC." (FreeBusyRequest): the echoed
// bounds and busy periods are rendered with that zone's offset. Calendars
// the caller cannot see get a per-calendar error with reason notFound, one
// of the reasons the discovery document lists for Error.reason, not a
// failed request.
func (s *Server) freeBusyQuery(c *call) (int, any, error) {
	var req freeBusyRequest
	if err := decodeBody(c.body, &req); err != nil {
		return 0, nil, err
	}
	if req.TimeMin == "" {
		return 0, nil, errRequired("Missing timeMin parameter.")
	}
	if req.TimeMax == "" {
		return 0, nil, errRequired("Missing timeMax parameter.")
	}
	tMin, err := time.Parse(time.RFC3339Nano, req.TimeMin)
	if err != nil {
		return 0, nil, errInvalid("Invalid timeMin value.")
	}
	tMax, err := time.Parse(time.RFC3339Nano, req.TimeMax)
	if err != nil {
		return 0, nil, errInvalid("Invalid timeMax value.")
	}
	if !tMax.After(tMin) {
		return 0, nil, errTimeRangeEmpty("timeMax")
	}
	loc := time.UTC
	if req.TimeZone != "" {
		l, ok := loadZone(req.TimeZone)
		if !ok {
			return 0, nil, errInvalid("Invalid time zone definition.")
		}
		loc = l
	}
	if req.CalendarExpansionMax > 50 || req.GroupExpansionMax > 100 {
		// Documented maxima: calendarExpansionMax 50, groupExpansionMax 100.
		return 0, nil, errInvalid("Invalid expansion maximum.")
	}
	limit := 50
	if req.CalendarExpansionMax > 0 {
		limit = req.CalendarExpansionMax
	}
	format := func(t time.Time) string { return t.In(loc).Format(time.RFC3339) }
	out := freeBusyResponse{
		Kind: "calendar#freeBusy", TimeMin: format(tMin), TimeMax: format(tMax),
		Calendars: map[string]freeBusyCalendar{},
	}
	for i, it := range req.Items {
		if i >= limit {
			// The reason is one the discovery document lists for
			// per-calendar errors (Error.reason: "tooManyCalendarsRequested -
			// The number of calendars requested is too large for a single
			// query"). UNVERIFIED: the domain, and that a request without
			// calendarExpansionMax is cut at the maximum of 50.
			out.Calendars[it.ID] = freeBusyCalendar{Errors: []freeBusyError{{Domain: "global", Reason: "tooManyCalendarsRequested"}}, Busy: []busyPeriod{}}
			continue
		}
		cal, _, err := s.resolveCalendar(c, it.ID)
		if err != nil {
			out.Calendars[it.ID] = freeBusyCalendar{Errors: []freeBusyError{{Domain: "global", Reason: "notFound"}}, Busy: []busyPeriod{}}
			continue
		}
		busy := []busyPeriod{}
		for _, p := range s.busyLocked(cal, tMin, tMax) {
			busy = append(busy, busyPeriod{Start: format(p[0]), End: format(p[1])})
		}
		out.Calendars[it.ID] = freeBusyCalendar{Busy: busy}
	}
	return http.StatusOK, out, nil
}

// busyLocked returns the merged busy intervals of cal within [lo, hi).
func (s *Server) busyLocked(cal *calendar, lo, hi time.Time) [][2]time.Time {
	calLoc, ok := loadZone(cal.timeZone)
	if !ok {
		calLoc = time.UTC
	}
	var spans [][2]time.Time
	blocks := func(ev *Event) bool {
		if isCancelled(ev) || ev.Transparency == "transparent" {
			return false
		}
		for _, a := range ev.Attendees {
			if (strings.EqualFold(a.Email, cal.id) || a.Self) && a.ResponseStatus == "declined" {
				return false
			}
		}
		return true
	}
	addSpan := func(ev *Event) {
		st, en, _, err := span(ev, calLoc)
		if err != nil || !st.Before(hi) || !en.After(lo) {
			return
		}
		spans = append(spans, [2]time.Time{maxTime(st, lo), minTime(en, hi)})
	}
	for _, se := range cal.events {
		ev := &se.ev
		switch {
		case len(ev.Recurrence) > 0:
			if isCancelled(ev) {
				continue
			}
			for _, o := range s.instancesLocked(cal, ev, lo, hi, calLoc, maxInstancesPerSeries) {
				if blocks(&o.ev) {
					addSpan(&o.ev)
				}
			}
		case ev.RecurringEventID != "":
			// Exceptions are covered by their master's expansion.
		default:
			if blocks(ev) {
				addSpan(ev)
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0].Before(spans[j][0]) })
	var merged [][2]time.Time
	for _, sp := range spans {
		if n := len(merged); n > 0 && !sp[0].After(merged[n-1][1]) {
			merged[n-1][1] = maxTime(merged[n-1][1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
