package graphtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/unical/unical/internal/recur"
)

// patternedRecurrence is Graph's recurrence,
// https://learn.microsoft.com/graph/api/resources/patternedrecurrence with
// recurrencePattern and recurrenceRange.
type patternedRecurrence struct {
	Pattern recurrencePattern `json:"pattern"`
	Range   recurrenceRange   `json:"range"`
}

type recurrencePattern struct {
	Type           string   `json:"type"`
	Interval       int      `json:"interval"`
	Month          int      `json:"month"`
	DayOfMonth     int      `json:"dayOfMonth"`
	DaysOfWeek     []string `json:"daysOfWeek"`
	FirstDayOfWeek string   `json:"firstDayOfWeek"`
	Index          string   `json:"index"`
}

type recurrenceRange struct {
	Type                string `json:"type"`
	StartDate           string `json:"startDate"`
	EndDate             string `json:"endDate"`
	RecurrenceTimeZone  string `json:"recurrenceTimeZone"`
	NumberOfOccurrences int    `json:"numberOfOccurrences"`
}

var weekdays = map[string]rrule.Weekday{
	"sunday": rrule.SU, "monday": rrule.MO, "tuesday": rrule.TU, "wednesday": rrule.WE,
	"thursday": rrule.TH, "friday": rrule.FR, "saturday": rrule.SA,
}

var indexes = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}

// validate checks the pattern and range as recurrencePattern and
// recurrenceRange document them, and fills defaults.
func (r *patternedRecurrence) validate(ev *event) error {
	p, rg := &r.Pattern, &r.Range
	if p.Interval <= 0 {
		return errors.New("recurrence pattern interval must be at least 1")
	}
	for _, d := range p.DaysOfWeek {
		if _, ok := weekdays[d]; !ok {
			return fmt.Errorf("invalid day of week %q", d)
		}
	}
	if p.FirstDayOfWeek == "" {
		p.FirstDayOfWeek = "sunday"
	} else if _, ok := weekdays[p.FirstDayOfWeek]; !ok {
		return fmt.Errorf("invalid firstDayOfWeek %q", p.FirstDayOfWeek)
	}
	if p.Index == "" {
		p.Index = "first"
	} else if _, ok := indexes[p.Index]; !ok {
		return fmt.Errorf("invalid index %q", p.Index)
	}
	needDays := false
	switch p.Type {
	case "daily":
	case "weekly", "relativeMonthly":
		needDays = true
	case "absoluteMonthly":
		if p.DayOfMonth < 1 || p.DayOfMonth > 31 {
			return errors.New("absoluteMonthly needs dayOfMonth 1..31")
		}
	case "absoluteYearly":
		if p.DayOfMonth < 1 || p.DayOfMonth > 31 || p.Month < 1 || p.Month > 12 {
			return errors.New("absoluteYearly needs dayOfMonth 1..31 and month 1..12")
		}
	case "relativeYearly":
		needDays = true
		if p.Month < 1 || p.Month > 12 {
			return errors.New("relativeYearly needs month 1..12")
		}
	default:
		return fmt.Errorf("invalid recurrence pattern type %q", p.Type)
	}
	if needDays && len(p.DaysOfWeek) == 0 {
		return fmt.Errorf("%s needs daysOfWeek", p.Type)
	}
	// "If you specify a property not relevant to the type you specify, you
	// get an error" (recurrencePattern).
	if !strings.HasPrefix(p.Type, "absolute") && p.DayOfMonth != 0 {
		return fmt.Errorf("dayOfMonth is not valid for a %s pattern", p.Type)
	}
	if !strings.HasSuffix(p.Type, "Yearly") && p.Month != 0 {
		return fmt.Errorf("month is not valid for a %s pattern", p.Type)
	}
	if !needDays && len(p.DaysOfWeek) != 0 {
		return fmt.Errorf("daysOfWeek is not valid for a %s pattern", p.Type)
	}
	if _, err := time.Parse(time.DateOnly, rg.StartDate); err != nil {
		return fmt.Errorf("recurrence range startDate %q is not a date", rg.StartDate)
	}
	switch rg.Type {
	case "endDate":
		if _, err := time.Parse(time.DateOnly, rg.EndDate); err != nil {
			return fmt.Errorf("recurrence range endDate %q is not a date", rg.EndDate)
		}
		if rg.EndDate < rg.StartDate {
			return errors.New("recurrence range endDate is before startDate")
		}
	case "noEnd":
	case "numbered":
		if rg.NumberOfOccurrences < 1 {
			return errors.New("a numbered range needs numberOfOccurrences")
		}
	default:
		return fmt.Errorf("invalid recurrence range type %q", rg.Type)
	}
	if rg.RecurrenceTimeZone == "" {
		rg.RecurrenceTimeZone = ev.startZone.name
	} else if _, ok := lookupZone(rg.RecurrenceTimeZone); !ok {
		return fmt.Errorf("recurrenceTimeZone %q is not supported", rg.RecurrenceTimeZone)
	}
	return nil
}

