package googletest

import (
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/unical/unical/internal/recur"
)

// series is the expanded form of a recurring event's recurrence[] lines
// (RFC 5545 RRULE, RDATE and EXDATE; Google sends no DTSTART line, the
// event's start is DTSTART). Timed series expand in start.timeZone, as the
// Event.start reference requires; all-day series expand over floating
// dates, represented as midnight UTC.
type series struct {
	set    *recur.Set
	allDay bool
	loc    *time.Location
	dur    time.Duration
}

// maxIterations bounds every expansion, so a rule with no end cannot run
// away.
const maxIterations = 100000

func newSeries(ev *Event) (*series, error) {
	st, err := parseWhen(ev.Start, "start")
	if err != nil {
		return nil, err
	}
	en, err := parseWhen(ev.End, "end")
	if err != nil {
		return nil, err
	}
	rules := 0
	for _, line := range ev.Recurrence {
		name, _, ok := splitProperty(line)
		if !ok {
			return nil, fmt.Errorf("bad recurrence line %q", line)
		}
		switch name {
		case "RRULE":
			if rules++; rules > 1 {
				return nil, errors.New("more than one RRULE")
			}
		case "RDATE", "EXDATE":
		case "EXRULE":
			// EXRULE is deprecated by RFC 5545; refuse rather than guess
			// what Google does with it.
			return nil, errors.New("EXRULE is not supported by the fake")
		default:
			return nil, fmt.Errorf("unsupported recurrence property %s", name)
		}
	}
	sr := &series{allDay: st.allDay, loc: time.UTC, dur: en.t.Sub(st.t)}
	if !st.allDay {
		loc, ok := loadZone(ev.Start.TimeZone)
		if !ok {
			return nil, errors.New("recurring events need start.timeZone")
		}
		sr.loc = loc
	}
	// The series keeps the start's wall clock as written in
	// start.timeZone, where it expands (Event.start.timeZone: "the time
	// zone in which the recurrence is expanded"); RFC 5545 §3.3.10 keeps
	// the time of day, so a start a DST gap skips keeps it for the days
	// after.
	sr.set, err = recur.ParseAt(ev.Recurrence, st.t.In(sr.loc), ev.Start.DateTime, st.allDay)
	return sr, err
}

// splitProperty splits "EXDATE;TZID=X:2025…" into "EXDATE" and
// "TZID=X:2025…".
func splitProperty(line string) (string, string, bool) {
	line = strings.TrimSpace(line)
	i := strings.IndexAny(line, ";:")
	if i <= 0 {
		return "", "", false
	}
	return strings.ToUpper(line[:i]), line[i+1:], true
}

// between returns the starts of instances that overlap (after, before):
// start < before and start+duration > after. Bounds are compared in
// absolute time; all-day starts are midnight UTC, so callers pad them.
func (sr *series) between(after, before time.Time, limit int) []time.Time {
	var out []time.Time
	for occ := range sr.set.Between(after, before, sr.dur) {
		if len(out) >= limit || len(out) >= maxIterations {
			break
		}
		out = append(out, occ.OriginalStart)
	}
	return out
}

// has reports whether t is the start of an instance.
func (sr *series) has(t time.Time) bool { return sr.set.Contains(t) }

// instanceID names an instance of a series. Google's instance ids have
// long looked like the master id, "_" and the original start in UTC
// (YYYYMMDDTHHMMSSZ, or YYYYMMDD for all-day series), but that was never
// documented, and Google told developers in October 2025 that from Q3 2026
// "Calendar generates and accepts new event IDs" for instances of
// recurring events, that "Event IDs must be treated as opaque identifiers
// and their format can change anytime" (developer notice quoted in
// https://github.com/phw198/OutlookGoogleCalendarSync/issues/2205; the
// Event.id reference documents only the base32hex alphabet). The fake
// therefore hands out ids that reveal neither the master nor the start:
// "i" and the base32hex encoding (lower case, unpadded, so within the
// documented alphabet) of a private encoding of both, so code under test
// cannot come to parse them. Use [InstanceID] to address an instance in
// tests.
func instanceID(masterID string, t time.Time, allDay bool) string {
	b := make([]byte, 0, len(instanceMagic)+len(masterID)+10)
	b = append(b, instanceMagic...)
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix()))
	if allDay {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = append(b, masterID...)
	return "i" + strings.ToLower(instanceEncoding.EncodeToString(b))
}

