// Package slots finds the meeting slots that a group of participants can
// all attend, from each one's busy time and working hours. It is a pure
// function of its input: no clock, no I/O, so that every rule can be tested
// with fixed answers.
package slots

import (
	"cmp"
	"slices"
	"time"

	"github.com/unical/unical/internal/recur"
)

// Interval is a half-open range [Start, End).
type Interval struct {
	Start, End time.Time
}

// WeeklyInterval is one weekly recurring range of wall-clock time on Day,
// in minutes since midnight: End may be 24*60 (midnight at the end of the
// day) and is after Start.
type WeeklyInterval struct {
	Day        time.Weekday
	Start, End int
}

// WorkingHours are the weekly ranges a participant takes meetings in,
// read in Location, so that 09:00 stays 09:00 on both sides of a daylight
// saving change.
type WorkingHours struct {
	Location  *time.Location
	Intervals []WeeklyInterval
	// Overrides replace the weekly ranges on their dates, at most one per
	// date.
	Overrides []DateOverride
}

// DateOverride gives the ranges of one calendar date in the working
// hours' Location, in minutes since midnight like WeeklyInterval; no
// ranges means not available that day.
type DateOverride struct {
	Year      int
	Month     time.Month
	Day       int
	Intervals []DayInterval
}

// DayInterval is a range of one day in minutes since midnight, End after
// Start and at most 24*60.
type DayInterval struct {
	Start, End int
}

// Participant is one person or resource whose time is asked about.
type Participant struct {
	ID string
	// Busy is the participant's busy time, in any order, possibly
	// overlapping.
	Busy []Interval
	// WorkingHours limits when a slot may be; nil is any time.
	WorkingHours *WorkingHours
	// Required participants must be free in every slot; of the others at
	// least one must be. Members of a group count for their group instead.
	Required bool
	// Group names the Request.Groups entry the participant belongs to;
	// empty is none.
	Group string
}

// Group asks that at least Required of the participants naming it be
// free in a slot, such as one room of several.
type Group struct {
	Name     string
	Required int
}

// Request is the question: which slots of Duration, inside [Start, End),
// suit the participants.
type Request struct {
	Start, End time.Time
	Duration   time.Duration
	// Interval is the step between slot starts, counted from midnight in
	// Location each day, so that 15 minutes gives :00, :15, :30 and :45 of
	// that zone's clock.
	Interval time.Duration
	Location *time.Location // nil is UTC
	// BufferBefore and BufferAfter must be free of busy time before and
	// after a slot as well; they may fall outside working hours.
	BufferBefore, BufferAfter time.Duration
	// Earliest is the first instant a slot may start (now plus the minimum
	// notice).
	Earliest time.Time
	// MaxResults bounds the answer; zero or less is no bound.
	MaxResults   int
	Participants []Participant
	// Groups are the groups participants name; a participant naming a
	// group missing here is never free.
	Groups []Group
}

// Slot is one answer: its range and the ids of the participants free then,
// in the order of Request.Participants.
type Slot struct {
	Start, End   time.Time
	Participants []string
}

// Find returns the slots in start order. A slot is offered when every
// required participant outside groups is free, if there are participants
// outside groups that are not required, at least one of them is, and in
// each group at least its Required members are.
func Find(r *Request) []Slot {
	if r.Duration <= 0 || r.Interval <= 0 || !r.End.After(r.Start) {
		return nil
	}
	loc := r.Location
	if loc == nil {
		loc = time.UTC
	}
	from := r.Start
	if r.Earliest.After(from) {
		from = r.Earliest
	}
	// Each participant is walked with two cursors that only move forward,
	// since candidate starts only grow: the whole search is linear in
	// candidates times participants plus the intervals.
	walkers := make([]walker, len(r.Participants))
	groupIndex := map[string]int{}
	for g, grp := range r.Groups {
		groupIndex[grp.Name] = g
	}
	optional := 0
	for i := range r.Participants {
		p := &r.Participants[i]
		walkers[i] = walker{busy: merge(nanos(p.Busy)), required: p.Required, group: -1}
		if p.WorkingHours != nil {
			walkers[i].working = expand(p.WorkingHours, r.Start, r.End)
			walkers[i].limited = true
		}
		if p.Group != "" {
			g, ok := groupIndex[p.Group]
			if !ok {
				// Never free: an unknown group counts for nothing.
				walkers[i].limited, walkers[i].working, g = true, nil, len(r.Groups)
			}
			walkers[i].group = g
			continue
		}
		if !p.Required {
			optional++
		}
	}
	var out []Slot
	free := make([]bool, len(walkers))
	// freeIn counts the free members of each group, plus one slot for
	// members of unknown groups.
	freeIn := make([]int, len(r.Groups)+1)
	dur, end := int64(r.Duration), r.End.UnixNano()
	for sn := range starts(loc, from, r.End, r.Interval) {
		en := sn + dur
		if en > end {
			break
		}
		bs, be := sn-int64(r.BufferBefore), en+int64(r.BufferAfter)
		ok, anyOptional := true, false
		clear(freeIn)
		for i := range walkers {
			free[i] = walkers[i].free(sn, en, bs, be)
			switch {
			case walkers[i].group >= 0:
				if free[i] {
					freeIn[walkers[i].group]++
				}
			case walkers[i].required && !free[i]:
				ok = false
			case !walkers[i].required && free[i]:
				anyOptional = true
			}
			if !ok {
				break
			}
		}
		for g, grp := range r.Groups {
			if freeIn[g] < grp.Required {
				ok = false
			}
		}
		if !ok || (optional > 0 && !anyOptional) {
			continue
		}
		ids := make([]string, 0, len(walkers))
		for i, f := range free {
			if f {
				ids = append(ids, r.Participants[i].ID)
			}
		}
		out = append(out, Slot{Start: time.Unix(0, sn), End: time.Unix(0, en), Participants: ids})
		if r.MaxResults > 0 && len(out) == r.MaxResults {
			break
		}
	}
	return out
}

