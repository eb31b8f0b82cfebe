package recur

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/teambition/rrule-go"
)

// ParseError reports a recurrence line that cannot be used. The Client
// turns it into a CodeInvalid error on the "recurrence" field.
type ParseError struct {
	// Index is the position of the line in the slice given to Parse or
	// Validate, or -1 when the series start itself is at fault.
	Index int
	// Line is the offending line as given.
	Line string
	// Field names the part at fault: a property name ("RDATE"), a parameter
	// ("TZID", "VALUE") or a rule part ("FREQ", "BYDAY", "UNTIL").
	Field string
	// Reason says what is wrong, for people.
	Reason string
}

// Error implements the error interface.
func (e *ParseError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("recur: %s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("recur: recurrence[%d] %q: %s: %s", e.Index, e.Line, e.Field, e.Reason)
}

// valueKind is the form of an iCalendar DATE or DATE-TIME value
// (RFC 5545 §3.3.4, §3.3.5).
type valueKind uint8

const (
	kindDate  valueKind = iota // 20260105
	kindLocal                  // 20260105T090000, with or without TZID
	kindUTC                    // 20260105T080000Z
)

// dtValue is one DATE or DATE-TIME value as written.
type dtValue struct {
	year           int
	month          time.Month
	day            int
	hour, min, sec int
	kind           valueKind
	loc            *time.Location // from TZID; nil for floating and UTC values
}

// label returns the value's own digits read as UTC, in Unix seconds.
func (v dtValue) label() int64 {
	return time.Date(v.year, v.month, v.day, v.hour, v.min, v.sec, 0, time.UTC).Unix()
}

// dayLabel returns the value's date at midnight read as UTC, in Unix
// seconds: the key of an all-day instance.
func (v dtValue) dayLabel() int64 {
	return time.Date(v.year, v.month, v.day, 0, 0, 0, 0, time.UTC).Unix()
}

// nominal is a duration in the sense of RFC 5545 §3.3.6: weeks and days are
// nominal (calendar days), the time part is exact.
type nominal struct {
	days int
	secs int64
}

// period is one RDATE;VALUE=PERIOD value (RFC 5545 §3.3.9): an explicit end,
// or a duration from the start.
type period struct {
	start, end dtValue
	hasEnd     bool
	dur        nominal
}

// recurLine is a parsed RRULE or EXRULE line (RFC 5545 §3.3.10).
type recurLine struct {
	index   int
	exclude bool // EXRULE
	opt     rrule.ROption
	until   *dtValue
}

// datesLine is a parsed RDATE or EXDATE line (RFC 5545 §3.8.5.1-2).
type datesLine struct {
	index   int
	exclude bool // EXDATE
	values  []dtValue
	periods []period
}

// lines is the parsed form of a recurrence field, independent of DTSTART.
type lines struct {
	rules []recurLine
	dates []datesLine
}

// Validate reports whether lines form a usable recurrence for a series that
// is all-day or not, without expanding anything. It accepts what Parse
// accepts and returns the same *ParseError. Use it to check a recurrence
// field on create and update.
func Validate(recurrence []string, allDay bool) error {
	_, err := parseLines(recurrence, allDay)
	return err
}

func parseLines(recurrence []string, allDay bool) (*lines, error) {
	var out lines
	for i, raw := range recurrence {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue // Tolerated: generators often leave a trailing empty line.
		}
		name, params, value, perr := splitProperty(line)
		if perr != nil {
			return nil, lineError(i, raw, perr.field, perr.reason)
		}
		switch name {
		case "RRULE", "EXRULE":
			rl, perr := parseRecur(value, allDay)
			if perr != nil {
				return nil, lineError(i, raw, perr.field, perr.reason)
			}
			rl.index, rl.exclude = i, name == "EXRULE"
			out.rules = append(out.rules, rl)
		case "RDATE", "EXDATE":
			dl, perr := parseDates(name, params, value, allDay)
			if perr != nil {
				return nil, lineError(i, raw, perr.field, perr.reason)
			}
			dl.index, dl.exclude = i, name == "EXDATE"
			out.dates = append(out.dates, dl)
		case "DTSTART":
			return nil, lineError(i, raw, name, "the series start is not part of the recurrence; pass it as the event start")
		default:
			return nil, lineError(i, raw, name, "not a recurrence property (want RRULE, EXRULE, RDATE or EXDATE)")
		}
	}
	return &out, nil
}

