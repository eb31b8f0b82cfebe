package recur

import (
	"fmt"
	"math"
	"time"
)

// Date returns the instant that the wall-clock time year-month-day
// hour:min:sec in loc denotes, following RFC 5545 §3.3.5: a local time that
// occurs twice (when clocks fall back) means its first occurrence, and a
// local time that does not exist (when clocks spring forward) is read with
// the UTC offset in effect before the gap, so 02:30 on a night that jumps
// from 02:00 to 03:00 becomes 03:30 in the new offset.
//
// time.Date leaves both cases unspecified and in practice answers
// differently depending on the sign of the zone's offset (02:30 on
// 2026-03-08 America/New_York gives 01:30 EST, and 02:30 on 2026-10-25
// Europe/Berlin gives the second, CET, occurrence), so callers that turn
// iCalendar TZID values into instants should use Date. Out-of-range fields
// are normalised as time.Date does. The result is in loc.
func Date(year int, month time.Month, day, hour, min, sec int, loc *time.Location) time.Time {
	wall := time.Date(year, month, day, hour, min, sec, 0, time.UTC).Unix()
	r := resolver{loc: loc}
	inst, _ := r.instant(wall)
	return time.Unix(inst, 0).In(loc)
}

// At returns the instant that the wall clock of wall (its digits,
// whatever its location) denotes in loc, by the rule of [Date], keeping
// fractions of a second. The result is in loc.
func At(wall time.Time, loc *time.Location) time.Time {
	y, m, d := wall.Date()
	h, mi, s := wall.Clock()
	return Date(y, m, d, h, mi, s, loc).Add(time.Duration(wall.Nanosecond()))
}

// ParseLocal reads s, a date or date-time without a UTC offset in layout,
// as a wall clock in loc by the rule of [Date]. This is how every local
// time is read: event times, series starts, query windows, working hours.
func ParseLocal(layout, s string, loc *time.Location) (time.Time, error) {
	wall, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, err
	}
	return At(wall, loc), nil
}

// Stamp formats the wall clock of wall in loc as RFC 3339: the digits as
// written with the UTC offset that makes them the instant [At] gives. That
// is loc's offset at the instant, except for a wall clock that a gap
// skips, which keeps its digits with the offset in effect before the gap
// (RFC 5545 §3.3.5 reads it with that offset): 02:30 on the night New York
// jumps from 02:00 to 03:00 is 02:30-05:00, the instant 03:30-04:00 shows,
// and a series starting then keeps 02:30 as its time of day.
func Stamp(wall time.Time, loc *time.Location) string {
	inst := At(wall, loc)
	y, m, d := wall.Date()
	h, mi, s := wall.Clock()
	off := time.Date(y, m, d, h, mi, s, 0, time.UTC).Unix() - inst.Unix()
	return inst.In(time.FixedZone("", int(off))).Format(time.RFC3339)
}

// WallOf returns the wall clock, as digits in UTC, that s (an RFC 3339 or
// local date-time as written) keeps for inst, the instant it denotes, in
// inst's location: the digits of s when they denote inst there (a time a
// gap skips, written as [Stamp] does, keeps its digits), otherwise the
// wall clock inst shows. A series that recurs from s keeps that wall clock.
func WallOf(s string, inst time.Time) time.Time {
	loc := inst.Location()
	if len(s) >= len(localLayout) {
		if w, err := time.Parse(localLayout, s[:len(localLayout)]); err == nil && At(w, loc).Equal(inst.Truncate(time.Second)) {
			return w.Add(time.Duration(inst.Nanosecond()))
		}
	}
	y, m, d := inst.Date()
	h, mi, sec := inst.Clock()
	return time.Date(y, m, d, h, mi, sec, inst.Nanosecond(), time.UTC)
}

// Clamp returns t, or, when t is later, the last second that RFC 3339 and
// RFC 5545 can write both in UTC and in t's location (their years have
// four digits): 9999-12-31T23:59:59 in UTC or in t's location, whichever
// comes first. An instance of a series that runs to the end of the year
// 9999 can end after it.
func Clamp(t time.Time) time.Time {
	last := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	if local := time.Date(9999, 12, 31, 23, 59, 59, 0, t.Location()); local.Before(last) {
		last = local
	}
	if t.After(last) {
		return last.In(t.Location())
	}
	return t
}

