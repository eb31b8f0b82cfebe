package icalmap

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/recur"
)

// ObjectEvents reads every VEVENT of one calendar object resource. A
// resource holds one UID: the series master (or a single event) and the
// overrides of its instances, each a sibling VEVENT with RECURRENCE-ID
// (RFC 4791 §4.1, RFC 5545 §3.8.4.4). The master gets id; an override gets
// the instance id [recur.InstanceID] of its original start and id as
// RecurringEventID, which is what [unical.ExpandEvents] expects of a
// provider that does not expand. opts may be nil.
//
// An override with RECURRENCE-ID;RANGE=THISANDFUTURE (RFC 5545 §3.8.4.4)
// is read as an override of its own instance only; the later instances it
// also changes keep the series' values.
func ObjectEvents(cal *ical.Calendar, id string, opts *Options) ([]*unical.Event, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Zones == nil {
		o.Zones = Zones(cal)
	}
	opts = &o
	var out []*unical.Event
	for _, comp := range cal.Children {
		if comp.Name != ical.CompEvent {
			continue
		}
		e, err := ToEvent(comp, opts)
		if err != nil {
			return nil, err
		}
		e.ID = id
		if e.OriginalStart != nil {
			orig, allDay, err := originalStart(comp, opts.Floating, opts.Zones)
			if err != nil {
				return nil, err
			}
			e.ID = recur.InstanceID(id, orig, allDay)
			e.RecurringEventID = id
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, errors.New("icalmap: calendar object has no VEVENT")
	}
	return out, nil
}

// OriginalStart reads the RECURRENCE-ID of an override as an instant (a
// date at midnight UTC for all-day series), the form [recur.InstanceID]
// takes.
func OriginalStart(comp *ical.Component) (t time.Time, allDay bool, err error) {
	return originalStart(comp, nil, nil)
}

func originalStart(comp *ical.Component, floating *time.Location, zones map[string]*time.Location) (t time.Time, allDay bool, err error) {
	if floating == nil {
		floating = time.UTC
	}
	p := comp.Props.Get(ical.PropRecurrenceID)
	if p == nil {
		return time.Time{}, false, errors.New("icalmap: VEVENT has no RECURRENCE-ID")
	}
	t, allDay, err = readTime(p, floating, zones)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("icalmap: RECURRENCE-ID: %w", err)
	}
	return t, allDay, nil
}

// Master returns the VEVENT of cal without RECURRENCE-ID, or nil.
func Master(cal *ical.Calendar) *ical.Component {
	for _, comp := range cal.Children {
		if comp.Name == ical.CompEvent && comp.Props.Get(ical.PropRecurrenceID) == nil {
			return comp
		}
	}
	return nil
}

// FindOverride returns the override of cal whose RECURRENCE-ID is the
// instant (or, for all-day series, the date) orig, or nil. floating is the
// zone floating times are read in (nil: UTC).
func FindOverride(cal *ical.Calendar, orig time.Time, floating *time.Location) *ical.Component {
	zones := Zones(cal)
	for _, comp := range cal.Children {
		if comp.Name != ical.CompEvent || comp.Props.Get(ical.PropRecurrenceID) == nil {
			continue
		}
		if t, _, err := originalStart(comp, floating, zones); err == nil && t.Equal(orig) {
			return comp
		}
	}
	return nil
}

// InstanceValue returns, for the series master of cal, the property
// (RECURRENCE-ID or EXDATE) naming the instance at orig, written with the
// value type and
// TZID of the master's DTSTART, as RFC 5545 §3.8.4.4 and §3.8.5.1 require
// for the two to match.
//
// floating is the zone a floating series is read in (nil: UTC).
func InstanceValue(cal *ical.Calendar, name string, master *ical.Component, orig time.Time, allDay bool, floating *time.Location) (*ical.Prop, error) {
	p := ical.NewProp(name)
	if allDay {
		p.SetDate(orig)
		return p, nil
	}
	start := master.Props.Get(ical.PropDateTimeStart)
	if start == nil {
		return nil, errors.New("icalmap: master has no DTSTART")
	}
	switch tzid := start.Params.Get(ical.ParamTimezoneID); {
	case tzid != "":
		loc, _, err := resolveTZID(tzid, Zones(cal))
		if err != nil {
			return nil, err
		}
		p.Params.Set(ical.ParamTimezoneID, tzid)
		p.Value = orig.In(loc).Format("20060102T150405")
	case len(start.Value) > 0 && start.Value[len(start.Value)-1] == 'Z':
		p.Value = orig.UTC().Format("20060102T150405Z")
	default:
		// A floating series names its instances in floating time too.
		if floating == nil {
			floating = time.UTC
		}
		p.Value = orig.In(floating).Format("20060102T150405")
	}
	return p, nil
}

// HasFloating reports whether a VEVENT of cal has a floating date-time
// (neither UTC nor TZID, RFC 5545 §3.3.5 form #1) in DTSTART, DTEND or
// RECURRENCE-ID: such an object needs [Options.Floating] to be read right.
func HasFloating(cal *ical.Calendar) bool {
	for _, comp := range cal.Children {
		if comp.Name != ical.CompEvent {
			continue
		}
		for _, name := range []string{ical.PropDateTimeStart, ical.PropDateTimeEnd, ical.PropRecurrenceID} {
			p := comp.Props.Get(name)
			if p != nil && len(p.Value) == len("20060102T150405") && p.Params.Get(ical.ParamTimezoneID) == "" {
				return true
			}
		}
	}
	return false
}

// Decode reads one VCALENDAR as a server sent it. go-ical's decoder panics
// on some malformed content lines (a parameter with nothing after its "=",
// as in "DTSTART;TZID="), and server data must not crash unicald, so a
// panic comes back as an error.
func Decode(r io.Reader) (cal *ical.Calendar, err error) {
	defer func() {
		if v := recover(); v != nil {
			cal, err = nil, fmt.Errorf("icalmap: malformed iCalendar: %v", v)
		}
	}()
	return ical.NewDecoder(r).Decode()
}