// fieldError is a ParseError before the line is known.
type fieldError struct{ field, reason string }

func errf(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, reason: fmt.Sprintf(format, args...)}
}

func lineError(i int, line, field, reason string) *ParseError {
	return &ParseError{Index: i, Line: line, Field: field, Reason: reason}
}

// Line is a recurrence line split as Validate reads it.
type Line struct {
	Name   string            // upper case: RRULE, EXRULE, RDATE or EXDATE
	Head   string            // the name and parameters as written, before the ':'
	Params map[string]string // upper-cased names, unquoted values
	Value  string
}

// ReadLine splits one recurrence line as Validate does. Callers that take
// a line apart after validation use it rather than cutting at the first
// ':', which a quoted parameter value may hold.
func ReadLine(line string) (Line, error) {
	line = strings.TrimSpace(line)
	name, params, value, perr := splitProperty(line)
	if perr != nil {
		return Line{}, fmt.Errorf("recur: %q: %s: %s", line, perr.field, perr.reason)
	}
	return Line{Name: name, Head: line[:len(line)-len(value)-1], Params: params, Value: value}, nil
}

// splitProperty splits a content line (RFC 5545 §3.1) into its upper-cased
// name, its parameters (upper-cased names, unquoted values) and its value.
// Colons and semicolons inside quoted parameter values do not split.
func splitProperty(line string) (string, map[string]string, string, *fieldError) {
	end := strings.IndexAny(line, ";:")
	// A name holds no '=' or space: "FREQ=DAILY;COUNT=3" is a rule
	// written without its "RRULE:".
	if end <= 0 || strings.ContainsAny(line[:end], "= ") {
		return "", nil, "", errf("line", "a recurrence line starts with its name and a colon, such as RRULE:FREQ=WEEKLY or EXDATE:20300101T090000Z")
	}
	name := strings.ToUpper(line[:end])
	params := map[string]string{}
	i := end
	for line[i] == ';' {
		i++
		eq := strings.IndexByte(line[i:], '=')
		if eq <= 0 {
			return "", nil, "", errf(name, "malformed parameter %q", line[i:])
		}
		pname := strings.ToUpper(line[i : i+eq])
		i += eq + 1
		var pval string
		if i < len(line) && line[i] == '"' {
			q := strings.IndexByte(line[i+1:], '"')
			if q < 0 {
				return "", nil, "", errf(pname, "unterminated quoted value")
			}
			pval = line[i+1 : i+1+q]
			i += q + 2
		} else {
			j := strings.IndexAny(line[i:], ";:")
			if j < 0 {
				return "", nil, "", errf(name, "missing ':' before the value")
			}
			pval = line[i : i+j]
			i += j
		}
		if _, dup := params[pname]; dup {
			return "", nil, "", errf(pname, "parameter given twice")
		}
		params[pname] = pval
		if i >= len(line) {
			return "", nil, "", errf(name, "missing ':' before the value")
		}
	}
	if line[i] != ':' {
		return "", nil, "", errf(name, "missing ':' before the value")
	}
	value := line[i+1:]
	if value == "" {
		return "", nil, "", errf(name, "empty value")
	}
	return name, params, value, nil
}

var weekdays = map[string]rrule.Weekday{
	"MO": rrule.MO, "TU": rrule.TU, "WE": rrule.WE, "TH": rrule.TH,
	"FR": rrule.FR, "SA": rrule.SA, "SU": rrule.SU,
}

var freqs = map[string]rrule.Frequency{
	"YEARLY": rrule.YEARLY, "MONTHLY": rrule.MONTHLY, "WEEKLY": rrule.WEEKLY,
	"DAILY": rrule.DAILY, "HOURLY": rrule.HOURLY, "MINUTELY": rrule.MINUTELY,
	"SECONDLY": rrule.SECONDLY,
}

