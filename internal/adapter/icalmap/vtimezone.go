package icalmap

import (
	"fmt"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical/internal/recur"
)

// tzProps are the properties whose TZID parameter names a zone that the
// object must define (RFC 5545 §3.2.19: "An individual VTIMEZONE calendar
// component MUST be specified for each unique TZID parameter value").
var tzProps = []string{ical.PropDateTimeStart, ical.PropDateTimeEnd, ical.PropRecurrenceID, ical.PropExceptionDates, ical.PropRecurrenceDates}

// AddTimezones adds to cal a VTIMEZONE for every TZID its VEVENTs use that
// cal does not define yet, built from Go's zone data (RFC 5545 §3.6.5).
// go-ical writes TZID=<IANA name> and no VTIMEZONE, which servers that
// evaluate time ranges from the object alone read as floating time.
//
// Go does not expose a zone's rules, only its transitions, so each
// VTIMEZONE lists the observances from a year before the earliest time the
// object uses to five years after the latest, one STANDARD or DAYLIGHT
// sub-component per transition. Clients that know the TZID (all of them
// for IANA names) use their own rules; the listed range covers readers
// that rely on the VTIMEZONE for the event and its near future.
func AddTimezones(cal *ical.Calendar) error {
	defined := map[string]bool{}
	for _, comp := range cal.Children {
		if comp.Name == ical.CompTimezone {
			if id, err := comp.Props.Text(ical.PropTimezoneID); err == nil {
				defined[id] = true
			}
		}
	}
	type span struct{ from, to time.Time }
	used := map[string]*span{}
	var order []string
	for _, comp := range cal.Children {
		if comp.Name != ical.CompEvent {
			continue
		}
		for _, name := range tzProps {
			for _, p := range comp.Props.Values(name) {
				tzid := p.Params.Get(ical.ParamTimezoneID)
				if tzid == "" || defined[tzid] {
					continue
				}
				loc, err := ResolveTZID(tzid)
				if err != nil {
					return err
				}
				t, err := recur.ParseLocal(icalLocalLayout, p.Value, loc)
				if err != nil {
					continue // a DATE or PERIOD value; DTSTART bounds the span
				}
				s := used[tzid]
				if s == nil {
					s = &span{t, t}
					used[tzid] = s
					order = append(order, tzid)
				}
				if t.Before(s.from) {
					s.from = t
				}
				if t.After(s.to) {
					s.to = t
				}
			}
		}
	}
	var zones []*ical.Component
	for _, tzid := range order {
		loc, _ := ResolveTZID(tzid)
		s := used[tzid]
		from := recur.Date(s.from.Year()-1, 1, 1, 0, 0, 0, loc)
		to := recur.Date(s.to.Year()+5, 12, 31, 0, 0, 0, loc)
		zones = append(zones, VTimezone(tzid, loc, from, to))
	}
	// VTIMEZONEs go first, as producers conventionally write them.
	cal.Children = append(zones, cal.Children...)
	return nil
}

// VTimezone builds a VTIMEZONE named tzid for loc, listing the observance
// in force at from and every transition up to to.
func VTimezone(tzid string, loc *time.Location, from, to time.Time) *ical.Component {
	vtz := ical.NewComponent(ical.CompTimezone)
	vtz.Props.SetText(ical.PropTimezoneID, tzid)
	first := from.In(loc)
	_, off := first.Zone()
	vtz.Children = append(vtz.Children, observance(first, off))
	t := first
	for {
		_, end := t.ZoneBounds()
		if end.IsZero() || end.After(to) {
			break
		}
		if !end.After(t) {
			// Past the zone file's last transition (2037) Go computes
			// zones from the TZ rule year by year, and at the end of a
			// leap year (2040-12-31 in Europe/Berlin) ZoneBounds reports
			// t itself as the end, so the loop would never advance. No
			// zone's rule changes the offset at the turn of the year:
			// step over it.
			t = t.Add(24 * time.Hour)
			continue
		}
		// The year-by-year computation also reports year ends as zone
		// ends; list only real changes.
		before := end.Add(-time.Second)
		_, prev := before.Zone()
		if _, off := end.Zone(); off != prev || end.IsDST() != before.IsDST() {
			vtz.Children = append(vtz.Children, observance(end.In(loc), prev))
		}
		t = end
	}
	return vtz
}

// observance is the STANDARD or DAYLIGHT sub-component that starts at t,
// whose DTSTART is local time in the offset before it (RFC 5545 §3.6.5:
// "DTSTART ... MUST be specified as a date with a local time value").
func observance(t time.Time, offsetFrom int) *ical.Component {
	name := ical.CompTimezoneStandard
	if t.IsDST() {
		name = ical.CompTimezoneDaylight
	}
	abbr, offsetTo := t.Zone()
	c := ical.NewComponent(name)
	start := ical.NewProp(ical.PropDateTimeStart)
	start.Value = t.UTC().Add(time.Duration(offsetFrom) * time.Second).Format("20060102T150405")
	c.Props.Set(start)
	// UTC-OFFSET values are set raw: SetText would add VALUE=TEXT.
	for name, v := range map[string]string{ical.PropTimezoneOffsetFrom: utcOffset(offsetFrom), ical.PropTimezoneOffsetTo: utcOffset(offsetTo)} {
		p := ical.NewProp(name)
		p.Value = v
		c.Props.Set(p)
	}
	if abbr != "" {
		c.Props.SetText(ical.PropTimezoneName, abbr)
	}
	return c
}

// utcOffset writes seconds east of UTC as a UTC-OFFSET value (RFC 5545
// §3.3.14): +hhmm, with seconds only when there are any.
func utcOffset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	s := fmt.Sprintf("%s%02d%02d", sign, sec/3600, sec/60%60)
	if sec%60 != 0 {
		s += fmt.Sprintf("%02d", sec%60)
	}
	return s
}
