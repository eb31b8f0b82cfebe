package recur

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The text of a series split in two for a "this and following" edit: the
// rule and date lines rewritten to end before an occurrence and to start
// from it.

// SplitRule splits one RRULE or EXRULE value (see unical.SplitRecurrence, whose
// rule lines it handles): before ends the series just before at, after
// continues it from at moved by shift; either is "" when nothing is left.
func SplitRule(name, value string, start time.Time, allDay bool, at time.Time, shift time.Duration) (before, after string, err error) {
	set, err := Parse([]string{"RRULE:" + value}, start, allDay)
	if err != nil {
		return "", "", err
	}
	made := 0
	var last time.Time
	for occ := range set.StartingIn(start, at, 0) {
		if !occ.OriginalStart.Before(at) {
			break
		}
		made++
		last = occ.OriginalStart
	}
	parts := strings.Split(value, ";")
	count, hasCount := -1, false
	until := -1
	for i, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		switch strings.ToUpper(k) {
		case "COUNT":
			if n, err := strconv.Atoi(v); err == nil {
				count, hasCount = n, true
			}
		case "UNTIL":
			until = i
		}
	}
	with := func(key, val string) string {
		var out []string
		for _, p := range parts {
			k, _, _ := strings.Cut(p, "=")
			if u := strings.ToUpper(k); u == "COUNT" || u == "UNTIL" {
				continue
			}
			out = append(out, p)
		}
		if key != "" {
			out = append(out, key+"="+val)
		}
		return name + ":" + strings.Join(out, ";")
	}
	if made > 0 {
		if hasCount {
			before = with("COUNT", strconv.Itoa(made))
		} else {
			before = with("UNTIL", formatUntil(last, allDay))
		}
	}
	switch {
	case hasCount:
		if left := count - made; left > 0 {
			after = with("COUNT", strconv.Itoa(left))
		}
	case until >= 0:
		_, v, _ := strings.Cut(parts[until], "=")
		u, err := parseUntil(v, start.Location(), allDay)
		if err != nil {
			return "", "", &ParseError{Index: -1, Field: "UNTIL", Reason: err.Error()}
		}
		if !u.Before(at) {
			after = with("UNTIL", formatUntil(u.Add(shift), allDay))
		}
	default:
		after = name + ":" + value
	}
	return before, after, nil
}

// formatUntil writes an UNTIL value: a DATE for all-day series, a UTC
// DATE-TIME otherwise (RFC 5545 §3.3.10 wants UTC when DTSTART has a zone).
func formatUntil(t time.Time, allDay bool) string {
	if allDay {
		return t.Format("20060102")
	}
	return t.UTC().Format("20060102T150405Z")
}

// parseUntil reads an UNTIL value; a floating one is read in loc.
func parseUntil(v string, loc *time.Location, allDay bool) (time.Time, error) {
	switch {
	case len(v) == len("20060102"):
		t, err := time.ParseInLocation("20060102", v, time.UTC)
		if err == nil && !allDay {
			t = Date(t.Year(), t.Month(), t.Day(), 23, 59, 59, loc)
		}
		return t, err
	case strings.HasSuffix(v, "Z"):
		t, err := time.ParseInLocation("20060102T150405Z", v, time.UTC)
		if err == nil && allDay {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
		return t, err
	default:
		t, err := ParseLocal("20060102T150405", v, loc)
		if err == nil && allDay {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
		return t, err
	}
}

// SplitDates splits the values of one RDATE or EXDATE line at `at` and
// moves the later ones by shift. Values keep their form: a DATE, a UTC
// DATE-TIME, or a local one in the line's TZID (the series zone without
// one); a PERIOD is placed by its start.
func SplitDates(l Line, start time.Time, allDay bool, at time.Time, shift time.Duration) (before, after string, err error) {
	head, value := l.Head, l.Value
	loc := start.Location()
	if tzid, ok := l.Params["TZID"]; ok {
		if loc, err = LoadLocation(tzid); err != nil {
			return "", "", fmt.Errorf("TZID %q is not a known zone", tzid)
		}
	}
	var early, late []string
	for _, v := range strings.Split(value, ",") {
		first, rest, isPeriod := strings.Cut(v, "/")
		t, form, err := parseDateValue(first, loc, allDay)
		if err != nil {
			return "", "", err
		}
		if t.Before(at) {
			early = append(early, v)
			continue
		}
		moved := formatDateValue(t.Add(shift), form, loc)
		if isPeriod {
			if e, eform, err := parseDateValue(rest, loc, allDay); err == nil && !strings.HasPrefix(rest, "P") {
				rest = formatDateValue(e.Add(shift), eform, loc)
			}
			moved += "/" + rest
		}
		late = append(late, moved)
	}
	if len(early) > 0 {
		before = head + ":" + strings.Join(early, ",")
	}
	if len(late) > 0 {
		after = head + ":" + strings.Join(late, ",")
	}
	return before, after, nil
}

// dateForm is the form a DATE or DATE-TIME value was written in.
type dateForm int

const (
	formDate dateForm = iota
	formUTC
	formLocal
)

// parseDateValue reads a DATE or DATE-TIME value as the instant (or, in
// all-day series, the date label) it names.
func parseDateValue(v string, loc *time.Location, allDay bool) (time.Time, dateForm, error) {
	var (
		t    time.Time
		form dateForm
		err  error
	)
	switch {
	case len(v) == len("20060102"):
		t, err = time.ParseInLocation("20060102", v, time.UTC)
		form = formDate
		if err == nil && !allDay {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		}
	case strings.HasSuffix(v, "Z"):
		t, err = time.ParseInLocation("20060102T150405Z", v, time.UTC)
		form = formUTC
	default:
		t, err = ParseLocal("20060102T150405", v, loc)
		form = formLocal
	}
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("%q is not a DATE or DATE-TIME value", v)
	}
	if allDay && form != formDate {
		t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t, form, nil
}

// formatDateValue writes t in form, the form it was read in.
func formatDateValue(t time.Time, form dateForm, loc *time.Location) string {
	switch form {
	case formDate:
		return t.In(loc).Format("20060102")
	case formUTC:
		return t.UTC().Format("20060102T150405Z")
	}
	return t.In(loc).Format("20060102T150405")
}
