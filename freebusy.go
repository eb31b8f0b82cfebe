package unical

import (
	"context"
	"time"

	"github.com/unical/unical/internal/freebusy"
	"github.com/unical/unical/internal/recur"
)

// FreeBusyParams is the body of POST /v1/freeBusy/{endUserAccountId}. All
// fields are required.
type FreeBusyParams struct {
	StartDateTime string   `json:"startDateTime"`
	EndDateTime   string   `json:"endDateTime"`
	TimeZone      string   `json:"timeZone"`
	CalendarIDs   []string `json:"calendarIds"`
}

// FreeBusyResult is the busy time of one calendar.
type FreeBusyResult struct {
	CalendarID string     `json:"calendarId"`
	BusySlots  []BusySlot `json:"busySlots"`
}

// BusySlot is one busy interval, with both ends in the requested zone.
type BusySlot struct {
	Start EventDateTime `json:"start"`
	End   EventDateTime `json:"end"`
}

// Interval is a half-open time range [Start, End).
type Interval struct {
	Start, End time.Time
}

// MaxFreeBusyCalendars bounds calendarIds in one free/busy query.
const MaxFreeBusyCalendars = 50

// MaxFreeBusyWindow bounds the free/busy window.
const MaxFreeBusyWindow = 366 * 24 * time.Hour

// freeBusyQuery is a validated FreeBusyParams.
type freeBusyQuery struct {
	start, end  time.Time
	loc         *time.Location
	calendarIDs []string
}

func (p *FreeBusyParams) validate() (*freeBusyQuery, error) {
	if p.StartDateTime == "" {
		return nil, invalidf("startDateTime", "startDateTime is required.")
	}
	if p.EndDateTime == "" {
		return nil, invalidf("endDateTime", "endDateTime is required.")
	}
	if p.TimeZone == "" {
		return nil, invalidf("timeZone", "timeZone is required.")
	}
	if p.CalendarIDs == nil {
		return nil, invalidf("calendarIds", "calendarIds is required.")
	}
	loc, err := LoadLocation(p.TimeZone)
	if err != nil {
		return nil, invalidf("timeZone", "timeZone %q is not an IANA time zone name.", p.TimeZone)
	}
	start, err := ParseDateTime("startDateTime", p.StartDateTime, loc)
	if err != nil {
		return nil, err
	}
	end, err := ParseDateTime("endDateTime", p.EndDateTime, loc)
	if err != nil {
		return nil, err
	}
	if !end.After(start) {
		return nil, invalidf("endDateTime", "endDateTime must be after startDateTime.")
	}
	if end.Sub(start) > MaxFreeBusyWindow {
		return nil, invalidf("endDateTime", "the free/busy window may span at most 366 days.")
	}
	if len(p.CalendarIDs) == 0 {
		return nil, invalidf("calendarIds", "calendarIds must name at least one calendar.")
	}
	if len(p.CalendarIDs) > MaxFreeBusyCalendars {
		return nil, invalidf("calendarIds", "calendarIds may name at most %d calendars.", MaxFreeBusyCalendars)
	}
	seen := make(map[string]bool, len(p.CalendarIDs))
	for _, id := range p.CalendarIDs {
		if id == "" {
			return nil, invalidf("calendarIds", "calendarIds cannot hold an empty id.")
		}
		if seen[id] {
			return nil, invalidf("calendarIds", "calendarIds names %q twice.", id)
		}
		seen[id] = true
	}
	return &freeBusyQuery{start: start, end: end, loc: loc, calendarIDs: p.CalendarIDs}, nil
}

// maxFreeBusyPages bounds the event pages read per calendar when busy time
// is computed from events.
const maxFreeBusyPages = 100

// MaxFreeBusyInstances bounds the busy events and instances one free/busy
// query computed from events may gather, over all its calendars: a
// FREQ=SECONDLY series would otherwise hold millions of intervals.
const MaxFreeBusyInstances = 100_000

// QueryFreeBusy returns the busy slots of each requested calendar between
// startDateTime and endDateTime, with every time shown in timeZone. Where
// the provider has no free/busy query (CalDAV), busy time is computed from
// the events with one policy: recurring series are expanded with their
// overridden and moved instances; transparent, cancelled and declined
// events do not block time; all-day events block their whole days in the
// requested zone; overlapping slots are merged.
//
// HTTP: POST /v1/freeBusy/{endUserAccountId}
//
// Returns CodeInvalid naming the field for missing or bad values,
// CodeNotFound for an unknown calendar.
func (a *App) QueryFreeBusy(ctx context.Context, accountID string, params *FreeBusyParams, opts ...WriteOptions) ([]*FreeBusyResult, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "QueryFreeBusy", func(ctx context.Context) ([]*FreeBusyResult, error) { return a.queryFreeBusy(ctx, accountID, params) }, accountID, params)
}

