package microsoft

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/recur"
)

// Recurrence conversion between unical's RRULE text lines and Graph's
// patternedRecurrence (reference: providers.md §2.6, and Graph's
// recurrencePattern and recurrenceRange resources).
//
// RRULE to Graph:
//
//	FREQ=DAILY;INTERVAL=n                    daily, interval n
//	FREQ=DAILY;BYDAY=MO,TU (INTERVAL 1)      weekly on those days
//	FREQ=WEEKLY;BYDAY=MO,WE;WKST=SU          weekly, daysOfWeek, firstDayOfWeek
//	FREQ=MONTHLY;BYMONTHDAY=15               absoluteMonthly, dayOfMonth
//	FREQ=MONTHLY;BYDAY=2TH                   relativeMonthly, index second
//	FREQ=MONTHLY;BYDAY=MO,FR;BYSETPOS=-1     relativeMonthly, index last
//	FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15      absoluteYearly
//	FREQ=YEARLY;BYMONTH=11;BYDAY=4TH         relativeYearly
//	COUNT=n / UNTIL=... / neither            numbered / endDate / noEnd
//
// Parts a rule leaves out come from the series start as RFC 5545 says
// (the weekday for WEEKLY, the day of month for MONTHLY, month and day for
// YEARLY). A rule without WKST gets firstDayOfWeek monday, RFC 5545's
// default, and Graph's firstDayOfWeek is written back as WKST unless it is
// monday; Graph itself defaults to sunday, so an empty firstDayOfWeek is
// read as sunday.
//
// UNTIL becomes endDate, the date of UNTIL in the series' zone (Graph's
// endDate is an inclusive date in recurrenceTimeZone). Reading back, a
// timed series gets UNTIL at 23:59:59 of endDate in that zone, in UTC; an
// all-day series gets a DATE. The time of day of UNTIL is therefore lost.
//
// Graph cannot express, and the conversion refuses with CodeInvalid naming
// the line: FREQ=SECONDLY/MINUTELY/HOURLY, BYHOUR, BYMINUTE, BYSECOND,
// BYYEARDAY, BYWEEKNO, several or negative BYMONTHDAY values, several
// BYMONTH values, BYMONTH outside YEARLY, BYSETPOS other than 1..4 or -1 or
// without a plain BYDAY, BYDAY ordinals other than 1..4 or -1 or on several
// days, a plain BYDAY in MONTHLY or YEARLY without BYSETPOS, BYDAY with
// INTERVAL above 1 in DAILY, more than one RRULE, and EXRULE, RDATE and
// EXDATE lines (Graph has no such fields; removed occurrences are deleted
// one by one instead).

// Graph's weekday names by RRULE weekday code, and back.
var (
	graphDays = map[string]string{
		"SU": "sunday", "MO": "monday", "TU": "tuesday", "WE": "wednesday",
		"TH": "thursday", "FR": "friday", "SA": "saturday",
	}
	rruleDays = map[string]string{
		"sunday": "SU", "monday": "MO", "tuesday": "TU", "wednesday": "WE",
		"thursday": "TH", "friday": "FR", "saturday": "SA",
	}
	// goDays maps time.Weekday to Graph's names.
	goDays = [...]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
)

// Graph's relative index names by ordinal, and back.
var (
	graphIndexes = map[int]string{1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}
	rruleIndexes = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}
)

// Graph's pattern and range types.
const (
	patternDaily           = "daily"
	patternWeekly          = "weekly"
	patternAbsoluteMonthly = "absoluteMonthly"
	patternRelativeMonthly = "relativeMonthly"
	patternAbsoluteYearly  = "absoluteYearly"
	patternRelativeYearly  = "relativeYearly"

	rangeEndDate  = "endDate"
	rangeNoEnd    = "noEnd"
	rangeNumbered = "numbered"
)

