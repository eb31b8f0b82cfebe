package recur

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"time"

	"github.com/teambition/rrule-go"
)

// Set is a recurrence set (RFC 5545 §3.8.5.3): a series start (DTSTART)
// with its RRULE, RDATE, EXDATE and EXRULE lines, and optionally the
// overrides of single instances. A Set is immutable and safe for concurrent
// use.
type Set struct {
	loc    *time.Location // series zone; UTC for all-day series, whose keys are date labels
	allDay bool
	start  item // DTSTART, always the first instance

	rules   []*rule
	exrules []*rule
	rdates  []item // ascending by key, no duplicates
	maxSpan int64  // longest RDATE period, in seconds

	exKeys map[int64]struct{} // excluded instance keys
	exDays map[int64]struct{} // timed series: local days excluded by EXDATE;VALUE=DATE

	overrides map[int64]Override // by original start key
	moved     []movedOverride    // non-cancelled overrides, ascending by new start

	noSkip bool // tests: never fast-forward rules
}

// item is one generated instance. Keys are Unix seconds: the instant for
// timed series, the date at midnight read as UTC for all-day series.
type item struct {
	key    int64
	wall   int64 // wall clock in the series zone, in seconds read as UTC
	end    int64 // own end key (RDATE PERIOD), valid when hasEnd
	hasEnd bool
}

// Occurrence is one instance of a series.
type Occurrence struct {
	// Start is the instance start. For timed series it is an instant in the
	// series' location. For all-day series it is the instance's date at
	// midnight UTC: a civil-date label, not an instant (RFC 5545 §3.3.4).
	Start time.Time
	// End is Start plus the series duration, or the instance's own end when
	// it comes from an RDATE period or an override. All-day ends are date
	// labels too, exclusive, like DTEND;VALUE=DATE.
	End time.Time
	// OriginalStart is the start the recurrence rules gave the instance: its
	// RECURRENCE-ID, and the key for InstanceID. It equals Start unless the
	// instance was moved by an override.
	OriginalStart time.Time
	// AllDay reports whether the times are date labels.
	AllDay bool
	// Overridden reports whether Start and End come from an [Override].
	Overridden bool
}

// Override changes one instance of a series, as a RECURRENCE-ID component
// does in CalDAV (RFC 5545 §3.8.4.4) or an exception instance does in
// Google and Graph.
type Override struct {
	// OriginalStart identifies the instance: the start it has without the
	// override. For all-day series only its date counts.
	OriginalStart time.Time
	// Cancelled removes the instance (STATUS:CANCELLED, a deleted Google
	// instance). Start and End are then ignored.
	Cancelled bool
	// Start is the instance's new start. For all-day series only its date
	// counts.
	Start time.Time
	// End is the instance's new end; zero means Start plus the series
	// duration given to Between or All.
	End time.Time
}

// movedOverride is an Override that keeps its instance, with its keys.
type movedOverride struct {
	orig, start, end int64
	hasEnd           bool
	ov               Override
}