// parseRecur parses a RECUR value (RFC 5545 §3.3.10) and enforces the
// restrictions the RFC states in prose, which rrule-go does not check
// (it turns INTERVAL=0 into 1 and accepts BYDAY=2MO in a WEEKLY rule).
func parseRecur(value string, allDay bool) (recurLine, *fieldError) {
	var rl recurLine
	o := &rl.opt
	o.Interval = 1
	seen := map[string]bool{}
	hasFreq := false
	for _, part := range strings.Split(strings.ToUpper(value), ";") {
		if part == "" {
			continue // "FREQ=WEEKLY;BYDAY=WE;" is common and harmless.
		}
		key, val, ok := strings.Cut(part, "=")
		if !ok || key == "" {
			return rl, errf("RRULE", "rule part %q is not NAME=VALUE", part)
		}
		if seen[key] {
			return rl, errf(key, "given twice (RFC 5545 §3.3.10: rule parts MUST NOT occur more than once)")
		}
		seen[key] = true
		if val == "" {
			return rl, errf(key, "empty value")
		}
		var err *fieldError
		switch key {
		case "FREQ":
			f, ok := freqs[val]
			if !ok {
				return rl, errf(key, "%q is not a frequency (want SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY)", val)
			}
			o.Freq, hasFreq = f, true
		case "INTERVAL":
			o.Interval, err = parseCount(key, val)
		case "COUNT":
			o.Count, err = parseCount(key, val)
		case "UNTIL":
			var v dtValue
			v, err = parseDateTime(key, val, nil)
			rl.until = &v
		case "WKST":
			w, ok := weekdays[val]
			if !ok {
				return rl, errf(key, "%q is not a weekday (want MO, TU, WE, TH, FR, SA or SU)", val)
			}
			o.Wkst = w
		case "BYSECOND":
			o.Bysecond, err = parseInts(key, val, 0, 59, false)
		case "BYMINUTE":
			o.Byminute, err = parseInts(key, val, 0, 59, false)
		case "BYHOUR":
			o.Byhour, err = parseInts(key, val, 0, 23, false)
		case "BYDAY":
			o.Byweekday, err = parseByday(val)
		case "BYMONTHDAY":
			o.Bymonthday, err = parseInts(key, val, 1, 31, true)
		case "BYYEARDAY":
			o.Byyearday, err = parseInts(key, val, 1, 366, true)
		case "BYWEEKNO":
			o.Byweekno, err = parseInts(key, val, 1, 53, true)
		case "BYMONTH":
			o.Bymonth, err = parseInts(key, val, 1, 12, false)
		case "BYSETPOS":
			o.Bysetpos, err = parseInts(key, val, 1, 366, true)
		case "RSCALE", "SKIP":
			return rl, errf(key, "RFC 7529 non-Gregorian rules are not supported")
		default:
			return rl, errf(key, "unknown rule part")
		}
		if err != nil {
			return rl, err
		}
	}
	if !hasFreq {
		return rl, errf("FREQ", "missing (RFC 5545 §3.3.10: FREQ is required)")
	}
	if o.Count > 0 && rl.until != nil {
		return rl, errf("COUNT", "COUNT and UNTIL MUST NOT occur in the same rule (RFC 5545 §3.3.10)")
	}
	return rl, checkRestrictions(o, allDay)
}