// recurrenceToGraph converts an event's recurrence lines to Graph's
// patternedRecurrence. start is the first start of the series in the
// series' own zone: it fills the parts the rule leaves out, sets
// range.startDate and decides the date of UNTIL. zoneName is the Graph zone
// name written to range.recurrenceTimeZone ("" leaves it to Graph, which
// takes the start's zone). allDay says the series is all-day, which
// decides the kind of UNTIL the lines may hold. Empty lines give a nil recurrence. Errors are
// CodeInvalid and name the offending line as "recurrence[i]".
func recurrenceToGraph(lines []string, start time.Time, zoneName string, allDay bool) (*patternedRecurrence, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	if err := recur.Validate(lines, allDay); err != nil {
		var pe *recur.ParseError
		if errors.As(err, &pe) {
			field := "recurrence"
			if pe.Index >= 0 {
				field = fmt.Sprintf("recurrence[%d]", pe.Index)
			}
			return nil, unical.FieldError(field, "%s: %s", pe.Field, pe.Reason)
		}
		return nil, unical.FieldError("recurrence", "%v", err)
	}
	ruleAt, rule := -1, ""
	for i, line := range lines {
		field := fmt.Sprintf("recurrence[%d]", i)
		if strings.TrimSpace(line) == "" {
			continue // as recur.Validate tolerates it
		}
		// Split as validated: a quoted parameter value may hold ':'.
		l, err := recur.ReadLine(line)
		if err != nil {
			return nil, unical.FieldError(field, "%v", err)
		}
		switch l.Name {
		case "RRULE":
			if ruleAt >= 0 {
				return nil, unical.FieldError(field, "Microsoft Graph allows one RRULE per event and recurrence[%d] already holds one.", ruleAt)
			}
			if len(l.Params) > 0 {
				return nil, unical.FieldError(field, "Microsoft Graph cannot express parameters on an RRULE (%s).", l.Head)
			}
			ruleAt, rule = i, l.Value
		case "EXRULE":
			return nil, unical.FieldError(field, "Microsoft Graph has no EXRULE; express the series with one RRULE.")
		case "RDATE":
			return nil, unical.FieldError(field, "Microsoft Graph has no RDATE; create extra dates as separate events.")
		case "EXDATE":
			return nil, unical.FieldError(field, "Microsoft Graph has no EXDATE; delete the occurrence after creating the series instead.")
		}
	}
	if ruleAt < 0 {
		return nil, unical.FieldError("recurrence", "recurrence needs one RRULE line for Microsoft Graph.")
	}
	return ruleToGraph(rule, fmt.Sprintf("recurrence[%d]", ruleAt), start, zoneName)
}

// byDay is one BYDAY entry: an optional ordinal and a Graph weekday name.
type byDay struct {
	ord int
	day string
}