// InYears reports whether t lies within the years 1 to 9999 in UTC, the
// instants RFC 3339 and RFC 5545 can write.
func InYears(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// localLayout is a date-time without an offset.
const localLayout = "2006-01-02T15:04:05"

// LoadLocation resolves an IANA time-zone name for display, as in the
// spec's timeZone query parameter and request fields. Unlike
// time.LoadLocation it refuses the empty name and "Local", which would
// silently mean UTC or the server's own zone.
func LoadLocation(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("recur: %q is not an IANA time zone name", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("recur: unknown time zone %q", name)
	}
	return loc, nil
}

// In returns the occurrence with its times shown in loc, for the spec's
// timeZone parameter. All-day occurrences are civil dates that mean the same
// day in every zone (RFC 5545 §3.3.4), so they are returned unchanged.
func (o Occurrence) In(loc *time.Location) Occurrence {
	if o.AllDay || loc == nil {
		return o
	}
	o.Start = o.Start.In(loc)
	o.End = o.End.In(loc)
	o.OriginalStart = o.OriginalStart.In(loc)
	return o
}

// wallOf returns t's wall clock in its own location, counted in seconds as
// if that wall clock were UTC. Recurrence rules are evaluated on this
// "wall-clock line", which has no DST jumps (RFC 5545 §3.3.10 computes
// instances in local time).
func wallOf(t time.Time) int64 {
	_, off := t.Zone()
	return t.Unix() + int64(off)
}

// resolver maps wall-clock seconds in one location to instants, with the
// RFC 5545 §3.3.5 rules for repeated and missing local times. It caches the
// zone period of the last answer, so a run of answers in the same period
// costs a subtraction and two comparisons each. A resolver is not safe for
// concurrent use.
type resolver struct {
	loc *time.Location
	// off is the UTC offset valid for instants in [lo, hi), where a wall
	// clock maps to exactly one instant. lo > hi until the first slow lookup.
	off    int64
	lo, hi int64
}

// instant returns the instant of wall and whether wall fell in a gap (a
// local time that does not exist, moved forward by the gap's length).
func (r *resolver) instant(wall int64) (int64, bool) {
	if inst := wall - r.off; inst >= r.lo && inst < r.hi {
		return inst, false
	}
	return r.slow(wall)
}

// offsetAt returns the UTC offset of loc at the instant sec.
func offsetAt(sec int64, loc *time.Location) int64 {
	_, off := time.Unix(sec, 0).In(loc).Zone()
	return int64(off)
}

func (r *resolver) slow(wall int64) (int64, bool) {
	// Reading the wall clock as an instant lands within a day of the answer,
	// so the zone period around it and its two neighbours hold every
	// candidate offset (zones do not change offset twice within a day).
	t := time.Unix(wall, 0).In(r.loc)
	_, o := t.Zone()
	start, end := t.ZoneBounds()
	type period struct {
		off    int64
		lo, hi int64
	}
	var buf [3]period
	ps := append(buf[:0], period{off: int64(o), lo: math.MinInt64, hi: math.MaxInt64})
	if !start.IsZero() {
		ps[0].lo = start.Unix()
		ps = append(ps, period{off: offsetAt(ps[0].lo-1, r.loc), lo: math.MinInt64, hi: ps[0].lo})
		if b, _ := time.Unix(ps[0].lo-1, 0).In(r.loc).ZoneBounds(); !b.IsZero() {
			ps[len(ps)-1].lo = b.Unix()
		}
	}
	if !end.IsZero() {
		ps[0].hi = end.Unix()
		next := period{off: offsetAt(ps[0].hi, r.loc), lo: ps[0].hi, hi: math.MaxInt64}
		if _, e := end.In(r.loc).ZoneBounds(); !e.IsZero() {
			next.hi = e.Unix()
		}
		ps = append(ps, next)
	}
	best, found := int64(0), false
	var bestP period
	for _, p := range ps {
		if c := wall - p.off; c >= p.lo && c < p.hi && (!found || c < best) {
			best, found, bestP = c, true, p
		}
	}
	if found {
		// Cache the period, minus its first stretch when the previous
		// period had a larger offset: wall clocks there also occur earlier
		// (the fold), and the earlier instant must win.
		r.off, r.lo, r.hi = bestP.off, bestP.lo, bestP.hi
		if bestP.lo != math.MinInt64 {
			if prev := offsetAt(bestP.lo-1, r.loc); prev > bestP.off {
				r.lo += prev - bestP.off
			}
		}
		return best, false
	}
	// No instant shows this wall clock: it lies in a gap at the boundary
	// between two of the periods. RFC 5545 §3.3.5 reads it with the offset
	// in effect before the gap.
	for _, p := range ps {
		if p.hi == math.MaxInt64 {
			continue
		}
		after := offsetAt(p.hi, r.loc)
		if after > p.off && wall >= p.hi+p.off && wall < p.hi+after {
			return wall - p.off, true
		}
	}
	// Unreachable with real zone data (two transitions within a day); keep
	// the offset found at the wall clock read as an instant.
	return wall - int64(o), false
}