// checkRestrictions enforces the RFC 5545 §3.3.10 rules on which BYxxx
// parts go with which FREQ, plus the DATE-DTSTART rules.
func checkRestrictions(o *rrule.ROption, allDay bool) *fieldError {
	for _, w := range o.Byweekday {
		if w.N() == 0 {
			continue
		}
		if o.Freq != rrule.MONTHLY && o.Freq != rrule.YEARLY {
			return errf("BYDAY", "a numbered weekday like %v needs FREQ=MONTHLY or FREQ=YEARLY", w)
		}
		if o.Freq == rrule.YEARLY && len(o.Byweekno) > 0 {
			return errf("BYDAY", "a numbered weekday like %v MUST NOT be used with BYWEEKNO", w)
		}
		if abs(w.N()) > 5 && (o.Freq == rrule.MONTHLY || len(o.Bymonth) > 0) {
			// A month has at most five of each weekday, so such a rule
			// never occurs, and rrule-go would search for an instance
			// until the year 9999 each time the rule is expanded.
			return errf("BYDAY", "%v never occurs: a month has at most five of each weekday", w)
		}
	}
	if len(o.Bymonthday) > 0 && o.Freq == rrule.WEEKLY {
		return errf("BYMONTHDAY", "MUST NOT be used with FREQ=WEEKLY")
	}
	if len(o.Byyearday) > 0 && (o.Freq == rrule.DAILY || o.Freq == rrule.WEEKLY || o.Freq == rrule.MONTHLY) {
		return errf("BYYEARDAY", "MUST NOT be used with FREQ=%v", o.Freq)
	}
	if len(o.Byweekno) > 0 && o.Freq != rrule.YEARLY {
		return errf("BYWEEKNO", "needs FREQ=YEARLY")
	}
	if len(o.Bysetpos) > 0 && len(o.Bysecond)+len(o.Byminute)+len(o.Byhour)+len(o.Byweekday)+
		len(o.Bymonthday)+len(o.Byyearday)+len(o.Byweekno)+len(o.Bymonth) == 0 {
		return errf("BYSETPOS", "MUST be used with another BYxxx rule part")
	}
	if allDay {
		// RFC 5545 §3.3.10: BYSECOND, BYMINUTE and BYHOUR MUST NOT be used
		// with a DATE DTSTART; sub-daily frequencies make no sense either.
		switch {
		case len(o.Byhour) > 0:
			return errf("BYHOUR", "MUST NOT be used in an all-day series")
		case len(o.Byminute) > 0:
			return errf("BYMINUTE", "MUST NOT be used in an all-day series")
		case len(o.Bysecond) > 0:
			return errf("BYSECOND", "MUST NOT be used in an all-day series")
		case o.Freq > rrule.DAILY:
			return errf("FREQ", "%v is not allowed in an all-day series", o.Freq)
		}
	}
	return checkPossible(o.Bymonth, o.Bymonthday)
}

