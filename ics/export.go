package ics

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// MaxExportEvents is the most events (series, single events and
// overrides) one export holds. A calendar with more is exported in
// windows, with ExportParams.Start and End.
const MaxExportEvents = 10_000

// prodID names the producer in every exported VCALENDAR (RFC 5545 §3.7.3).
const prodID = "-//unical//unical calendar export//EN"

// ExportParams choose what an export holds. Start and End are set
// together or not at all: with them, the events that overlap the window
// (a series when any of its instances does, as the events listing
// decides); without them, the whole calendar.
type ExportParams struct {
	Start time.Time
	End   time.Time
}

// Export writes a calendar of api as one iCalendar object (RFC 5545): a
// VEVENT for every single event and series, with the series' RRULE,
// EXRULE, RDATE and EXDATE lines; a VEVENT with RECURRENCE-ID and the
// series' UID for every changed occurrence; an EXDATE on the series for
// every cancelled one; and a VTIMEZONE for every zone the events use.
//
// It reads through the events listing of api, so it works on an in-process
// [unical.App] and on a remote server through package httpclient alike.
func Export(ctx context.Context, api unical.API, accountID, calendarID string, params *ExportParams) ([]byte, error) {
	p := ExportParams{}
	if params != nil {
		p = *params
	}
	if err := checkWindow(p); err != nil {
		return nil, err
	}
	list := &unical.EventListParams{Start: p.Start, End: p.End, Limit: unical.MaxPageSize}
	var series, overrides []*unical.Event
	n := 0
	for e, err := range unical.AllEvents(ctx, api, accountID, calendarID, list, nil) {
		if err != nil {
			return nil, err
		}
		if n++; n > MaxExportEvents {
			field := "startDateTime"
			if !p.Start.IsZero() {
				field = "endDateTime"
			}
			return nil, unical.FieldError(field, "The calendar has more than %d events to export; export it in smaller windows with startDateTime and endDateTime.", MaxExportEvents)
		}
		if e.RecurringEventID != "" {
			overrides = append(overrides, e)
			continue
		}
		if !e.IsCancelled {
			series = append(series, e)
		}
	}
	return encode(series, overrides, time.Now())
}

// checkWindow refuses half a window and a window that ends before it
// starts, naming the parameter as the events listing does.
func checkWindow(p ExportParams) error {
	switch {
	case p.Start.IsZero() && !p.End.IsZero():
		return unical.FieldError("startDateTime", "startDateTime is required with endDateTime.")
	case !p.Start.IsZero() && p.End.IsZero():
		return unical.FieldError("endDateTime", "endDateTime is required with startDateTime.")
	case !p.Start.IsZero() && !p.End.After(p.Start):
		return unical.FieldError("endDateTime", "endDateTime must be after startDateTime.")
	}
	return nil
}

// encode builds the VCALENDAR of the listed series and single events and
// their overrides.
func encode(series, overrides []*unical.Event, now time.Time) ([]byte, error) {
	// A cancelled occurrence becomes an EXDATE of its series, which every
	// reader understands; a cancelled RECURRENCE-ID component is not
	// honoured by all of them.
	byID := make(map[string]*unical.Event, len(series))
	for _, e := range series {
		c := *e
		c.Recurrence = append([]string(nil), e.Recurrence...)
		byID[e.ID] = &c
	}
	var changed []*unical.Event
	for _, o := range overrides {
		master := byID[o.RecurringEventID]
		switch {
		case o.IsCancelled && master != nil && o.OriginalStart != nil:
			if line := exdate(o.OriginalStart, master.IsAllDay); line != "" {
				master.Recurrence = append(master.Recurrence, line)
			}
		case !o.IsCancelled:
			changed = append(changed, o)
		}
	}

	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, prodID)
	for _, e := range series {
		comp, err := component(byID[e.ID], uidOf(byID[e.ID]), now)
		if err != nil {
			return nil, err
		}
		cal.Children = append(cal.Children, comp)
	}
	for _, o := range changed {
		uid := o.ICalUID
		if master := byID[o.RecurringEventID]; master != nil {
			uid = uidOf(master)
		}
		if uid == "" {
			uid = o.RecurringEventID
		}
		c := *o
		c.Recurrence = nil
		comp, err := component(&c, uid, now)
		if err != nil {
			return nil, err
		}
		cal.Children = append(cal.Children, comp)
	}
	if err := icalmap.AddTimezones(cal); err != nil {
		return nil, &unical.Error{Code: unical.CodeInternal, Message: "The calendar could not be exported.", Err: err}
	}
	var buf bytes.Buffer
	if len(cal.Children) == 0 {
		// go-ical refuses to write a VCALENDAR without a component (RFC
		// 5545 §3.6 asks for one), but an export of nothing is a calendar
		// with no events, which readers (and Import) take as such.
		fmt.Fprintf(&buf, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:%s\r\nEND:VCALENDAR\r\n", prodID)
		return buf.Bytes(), nil
	}
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		return nil, &unical.Error{Code: unical.CodeInternal, Message: "The calendar could not be exported.", Err: err}
	}
	return buf.Bytes(), nil
}

// uidOf is the UID an event is exported under: its iCalendar UID where the
// provider has one, else its id, which is unique in the calendar too.
func uidOf(e *unical.Event) string {
	if e.ICalUID != "" {
		return e.ICalUID
	}
	return e.ID
}

// component writes one event as a VEVENT under uid, with its creation and
// change times where the provider gave them.
func component(e *unical.Event, uid string, now time.Time) (*ical.Component, error) {
	comp := ical.NewComponent(ical.CompEvent)
	c := *e
	c.ICalUID = uid
	if err := icalmap.Apply(comp, &c, now, ""); err != nil {
		return nil, &unical.Error{Code: unical.CodeInternal, Message: fmt.Sprintf("Event %q could not be exported.", e.ID), Err: err}
	}
	// Apply stamps the export's time; the provider's times are the true
	// ones, and a CREATED nobody recorded is left out rather than invented.
	for name, stamp := range map[string]string{ical.PropCreated: e.CreatedAt, ical.PropLastModified: e.UpdatedAt} {
		if t, err := time.Parse(time.RFC3339, stamp); err == nil {
			comp.Props.SetDateTime(name, t.UTC().Truncate(time.Second))
		} else if name == ical.PropCreated {
			comp.Props.Del(name)
		}
	}
	return comp, nil
}

// exdate is the EXDATE line that removes the occurrence originally at o:
// a DATE for an all-day series, else the instant in UTC, which needs no
// VTIMEZONE.
func exdate(o *unical.EventDateTime, allDay bool) string {
	if allDay {
		d, err := o.Day("originalStart")
		if err != nil {
			return ""
		}
		return "EXDATE;VALUE=DATE:" + d.Format("20060102")
	}
	t, err := o.Time("originalStart")
	if err != nil {
		return ""
	}
	return "EXDATE:" + t.UTC().Format("20060102T150405Z")
}
