package icalmap

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
)

// Properties of the event fields iCalendar has no property of its own
// for. Each is written only when the field has a value, and read back as
// written.
const (
	// PropColorID holds colorId (a provider palette index: it has no
	// meaning to other CalDAV clients).
	PropColorID = "X-UNICAL-COLOR-ID"
	// PropEventType holds an eventType other than default.
	PropEventType = "X-UNICAL-EVENT-TYPE"
	// PropReminders says what an event without VALARMs means: DEFAULT
	// (reminders.useDefault: the client's own default alarms) or NONE
	// (useDefault false and no overrides: no reminder at all). An event
	// with neither VALARMs nor this property has no reminders field.
	PropReminders = "X-UNICAL-REMINDERS"
	// propColor is RFC 7986 §5.9 COLOR, which holds customColor.
	propColor = "COLOR"
)

// hexColor matches the #RRGGBB form of customColor.
var hexColor = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// readFields reads colorId, customColor, eventType and reminders.
func readFields(comp *ical.Component, e *unical.Event) error {
	var err error
	text := func(name string) string {
		if err != nil {
			return ""
		}
		var s string
		s, err = comp.Props.Text(name)
		return s
	}
	e.ColorID = text(PropColorID)
	// A COLOR of another client may be a CSS3 colour name (RFC 7986);
	// customColor holds only #RRGGBB, so such a COLOR is left unread (and
	// kept on update).
	if c := text(propColor); hexColor.MatchString(c) {
		e.CustomColor = c
	}
	switch t := unical.EventType(text(PropEventType)); t {
	case unical.EventTypeOutOfOffice, unical.EventTypeFocusTime:
		e.EventType = t
	}
	marker := strings.ToUpper(text(PropReminders))
	if err != nil {
		return fmt.Errorf("icalmap: %w", err)
	}
	e.Reminders = readReminders(comp, marker)
	return nil
}

// readReminders maps the VALARMs of comp: each whose TRIGGER is a
// duration before (or at) the start becomes an override, DISPLAY and
// AUDIO as popup, EMAIL as email; alarms at a fixed time or relative to
// the end have no place in reminders and are left out (and kept on
// update).
func readReminders(comp *ical.Component, marker string) *unical.Reminders {
	var overrides []unical.ReminderOverride
	alarms := 0
	for _, ch := range comp.Children {
		if ch.Name != ical.CompAlarm {
			continue
		}
		alarms++
		if o, ok := reminderOf(ch); ok {
			overrides = append(overrides, o)
		}
	}
	switch {
	case alarms > 0:
		return &unical.Reminders{Overrides: overrides}
	case marker == "DEFAULT":
		return &unical.Reminders{UseDefault: true}
	case marker == "NONE":
		return &unical.Reminders{}
	}
	return nil
}

// reminderOf maps one VALARM, reporting false for one reminders cannot
// express.
func reminderOf(alarm *ical.Component) (unical.ReminderOverride, bool) {
	trig := alarm.Props.Get(ical.PropTrigger)
	if trig == nil || trig.ValueType() == ical.ValueDateTime || strings.EqualFold(trig.Params.Get(ical.ParamRelated), "END") {
		return unical.ReminderOverride{}, false
	}
	d, err := trig.Duration()
	if err != nil || d > 0 || d%time.Minute != 0 || -d > 40320*time.Minute {
		return unical.ReminderOverride{}, false
	}
	o := unical.ReminderOverride{Minutes: int(-d / time.Minute)}
	action, _ := alarm.Props.Text(ical.PropAction)
	switch strings.ToUpper(action) {
	case "DISPLAY", "AUDIO":
		o.Method = "popup"
	case "EMAIL":
		o.Method = "email"
	default:
		return unical.ReminderOverride{}, false
	}
	return o, true
}

// writeFields writes colorId, customColor, eventType and reminders. A
// field whose value reads back unchanged leaves its properties as they
// are, so that other clients' alarms and colours survive an update of
// other fields. self is the address email reminders go to.
func writeFields(comp *ical.Component, e *unical.Event, self string) error {
	if e.ColorID != "" {
		comp.Props.SetText(PropColorID, e.ColorID)
	} else {
		comp.Props.Del(PropColorID)
	}
	current, _ := comp.Props.Text(propColor)
	switch {
	case e.CustomColor != "":
		comp.Props.SetText(propColor, e.CustomColor)
	case hexColor.MatchString(current):
		comp.Props.Del(propColor)
	}
	switch e.EventType {
	case unical.EventTypeOutOfOffice, unical.EventTypeFocusTime:
		comp.Props.SetText(PropEventType, string(e.EventType))
	default:
		comp.Props.Del(PropEventType)
	}
	return writeReminders(comp, e, self)
}

// writeReminders replaces comp's VALARMs with e.Reminders when they read
// differently; nil reminders leave the alarms alone.
func writeReminders(comp *ical.Component, e *unical.Event, self string) error {
	r := e.Reminders
	if r == nil {
		return nil
	}
	marker, _ := comp.Props.Text(PropReminders)
	if equalReminders(readReminders(comp, strings.ToUpper(marker)), r) {
		return nil
	}
	if r.UseDefault && len(r.Overrides) > 0 {
		return &unical.Error{Code: unical.CodeInvalid, Field: "reminders",
			Message: "CalDAV keeps either the client's default reminders (useDefault) or explicit overrides, not both."}
	}
	comp.Children = slices.DeleteFunc(comp.Children, func(c *ical.Component) bool { return c.Name == ical.CompAlarm })
	comp.Props.Del(PropReminders)
	switch {
	case r.UseDefault:
		comp.Props.SetText(PropReminders, "DEFAULT")
		return nil
	case len(r.Overrides) == 0:
		comp.Props.SetText(PropReminders, "NONE")
		return nil
	}
	for i, o := range r.Overrides {
		alarm := ical.NewComponent(ical.CompAlarm)
		trig := ical.NewProp(ical.PropTrigger)
		trig.Value = "-PT" + strconv.Itoa(o.Minutes) + "M"
		if o.Minutes == 0 {
			trig.Value = "PT0S"
		}
		alarm.Props.Set(trig)
		// RFC 5545 §3.6.6: DISPLAY needs DESCRIPTION; EMAIL needs
		// DESCRIPTION, SUMMARY and an ATTENDEE to mail.
		alarm.Props.SetText(ical.PropDescription, textValue(e.Title))
		switch o.Method {
		case "email":
			to := self
			if to == "" && e.Organizer != nil {
				to = e.Organizer.Email
			}
			if to == "" {
				return &unical.Error{Code: unical.CodeInvalid, Field: fmt.Sprintf("reminders.overrides[%d].method", i),
					Message: "An email reminder needs an address to mail, and this event has none."}
			}
			alarm.Props.SetText(ical.PropAction, "EMAIL")
			alarm.Props.SetText(ical.PropSummary, textValue(e.Title))
			at := ical.NewProp(ical.PropAttendee)
			at.Value = "mailto:" + to
			alarm.Props.Add(at)
		default:
			alarm.Props.SetText(ical.PropAction, "DISPLAY")
		}
		comp.Children = append(comp.Children, alarm)
	}
	return nil
}

// equalReminders compares two reminders fields, nil overrides equal to
// empty ones.
func equalReminders(a, b *unical.Reminders) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UseDefault == b.UseDefault && slices.Equal(a.Overrides, b.Overrides)
}
