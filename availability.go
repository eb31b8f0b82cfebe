package unical

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/unical/unical/internal/slots"
)

// AvailabilityParams is the body of POST /v1/availability: find the slots
// of durationMinutes inside [startDateTime, endDateTime) that the
// participants can attend.
type AvailabilityParams struct {
	// Participants are the accounts whose time is asked about: 1 to
	// MaxAvailabilityParticipants, each at most once.
	Participants []AvailabilityParticipant `json:"participants"`
	// StartDateTime and EndDateTime bound the search, at most
	// MaxAvailabilityWindow apart. A value without an offset is read in
	// TimeZone.
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
	// DefaultAvailabilityResults, at most MaxAvailabilityResults.
	MaxResults int `json:"maxResults,omitempty"`
	// Groups are the groups participants name, each with at least one
	// member.
	Groups []AvailabilityGroup `json:"groups,omitempty"`
}

// AvailabilityGroup asks that at least Required (1 to the group's size)
// of the participants naming it be free in a slot, such as one of
// several rooms.
type AvailabilityGroup struct {
	Name     string `json:"name"`
	Required int    `json:"required"`
}

// AvailabilityParticipant is one participant of an availability query.
type AvailabilityParticipant struct {
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
	Required Optional[bool] `json:"required,omitzero"`
	// Group names an entry of AvailabilityParams.Groups.
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

// Availability is the answer of POST /v1/availability.
type Availability struct {
	// Data holds the slots in start order.
	Data []*AvailabilitySlot `json:"data"`
}

// AvailabilitySlot is one slot and the participants free during it (every
// required one, and the optional ones that are free), in request order.
type AvailabilitySlot struct {
	Start        EventDateTime `json:"start"`
	End          EventDateTime `json:"end"`
	Participants []string      `json:"participants"`
}

// Bounds of an availability query.
const (
	MaxAvailabilityParticipants = 20
	MaxAvailabilityWindow       = 62 * 24 * time.Hour
	MinAvailabilityDuration     = 5
	DefaultAvailabilityInterval = 15
	DefaultAvailabilityResults  = 100
	MaxAvailabilityResults      = 1000
	MaxWorkingIntervals         = 50
	MaxWorkingOverrides         = 100
	// AvailabilityFanOut is how many participants' busy time is fetched at
	// once. It covers the usual meeting in one round trip and keeps a
	// 20-participant query from opening 20 provider calls at the same time.
	AvailabilityFanOut = 10
)

// weekdays maps the wire names of days.
var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

var weekdayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// availabilityQuery is a validated AvailabilityParams.
type availabilityQuery struct {
	req   slots.Request
	loc   *time.Location
	parts []participantQuery
}

type participantQuery struct {
	accountID   string
	calendarIDs []string
	working     *slots.WorkingHours
	required    bool
	group       string
	// loc is the zone all-day events are read in: the participant's
	// working hours zone, else the answer's.
	loc *time.Location
}

func (p *AvailabilityParams) validate(now time.Time) (*availabilityQuery, error) {
	q := &availabilityQuery{loc: time.UTC}
	if p.TimeZone != "" {
		loc, err := LoadLocation(p.TimeZone)
		if err != nil {
			return nil, invalidf("timeZone", "timeZone %q is not an IANA time zone name.", p.TimeZone)
		}
		q.loc = loc
	}
	if p.StartDateTime == "" {
		return nil, invalidf("startDateTime", "startDateTime is required.")
	}
	if p.EndDateTime == "" {
		return nil, invalidf("endDateTime", "endDateTime is required.")
	}
	start, err := ParseDateTime("startDateTime", p.StartDateTime, q.loc)
	if err != nil {
		return nil, err
	}
	end, err := ParseDateTime("endDateTime", p.EndDateTime, q.loc)
	if err != nil {
		return nil, err
	}
	// The search counts in Unix nanoseconds, which span 1678 to 2262.
	if start.Year() < 1900 {
		return nil, invalidf("startDateTime", "startDateTime must be in 1900 or later.")
	}
	if end.Year() > 2200 {
		return nil, invalidf("endDateTime", "endDateTime must be in 2200 or earlier.")
	}
	if !end.After(start) {
		return nil, invalidf("endDateTime", "endDateTime must be after startDateTime.")
	}
	if end.Sub(start) > MaxAvailabilityWindow {
		return nil, invalidf("endDateTime", "The availability window may span at most 62 days.")
	}
	if p.DurationMinutes < MinAvailabilityDuration {
		return nil, invalidf("durationMinutes", "durationMinutes must be at least %d.", MinAvailabilityDuration)
	}
	duration := time.Duration(p.DurationMinutes) * time.Minute
	if duration > end.Sub(start) {
		return nil, invalidf("durationMinutes", "durationMinutes is longer than the window from startDateTime to endDateTime.")
	}
	interval := p.IntervalMinutes
	if interval == 0 {
		interval = DefaultAvailabilityInterval
	}
	if interval < 5 || interval > 24*60 {
		return nil, invalidf("intervalMinutes", "intervalMinutes must be between 5 and 1440.")
	}
	for _, f := range []struct {
		name  string
		value int
		max   int
	}{
		{"bufferBeforeMinutes", p.BufferBeforeMinutes, 24 * 60},
		{"bufferAfterMinutes", p.BufferAfterMinutes, 24 * 60},
		{"minimumNoticeMinutes", p.MinimumNoticeMinutes, 365 * 24 * 60},
	} {
		if f.value < 0 || f.value > f.max {
			return nil, invalidf(f.name, "%s must be between 0 and %d.", f.name, f.max)
		}
	}
	maxResults := p.MaxResults
	if maxResults == 0 {
		maxResults = DefaultAvailabilityResults
	}
	if maxResults < 1 || maxResults > MaxAvailabilityResults {
		return nil, invalidf("maxResults", "maxResults must be between 1 and %d.", MaxAvailabilityResults)
	}
	if len(p.Participants) == 0 {
		return nil, invalidf("participants", "participants must name at least one account.")
	}
	if len(p.Participants) > MaxAvailabilityParticipants {
		return nil, invalidf("participants", "participants may name at most %d accounts.", MaxAvailabilityParticipants)
	}
	seen := map[string]bool{}
	for i := range p.Participants {
		pq, err := p.Participants[i].validate(fmt.Sprintf("participants[%d]", i), q.loc)
		if err != nil {
			return nil, err
		}
		if seen[pq.accountID] {
			return nil, invalidf(fmt.Sprintf("participants[%d].endUserAccountId", i), "participants names %q twice.", pq.accountID)
		}
		seen[pq.accountID] = true
		q.parts = append(q.parts, pq)
	}
	groups, err := p.validateGroups()
	if err != nil {
		return nil, err
	}
	q.req = slots.Request{
		Start: start, End: end, Duration: duration,
		Interval:     time.Duration(interval) * time.Minute,
		Location:     q.loc,
		BufferBefore: time.Duration(p.BufferBeforeMinutes) * time.Minute,
		BufferAfter:  time.Duration(p.BufferAfterMinutes) * time.Minute,
		Earliest:     now.Add(time.Duration(p.MinimumNoticeMinutes) * time.Minute),
		MaxResults:   maxResults,
		Groups:       groups,
	}
	return q, nil
}

// validateGroups checks that groups have distinct names, that every group
// a participant names is listed, and that each group's required count is
// between 1 and its size.
func (p *AvailabilityParams) validateGroups() ([]slots.Group, error) {
	members := map[string]int{}
	for i, pp := range p.Participants {
		if pp.Group != "" {
			members[pp.Group]++
			if pp.Required.IsSet() {
				f := fmt.Sprintf("participants[%d].required", i)
				return nil, invalidf(f, "%s cannot be set on a member of a group: the group's required count applies.", f)
			}
		}
	}
	index := map[string]int{}
	var out []slots.Group
	for i, g := range p.Groups {
		f := fmt.Sprintf("groups[%d]", i)
		if g.Name == "" {
			return nil, invalidf(f+".name", "%s.name is required.", f)
		}
		if _, dup := index[g.Name]; dup {
			return nil, invalidf(f+".name", "groups names %q twice.", g.Name)
		}
		index[g.Name] = i
		if members[g.Name] == 0 {
			return nil, invalidf(f+".name", "No participant names group %q.", g.Name)
		}
		if g.Required < 1 || g.Required > members[g.Name] {
			return nil, invalidf(f+".required", "%s.required must be between 1 and the %d participants of group %q.", f, members[g.Name], g.Name)
		}
		out = append(out, slots.Group{Name: g.Name, Required: g.Required})
	}
	for i, pp := range p.Participants {
		if _, ok := index[pp.Group]; pp.Group != "" && !ok {
			f := fmt.Sprintf("participants[%d].group", i)
			return nil, invalidf(f, "%s names group %q, which groups does not list.", f, pp.Group)
		}
	}
	return out, nil
}

func (p *AvailabilityParticipant) validate(field string, answerLoc *time.Location) (participantQuery, error) {
	q := participantQuery{accountID: p.EndUserAccountID, calendarIDs: p.CalendarIDs, required: true, group: p.Group, loc: answerLoc}
	if p.EndUserAccountID == "" {
		return q, invalidf(field+".endUserAccountId", "%s.endUserAccountId is required.", field)
	}
	if p.Required.IsNull() {
		return q, invalidf(field+".required", "%s.required cannot be null.", field)
	}
	if v, ok := p.Required.Get(); ok {
		q.required = v
	}
	if p.CalendarIDs != nil {
		f := field + ".calendarIds"
		if len(p.CalendarIDs) == 0 {
			return q, invalidf(f, "%s must name at least one calendar, or be left out for the default.", f)
		}
		if len(p.CalendarIDs) > MaxFreeBusyCalendars {
			return q, invalidf(f, "%s may name at most %d calendars.", f, MaxFreeBusyCalendars)
		}
		seen := map[string]bool{}
		for _, id := range p.CalendarIDs {
			if id == "" || seen[id] {
				return q, invalidf(f, "%s must name distinct, non-empty calendar ids.", f)
			}
			seen[id] = true
		}
	}
	if wh := p.WorkingHours; wh != nil {
		f := field + ".workingHours"
		loc, err := LoadLocation(wh.TimeZone)
		if err != nil {
			return q, invalidf(f+".timeZone", "%s.timeZone %q is not an IANA time zone name.", f, wh.TimeZone)
		}
		if len(wh.Intervals) == 0 {
			return q, invalidf(f+".intervals", "%s.intervals must hold at least one interval.", f)
		}
		q.working, q.loc = &slots.WorkingHours{Location: loc}, loc
		ivs, err := workingIntervals(f, wh.Intervals, true)
		if err != nil {
			return q, err
		}
		q.working.Intervals = ivs
		if len(wh.Overrides) > MaxWorkingOverrides {
			return q, invalidf(f+".overrides", "%s.overrides may hold at most %d dates.", f, MaxWorkingOverrides)
		}
		dates := map[string]bool{}
		for j, o := range wh.Overrides {
			fo := fmt.Sprintf("%s.overrides[%d]", f, j)
			d, err := time.Parse(time.DateOnly, o.Date)
			if err != nil {
				return q, invalidf(fo+".date", "%s.date must be a date YYYY-MM-DD.", fo)
			}
			if dates[o.Date] {
				return q, invalidf(fo+".date", "%s.overrides names %s twice.", f, o.Date)
			}
			dates[o.Date] = true
			if o.Intervals == nil {
				return q, invalidf(fo+".intervals", "%s.intervals is required: an empty list closes the day.", fo)
			}
			ivs, err := workingIntervals(fo, o.Intervals, false)
			if err != nil {
				return q, err
			}
			do := slots.DateOverride{Year: d.Year(), Month: d.Month(), Day: d.Day(), Intervals: []slots.DayInterval{}}
			for _, iv := range ivs {
				do.Intervals = append(do.Intervals, slots.DayInterval{Start: iv.Start, End: iv.End})
			}
			q.working.Overrides = append(q.working.Overrides, do)
		}
	}
	return q, nil
}

// workingIntervals reads the intervals of workingHours (weekly, each with
// its day) or of an override (one date, no day), refusing overlaps.
func workingIntervals(f string, in []WorkingInterval, weekly bool) ([]slots.WeeklyInterval, error) {
	if len(in) > MaxWorkingIntervals {
		return nil, invalidf(f+".intervals", "%s.intervals may hold at most %d intervals.", f, MaxWorkingIntervals)
	}
	var out []slots.WeeklyInterval
	for j, iv := range in {
		fi := fmt.Sprintf("%s.intervals[%d]", f, j)
		day, ok := weekdays[iv.Day]
		switch {
		case weekly && !ok:
			return nil, &Error{Code: CodeInvalid, Field: fi + ".day", Allowed: weekdayNames, Message: fmt.Sprintf("%s.day must be a day of the week in lower case, such as monday.", fi)}
		case !weekly && iv.Day != "":
			return nil, invalidf(fi+".day", "%s.day cannot be set: an override's intervals are on its date.", fi)
		}
		s, ok := clockMinutes(iv.Start, false)
		if !ok {
			return nil, invalidf(fi+".start", "%s.start must be a time of day HH:MM from 00:00 to 23:59.", fi)
		}
		e, ok := clockMinutes(iv.End, true)
		if !ok {
			return nil, invalidf(fi+".end", "%s.end must be a time of day HH:MM from 00:01 to 24:00.", fi)
		}
		if e <= s {
			return nil, invalidf(fi+".end", "%s.end must be after its start.", fi)
		}
		out = append(out, slots.WeeklyInterval{Day: day, Start: s, End: e})
	}
	if i, j := slots.Overlaps(out); i >= 0 {
		return nil, invalidf(fmt.Sprintf("%s.intervals[%d]", f, j), "%s.intervals[%d] overlaps %s.intervals[%d].", f, j, f, i)
	}
	return out, nil
}

// clockMinutes reads HH:MM as minutes since midnight; 24:00 only when
// end is set.
func clockMinutes(s string, end bool) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	h, m := 0, 0
	for _, c := range s[:2] + s[3:] {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	h = int(s[0]-'0')*10 + int(s[1]-'0')
	m = int(s[3]-'0')*10 + int(s[4]-'0')
	if m > 59 || h > 24 || (h == 24 && (m != 0 || !end)) {
		return 0, false
	}
	return h*60 + m, true
}

// Availability finds the slots of params.DurationMinutes that the
// participants can attend. Each participant's busy time comes from its
// provider's free/busy, with the free/busy policy of [App.QueryFreeBusy]
// (all-day events block their days in the participant's working hours
// zone, else in timeZone), fetched for up to AvailabilityFanOut
// participants at once. A slot is offered when every required participant
// is free during it and its buffers and inside their working hours, and,
// when some participants are not required, at least one of those is too;
// each group needs its required count of free members, and the slot names
// the free ones.
//
// HTTP: POST /v1/availability
//
// Returns CodeInvalid naming the field for bad input; for a participant
// that is unknown (CodeNotFound), EXPIRED (CodeAccountExpired) or whose
// provider failed (CodeUpstream, CodeUnavailable, ...), the error names
// that participant in Field and Message, and no slots are returned.
func (a *App) Availability(ctx context.Context, params *AvailabilityParams) (*Availability, error) {
	if params == nil {
		params = &AvailabilityParams{}
	}
	q, err := params.validate(a.c.now())
	if err != nil {
		return nil, err
	}
	// Sessions come from the store, one after the other, so that an
	// unknown or EXPIRED account is reported the same way every time and
	// before any provider is called.
	type participant struct {
		prov Provider
		s    *Session
	}
	ps := make([]participant, len(q.parts))
	for i, pq := range q.parts {
		_, prov, s, err := a.session(ctx, pq.accountID)
		if err != nil {
			return nil, participantFailed(i, pq.accountID, "endUserAccountId", err)
		}
		ps[i] = participant{prov, s}
	}
	// Busy time just outside the window still keeps the buffers of the
	// first and last slots from being free.
	from, to := q.req.Start.Add(-q.req.BufferBefore), q.req.End.Add(q.req.BufferAfter)
	busy := make([][]Interval, len(q.parts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		sem   = make(chan struct{}, AvailabilityFanOut)
	)
	for i := range q.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			pq := q.parts[i]
			b, err := a.participantBusy(ctx, ps[i].prov, ps[i].s, &pq, from, to)
			if err != nil {
				field := "endUserAccountId"
				if pq.calendarIDs != nil && ErrorCode(err) == CodeNotFound {
					// The account was found above: a calendar it named was not.
					field = "calendarIds"
				}
				err = participantFailed(i, pq.accountID, field, a.providerFailed(ctx, pq.accountID, err))
				mu.Lock()
				if first == nil {
					// The first failure is the answer; the others were
					// probably cancelled by it.
					first = err
					cancel()
				}
				mu.Unlock()
				return
			}
			busy[i] = b
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	req := q.req
	req.Participants = make([]slots.Participant, len(q.parts))
	for i, pq := range q.parts {
		sp := slots.Participant{ID: pq.accountID, WorkingHours: pq.working, Required: pq.required, Group: pq.group, Busy: make([]slots.Interval, len(busy[i]))}
		for j, iv := range busy[i] {
			sp.Busy[j] = slots.Interval(iv)
		}
		req.Participants[i] = sp
	}
	out := &Availability{Data: []*AvailabilitySlot{}}
	zone := q.loc.String()
	for _, s := range slots.Find(&req) {
		out.Data = append(out.Data, &AvailabilitySlot{
			Start:        EventDateTime{DateTime: s.Start.In(q.loc).Format(time.RFC3339), TimeZone: zone},
			End:          EventDateTime{DateTime: s.End.In(q.loc).Format(time.RFC3339), TimeZone: zone},
			Participants: s.Participants,
		})
	}
	return out, nil
}

// participantBusy returns the busy intervals of one participant's
// calendars in [from, to).
func (a *App) participantBusy(ctx context.Context, prov Provider, s *Session, pq *participantQuery, from, to time.Time) ([]Interval, error) {
	ids := pq.calendarIDs
	if ids == nil {
		cals, err := prov.ListCalendars(ctx, s)
		if err != nil {
			return nil, err
		}
		ids = defaultCalendars(cals)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	fq := &freeBusyQuery{start: from, end: to, loc: pq.loc, calendarIDs: ids}
	var byCal map[string][]Interval
	if fb, ok := freeBusyOf(prov); ok {
		var err error
		byCal, err = fb.QueryFreeBusy(ctx, s, &FreeBusyQuery{Start: from, End: to, TimeZone: pq.loc.String(), CalendarIDs: ids})
		if err != nil {
			return nil, err
		}
	} else {
		byCal = map[string][]Interval{}
		budget := MaxFreeBusyInstances
		for _, id := range ids {
			b, err := a.busyFromEvents(ctx, prov, s, id, fq, &budget)
			if err != nil {
				return nil, err
			}
			byCal[id] = b
		}
	}
	var out []Interval
	for _, id := range ids {
		out = append(out, byCal[id]...)
	}
	return out, nil
}

// defaultCalendars picks the calendars of a participant that named none:
// the primary one, or, where the provider has no primary calendar
// (CalDAV), every calendar that is not shared with the account.
func defaultCalendars(cals []*Calendar) []string {
	var own []string
	for _, c := range cals {
		if c.IsPrimary {
			return []string{c.ID}
		}
		if !c.IsShared {
			own = append(own, c.ID)
		}
	}
	if len(own) > MaxFreeBusyCalendars {
		own = own[:MaxFreeBusyCalendars]
	}
	return own
}

// participantFailed names participant i in err, keeping its code, so that
// the caller knows whose account to look at: Field becomes
// participants[i].field unless err already names a field of the request.
func participantFailed(i int, accountID, field string, err error) error {
	var e *Error
	if !errors.As(err, &e) || e.Code == CodeInternal {
		return err
	}
	named := *e
	if named.Field == "" {
		named.Field = fmt.Sprintf("participants[%d].%s", i, field)
	}
	named.Message = fmt.Sprintf("Participant %s: %s", accountID, strings.TrimSpace(e.Message))
	named.Err = err
	return &named
}