// wire renders the recurrence with Graph's defaults for unused fields.
func (r *patternedRecurrence) wire() map[string]any {
	p, rg := r.Pattern, r.Range
	endDate := rg.EndDate
	if rg.Type != "endDate" {
		endDate = "0001-01-01"
	}
	return map[string]any{
		"pattern": map[string]any{
			"type": p.Type, "interval": p.Interval, "month": p.Month, "dayOfMonth": p.DayOfMonth,
			"daysOfWeek": nonNil(p.DaysOfWeek), "firstDayOfWeek": p.FirstDayOfWeek, "index": p.Index,
		},
		"range": map[string]any{
			"type": rg.Type, "startDate": rg.StartDate, "endDate": endDate,
			"recurrenceTimeZone": rg.RecurrenceTimeZone, "numberOfOccurrences": rg.NumberOfOccurrences,
		},
	}
}

// starts returns the starts of ev's occurrences in [from, to]. The rule
// runs on the series' wall clock (its local start time on every day, RFC
// 5545 §3.3.10 style, as Outlook keeps a meeting's time of day), and each
// wall clock is then read in the start zone.
func (ev *event) starts(from, to time.Time) ([]time.Time, error) {
	r, err := ev.rule()
	if err != nil {
		return nil, err
	}
	// Wall clocks are within a day of the instants they denote.
	var out []time.Time
	for _, w := range r.Between(from.UTC().Add(-26*time.Hour), to.UTC().Add(26*time.Hour), true) {
		if t := recur.At(w, ev.startZone.loc); !t.Before(from) && !t.After(to) {
			out = append(out, t)
		}
	}
	return out, nil
}

// rule converts the pattern to an RRULE on the wall-clock line (wall
// clocks written as UTC) starting at the range's startDate with the
// series' local start time.
func (ev *event) rule() (*rrule.RRule, error) {
	p, rg := ev.recurrence.Pattern, ev.recurrence.Range
	ls := ev.startWall
	sd, _ := time.Parse(time.DateOnly, rg.StartDate)
	opt := rrule.ROption{
		Dtstart:  time.Date(sd.Year(), sd.Month(), sd.Day(), ls.Hour(), ls.Minute(), ls.Second(), 0, time.UTC),
		Interval: p.Interval,
		Wkst:     weekdays[p.FirstDayOfWeek],
	}
	var days []rrule.Weekday
	for _, d := range p.DaysOfWeek {
		days = append(days, weekdays[d])
	}
	switch p.Type {
	case "daily":
		opt.Freq = rrule.DAILY
	case "weekly":
		opt.Freq, opt.Byweekday = rrule.WEEKLY, days
	case "absoluteMonthly":
		opt.Freq, opt.Bymonthday = rrule.MONTHLY, []int{p.DayOfMonth}
	case "relativeMonthly":
		opt.Freq, opt.Byweekday, opt.Bysetpos = rrule.MONTHLY, days, []int{indexes[p.Index]}
	case "absoluteYearly":
		opt.Freq, opt.Bymonth, opt.Bymonthday = rrule.YEARLY, []int{p.Month}, []int{p.DayOfMonth}
	case "relativeYearly":
		opt.Freq, opt.Bymonth, opt.Byweekday, opt.Bysetpos = rrule.YEARLY, []int{p.Month}, days, []int{indexes[p.Index]}
	}
	switch rg.Type {
	case "numbered":
		opt.Count = rg.NumberOfOccurrences
	case "endDate":
		// endDate is inclusive, in recurrenceTimeZone. UNVERIFIED: the
		// fake takes recurrenceTimeZone to be the start's zone, whose wall
		// clock the rule runs on.
		ed, _ := time.Parse(time.DateOnly, rg.EndDate)
		opt.Until = time.Date(ed.Year(), ed.Month(), ed.Day(), 23, 59, 59, 0, time.UTC)
	}
	return rrule.NewRRule(opt)
}

