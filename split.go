package unical

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical/internal/recur"
)

// SplitRecurrence splits the recurrence lines of a series that starts at
// start (a date label at midnight UTC for all-day series) at the occurrence
// that originally starts at `at`, for "this and following" edits:
//
//   - before holds the lines of the series cut short just before `at`. An
//     RRULE with COUNT stays counted: when the rule made k-1 occurrences
//     before `at`, before gets COUNT=k-1. Any other RRULE gets UNTIL set to
//     the start of its last occurrence before `at`, rather than to just
//     before `at`, so that a provider whose series end is a date (Graph's
//     endDate, inclusive, in the series zone) reads the same end. A rule
//     with no occurrence before `at` is left out. RDATE and EXDATE values
//     before `at` stay; the others go to after.
//   - after holds the lines of a series that starts at at+shift: an RRULE
//     with COUNT=n gets COUNT=n-k+1 (left out when nothing is left), one
//     with UNTIL keeps its bound moved by shift (left out when it ended
//     before `at`), and the RDATE and EXDATE values from `at` on are moved
//     by shift, as the whole series is.
//
// The lines must have passed validation; an RRULE that cannot be read is an
// error naming the line as recurrence[i].
func SplitRecurrence(lines []string, start time.Time, allDay bool, at time.Time, shift time.Duration) (before, after []string, err error) {
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		head, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, nil, invalidf(fmt.Sprintf("recurrence[%d]", i), "%q is not a recurrence line.", raw)
		}
		name, params, _ := strings.Cut(head, ";")
		switch strings.ToUpper(name) {
		case "RRULE", "EXRULE":
			b, a, err := splitRule(strings.ToUpper(name), value, start, allDay, at, shift)
			if err != nil {
				return nil, nil, recurrenceError(err)
			}
			if b != "" {
				before = append(before, b)
			}
			if a != "" {
				after = append(after, a)
			}
		case "RDATE", "EXDATE":
			b, a, err := splitDates(head, params, value, start, allDay, at, shift)
			if err != nil {
				return nil, nil, invalidf(fmt.Sprintf("recurrence[%d]", i), "%q: %v", raw, err)
			}
			if b != "" {
				before = append(before, b)
			}
			if a != "" {
				after = append(after, a)
			}
		default:
			before, after = append(before, line), append(after, line)
		}
	}
	return before, after, nil
}

// splitRule splits one RRULE or EXRULE value (see SplitRecurrence).
func splitRule(name, value string, start time.Time, allDay bool, at time.Time, shift time.Duration) (before, after string, err error) {
	set, err := recur.Parse([]string{"RRULE:" + value}, start, allDay)
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
			return "", "", &recur.ParseError{Index: -1, Field: "UNTIL", Reason: err.Error()}
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
			t = time.Date(t.Year(), t.Month(), t.Day(), 23, 59, 59, 0, loc)
		}
		return t, err
	case strings.HasSuffix(v, "Z"):
		t, err := time.ParseInLocation("20060102T150405Z", v, time.UTC)
		if err == nil && allDay {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
		return t, err
	default:
		t, err := time.ParseInLocation("20060102T150405", v, loc)
		if err == nil && allDay {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
		return t, err
	}
}

// splitDates splits the values of one RDATE or EXDATE line at `at` and
// moves the later ones by shift. Values keep their form: a DATE, a UTC
// DATE-TIME, or a local one in the line's TZID (the series zone without
// one); a PERIOD is placed by its start.
func splitDates(head, params, value string, start time.Time, allDay bool, at time.Time, shift time.Duration) (before, after string, err error) {
	loc := start.Location()
	for _, p := range strings.Split(params, ";") {
		if k, v, ok := strings.Cut(p, "="); ok && strings.EqualFold(k, "TZID") {
			if loc, err = LoadLocation(strings.Trim(v, `"`)); err != nil {
				return "", "", fmt.Errorf("TZID %q is not a known zone", v)
			}
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
		t, err = time.ParseInLocation("20060102T150405", v, loc)
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

func formatDateValue(t time.Time, form dateForm, loc *time.Location) string {
	switch form {
	case formDate:
		return t.In(loc).Format("20060102")
	case formUTC:
		return t.UTC().Format("20060102T150405Z")
	}
	return t.In(loc).Format("20060102T150405")
}