// Parse builds the recurrence set of a series starting at start.
//
// For timed series the wall clock of start in start's location is the
// time of day of every instance, kept across DST changes (RFC 5545
// §3.3.10), so start must be a real instant: build it with [Date] from
// TZID values. For all-day series (allDay) only the date of start, read
// in its own location, counts. Sub-second parts are dropped.
//
// Each line is an RRULE, EXRULE, RDATE or EXDATE content line as in the
// spec's recurrence field, for example "RRULE:FREQ=WEEKLY;BYDAY=MO" or
// "EXDATE;TZID=Europe/Berlin:20260105T090000,20260112T090000". Several
// RRULE lines make a union. EXRULE, deprecated by RFC 5545 Appendix A.3,
// is still honoured, as a plain rule. Floating values (no TZID, no Z) are
// read in the series zone.
//
// DTSTART is always an instance (the first, unless an RDATE comes
// earlier), even when no rule produces it, and it uses up one COUNT of every
// RRULE that does not produce it itself (RFC 5545 §3.3.10). Local times
// that do not exist or occur twice are read per RFC 5545 §3.3.5 (see
// [Date]); where that lands two instances of a sub-daily rule on the same
// instant, the set keeps one.
//
// Lenient readings, for data seen in the wild:
//   - UNTIL as a DATE in a timed series includes that whole local day.
//   - UNTIL without Z in a zoned series is read in the series zone.
//   - EXDATE;VALUE=DATE in a timed series removes the instances on that
//     local day.
//   - RDATE;VALUE=DATE in a timed series adds an instance at the start's
//     time of day.
//   - DATE-TIME values in an all-day series count by their date.
//
// Parse returns a *ParseError naming the line and the part at fault.
func Parse(recurrence []string, start time.Time, allDay bool) (*Set, error) {
	s := &Set{loc: start.Location(), allDay: allDay}
	if allDay {
		y, m, d := start.Date()
		s.loc = time.UTC
		k := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()
		s.start = item{key: k, wall: k}
	} else {
		k := start.Unix()
		s.start = item{key: k, wall: k + offsetAt(k, s.loc)}
	}
	return s.parse(recurrence)
}

// ParseAt is Parse for a series whose start was written as the date-time
// text written (RFC 3339 or local, as an EventDateTime has it), which
// denotes start in start's location. A timed series starts at the wall
// clock [WallOf] finds in written: unlike an instant, it keeps a start
// that a gap skips, so a daily series from 02:30 on the night clocks jump
// from 02:00 to 03:00 starts at 03:30 and runs at 02:30 on the days after
// (RFC 5545 §3.3.10 keeps the local time of day, §3.3.5 reads the
// skipped one).
func ParseAt(recurrence []string, start time.Time, written string, allDay bool) (*Set, error) {
	if allDay {
		return Parse(recurrence, start, true)
	}
	wall := WallOf(written, start) // digits in UTC
	s := &Set{loc: start.Location()}
	s.start = item{key: At(wall, s.loc).Unix(), wall: wall.Unix()}
	return s.parse(recurrence)
}

