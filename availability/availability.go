// Package availability finds meeting slots (POST /v1/availability) over
// any [unical.API]: each participant's busy time comes from the API's
// free/busy, and package internal/slots finds the slots. It works the same
// over the in-process App and over an HTTP client of a unicald server,
// like package ics.
package availability

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/slots"
)

// weekdays maps the wire names of days.
var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

var weekdayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// availabilityQuery is a validated Params.
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

func validate(p *Params, now time.Time) (*availabilityQuery, error) {
	q := &availabilityQuery{loc: time.UTC}
	if p.TimeZone != "" {
		loc, err := unical.LoadLocation(p.TimeZone)
		if err != nil {
			return nil, unical.FieldError("timeZone", "timeZone %q is not an IANA time zone name.", p.TimeZone)
		}
		q.loc = loc
	}
	if p.StartDateTime == "" {
		return nil, unical.FieldError("startDateTime", "startDateTime is required.")
	}
	if p.EndDateTime == "" {
		return nil, unical.FieldError("endDateTime", "endDateTime is required.")
	}
	start, err := unical.ParseDateTime("startDateTime", p.StartDateTime, q.loc)
	if err != nil {
		return nil, err
	}
	end, err := unical.ParseDateTime("endDateTime", p.EndDateTime, q.loc)
	if err != nil {
		return nil, err
	}
	// The search counts in Unix nanoseconds, which span 1678 to 2262.
	if start.Year() < 1900 {
		return nil, unical.FieldError("startDateTime", "startDateTime must be in 1900 or later.")
	}
	if end.Year() > 2200 {
		return nil, unical.FieldError("endDateTime", "endDateTime must be in 2200 or earlier.")
	}
	if !end.After(start) {
		return nil, unical.FieldError("endDateTime", "endDateTime must be after startDateTime.")
	}
	if end.Sub(start) > MaxWindow {
		return nil, unical.FieldError("endDateTime", "The availability window may span at most 62 days.")
	}
	if p.DurationMinutes < MinDuration {
		return nil, unical.FieldError("durationMinutes", "durationMinutes must be at least %d.", MinDuration)
	}
	// Compared in minutes: a count past what a Duration holds would wrap
	// round to a negative one, no longer than any window.
	if p.DurationMinutes > int(end.Sub(start)/time.Minute) {
		return nil, unical.FieldError("durationMinutes", "durationMinutes is longer than the window from startDateTime to endDateTime.")
	}
	interval := p.IntervalMinutes
	if interval == 0 {
		interval = DefaultInterval
	}
	if interval < 5 || interval > 24*60 {
		return nil, unical.FieldError("intervalMinutes", "intervalMinutes must be between 5 and 1440.")
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
			return nil, unical.FieldError(f.name, "%s must be between 0 and %d.", f.name, f.max)
		}
	}
	maxResults := p.MaxResults
	if maxResults == 0 {
		maxResults = DefaultResults
	}
	if maxResults < 1 || maxResults > MaxResults {
		return nil, unical.FieldError("maxResults", "maxResults must be between 1 and %d.", MaxResults)
	}
	if len(p.Participants) == 0 {
		return nil, unical.FieldError("participants", "participants must name at least one account.")
	}
	if len(p.Participants) > MaxParticipants {
		return nil, unical.FieldError("participants", "participants may name at most %d accounts.", MaxParticipants)
	}
	seen := map[string]bool{}
	for i := range p.Participants {
		pq, err := validateParticipant(&p.Participants[i], fmt.Sprintf("participants[%d]", i), q.loc)
		if err != nil {
			return nil, err
		}
		if seen[pq.accountID] {
			return nil, unical.FieldError(fmt.Sprintf("participants[%d].endUserAccountId", i), "participants names %q twice.", pq.accountID)
		}
		seen[pq.accountID] = true
		q.parts = append(q.parts, pq)
	}
	groups, err := validateGroups(p)
	if err != nil {
		return nil, err
	}
	q.req = slots.Request{
		Start: start, End: end, Duration: time.Duration(p.DurationMinutes) * time.Minute,
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
func validateGroups(p *Params) ([]slots.Group, error) {
	members := map[string]int{}
	for i, pp := range p.Participants {
		if pp.Group != "" {
			members[pp.Group]++
			if pp.Required.IsSet() {
				f := fmt.Sprintf("participants[%d].required", i)
				return nil, unical.FieldError(f, "%s cannot be set on a member of a group: the group's required count applies.", f)
			}
		}
	}
	index := map[string]int{}
	var out []slots.Group
	for i, g := range p.Groups {
		f := fmt.Sprintf("groups[%d]", i)
		if g.Name == "" {
			return nil, unical.FieldError(f+".name", "%s.name is required.", f)
		}
		if _, dup := index[g.Name]; dup {
			return nil, unical.FieldError(f+".name", "groups names %q twice.", g.Name)
		}
		index[g.Name] = i
		if members[g.Name] == 0 {
			return nil, unical.FieldError(f+".name", "No participant names group %q.", g.Name)
		}
		if g.Required < 1 || g.Required > members[g.Name] {
			return nil, unical.FieldError(f+".required", "%s.required must be between 1 and the %d participants of group %q.", f, members[g.Name], g.Name)
		}
		out = append(out, slots.Group{Name: g.Name, Required: g.Required})
	}
	for i, pp := range p.Participants {
		if _, ok := index[pp.Group]; pp.Group != "" && !ok {
			f := fmt.Sprintf("participants[%d].group", i)
			return nil, unical.FieldError(f, "%s names group %q, which groups does not list.", f, pp.Group)
		}
	}
	return out, nil
}

func validateParticipant(p *Participant, field string, answerLoc *time.Location) (participantQuery, error) {
	q := participantQuery{accountID: p.EndUserAccountID, calendarIDs: p.CalendarIDs, required: true, group: p.Group, loc: answerLoc}
	if p.EndUserAccountID == "" {
		return q, unical.FieldError(field+".endUserAccountId", "%s.endUserAccountId is required.", field)
	}
	if p.Required.IsNull() {
		return q, unical.FieldError(field+".required", "%s.required cannot be null.", field)
	}
	if v, ok := p.Required.Get(); ok {
		q.required = v
	}
	if p.CalendarIDs != nil {
		f := field + ".calendarIds"
		if len(p.CalendarIDs) == 0 {
			return q, unical.FieldError(f, "%s must name at least one calendar, or be left out for the default.", f)
		}
		if len(p.CalendarIDs) > unical.MaxFreeBusyCalendars {
			return q, unical.FieldError(f, "%s may name at most %d calendars.", f, unical.MaxFreeBusyCalendars)
		}
		seen := map[string]bool{}
		for _, id := range p.CalendarIDs {
			if id == "" || seen[id] {
				return q, unical.FieldError(f, "%s must name distinct, non-empty calendar ids.", f)
			}
			seen[id] = true
		}
	}
	if wh := p.WorkingHours; wh != nil {
		f := field + ".workingHours"
		loc, err := unical.LoadLocation(wh.TimeZone)
		if err != nil {
			return q, unical.FieldError(f+".timeZone", "%s.timeZone %q is not an IANA time zone name.", f, wh.TimeZone)
		}
		if len(wh.Intervals) == 0 {
			return q, unical.FieldError(f+".intervals", "%s.intervals must hold at least one interval.", f)
		}
		q.working, q.loc = &slots.WorkingHours{Location: loc}, loc
		ivs, err := workingIntervals(f, wh.Intervals, true)
		if err != nil {
			return q, err
		}
		q.working.Intervals = ivs
		if len(wh.Overrides) > MaxWorkingOverrides {
			return q, unical.FieldError(f+".overrides", "%s.overrides may hold at most %d dates.", f, MaxWorkingOverrides)
		}
		dates := map[string]bool{}
		for j, o := range wh.Overrides {
			fo := fmt.Sprintf("%s.overrides[%d]", f, j)
			d, err := time.Parse(time.DateOnly, o.Date)
			if err != nil {
				return q, unical.FieldError(fo+".date", "%s.date must be a date YYYY-MM-DD.", fo)
			}
			if dates[o.Date] {
				return q, unical.FieldError(fo+".date", "%s.overrides names %s twice.", f, o.Date)
			}
			dates[o.Date] = true
			if o.Intervals == nil {
				return q, unical.FieldError(fo+".intervals", "%s.intervals is required: an empty list closes the day.", fo)
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
		return nil, unical.FieldError(f+".intervals", "%s.intervals may hold at most %d intervals.", f, MaxWorkingIntervals)
	}
	var out []slots.WeeklyInterval
	for j, iv := range in {
		fi := fmt.Sprintf("%s.intervals[%d]", f, j)
		day, ok := weekdays[iv.Day]
		switch {
		case weekly && !ok:
			return nil, &unical.Error{Code: unical.CodeInvalid, Field: fi + ".day", Allowed: weekdayNames, Message: fmt.Sprintf("%s.day must be a day of the week in lower case, such as monday.", fi)}
		case !weekly && iv.Day != "":
			return nil, unical.FieldError(fi+".day", "%s.day cannot be set: an override's intervals are on its date.", fi)
		}
		s, ok := clockMinutes(iv.Start, false)
		if !ok {
			return nil, unical.FieldError(fi+".start", "%s.start must be a time of day HH:MM from 00:00 to 23:59.", fi)
		}
		e, ok := clockMinutes(iv.End, true)
		if !ok {
			return nil, unical.FieldError(fi+".end", "%s.end must be a time of day HH:MM from 00:01 to 24:00.", fi)
		}
		if e <= s {
			return nil, unical.FieldError(fi+".end", "%s.end must be after its start.", fi)
		}
		out = append(out, slots.WeeklyInterval{Day: day, Start: s, End: e})
	}
	if i, j := slots.Overlaps(out); i >= 0 {
		return nil, unical.FieldError(fmt.Sprintf("%s.intervals[%d]", f, j), "%s.intervals[%d] overlaps %s.intervals[%d].", f, j, f, i)
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

// Find finds the slots of params.DurationMinutes that the participants can
// attend, with minimumNoticeMinutes counted from now. Each participant's
// busy time comes from api.QueryFreeBusy, with its free/busy policy
// (all-day events block their days in the participant's working hours
// zone, else in timeZone), fetched for up to FanOut
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
func Find(ctx context.Context, api unical.API, now time.Time, params *Params) (*Result, error) {
	return FindWith(ctx, api, now, params, nil)
}

// Check checks params as Find does, without asking any provider:
// CodeInvalid naming the field, or nil. Package booking checks a booking
// type's rules with it.
func Check(params *Params) error {
	_, err := validate(params, time.Time{})
	return err
}

// Busy is a span of busy time that a program adds to a participant's.
type Busy struct {
	Start, End time.Time
}

// FindWith is Find with more busy time for some participants, keyed by
// account id, that the API's free/busy does not show: package booking adds
// its holds, its bookings and the days a limit has filled.
func FindWith(ctx context.Context, api unical.API, now time.Time, params *Params, extra map[string][]Busy) (*Result, error) {
	if params == nil {
		params = &Params{}
	}
	q, err := validate(params, now)
	if err != nil {
		return nil, err
	}
	// Accounts are read one after the other, so that an unknown or EXPIRED
	// account is reported the same way every time and before any provider
	// is called.
	for i, pq := range q.parts {
		acct, err := api.GetAccount(ctx, pq.accountID)
		if err == nil && acct.Status == unical.AccountStatusExpired {
			err = &unical.Error{Code: unical.CodeAccountExpired, Message: "The account's credentials no longer work; reconnect it with POST /v1/endUserAccounts or the OAuth flow."}
		}
		if err != nil {
			return nil, participantFailed(i, pq.accountID, "endUserAccountId", err)
		}
	}
	// Busy time just outside the window still keeps the buffers of the
	// first and last slots from being free.
	from, to := q.req.Start.Add(-q.req.BufferBefore), q.req.End.Add(q.req.BufferAfter)
	busy := make([][]slots.Interval, len(q.parts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		sem   = make(chan struct{}, FanOut)
	)
	for i := range q.parts {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			pq := q.parts[i]
			b, err := participantBusy(ctx, api, &pq, from, to)
			if err != nil {
				field := "endUserAccountId"
				if pq.calendarIDs != nil && unical.ErrorCode(err) == unical.CodeNotFound {
					// The account was found above: a calendar it named was not.
					field = "calendarIds"
				}
				err = participantFailed(i, pq.accountID, field, err)
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
		})
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
		for _, b := range extra[pq.accountID] {
			busy[i] = append(busy[i], slots.Interval{Start: b.Start, End: b.End})
		}
		req.Participants[i] = slots.Participant{ID: pq.accountID, WorkingHours: pq.working, Required: pq.required, Group: pq.group, Busy: busy[i]}
	}
	out := &Result{Data: []*Slot{}}
	zone := q.loc.String()
	for _, s := range slots.Find(&req) {
		out.Data = append(out.Data, &Slot{
			Start:        unical.EventDateTime{DateTime: s.Start.In(q.loc).Format(time.RFC3339), TimeZone: zone},
			End:          unical.EventDateTime{DateTime: s.End.In(q.loc).Format(time.RFC3339), TimeZone: zone},
			Participants: s.Participants,
		})
	}
	return out, nil
}

// participantBusy returns the busy intervals of one participant's
// calendars in [from, to).
func participantBusy(ctx context.Context, api unical.API, pq *participantQuery, from, to time.Time) ([]slots.Interval, error) {
	ids := pq.calendarIDs
	if ids == nil {
		var cals []*unical.Calendar
		for c, err := range unical.AllCalendars(ctx, api, pq.accountID, nil, nil) {
			if err != nil {
				return nil, err
			}
			cals = append(cals, c)
		}
		ids = defaultCalendars(cals)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	res, err := api.QueryFreeBusy(ctx, pq.accountID, &unical.FreeBusyParams{
		StartDateTime: from.Format(time.RFC3339Nano), EndDateTime: to.Format(time.RFC3339Nano),
		TimeZone: pq.loc.String(), CalendarIDs: ids,
	})
	if err != nil {
		return nil, err
	}
	var out []slots.Interval
	for _, cal := range res {
		for _, b := range cal.BusySlots {
			start, err1 := time.Parse(time.RFC3339Nano, b.Start.DateTime)
			end, err2 := time.Parse(time.RFC3339Nano, b.End.DateTime)
			if err := errors.Join(err1, err2); err != nil {
				return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
			}
			out = append(out, slots.Interval{Start: start, End: end})
		}
	}
	return out, nil
}

// defaultCalendars picks the calendars of a participant that named none:
// the primary one, or, where the provider has no primary calendar
// (CalDAV), every calendar that is not shared with the account.
func defaultCalendars(cals []*unical.Calendar) []string {
	var own []string
	for _, c := range cals {
		if c.IsPrimary {
			return []string{c.ID}
		}
		if !c.IsShared {
			own = append(own, c.ID)
		}
	}
	if len(own) > unical.MaxFreeBusyCalendars {
		own = own[:unical.MaxFreeBusyCalendars]
	}
	return own
}

// participantFailed names participant i in err, keeping its code, so that
// the caller knows whose account to look at: Field becomes
// participants[i].field unless err already names a field of the request.
func participantFailed(i int, accountID, field string, err error) error {
	var e *unical.Error
	if !errors.As(err, &e) || e.Code == unical.CodeInternal {
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
