package bookingpage

import (
	"bytes"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
)

// bookingICS is the booking as an iCalendar file (RFC 5545) for the
// guest's own calendar: one VEVENT in UTC whose UID is the booking's, so
// that a second download replaces the first, STATUS:CANCELLED once it is.
func bookingICS(l *linked, now time.Time) ([]byte, error) {
	start, end := l.slot()
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, "-//unical//booking page//EN")
	cal.Props.SetText(ical.PropMethod, "PUBLISH")
	ev := ical.NewEvent()
	ev.Props.SetText(ical.PropUID, l.b.ID+"@unical")
	ev.Props.SetDateTime(ical.PropDateTimeStamp, now.UTC())
	ev.Props.SetDateTime(ical.PropDateTimeStart, start.UTC())
	ev.Props.SetDateTime(ical.PropDateTimeEnd, end.UTC())
	ev.Props.SetText(ical.PropSummary, l.name())
	if l.t != nil && l.t.Event.Location != "" {
		ev.Props.SetText(ical.PropLocation, l.t.Event.Location)
	}
	status := "CONFIRMED"
	if l.b.Status == booking.StatusCancelled {
		status = "CANCELLED"
	}
	ev.Props.SetText(ical.PropStatus, status)
	cal.Children = append(cal.Children, ev.Component)
	var buf bytes.Buffer
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return buf.Bytes(), nil
}