func (s *Set) parse(recurrence []string) (*Set, error) {
	ls, err := parseLines(recurrence, s.allDay)
	if err != nil {
		return nil, err
	}
	if y := time.Unix(s.start.wall, 0).UTC().Year(); y < 1 || y > 9999 {
		// rrule-go fills its per-year tables only once the year differs
		// from the zero it starts with: walked from the year 0 it indexes
		// empty tables. Years are four digits in RFC 5545 and RFC 3339.
		return nil, &ParseError{Index: -1, Field: "start", Reason: fmt.Sprintf("a recurring series must start in the years 1 to 9999, not %d", y)}
	}
	if s.start.wall == (time.Time{}).Unix() {
		// rrule-go takes a zero DTSTART for none and starts from now.
		return nil, &ParseError{Index: -1, Field: "start", Reason: "a recurring series must start after 0001-01-01T00:00:00, which the recurrence engine cannot tell from no start"}
	}
	for _, rl := range ls.rules {
		r, perr := s.newRule(rl)
		if perr != nil {
			return nil, lineError(rl.index, recurrence[rl.index], perr.field, perr.reason)
		}
		switch {
		case rl.exclude && r.empty:
			// An EXRULE without instances (see occurs) excludes nothing.
			// Dropped here, expansion never asks rrule-go about it: its
			// search for a next instance would walk to the year 9999.
		case rl.exclude:
			s.exrules = append(s.exrules, r)
		default:
			s.rules = append(s.rules, r)
		}
	}
	for _, dl := range ls.dates {
		if perr := s.addDates(dl); perr != nil {
			return nil, lineError(dl.index, recurrence[dl.index], perr.field, perr.reason)
		}
	}
	slices.SortFunc(s.rdates, func(a, b item) int {
		if a.key != b.key {
			return cmpInt(a.key, b.key)
		}
		// Among duplicates keep a period first, so its own end survives.
		if a.hasEnd != b.hasEnd {
			if a.hasEnd {
				return -1
			}
			return 1
		}
		return 0
	})
	s.rdates = slices.CompactFunc(s.rdates, func(a, b item) bool { return a.key == b.key })
	return s, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// valueKey returns the key and series wall clock of a DATE-TIME value, or
// of a DATE value in an all-day series.
func (s *Set) valueKey(v dtValue) (key, wall int64) {
	if s.allDay {
		k := v.dayLabel()
		return k, k
	}
	switch v.kind {
	case kindUTC:
		key = v.label()
	case kindDate:
		// RDATE;VALUE=DATE in a timed series: at the start's time of day.
		wall = v.label() + floorMod(s.start.wall, 86400)
		r := resolver{loc: s.loc}
		key, _ = r.instant(wall)
		return key, wall
	default:
		loc := v.loc
		if loc == nil {
			loc = s.loc // Floating: read in the series zone.
		}
		r := resolver{loc: loc}
		key, _ = r.instant(v.label())
	}
	return key, key + offsetAt(key, s.loc)
}

func (s *Set) addDates(dl datesLine) *fieldError {
	for _, v := range dl.values {
		if dl.exclude && v.kind == kindDate && !s.allDay {
			if s.exDays == nil {
				s.exDays = map[int64]struct{}{}
			}
			s.exDays[floorDiv(v.label(), 86400)] = struct{}{}
			continue
		}
		key, wall := s.valueKey(v)
		if dl.exclude {
			if s.exKeys == nil {
				s.exKeys = map[int64]struct{}{}
			}
			s.exKeys[key] = struct{}{}
			continue
		}
		s.rdates = append(s.rdates, item{key: key, wall: wall})
	}
	for _, p := range dl.periods {
		key, wall := s.valueKey(p.start)
		var end int64
		if p.hasEnd {
			end, _ = s.valueKey(p.end)
		} else {
			// RFC 5545 §3.3.6: days and weeks are nominal, so add them to
			// the wall clock in the start's own zone; the rest is exact.
			loc := p.start.loc
			switch {
			case p.start.kind == kindUTC:
				loc = time.UTC
			case loc == nil:
				loc = s.loc
			}
			r := resolver{loc: loc}
			e, _ := r.instant(p.start.label() + int64(p.dur.days)*86400)
			end = e + p.dur.secs
		}
		if end <= key {
			return errf("RDATE", "period %04d%02d%02dT%02d%02d%02d ends before it starts",
				p.start.year, p.start.month, p.start.day, p.start.hour, p.start.min, p.start.sec)
		}
		s.maxSpan = max(s.maxSpan, end-key)
		s.rdates = append(s.rdates, item{key: key, wall: wall, end: end, hasEnd: true})
	}
	return nil
}

// WithOverrides returns a copy of s that applies ovs: cancelled instances
// disappear and moved ones appear at their new time, even when only one of
// the original and the new time falls in the window asked for. An
// override whose OriginalStart is not an instance of s (an orphan
// RECURRENCE-ID) is ignored; use Contains to find those.
func (s *Set) WithOverrides(ovs []Override) (*Set, error) {
	c := *s
	c.overrides = make(map[int64]Override, len(ovs))
	c.moved = nil
	for i, ov := range ovs {
		if ov.OriginalStart.IsZero() {
			return nil, fmt.Errorf("recur: override %d has no original start", i)
		}
		k := s.key(ov.OriginalStart)
		if _, dup := c.overrides[k]; dup {
			return nil, fmt.Errorf("recur: two overrides for the instance at %v", ov.OriginalStart)
		}
		c.overrides[k] = ov
		if ov.Cancelled {
			continue
		}
		if ov.Start.IsZero() {
			return nil, fmt.Errorf("recur: override of the instance at %v has no start", ov.OriginalStart)
		}
		m := movedOverride{orig: k, start: s.key(ov.Start), ov: ov}
		if !ov.End.IsZero() {
			m.end, m.hasEnd = s.key(ov.End), true
			if m.end < m.start {
				return nil, fmt.Errorf("recur: override of the instance at %v ends before it starts", ov.OriginalStart)
			}
		}
		c.moved = append(c.moved, m)
	}
	slices.SortFunc(c.moved, func(a, b movedOverride) int {
		if a.start != b.start {
			return cmpInt(a.start, b.start)
		}
		return cmpInt(a.orig, b.orig)
	})
	return &c, nil
}

// key returns the instance key of t: its instant for timed series, its
// date (in t's own location) for all-day series.
func (s *Set) key(t time.Time) int64 {
	if s.allDay {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()
	}
	return t.Unix()
}

// Contains reports whether originalStart is the start of an instance of the
// set, before overrides: whether a RECURRENCE-ID or an instance id names a
// real instance. For all-day series only the date counts.
func (s *Set) Contains(originalStart time.Time) bool {
	if !s.allDay && originalStart.Nanosecond() != 0 {
		return false
	}
	return s.containsKey(s.key(originalStart))
}

func (s *Set) containsKey(k int64) bool {
	g := s.newGen(k)
	for {
		it, ok := g.next()
		if !ok || it.key > k {
			return false
		}
		if it.key == k {
			return true
		}
	}
}

// window is a query range in key seconds.
type window struct {
	from      int64 // floor of the window start
	fromCeil  int64 // ceiling of the window start
	toCeil    int64 // ceiling of the window end
	dur       time.Duration
	durSecs   int64
	unbounded bool
	byStart   bool // instances must start in the window, not just overlap it
}

// overlaps reports whether [start, end) meets the window. Zero-length
// instances count when they start inside it (RFC 4791 §9.9).
func (w window) overlaps(start, end int64) bool {
	if start >= w.toCeil {
		return false
	}
	if w.byStart {
		return start >= w.fromCeil
	}
	if end == start {
		return start >= w.fromCeil
	}
	return end > w.from
}

func ceilSecs(d time.Duration) int64 {
	s := int64(d / time.Second)
	if d%time.Second > 0 {
		s++
	}
	return s
}

// Between returns the instances that overlap [from, to), ordered by start,
// each lasting dur unless it has its own end (an RDATE period or an
// override).
// There is no cap on the number of instances inside the window; the cost
// grows with the number of instances in the window, not with the age of
// the series, because rules are fast-forwarded to the window.
//
// For all-day series, from and to are read by their wall clock in their own
// locations, since a date means a different span of time in each zone
// (RFC 4791 §9.9 floating time): pass them in the display zone. A dur of
// zero or less then means one day.
func (s *Set) Between(from, to time.Time, dur time.Duration) iter.Seq[Occurrence] {
	w := s.window(from, to, dur)
	return func(yield func(Occurrence) bool) { s.run(w, yield) }
}

// Overlaps reports whether an instance overlaps [from, to), read as
// Between reads them; a zero to means no end.
func (s *Set) Overlaps(from, to time.Time, dur time.Duration) bool {
	if to.IsZero() {
		to = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	}
	for range s.Between(from, to, dur) {
		return true
	}
	return false
}

// StartingIn returns the instances that start in [from, to), ordered by
// start, with durations as in Between. Unlike Between it leaves out the
// instances that started before from and still last, so a listing that
// resumes after the last instance it showed does not walk through them
// again.
func (s *Set) StartingIn(from, to time.Time, dur time.Duration) iter.Seq[Occurrence] {
	w := s.window(from, to, dur)
	w.byStart = true
	return func(yield func(Occurrence) bool) { s.run(w, yield) }
}

// Overridden returns the instances changed by an [Override] (moved or not)
// that overlap [from, to), ordered by start. They are the only instances
// that can differ from the series itself, so a filter that the series
// fails can skip the rest without expanding it.
func (s *Set) Overridden(from, to time.Time, dur time.Duration) []Occurrence {
	return s.movedInto(s.window(from, to, dur))
}

func (s *Set) window(from, to time.Time, dur time.Duration) window {
	w := window{dur: max(dur, 0)}
	if s.allDay && dur <= 0 {
		w.dur = 24 * time.Hour
	}
	w.durSecs = ceilSecs(w.dur)
	w.from, w.toCeil = s.windowKey(from), s.windowKey(to)
	w.fromCeil = w.from
	if from.Nanosecond() != 0 {
		w.fromCeil++
	}
	if to.Nanosecond() != 0 {
		w.toCeil++
	}
	return w
}

// All returns every instance in start order, each lasting dur unless it
// has its own end (for all-day series a dur of zero or less means one
// day). Series without COUNT or UNTIL are infinite: stop ranging when done.
func (s *Set) All(dur time.Duration) iter.Seq[Occurrence] {
	w := window{dur: max(dur, 0), unbounded: true, from: math.MinInt64 / 4, fromCeil: math.MinInt64 / 4, toCeil: math.MaxInt64}
	if s.allDay && dur <= 0 {
		w.dur = 24 * time.Hour
	}
	w.durSecs = ceilSecs(w.dur)
	return func(yield func(Occurrence) bool) { s.run(w, yield) }
}

func (s *Set) windowKey(t time.Time) int64 {
	if s.allDay {
		return wallOf(t)
	}
	return t.Unix()
}

func (s *Set) run(w window, yield func(Occurrence) bool) {
	moved := s.movedInto(w)
	slack := max(w.durSecs, s.maxSpan)
	if w.byStart {
		slack = 0
	}
	g := s.newGen(w.from - slack)
	for {
		it, ok := g.next()
		if !ok || it.key >= w.toCeil {
			break
		}
		if s.overrides != nil {
			if _, ok := s.overrides[it.key]; ok {
				continue // Cancelled, or moved and yielded from the moved list.
			}
		}
		end := it.key + w.durSecs
		if it.hasEnd {
			end = it.end
		}
		if !w.overlaps(it.key, end) {
			continue
		}
		for len(moved) > 0 && moved[0].Start.Unix() < it.key {
			if !yield(moved[0]) {
				return
			}
			moved = moved[1:]
		}
		start := time.Unix(it.key, 0).In(s.loc)
		o := Occurrence{Start: start, End: start.Add(w.dur), OriginalStart: start, AllDay: s.allDay}
		if it.hasEnd {
			o.End = time.Unix(it.end, 0).In(s.loc)
		}
		if !yield(o) {
			return
		}
	}
	for _, o := range moved {
		if !yield(o) {
			return
		}
	}
}

// movedInto returns the moved instances whose new span meets w and whose
// original start is a real instance, as occurrences ordered by start.
func (s *Set) movedInto(w window) []Occurrence {
	var out []Occurrence
	for _, m := range s.moved {
		end := m.start + w.durSecs
		if m.hasEnd {
			end = m.end
		}
		if !w.overlaps(m.start, end) || !s.containsKey(m.orig) {
			continue
		}
		o := Occurrence{
			Start:         time.Unix(m.start, 0).In(s.loc),
			OriginalStart: time.Unix(m.orig, 0).In(s.loc),
			AllDay:        s.allDay,
			Overridden:    true,
		}
		o.End = o.Start.Add(w.dur)
		if m.hasEnd {
			o.End = time.Unix(m.end, 0).In(s.loc)
		}
		if !s.allDay {
			// Keep sub-second precision of the override's own times.
			o.Start = m.ov.Start.In(s.loc)
			if m.hasEnd {
				o.End = m.ov.End.In(s.loc)
			} else {
				o.End = o.Start.Add(w.dur)
			}
		}
		out = append(out, o)
	}
	return out
}

// mustRRule builds an rrule-go rule from options that parseRecur and
// newRule have already checked, so rrule-go's own bounds checks pass.
func mustRRule(opt rrule.ROption) *rrule.RRule {
	r, err := rrule.NewRRule(opt)
	if err != nil {
		panic("recur: rrule-go refused checked options: " + err.Error())
	}
	return r
}