// span is an Interval in Unix nanoseconds, which compare several times
// faster than time.Time in the inner loop.
type span struct{ start, end int64 }

func nanos(ivs []Interval) []span {
	out := make([]span, len(ivs))
	for i, iv := range ivs {
		out[i] = span{iv.Start.UnixNano(), iv.End.UnixNano()}
	}
	return out
}

// walker answers "is this participant free" for increasing slots.
type walker struct {
	busy, working []span
	limited       bool // working hours apply
	required      bool
	group         int // index into Request.Groups, -1 for none
	b, w          int // cursors into busy and working
}

// free reports whether [s, e) lies inside working hours and [bs, be) (the
// slot with its buffers) meets no busy time. Calls must come with
// non-decreasing s.
func (w *walker) free(s, e, bs, be int64) bool {
	if w.limited {
		for w.w < len(w.working) && w.working[w.w].end < e {
			w.w++
		}
		if w.w == len(w.working) || w.working[w.w].start > s {
			return false
		}
	}
	for w.b < len(w.busy) && w.busy[w.b].end <= bs {
		w.b++
	}
	return w.b == len(w.busy) || w.busy[w.b].start >= be
}

// starts yields the candidate slot starts, in Unix nanoseconds, from
// `from` (inclusive) until `to`: every step from midnight in loc, each day
// anew. Steps are taken in absolute time, so a day that a daylight saving
// change makes 23 or 25 hours long still yields each of its instants once.
func starts(loc *time.Location, from, to time.Time, step time.Duration) func(func(int64) bool) {
	return func(yield func(int64) bool) {
		l := from.In(loc)
		day := recur.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, loc)
		f, end, st := from.UnixNano(), to.UnixNano(), int64(step)
		for day.Before(to) {
			next := recur.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, loc)
			t, stop := day.UnixNano(), min(next.UnixNano(), end)
			if f > t {
				// The first step at or after from.
				t += (f - t + st - 1) / st * st
			}
			for ; t < stop; t += st {
				if !yield(t) {
					return
				}
			}
			day = next
		}
	}
}

// expand returns the working hours as sorted, merged instants covering
// [from, to), one day of margin on each side, so that hours running to
// midnight join the next day's hours from midnight. A date with an
// override takes the override's ranges instead of its weekday's.
func expand(wh *WorkingHours, from, to time.Time) []span {
	loc := wh.Location
	type date struct {
		y int
		m time.Month
		d int
	}
	overrides := make(map[date][]DayInterval, len(wh.Overrides))
	for _, o := range wh.Overrides {
		overrides[date{o.Year, o.Month, o.Day}] = o.Intervals
	}
	add := func(out []span, day time.Time, start, end int) []span {
		// recur.Date reads the wall clock in loc on that very date, so
		// the offset of each day applies; a time a DST gap skips moves
		// forward by the gap, a repeated one is its first occurrence.
		s := recur.Date(day.Year(), day.Month(), day.Day(), 0, start, 0, loc)
		e := recur.Date(day.Year(), day.Month(), day.Day(), 0, end, 0, loc)
		if e.After(s) {
			out = append(out, span{s.UnixNano(), e.UnixNano()})
		}
		return out
	}
	f := from.In(loc)
	day := recur.Date(f.Year(), f.Month(), f.Day()-1, 0, 0, 0, loc)
	var out []span
	for !day.After(to) {
		if ivs, ok := overrides[date{day.Year(), day.Month(), day.Day()}]; ok {
			for _, iv := range ivs {
				out = add(out, day, iv.Start, iv.End)
			}
		} else {
			for _, iv := range wh.Intervals {
				if iv.Day == day.Weekday() {
					out = add(out, day, iv.Start, iv.End)
				}
			}
		}
		day = recur.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, loc)
	}
	return merge(out)
}

// merge sorts spans and joins those that overlap or touch, in place.
func merge(s []span) []span {
	slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	out := s[:0]
	for _, iv := range s {
		if iv.end <= iv.start {
			continue
		}
		if n := len(out); n > 0 && iv.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, iv.end)
			continue
		}
		out = append(out, iv)
	}
	return out
}

// Overlaps reports the first pair of intervals of ivs on the same day that
// overlap, as indexes, or -1, -1. Touching intervals do not overlap.
func Overlaps(ivs []WeeklyInterval) (int, int) {
	for i := range ivs {
		for j := i + 1; j < len(ivs); j++ {
			a, b := ivs[i], ivs[j]
			if a.Day == b.Day && a.Start < b.End && b.Start < a.End {
				return i, j
			}
		}
	}
	return -1, -1
}
