package unical

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/unical/unical/internal/recur"
)

// validateRecurrenceLines checks an event's recurrence lines with the
// recurrence engine and names the offending line as recurrence[i].
func validateRecurrenceLines(lines []string, allDay bool) error {
	return recurrenceError(recur.Validate(lines, allDay))
}

// validateRecurrenceFrom also checks what only the series start tells (a
// rule that would be refused at expansion: a period or COUNT too large to
// expand), when the start is readable; a bad start is validateTimes' to
// report.
func validateRecurrenceFrom(lines []string, allDay bool, start *EventDateTime) error {
	if err := validateRecurrenceLines(lines, allDay); err != nil || start == nil {
		return err
	}
	t, err := seriesStart(start, allDay, "start")
	if err != nil {
		return nil
	}
	_, err = recur.Parse(lines, t, allDay)
	return recurrenceError(err)
}

func recurrenceError(err error) error {
	if err == nil {
		return nil
	}
	var pe *recur.ParseError
	if errors.As(err, &pe) {
		field := "recurrence"
		if pe.Index < 0 && pe.Field == "start" {
			// Not a line's fault: the series start is out of reach.
			return invalidf("start", "%s", pe.Reason)
		}
		if pe.Index >= 0 {
			field = fmt.Sprintf("recurrence[%d]", pe.Index)
		}
		return invalidf(field, "%s: %s", pe.Field, pe.Reason)
	}
	return invalidf("recurrence", "%v", err)
}

// ExpandEvents expands the recurring series among events into their
// instances overlapping [from, to), for providers that return series
// rather than instances (CalDAV). Overridden and cancelled instances come
// as events with RecurringEventID and OriginalStart; they replace or remove
// the instance they name, also when they moved into or out of the window.
// Non-recurring events pass through. Instances get ids from
// [recur.InstanceID], isRecurring false, isException true, originalStart and
// recurringEventId, as the spec shows for occurrences.
//
// It builds every instance in the window at once, so callers keep the
// window small; the Client's own listings and free/busy expand instance by
// instance instead (see expandPage).
func ExpandEvents(events []*Event, from, to time.Time) ([]*Event, error) {
	masters := map[string]bool{}
	for _, e := range events {
		if e.IsRecurring && len(e.Recurrence) > 0 {
			masters[e.ID] = true
		}
	}
	overrides := map[string][]*Event{}
	var out []*Event
	for _, e := range events {
		if e.RecurringEventID != "" && e.OriginalStart != nil && masters[e.RecurringEventID] {
			overrides[e.RecurringEventID] = append(overrides[e.RecurringEventID], e)
		}
	}
	for _, e := range events {
		switch {
		case e.RecurringEventID != "" && masters[e.RecurringEventID]:
			// Consumed by its series below.
		case masters[e.ID]:
			inst, err := expandSeries(e, overrides[e.ID], from, to)
			if err != nil {
				return nil, err
			}
			out = append(out, inst...)
		default:
			out = append(out, e)
		}
	}
	return out, nil
}

// seriesStart returns the DTSTART of a series as the recurrence engine
// wants it: an instant in the series zone, or a date label for all-day
// series.
func seriesStart(d *EventDateTime, allDay bool, field string) (time.Time, error) {
	if allDay {
		return d.Day(field)
	}
	return d.Time(field)
}

// series is one recurring series ready to expand: its recurrence set with
// the overrides applied, and what turns an occurrence into an instance.
type series struct {
	master     *Event
	set        *recur.Set
	allDay     bool
	dur        time.Duration
	byOriginal map[int64]*Event // override events by original start
}

func newSeries(master *Event, overrides []*Event) (*series, error) {
	allDay := master.IsAllDay
	start, err := seriesStart(master.Start, allDay, "start")
	if err != nil {
		return nil, err
	}
	end := start
	if master.End != nil {
		if end, err = seriesStart(master.End, allDay, "end"); err != nil {
			return nil, err
		}
	} else if allDay {
		end = start.AddDate(0, 0, 1)
	}
	set, err := recur.ParseAt(master.Recurrence, start, master.Start.DateTime, allDay)
	if err != nil {
		return nil, WrapError(CodeUpstream, err, "The provider returned a recurring event %q whose recurrence cannot be read.", master.ID)
	}
	byOriginal := map[int64]*Event{}
	var ovs []recur.Override
	for _, o := range overrides {
		orig, err := seriesStart(o.OriginalStart, allDay, "originalStart")
		if err != nil {
			continue
		}
		ov := recur.Override{OriginalStart: orig, Cancelled: o.IsCancelled}
		if !o.IsCancelled && o.Start != nil {
			if ov.Start, err = seriesStart(o.Start, allDay, "start"); err != nil {
				continue
			}
			if o.End != nil {
				if ov.End, err = seriesStart(o.End, allDay, "end"); err != nil {
					continue
				}
			}
		}
		ovs = append(ovs, ov)
		byOriginal[orig.Unix()] = o
	}
	if len(ovs) > 0 {
		if set, err = set.WithOverrides(ovs); err != nil {
			return nil, WrapError(CodeUpstream, err, "The provider returned overrides of %q that cannot be applied.", master.ID)
		}
	}
	return &series{master: master, set: set, allDay: allDay, dur: end.Sub(start), byOriginal: byOriginal}, nil
}

func expandSeries(master *Event, overrides []*Event, from, to time.Time) ([]*Event, error) {
	sr, err := newSeries(master, overrides)
	if err != nil {
		return nil, err
	}
	var out []*Event
	for occ := range sr.set.Between(from, to, sr.dur) {
		out = append(out, sr.instance(occ))
	}
	return out, nil
}

// instance builds the event of one occurrence: a copy of the master, or
// of the override that changed it.
func (sr *series) instance(occ recur.Occurrence) *Event {
	expandedInstances.Add(1)
	master := sr.master
	inst := *master
	if o, ok := sr.byOriginal[occ.OriginalStart.Unix()]; ok && occ.Overridden {
		inst = *o
	}
	if inst.ID == "" || inst.ID == master.ID {
		inst.ID = recur.InstanceID(master.ID, occ.OriginalStart, sr.allDay)
	}
	inst.IsRecurring, inst.IsException, inst.Recurrence = false, true, nil
	inst.RecurringEventID = master.ID
	if sr.allDay {
		inst.Start, inst.End = AllDayOn(occ.Start), AllDayOn(occ.End)
		inst.OriginalStart = &EventDateTime{Date: occ.OriginalStart.Format(DateLayout)}
	} else {
		inst.Start, inst.End = TimedAt(occ.Start), TimedAt(occ.End)
		inst.OriginalStart = TimedAt(occ.OriginalStart)
	}
	return &inst
}

// expandedInstances counts the instances built by expansion, so tests can
// see that a page of a listing expands only what it shows.
var expandedInstances atomic.Int64