// daysInMonth is the longest each month can be.
var daysInMonth = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// checkPossible refuses BYMONTH/BYMONTHDAY pairs that no date satisfies,
// such as BYMONTH=2;BYMONTHDAY=30. rrule-go would search for an instance
// until the year 9999 each time the rule is expanded.
func checkPossible(months, monthdays []int) *fieldError {
	if len(months) == 0 || len(monthdays) == 0 {
		return nil
	}
	for _, m := range months {
		for _, d := range monthdays {
			if abs(d) <= daysInMonth[m] {
				return nil
			}
		}
	}
	return errf("BYMONTHDAY", "no day in BYMONTH=%v has day %v: the rule never occurs", months, monthdays)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// parseCount parses a positive integer (INTERVAL, COUNT).
func parseCount(key, val string) (int, *fieldError) {
	if strings.TrimLeft(val, "0123456789") != "" {
		return 0, errf(key, "%q is not a positive integer", val)
	}
	n, err := strconv.Atoi(val)
	if err != nil || n < 1 {
		return 0, errf(key, "%q is not a positive integer", val)
	}
	return n, nil
}

// parseInts parses a comma-separated list of integers in [lo, hi], or also
// in [-hi, -lo] when signed, dropping repeats.
func parseInts(key, val string, lo, hi int, signed bool) ([]int, *fieldError) {
	var out []int
	for _, s := range strings.Split(val, ",") {
		n, err := strconv.Atoi(s)
		ok := err == nil && (n >= lo && n <= hi || signed && n <= -lo && n >= -hi)
		if !ok || (!signed && strings.HasPrefix(s, "-")) {
			rng := fmt.Sprintf("%d..%d", lo, hi)
			if signed {
				rng += fmt.Sprintf(" or -%d..-%d", hi, lo)
			}
			return nil, errf(key, "%q is not an integer in %s", s, rng)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// parseByday parses BYDAY values: a weekday with an optional signed ordinal
// of 1 to 53.
func parseByday(val string) ([]rrule.Weekday, *fieldError) {
	var out []rrule.Weekday
	for _, s := range strings.Split(val, ",") {
		if len(s) < 2 {
			return nil, errf("BYDAY", "%q is not a weekday (want MO..SU with an optional ordinal such as 2TU or -1FR)", s)
		}
		w, ok := weekdays[s[len(s)-2:]]
		if !ok {
			return nil, errf("BYDAY", "%q is not a weekday (want MO..SU with an optional ordinal such as 2TU or -1FR)", s)
		}
		if num := s[:len(s)-2]; num != "" {
			n, err := strconv.Atoi(num)
			if err != nil || n == 0 || n > 53 || n < -53 {
				return nil, errf("BYDAY", "%q has an ordinal outside 1..53 or -53..-1", s)
			}
			w = w.Nth(n)
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

// parseDateTime parses a DATE or DATE-TIME value; loc is the TZID, if any.
func parseDateTime(field, s string, loc *time.Location) (dtValue, *fieldError) {
	bad := func() (dtValue, *fieldError) {
		return dtValue{}, errf(field, "%q is not a DATE (20260105) or DATE-TIME (20260105T090000, 20260105T080000Z)", s)
	}
	var v dtValue
	switch {
	case len(s) == 8:
		v.kind = kindDate
	case len(s) == 15 && s[8] == 'T':
		v.kind = kindLocal
	case len(s) == 16 && s[8] == 'T' && (s[15] == 'Z' || s[15] == 'z'):
		v.kind = kindUTC
	default:
		return bad()
	}
	num := func(i, n int) (int, bool) {
		x := 0
		for _, c := range s[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			x = x*10 + int(c-'0')
		}
		return x, true
	}
	var ok [6]bool
	var mo int
	v.year, ok[0] = num(0, 4)
	mo, ok[1] = num(4, 2)
	v.day, ok[2] = num(6, 2)
	ok[3], ok[4], ok[5] = true, true, true
	if v.kind != kindDate {
		v.hour, ok[3] = num(9, 2)
		v.min, ok[4] = num(11, 2)
		v.sec, ok[5] = num(13, 2)
	}
	if ok != [6]bool{true, true, true, true, true, true} {
		return bad()
	}
	v.month = time.Month(mo)
	if mo < 1 || mo > 12 || v.day < 1 || v.day > daysIn(v.year, v.month) ||
		v.hour > 23 || v.min > 59 || v.sec > 60 {
		return dtValue{}, errf(field, "%q is not a valid date or time", s)
	}
	if v.sec == 60 {
		v.sec = 59 // A leap second (RFC 5545 §3.3.12) cannot be represented; keep the minute.
	}
	if v.kind == kindLocal {
		v.loc = loc
	}
	return v, nil
}

func daysIn(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseTZID resolves a TZID parameter. Only IANA names are known here;
// mapping Windows names and VTIMEZONE definitions is the caller's job
// (reference §4.2), which should rewrite such lines before calling Parse.
func parseTZID(tzid string) (*time.Location, *fieldError) {
	name := strings.TrimPrefix(tzid, "/") // RFC 5545 §3.2.19 globally unique prefix.
	if name == "" || name == "Local" {
		return nil, errf("TZID", "%q is not an IANA time zone name", tzid)
	}
	if loc, ok := zoneCache.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, errf("TZID", "unknown time zone %q", tzid)
	}
	zoneCache.Store(name, loc)
	return loc, nil
}

// zoneCache keeps loaded TZIDs: time.LoadLocation reads and parses the
// zone file on every call, which would dominate parsing a series with many
// EXDATE lines. Only names that loaded are stored, so it stays as small as
// the set of real zones.
var zoneCache sync.Map // string -> *time.Location

// parseDates parses the value of an RDATE or EXDATE line, which may hold
// several comma-separated values (RFC 5545 §3.8.5.1, §3.8.5.2).
func parseDates(name string, params map[string]string, value string, allDay bool) (datesLine, *fieldError) {
	var dl datesLine
	var loc *time.Location
	if tzid, ok := params["TZID"]; ok {
		var err *fieldError
		if loc, err = parseTZID(tzid); err != nil {
			return dl, err
		}
	}
	vt := strings.ToUpper(params["VALUE"])
	switch vt {
	case "", "DATE", "DATE-TIME":
	case "PERIOD":
		if name == "EXDATE" {
			return dl, errf("VALUE", "EXDATE does not take PERIOD values (RFC 5545 §3.8.5.1)")
		}
		if allDay {
			return dl, errf("VALUE", "PERIOD values are not allowed in an all-day series")
		}
	default:
		return dl, errf("VALUE", "%q is not DATE, DATE-TIME or PERIOD", params["VALUE"])
	}
	for _, s := range strings.Split(value, ",") {
		if vt == "PERIOD" {
			p, err := parsePeriod(s, loc)
			if err != nil {
				return dl, err
			}
			dl.periods = append(dl.periods, p)
			continue
		}
		v, err := parseDateTime(name, s, loc)
		if err != nil {
			return dl, err
		}
		if vt == "DATE" && v.kind != kindDate {
			return dl, errf(name, "%q is a DATE-TIME but VALUE=DATE", s)
		}
		if vt == "DATE-TIME" && v.kind == kindDate {
			return dl, errf(name, "%q is a DATE but VALUE=DATE-TIME", s)
		}
		dl.values = append(dl.values, v)
	}
	return dl, nil
}

// parsePeriod parses start/end or start/duration (RFC 5545 §3.3.9).
func parsePeriod(s string, loc *time.Location) (period, *fieldError) {
	var p period
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return p, errf("RDATE", "%q is not a PERIOD (start/end or start/duration)", s)
	}
	var err *fieldError
	if p.start, err = parseDateTime("RDATE", a, loc); err != nil {
		return p, err
	}
	if p.start.kind == kindDate {
		return p, errf("RDATE", "period start %q must be a DATE-TIME", a)
	}
	if strings.HasPrefix(strings.ToUpper(b), "P") || strings.HasPrefix(b, "+") {
		if p.dur, err = parseDuration(b); err != nil {
			return p, err
		}
		return p, nil
	}
	if p.end, err = parseDateTime("RDATE", b, loc); err != nil {
		return p, err
	}
	if p.end.kind == kindDate {
		return p, errf("RDATE", "period end %q must be a DATE-TIME", b)
	}
	p.hasEnd = true
	return p, nil
}

// parseDuration parses a positive RFC 5545 §3.3.6 duration such as PT2H30M,
// P1D or P2W.
func parseDuration(s string) (nominal, *fieldError) {
	bad := errf("RDATE", "%q is not a positive duration such as PT1H30M, P1D or P1W", s)
	u := strings.TrimPrefix(strings.ToUpper(s), "+")
	if !strings.HasPrefix(u, "P") || len(u) < 3 {
		return nominal{}, bad
	}
	var d nominal
	inTime, digits, any := false, "", false
	for _, c := range u[1:] {
		switch {
		case c >= '0' && c <= '9':
			digits += string(c)
			continue
		case c == 'T' && !inTime && digits == "":
			inTime = true
			continue
		}
		if digits == "" || len(digits) > 9 {
			return nominal{}, bad
		}
		n, _ := strconv.Atoi(digits)
		digits, any = "", true
		switch {
		case c == 'W' && !inTime:
			d.days += 7 * n
		case c == 'D' && !inTime:
			d.days += n
		case c == 'H' && inTime:
			d.secs += int64(n) * 3600
		case c == 'M' && inTime:
			d.secs += int64(n) * 60
		case c == 'S' && inTime:
			d.secs += int64(n)
		default:
			return nominal{}, bad
		}
	}
	if digits != "" || !any || d.days == 0 && d.secs == 0 {
		return nominal{}, bad
	}
	return d, nil
}