// instance is one item of a calendar view: a single event, an occurrence or
// an exception (or, for GET by ID, a series master).
type instance struct {
	ev            *event // the event itself, or the master of an occurrence
	id, typ       string
	masterID      string
	start, end    time.Time
	originalStart time.Time
}

func (ev *event) instance() instance {
	return instance{ev: ev, id: ev.id, typ: ev.typ, masterID: ev.masterID, start: ev.start, end: ev.end, originalStart: ev.originalStart}
}

// iCalUID differs per occurrence, as event.iCalUId documents; an
// occurrence's embeds its original date.
func (in instance) iCalUID() string {
	if in.typ != "occurrence" && in.typ != "exception" {
		return in.ev.iCalUID
	}
	d := in.originalStart.UTC()
	uid := in.ev.iCalUID
	return uid[:32] + fmt.Sprintf("%04X%02X%02X", d.Year(), int(d.Month()), d.Day()) + uid[40:]
}

// resolve finds an event or occurrence by ID.
func (u *user) resolve(id string) (instance, error) {
	if ev, ok := u.events[id]; ok {
		return ev.instance(), nil
	}
	masterID, orig, ok := parseOccurrenceID(id)
	if !ok {
		return instance{}, errNotFound
	}
	master, ok := u.events[masterID]
	if !ok || master.typ != "seriesMaster" || master.cancelled[orig.Unix()] {
		return instance{}, errNotFound
	}
	hits, err := master.starts(orig.Add(-time.Second), orig.Add(time.Second))
	if err != nil {
		return instance{}, errNotFound
	}
	for _, h := range hits {
		if h.Equal(orig) {
			return master.occurrence(orig), nil
		}
	}
	return instance{}, errNotFound
}

func (ev *event) occurrence(start time.Time) instance {
	return instance{
		ev: ev, id: occurrenceID(ev.id, start), typ: "occurrence", masterID: ev.id,
		start: start, end: start.Add(ev.end.Sub(ev.start)), originalStart: start.UTC(),
	}
}

// instancesIn returns the instances of ev (a single event or a series
// master) that overlap [from, to): for a series its occurrences and
// exceptions, without deleted occurrences.
func (u *user) instancesIn(ev *event, from, to time.Time) []instance {
	overlaps := func(s, e time.Time) bool {
		if e.Equal(s) {
			return !s.Before(from) && s.Before(to)
		}
		return s.Before(to) && e.After(from)
	}
	switch ev.typ {
	case "singleInstance":
		if overlaps(ev.start, ev.end) {
			return []instance{ev.instance()}
		}
		return nil
	case "seriesMaster":
	default:
		return nil
	}
	dur := ev.end.Sub(ev.start)
	starts, err := ev.starts(from.Add(-dur).Add(-time.Second), to)
	if err != nil {
		return nil
	}
	var out []instance
	for _, t := range starts {
		key := t.Unix()
		if ev.cancelled[key] || ev.exceptions[key] != "" {
			continue
		}
		if overlaps(t, t.Add(dur)) {
			out = append(out, ev.occurrence(t))
		}
	}
	for _, id := range ev.exceptions {
		ex := u.events[id]
		if ex != nil && overlaps(ex.start, ex.end) {
			out = append(out, ex.instance())
		}
	}
	sortInstances(out)
	return out
}

func sortInstances(list []instance) {
	slices.SortFunc(list, func(a, b instance) int {
		if d := a.start.Compare(b.start); d != 0 {
			return d
		}
		return strings.Compare(a.id, b.id)
	})
}

// view returns the instances of the events in cal (every calendar when nil)
// that overlap [from, to).
func (u *user) view(cal *calendar, from, to time.Time) []instance {
	var out []instance
	for _, ev := range u.events {
		if ev.typ == "exception" || (cal != nil && ev.calendarID != cal.id) {
			continue
		}
		out = append(out, u.instancesIn(ev, from, to)...)
	}
	sortInstances(out)
	return out
}
