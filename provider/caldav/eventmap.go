package caldav

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
	"github.com/unical/unical/internal/recur"
)

// setPartStat sets PARTSTAT on comp's ATTENDEE whose address is self and
// reports whether there was one.
func setPartStat(comp *ical.Component, self string, status unical.ResponseStatus, now time.Time) bool {
	found := false
	attendees := comp.Props.Values(ical.PropAttendee)
	for i := range attendees {
		a := &attendees[i]
		if strings.EqualFold(strings.TrimPrefix(strings.ToLower(a.Value), "mailto:"), self) {
			a.Params.Set(ical.ParamParticipationStatus, icalmap.PartStat(status))
			// The server, not the client, sets SCHEDULE-STATUS (RFC 6638
			// §3.2.9); an old one would be misleading after the change.
			a.Params.Del("SCHEDULE-STATUS")
			found = true
		}
	}
	if found {
		comp.Props[ical.PropAttendee] = attendees
		comp.Props.SetDateTime(ical.PropDateTimeStamp, now.UTC().Truncate(time.Second))
	}
	return found
}

// objectEvents decodes a resource into unical events with its ETag,
// reading floating times in floating.
func objectEvents(obj *object, self string, floating *time.Location) ([]*unical.Event, error) {
	events, err := icalmap.ObjectEvents(obj.Cal, eventIDOf(obj.Name), &icalmap.Options{Self: self, Floating: floating})
	if err != nil {
		return nil, unical.WrapError(unical.CodeUpstream, err, "The CalDAV server holds an event that cannot be read.")
	}
	for _, e := range events {
		e.ETag = obj.ETag
		if e.EventType == "" {
			e.EventType = unical.EventTypeDefault
		}
	}
	return events, nil
}

// finish adds the VTIMEZONEs the object needs and encodes it. Failures are
// CodeInvalid: they come from what the caller asked to write.
func finish(cal *ical.Calendar) ([]byte, error) {
	if err := icalmap.AddTimezones(cal); err != nil {
		return nil, unical.WrapError(unical.CodeInvalid, err, "The event's time zone is not known.")
	}
	data, err := encode(cal)
	if err != nil {
		return nil, unical.WrapError(unical.CodeInvalid, err, "The event cannot be written as iCalendar: %v", err)
	}
	return data, nil
}

// write checks e and writes it into comp. Every check that can refuse the
// event runs here, before any request: an end before the start and a
// recurrence the engine cannot read are CodeInvalid with nothing written.
func write(comp *ical.Component, e *unical.Event, self string, now time.Time) error {
	if err := check(e); err != nil {
		return err
	}
	orig := e.OriginalStart
	// RECURRENCE-ID is kept as the resource has it (or as target wrote it
	// in the series' form), never rewritten from the unical value.
	e.OriginalStart = nil
	err := icalmap.Apply(comp, e, now, self)
	e.OriginalStart = orig
	if err != nil {
		var ue *unical.Error
		if errors.As(err, &ue) {
			return ue
		}
		return unical.WrapError(unical.CodeInvalid, err, "The event cannot be written as iCalendar: %v", err)
	}
	return nil
}

// check validates start, end and recurrence of an event about to be
// written. The Client validates params already; this covers the merged
// result, which also holds what the resource had before.
func check(e *unical.Event) error {
	if e.Start == nil {
		return unical.FieldError("start", "start is required.")
	}
	if e.IsAllDay {
		s, err := e.Start.Day("start")
		if err != nil {
			return err
		}
		if e.End != nil {
			en, err := e.End.Day("end")
			if err != nil {
				return err
			}
			if !en.After(s) {
				return unical.FieldError("end", "end must be after start (all-day ends are exclusive).")
			}
		}
	} else {
		s, err := e.Start.Time("start")
		if err != nil {
			return err
		}
		if e.End != nil {
			en, err := e.End.Time("end")
			if err != nil {
				return err
			}
			if en.Before(s) {
				return unical.FieldError("end", "end must not be before start.")
			}
		}
	}
	if len(e.Recurrence) > 0 {
		if err := recur.Validate(e.Recurrence, e.IsAllDay); err != nil {
			var pe *recur.ParseError
			field := "recurrence"
			if errors.As(err, &pe) && pe.Index >= 0 {
				field = "recurrence[" + strconv.Itoa(pe.Index) + "]"
			}
			return unical.FieldError(field, "%v", err)
		}
	}
	return nil
}