// instanceMagic marks the payload of an instance id, so that other ids do
// not decode as one.
const instanceMagic = "gti1"

var instanceEncoding = base32.HexEncoding.WithPadding(base32.NoPadding)

func parseInstanceID(id string) (string, time.Time, bool, bool) {
	rest, ok := strings.CutPrefix(id, "i")
	if !ok {
		return "", time.Time{}, false, false
	}
	b, err := instanceEncoding.DecodeString(strings.ToUpper(rest))
	if err != nil || len(b) < len(instanceMagic)+10 || string(b[:len(instanceMagic)]) != instanceMagic {
		return "", time.Time{}, false, false
	}
	b = b[len(instanceMagic):]
	t := time.Unix(int64(binary.BigEndian.Uint64(b)), 0).UTC()
	allDay := b[8] == 1
	return string(b[9:]), t, allDay, true
}

// InstanceID returns the id the fake gives the instance of series masterID
// that originally starts at originalStart (midnight UTC of the date for
// all-day series). Google's instance ids are opaque; this exists so tests
// can address an instance the way a client would after listing it.
func InstanceID(masterID string, originalStart time.Time, allDay bool) string {
	return instanceID(masterID, originalStart, allDay)
}

// instance materializes the instance of master that starts at orig: the
// master's fields, its own id, recurringEventId, originalStartTime and
// shifted start/end, and no recurrence.
func (sr *series) instance(master *Event, orig time.Time) Event {
	ev := cloneEvent(*master)
	ev.ID = instanceID(master.ID, orig, sr.allDay)
	ev.Recurrence = nil
	ev.RecurringEventID = master.ID
	tz := ""
	if master.Start != nil {
		tz = master.Start.TimeZone
	}
	if sr.allDay {
		ev.OriginalStartTime = &EventDateTime{Date: orig.Format(time.DateOnly)}
		ev.Start = &EventDateTime{Date: orig.Format(time.DateOnly)}
		ev.End = &EventDateTime{Date: orig.Add(sr.dur).Format(time.DateOnly)}
	} else {
		local := orig.In(sr.loc)
		ev.OriginalStartTime = &EventDateTime{DateTime: local.Format(time.RFC3339), TimeZone: tz}
		ev.Start = &EventDateTime{DateTime: local.Format(time.RFC3339), TimeZone: tz}
		endTZ := tz
		if master.End != nil && master.End.TimeZone != "" {
			endTZ = master.End.TimeZone
		}
		ev.End = &EventDateTime{DateTime: local.Add(sr.dur).Format(time.RFC3339), TimeZone: endTZ}
	}
	return ev
}

// occurrence is one instance of a series, or a stored exception standing in
// for it.
type occurrence struct {
	id   string
	ev   Event
	orig time.Time
}

// instancesLocked lists the instances of a master that overlap
// (after, before) in absolute time, with stored exceptions (modified or
// cancelled) in place of the generated instances.
func (s *Server) instancesLocked(cal *calendar, master *Event, after, before time.Time, calLoc *time.Location, limit int) []occurrence {
	sr, err := newSeries(master)
	if err != nil {
		return nil
	}
	lo, hi := after, before
	if sr.allDay {
		// All-day starts are midnight UTC; widen by a day each side and
		// filter in the calendar's zone below.
		lo, hi = after.Add(-48*time.Hour), before.Add(48*time.Hour)
	}
	var out []occurrence
	for _, t := range sr.between(lo, hi, limit+4) {
		id := instanceID(master.ID, t, sr.allDay)
		ev := sr.instance(master, t)
		if se := cal.events[id]; se != nil {
			ev = se.ev
		}
		st, en, _, err := span(&ev, calLoc)
		if err != nil || !st.Before(before) || !en.After(after) {
			continue
		}
		out = append(out, occurrence{id: id, ev: ev, orig: t})
		if len(out) >= limit {
			break
		}
	}
	return out
}