func (a *App) queryFreeBusy(ctx context.Context, accountID string, params *FreeBusyParams) ([]*FreeBusyResult, error) {
	q, err := params.validate()
	if err != nil {
		return nil, err
	}
	_, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	busy := map[string][]Interval{}
	if fb, ok := freeBusyOf(p); ok {
		busy, err = fb.QueryFreeBusy(ctx, s, &FreeBusyQuery{Start: q.start, End: q.end, TimeZone: q.loc.String(), CalendarIDs: q.calendarIDs})
		if err != nil {
			return nil, a.ProviderFailed(ctx, accountID, err)
		}
	} else {
		budget := MaxFreeBusyInstances
		for _, id := range q.calendarIDs {
			if busy[id], err = a.busyFromEvents(ctx, p, s, id, q, &budget); err != nil {
				return nil, a.ProviderFailed(ctx, accountID, err)
			}
		}
	}
	out := make([]*FreeBusyResult, 0, len(q.calendarIDs))
	for _, id := range q.calendarIDs {
		in := make([]freebusy.Interval, len(busy[id]))
		for i, iv := range busy[id] {
			in[i] = freebusy.Interval(iv)
		}
		res := &FreeBusyResult{CalendarID: id, BusySlots: []BusySlot{}}
		for _, iv := range freebusy.Merge(in, q.start, q.end) {
			res.BusySlots = append(res.BusySlots, BusySlot{
				Start: EventDateTime{DateTime: iv.Start.In(q.loc).Format(time.RFC3339), TimeZone: q.loc.String()},
				End:   EventDateTime{DateTime: iv.End.In(q.loc).Format(time.RFC3339), TimeZone: q.loc.String()},
			})
		}
		out = append(out, res)
	}
	return out, nil
}

// busyFromEvents computes one calendar's busy intervals from its events.
// Series the provider leaves unexpanded are expanded one instance at a
// time, and every interval inside the window uses up one of budget, so
// neither the window nor the rule can make the query hold more than
// MaxFreeBusyInstances intervals.
func (a *App) busyFromEvents(ctx context.Context, p Provider, s *Session, calendarID string, q *freeBusyQuery, budget *int) ([]Interval, error) {
	var out []Interval
	addInterval := func(start, end time.Time, allDay bool) error {
		if allDay {
			// All-day events name dates, not instants: they block those
			// days in the zone the caller asked about.
			start = recur.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, q.loc)
			end = recur.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, q.loc)
		}
		if !end.After(q.start) || !start.Before(q.end) {
			return nil
		}
		if *budget == 0 {
			return invalidf("endDateTime", "The calendars have more than %d busy events and instances in this window; ask for a shorter window.", MaxFreeBusyInstances)
		}
		*budget--
		out = append(out, Interval{Start: start, End: end})
		return nil
	}
	add := func(e *Event) error {
		if !blocksTime(e) {
			return nil
		}
		start, end, err := e.Interval()
		if err != nil {
			return nil
		}
		return addInterval(start, end, e.IsAllDay)
	}
	var unexpanded []*Event
	cursor := ""
	for pages := 0; ; pages++ {
		if pages == maxFreeBusyPages {
			return nil, Errorf(CodeUnavailable, "The calendar has too many events in this window to compute free/busy; ask for a shorter window.")
		}
		batch, err := p.ListEvents(ctx, s, calendarID, &EventQuery{TimeMin: q.start, TimeMax: q.end, SingleEvents: true, PageCursor: cursor, PageSize: MaxPageSize})
		if err != nil {
			return nil, err
		}
		if batch.Expanded {
			for _, e := range batch.Events {
				if err := add(e); err != nil {
					return nil, err
				}
			}
		} else {
			unexpanded = append(unexpanded, batch.Events...)
		}
		if batch.NextPageCursor == "" {
			break
		}
		cursor = batch.NextPageCursor
	}
	masters, overrides, plain := groupSeries(unexpanded)
	for _, e := range plain {
		if err := add(e); err != nil {
			return nil, err
		}
	}
	for _, m := range masters {
		sr, err := newSeries(m, overrides[m.ID])
		if err != nil {
			return nil, err
		}
		// An instance blocks time as its series does unless an override
		// changed it, so only overridden instances are built as events; a
		// series that blocks no time (transparent, declined) can only
		// block through them.
		asInstance := *m
		asInstance.IsRecurring = false
		if !blocksTime(&asInstance) {
			for _, occ := range sr.set.Overridden(q.start, q.end, sr.dur) {
				if err := add(sr.instance(occ)); err != nil {
					return nil, err
				}
			}
			continue
		}
		for occ := range sr.set.Between(q.start, q.end, sr.dur) {
			var err error
			if occ.Overridden {
				err = add(sr.instance(occ))
			} else {
				err = addInterval(occ.Start, occ.End, sr.allDay)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// blocksTime is the busy policy: opaque, not cancelled, not declined.
func blocksTime(e *Event) bool {
	return !e.IsCancelled && e.Transparency != TransparencyTransparent && e.MyResponseStatus != ResponseDeclined && !e.IsRecurring
}