// merge copies what params sets into e: an absent field is kept, a null
// one cleared. create tells a new event, whose all-day flag also follows
// from a bare start date and whose attendees need an organizer.
func merge(e *unical.Event, params *unical.EventParams, self string, create bool) error {
	params.ApplyCommon(e)
	switch {
	case params.IsAllDay.IsSet():
		e.IsAllDay = params.IsAllDay.Value()
	case create && e.Start != nil:
		e.IsAllDay = e.Start.Date != "" && e.Start.DateTime == ""
	}
	if params.Recurrence.IsSet() {
		e.Recurrence = params.Recurrence.Value()
		e.IsRecurring = len(e.Recurrence) > 0
	}
	params.ColorID.Apply(&e.ColorID)
	params.CustomColor.Apply(&e.CustomColor)
	params.EventType.Apply(&e.EventType)
	if params.Reminders.IsSet() {
		// null asks for the defaults, as on Google.
		e.Reminders = &unical.Reminders{UseDefault: true}
		if v, ok := params.Reminders.Get(); ok {
			e.Reminders = &v
		}
	}
	if params.Organizer.IsSet() {
		e.Organizer = nil
		if v, ok := params.Organizer.Get(); ok {
			e.Organizer = &v
		}
	}
	if v, ok := params.MyResponseStatus.Get(); ok && v != "" {
		found := false
		for i := range e.Attendees {
			if strings.EqualFold(e.Attendees[i].Email, self) {
				e.Attendees[i].ResponseStatus = v
				found = true
			}
		}
		// The status is the PARTSTAT of the account's ATTENDEE line:
		// without one there is nowhere to keep it.
		if !found {
			return unical.FieldError("myResponseStatus", "myResponseStatus needs the account (%s) among the event's attendees on CalDAV.", self)
		}
	}
	if create && e.Organizer == nil && len(e.Attendees) > 0 && self != "" {
		e.Organizer = &unical.Organizer{Email: self}
	}
	return nil
}

// cloneAsOverride copies a series master into a new override: every
// property but the recurrence ones (RFC 5545 §3.8.4.4: an override is an
// instance, not a series), and its alarms.
func cloneAsOverride(master *ical.Component) *ical.Component {
	c := ical.NewComponent(ical.CompEvent)
	for name, props := range master.Props {
		switch name {
		case "RRULE", "EXRULE", ical.PropRecurrenceDates, ical.PropExceptionDates:
			continue
		}
		cp := make([]ical.Prop, len(props))
		for i, p := range props {
			cp[i] = p
			cp[i].Params = ical.Params{}
			for k, v := range p.Params {
				cp[i].Params[k] = append([]string(nil), v...)
			}
		}
		c.Props[name] = cp
	}
	c.Children = append(c.Children, master.Children...)
	return c
}

func removeComponent(cal *ical.Calendar, comp *ical.Component) {
	for i, ch := range cal.Children {
		if ch == comp {
			cal.Children = append(cal.Children[:i], cal.Children[i+1:]...)
			return
		}
	}
}

func hasEvents(cal *ical.Calendar) bool {
	for _, ch := range cal.Children {
		if ch.Name == ical.CompEvent {
			return true
		}
	}
	return false
}

// bumpSequence increments SEQUENCE, as RFC 5545 §3.8.7.4 asks when the
// time or recurrence of an event changes, so that attendees' clients see
// the newer version.
func bumpSequence(comp *ical.Component) {
	n := 0
	if p := comp.Props.Get(ical.PropSequence); p != nil {
		n, _ = p.Int()
	}
	p := ical.NewProp(ical.PropSequence)
	p.Value = strconv.Itoa(n + 1)
	comp.Props.Set(p)
}
