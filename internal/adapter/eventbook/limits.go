package eventbook

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/unical/unical"
)

// The bounds of what a VIRTUAL event holds (the memory provider, a test
// double of the remote providers, does not apply them). Google's and Microsoft's servers bound
// their events for themselves; a VIRTUAL event is kept in our Store, which
// every application shares, so it is bounded here, at sizes like the
// providers' (docs/security.md lists them with their sources). Lengths of
// text are in characters (Unicode code points), as the providers count.
const (
	// MaxTitle bounds title: Google documents none for summary; this is
	// four times Outlook's 255-character subject.
	MaxTitle = 1024
	// MaxDescription bounds description: Google Calendar's 8,192
	// characters, the smaller of the two providers' limits.
	MaxDescription = 8192
	// MaxLocation bounds location, as MaxTitle.
	MaxLocation = 1024
	// MaxAttendees bounds attendees: the 500 of Graph's event resource.
	MaxAttendees = 500
	// MaxName bounds a person's name (attendee, organizer, creator).
	MaxName = 256
	// MaxEmail bounds an email address: RFC 5321's 64-octet local part,
	// "@" and 255-octet domain.
	MaxEmail = 320
	// MaxExtendedProperties and MaxExtendedValue bound each of the public
	// and private extended properties: Google's 300 properties and
	// 1,024-character values (keys are bounded at 44 by the root).
	MaxExtendedProperties = 300
	MaxExtendedValue      = 1024
	// MaxRecurrenceLines and MaxRecurrenceText bound recurrence: RRULE,
	// EXRULE, RDATE and EXDATE lines, and their characters in all.
	MaxRecurrenceLines = 100
	MaxRecurrenceText  = 16384
	// MaxReminders bounds reminders.overrides: Google's five.
	MaxReminders = 5
	// MaxConferenceData bounds conferenceData, in bytes of its JSON.
	MaxConferenceData = 8192
	// MaxWebLink bounds webLink.
	MaxWebLink = 2048
)

// CheckSizes refuses, with CodeInvalid naming the field, a write that
// would keep more than the bounds above. Only what params sets is
// checked: an event is never made larger by a write that leaves its big
// fields alone, and every field was checked when it was set.
func CheckSizes(params *unical.EventParams) error {
	for _, f := range []struct {
		name  string
		value unical.Optional[string]
		max   int
	}{
		{"title", params.Title, MaxTitle},
		{"description", params.Description, MaxDescription},
		{"location", params.Location, MaxLocation},
		{"webLink", params.WebLink, MaxWebLink},
	} {
		if err := checkText(f.name, f.value.Value(), f.max); err != nil {
			return err
		}
	}
	attendees := params.Attendees.Value()
	if len(attendees) > MaxAttendees {
		return unical.FieldError("attendees", "attendees may list at most %d people.", MaxAttendees)
	}
	for i, a := range attendees {
		if err := checkPerson(fmt.Sprintf("attendees[%d]", i), a.Name, a.Email); err != nil {
			return err
		}
	}
	if o, ok := params.Organizer.Get(); ok {
		if err := checkPerson("organizer", o.Name, o.Email); err != nil {
			return err
		}
	}
	if c, ok := params.Creator.Get(); ok {
		if err := checkPerson("creator", c.Name, c.Email); err != nil {
			return err
		}
	}
	for _, props := range []struct {
		field string
		m     map[string]string
	}{{"publicExtendedProperties", params.PublicExtendedProperties.Value()}, {"privateExtendedProperties", params.PrivateExtendedProperties.Value()}} {
		if len(props.m) > MaxExtendedProperties {
			return unical.FieldError(props.field, "%s may hold at most %d properties.", props.field, MaxExtendedProperties)
		}
		for k, v := range props.m {
			if err := checkText(props.field+"."+k, v, MaxExtendedValue); err != nil {
				return err
			}
		}
	}
	lines := params.Recurrence.Value()
	if len(lines) > MaxRecurrenceLines {
		return unical.FieldError("recurrence", "recurrence may hold at most %d lines.", MaxRecurrenceLines)
	}
	total := 0
	for _, l := range lines {
		total += utf8.RuneCountInString(l)
	}
	if total > MaxRecurrenceText {
		return unical.FieldError("recurrence", "recurrence may hold at most %d characters in all.", MaxRecurrenceText)
	}
	if r, ok := params.Reminders.Get(); ok && len(r.Overrides) > MaxReminders {
		return unical.FieldError("reminders.overrides", "reminders.overrides may hold at most %d reminders.", MaxReminders)
	}
	if c, ok := params.ConferenceData.Get(); ok {
		if data, err := json.Marshal(c); err != nil || len(data) > MaxConferenceData {
			return unical.FieldError("conferenceData", "conferenceData may take at most %d bytes as JSON.", MaxConferenceData)
		}
	}
	return nil
}

// checkText refuses a text longer than max characters, naming field.
func checkText(field, s string, max int) error {
	// A byte count under max is a character count under it too.
	if len(s) > max && utf8.RuneCountInString(s) > max {
		return unical.FieldError(field, "%s may be at most %d characters long.", field, max)
	}
	return nil
}

// checkPerson bounds a person's name and email, naming field.name or
// field.email.
func checkPerson(field, name, email string) error {
	if err := checkText(field+".name", name, MaxName); err != nil {
		return err
	}
	return checkText(field+".email", email, MaxEmail)
}
