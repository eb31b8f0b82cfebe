package unical

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ValidateRecurrenceLine checks one line of an event's recurrence field:
// an RRULE, EXRULE, RDATE or EXDATE line in RFC 5545 text form (section
// 3.8.5). The error says which part is wrong.
func ValidateRecurrenceLine(line string) error {
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return fmt.Errorf("%q is not an iCalendar line such as RRULE:FREQ=WEEKLY;BYDAY=MO", line)
	}
	prop, params, _ := strings.Cut(name, ";")
	switch strings.ToUpper(prop) {
	case "RRULE", "EXRULE":
		if params != "" {
			return fmt.Errorf("%s takes no parameters", prop)
		}
		return validateRule(value)
	case "RDATE", "EXDATE":
		return validateDates(prop, params, value)
	}
	return fmt.Errorf("%q: only RRULE, EXRULE, RDATE and EXDATE lines are allowed", prop)
}

var weekdays = map[string]bool{"MO": true, "TU": true, "WE": true, "TH": true, "FR": true, "SA": true, "SU": true}

// validateRule checks an RRULE value (RFC 5545 section 3.3.10).
func validateRule(rule string) error {
	if rule == "" {
		return errors.New("RRULE is empty")
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(rule, ";") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.ToUpper(k)
		if !ok || v == "" {
			return fmt.Errorf("RRULE part %q is not NAME=VALUE", part)
		}
		if seen[k] {
			return fmt.Errorf("RRULE part %s appears twice", k)
		}
		seen[k] = true
		switch k {
		case "FREQ":
			switch strings.ToUpper(v) {
			case "SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY":
			default:
				return fmt.Errorf("RRULE FREQ=%s is not a frequency", v)
			}
		case "INTERVAL", "COUNT":
			if n, err := strconv.Atoi(v); err != nil || n < 1 {
				return fmt.Errorf("RRULE %s=%s must be a whole number of at least 1", k, v)
			}
		case "UNTIL":
			if _, err := parseICalTime(v, time.UTC); err != nil {
				return fmt.Errorf("RRULE UNTIL=%s is not a date or date-time", v)
			}
		case "WKST":
			if !weekdays[strings.ToUpper(v)] {
				return fmt.Errorf("RRULE WKST=%s is not a weekday", v)
			}
		case "BYDAY":
			for _, d := range strings.Split(v, ",") {
				d = strings.ToUpper(d)
				if len(d) < 2 || !weekdays[d[len(d)-2:]] {
					return fmt.Errorf("RRULE BYDAY=%s: %q is not a weekday", v, d)
				}
				if n := d[:len(d)-2]; n != "" {
					if i, err := strconv.Atoi(n); err != nil || i == 0 || i < -53 || i > 53 {
						return fmt.Errorf("RRULE BYDAY=%s: %q has a bad ordinal", v, d)
					}
				}
			}
		case "BYMONTH", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYHOUR", "BYMINUTE", "BYSECOND":
			lo, hi := byRange(k)
			for _, n := range strings.Split(v, ",") {
				i, err := strconv.Atoi(n)
				if err != nil || i < lo || i > hi || (i == 0 && lo < 0) {
					return fmt.Errorf("RRULE %s=%s: %q is out of range", k, v, n)
				}
			}
		default:
			return fmt.Errorf("RRULE part %s is unknown", k)
		}
	}
	if !seen["FREQ"] {
		return errors.New("RRULE needs FREQ")
	}
	if seen["COUNT"] && seen["UNTIL"] {
		return errors.New("RRULE cannot have both COUNT and UNTIL")
	}
	return nil
}

func byRange(k string) (lo, hi int) {
	switch k {
	case "BYMONTH":
		return 1, 12
	case "BYMONTHDAY":
		return -31, 31
	case "BYYEARDAY", "BYSETPOS":
		return -366, 366
	case "BYWEEKNO":
		return -53, 53
	case "BYHOUR":
		return 0, 23
	}
	return 0, 60
}

// validateDates checks an RDATE or EXDATE value list with its parameters.
func validateDates(prop, params, value string) error {
	loc := time.UTC
	isPeriod := false
	for _, p := range strings.Split(params, ";") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		switch strings.ToUpper(k) {
		case "TZID":
			l, err := LoadLocation(strings.Trim(v, `"`))
			if err != nil {
				return fmt.Errorf("%s TZID=%s is not an IANA time zone", prop, v)
			}
			loc = l
		case "VALUE":
			switch strings.ToUpper(v) {
			case "DATE", "DATE-TIME":
			case "PERIOD":
				isPeriod = true
			default:
				return fmt.Errorf("%s VALUE=%s is not DATE, DATE-TIME or PERIOD", prop, v)
			}
		}
	}
	if value == "" {
		return fmt.Errorf("%s has no value", prop)
	}
	for _, v := range strings.Split(value, ",") {
		if isPeriod {
			start, _, ok := strings.Cut(v, "/")
			if !ok {
				return fmt.Errorf("%s period %q needs start/end", prop, v)
			}
			v = start
		}
		if _, err := parseICalTime(v, loc); err != nil {
			return fmt.Errorf("%s value %q is not a date or date-time", prop, v)
		}
	}
	return nil
}

// parseICalTime reads an iCalendar DATE or DATE-TIME value.
func parseICalTime(v string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{"20060102T150405Z", "20060102T150405", "20060102"} {
		l := loc
		if strings.HasSuffix(layout, "Z") {
			l = time.UTC
		}
		if t, err := time.ParseInLocation(layout, v, l); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("bad date")
}