// ruleToGraph converts one RRULE value; field names it in errors.
func ruleToGraph(rule, field string, start time.Time, zoneName string) (*patternedRecurrence, error) {
	refuse := func(format string, args ...any) error {
		return unical.FieldError(field, "Microsoft Graph cannot express "+format, args...)
	}
	parts := map[string]string{}
	for _, p := range strings.Split(rule, ";") {
		k, v, _ := strings.Cut(p, "=")
		parts[strings.ToUpper(k)] = strings.ToUpper(v)
	}
	for _, k := range []string{"BYHOUR", "BYMINUTE", "BYSECOND", "BYYEARDAY", "BYWEEKNO"} {
		if v, ok := parts[k]; ok {
			return nil, refuse("%s=%s: a series repeats at the start's time of day on whole days.", k, v)
		}
	}
	freq := parts["FREQ"]
	interval := 1
	if v, ok := parts["INTERVAL"]; ok {
		interval, _ = strconv.Atoi(v) // validated as >= 1
	}
	var days []byDay
	hasOrd := false
	if v, ok := parts["BYDAY"]; ok {
		for _, d := range strings.Split(v, ",") {
			bd := byDay{day: graphDays[d[len(d)-2:]]}
			if n := d[:len(d)-2]; n != "" {
				bd.ord, _ = strconv.Atoi(n)
				if _, ok := graphIndexes[bd.ord]; !ok {
					return nil, refuse("BYDAY=%s: the ordinal must be 1, 2, 3, 4 or -1 (first to fourth, or last).", v)
				}
				hasOrd = true
			}
			if slices.ContainsFunc(days, func(x byDay) bool { return x.day == bd.day }) {
				return nil, refuse("BYDAY=%s: each weekday may appear once.", v)
			}
			days = append(days, bd)
		}
		if hasOrd && len(days) > 1 {
			return nil, refuse("BYDAY=%s: an ordinal weekday must stand alone; use BYDAY=MO,TU;BYSETPOS=n for the n-th of several weekdays.", v)
		}
		for _, d := range days {
			if (d.ord != 0) != hasOrd {
				return nil, refuse("BYDAY=%s: mix of weekdays with and without ordinals.", v)
			}
		}
	}
	monthDay := 0
	if v, ok := parts["BYMONTHDAY"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, refuse("BYMONTHDAY=%s: only one day of the month from 1 to 31.", v)
		}
		monthDay = n
	}
	month := 0
	if v, ok := parts["BYMONTH"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, refuse("BYMONTH=%s: only one month.", v)
		}
		month = n
	}
	setPos := 0
	if v, ok := parts["BYSETPOS"]; ok {
		n, err := strconv.Atoi(v)
		if _, known := graphIndexes[n]; err != nil || !known {
			return nil, refuse("BYSETPOS=%s: only one of 1, 2, 3, 4 or -1 (first to fourth, or last).", v)
		}
		setPos = n
	}
	notWith := func(k string) error {
		if v, ok := parts[k]; ok {
			return refuse("%s=%s with FREQ=%s.", k, v, freq)
		}
		return nil
	}
	weekStart := "monday" // RFC 5545's default WKST
	if v, ok := parts["WKST"]; ok {
		weekStart = graphDays[v]
	}
	names := func() []string {
		out := make([]string, len(days))
		for i, d := range days {
			out[i] = d.day
		}
		return out
	}

	p := recurrencePattern{Interval: interval}
	switch freq {
	case "SECONDLY", "MINUTELY", "HOURLY":
		return nil, refuse("FREQ=%s: the smallest unit is DAILY.", freq)
	case "DAILY":
		for _, k := range []string{"BYMONTH", "BYMONTHDAY", "BYSETPOS"} {
			if err := notWith(k); err != nil {
				return nil, err
			}
		}
		switch {
		case len(days) == 0:
			p.Type = patternDaily
		case hasOrd:
			return nil, refuse("BYDAY=%s with FREQ=DAILY.", parts["BYDAY"])
		case interval != 1:
			return nil, refuse("FREQ=DAILY;INTERVAL=%d with BYDAY; use FREQ=WEEKLY.", interval)
		default:
			// Every listed weekday, every week.
			p.Type, p.DaysOfWeek, p.FirstDayOfWeek = patternWeekly, names(), weekStart
		}
	case "WEEKLY":
		for _, k := range []string{"BYMONTH", "BYMONTHDAY", "BYSETPOS"} {
			if err := notWith(k); err != nil {
				return nil, err
			}
		}
		if hasOrd {
			return nil, refuse("BYDAY=%s with FREQ=WEEKLY: ordinals need MONTHLY or YEARLY.", parts["BYDAY"])
		}
		p.Type, p.FirstDayOfWeek = patternWeekly, weekStart
		if len(days) == 0 {
			p.DaysOfWeek = []string{goDays[start.Weekday()]}
		} else {
			p.DaysOfWeek = names()
		}
	case "MONTHLY", "YEARLY":
		relative, absolute := patternRelativeMonthly, patternAbsoluteMonthly
		if freq == "MONTHLY" {
			if err := notWith("BYMONTH"); err != nil {
				return nil, err
			}
		} else {
			relative, absolute = patternRelativeYearly, patternAbsoluteYearly
			if month == 0 {
				if len(days) > 0 || monthDay != 0 {
					return nil, refuse("FREQ=YEARLY with BYDAY or BYMONTHDAY but no BYMONTH: it repeats in every month.")
				}
				month = int(start.Month())
			}
			p.Month = month
		}
		switch {
		case len(days) > 0 && monthDay != 0:
			return nil, refuse("BYDAY together with BYMONTHDAY.")
		case len(days) > 0 && hasOrd:
			if setPos != 0 {
				return nil, refuse("BYSETPOS together with a BYDAY ordinal.")
			}
			p.Type, p.DaysOfWeek, p.Index = relative, names(), graphIndexes[days[0].ord]
		case len(days) > 0:
			if setPos == 0 {
				return nil, refuse("BYDAY=%s with FREQ=%s and no ordinal: it repeats on every such weekday; add BYSETPOS or an ordinal such as 1MO.", parts["BYDAY"], freq)
			}
			p.Type, p.DaysOfWeek, p.Index = relative, names(), graphIndexes[setPos]
		default:
			if setPos != 0 {
				return nil, refuse("BYSETPOS without BYDAY.")
			}
			if monthDay == 0 {
				monthDay = start.Day()
			}
			p.Type, p.DayOfMonth = absolute, monthDay
		}
	}

	r := &patternedRecurrence{Pattern: p, Range: recurrenceRange{
		Type:               rangeNoEnd,
		StartDate:          start.Format(unical.DateLayout),
		RecurrenceTimeZone: zoneName,
	}}
	if v, ok := parts["COUNT"]; ok {
		r.Range.Type = rangeNumbered
		r.Range.NumberOfOccurrences, _ = strconv.Atoi(v)
	} else if v, ok := parts["UNTIL"]; ok {
		end, err := untilDate(v, start.Location())
		if err != nil {
			return nil, unical.FieldError(field, "UNTIL=%s is not a date or date-time.", v)
		}
		if end < r.Range.StartDate {
			return nil, unical.FieldError(field, "UNTIL=%s is before the series starts on %s.", v, r.Range.StartDate)
		}
		r.Range.Type, r.Range.EndDate = rangeEndDate, end
	}
	return r, nil
}

// untilDate returns the date of an UNTIL value in loc: a DATE as it is, a
// UTC DATE-TIME converted to loc, a floating DATE-TIME by its date.
func untilDate(v string, loc *time.Location) (string, error) {
	switch {
	case len(v) == 8:
		t, err := time.Parse("20060102", v)
		return t.Format(unical.DateLayout), err
	case strings.HasSuffix(v, "Z"):
		t, err := time.Parse("20060102T150405Z", v)
		return t.In(loc).Format(unical.DateLayout), err
	default:
		t, err := time.Parse("20060102T150405", v)
		return t.Format(unical.DateLayout), err
	}
}

// recurrenceFromGraph converts Graph's recurrence to one RRULE line. allDay
// makes UNTIL a DATE. The range's recurrenceTimeZone decides the instant of
// UNTIL for timed series; loc stands in when Graph gives none. An error
// means Graph sent a recurrence it does not document.
func recurrenceFromGraph(r *patternedRecurrence, allDay bool, loc *time.Location) ([]string, error) {
	if r == nil {
		return nil, nil
	}
	p, rg := r.Pattern, r.Range
	var b strings.Builder
	add := func(k, v string) {
		b.WriteString(";")
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(v)
	}
	days := func() (string, error) {
		if len(p.DaysOfWeek) == 0 {
			return "", fmt.Errorf("microsoft: %s recurrence without daysOfWeek", p.Type)
		}
		out := make([]string, len(p.DaysOfWeek))
		for i, d := range p.DaysOfWeek {
			code, ok := rruleDays[strings.ToLower(d)]
			if !ok {
				return "", fmt.Errorf("microsoft: unknown day of week %q", d)
			}
			out[i] = code
		}
		return strings.Join(out, ","), nil
	}
	relative := func() error {
		list, err := days()
		if err != nil {
			return err
		}
		index := p.Index
		if index == "" {
			index = "first"
		}
		n, ok := rruleIndexes[index]
		if !ok {
			return fmt.Errorf("microsoft: unknown recurrence index %q", p.Index)
		}
		if len(p.DaysOfWeek) == 1 {
			add("BYDAY", strconv.Itoa(n)+list)
		} else {
			add("BYDAY", list)
			add("BYSETPOS", strconv.Itoa(n))
		}
		return nil
	}
	checkMonth := func() error {
		if p.Month < 1 || p.Month > 12 {
			return fmt.Errorf("microsoft: %s recurrence with month %d", p.Type, p.Month)
		}
		return nil
	}
	checkDay := func() error {
		if p.DayOfMonth < 1 || p.DayOfMonth > 31 {
			return fmt.Errorf("microsoft: %s recurrence with dayOfMonth %d", p.Type, p.DayOfMonth)
		}
		return nil
	}

	b.WriteString("RRULE:FREQ=")
	switch p.Type {
	case patternDaily:
		b.WriteString("DAILY")
	case patternWeekly:
		b.WriteString("WEEKLY")
	case patternAbsoluteMonthly, patternRelativeMonthly:
		b.WriteString("MONTHLY")
	case patternAbsoluteYearly, patternRelativeYearly:
		b.WriteString("YEARLY")
	default:
		return nil, fmt.Errorf("microsoft: unknown recurrence pattern type %q", p.Type)
	}
	if p.Interval > 1 {
		add("INTERVAL", strconv.Itoa(p.Interval))
	}
	switch p.Type {
	case patternWeekly:
		list, err := days()
		if err != nil {
			return nil, err
		}
		add("BYDAY", list)
		wkst := strings.ToLower(p.FirstDayOfWeek)
		if wkst == "" {
			wkst = "sunday" // Graph's default
		}
		code, ok := rruleDays[wkst]
		if !ok {
			return nil, fmt.Errorf("microsoft: unknown firstDayOfWeek %q", p.FirstDayOfWeek)
		}
		if code != "MO" {
			add("WKST", code)
		}
	case patternAbsoluteMonthly:
		if err := checkDay(); err != nil {
			return nil, err
		}
		add("BYMONTHDAY", strconv.Itoa(p.DayOfMonth))
	case patternRelativeMonthly:
		if err := relative(); err != nil {
			return nil, err
		}
	case patternAbsoluteYearly:
		if err := checkMonth(); err != nil {
			return nil, err
		}
		if err := checkDay(); err != nil {
			return nil, err
		}
		add("BYMONTH", strconv.Itoa(p.Month))
		add("BYMONTHDAY", strconv.Itoa(p.DayOfMonth))
	case patternRelativeYearly:
		if err := checkMonth(); err != nil {
			return nil, err
		}
		add("BYMONTH", strconv.Itoa(p.Month))
		if err := relative(); err != nil {
			return nil, err
		}
	}

	switch rg.Type {
	case rangeNoEnd, "":
	case rangeNumbered:
		if rg.NumberOfOccurrences < 1 {
			return nil, fmt.Errorf("microsoft: numbered recurrence range with %d occurrences", rg.NumberOfOccurrences)
		}
		add("COUNT", strconv.Itoa(rg.NumberOfOccurrences))
	case rangeEndDate:
		end, err := time.Parse(unical.DateLayout, rg.EndDate)
		if err != nil {
			return nil, fmt.Errorf("microsoft: recurrence endDate %q: %w", rg.EndDate, err)
		}
		if allDay {
			add("UNTIL", end.Format("20060102"))
			break
		}
		zl := loc
		if rg.RecurrenceTimeZone != "" {
			if zl, _, err = zoneLocation(rg.RecurrenceTimeZone); err != nil {
				return nil, err
			}
		}
		if zl == nil {
			zl = time.UTC
		}
		last := recur.Date(end.Year(), end.Month(), end.Day(), 23, 59, 59, zl)
		add("UNTIL", last.UTC().Format("20060102T150405Z"))
	default:
		return nil, fmt.Errorf("microsoft: unknown recurrence range type %q", rg.Type)
	}
	return []string{b.String()}, nil
}
