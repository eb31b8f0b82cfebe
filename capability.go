package unical

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Support says what a provider does with one writable field.
type Support string

// Support levels. There is no level for "accepted and dropped": a field a
// provider cannot keep is Refused, so that the caller learns it at once.
const (
	// Supported: the value written is the value read back. Values the
	// provider cannot hold (a colour outside a palette, a different
	// organizer) are refused with CodeInvalid naming the field, and the
	// note says which.
	Supported Support = "supported"
	// MappedWithLoss: the write is kept, but what is read back may differ
	// from what was written in the way the note describes (for example a
	// colour rounded to the provider's nearest preset).
	MappedWithLoss Support = "mappedWithLoss"
	// Refused: a write that gives the field a value is CodeInvalid naming
	// the field, before anything is written. Absent, null and empty values
	// are accepted: there is nothing to keep.
	Refused Support = "refused"
)

// FieldSupport is what a provider does with one field.
type FieldSupport struct {
	Support Support `json:"support"`
	// Note says what is lost, why the field is refused, or which values
	// of a supported field the provider refuses.
	Note string `json:"note,omitempty"`
}

// Capabilities is what one provider type does with each writable calendar
// and event field, keyed by the field's JSON name. It is our extension of
// the spec, served by GET /v1/capabilities, and it is the table the Client
// refuses writes from, so the two cannot drift.
type Capabilities struct {
	ProviderType ProviderType            `json:"providerType"`
	Calendar     map[string]FieldSupport `json:"calendar"`
	Event        map[string]FieldSupport `json:"event"`
	// Parameters says, per query parameter of [Parameters], which of its
	// values the provider honours.
	Parameters map[string]ParameterSupport `json:"parameters"`
}

// ParameterSupport is what a provider does with each value of one query
// parameter, keyed by the value as sent; a Refused value is CodeInvalid
// naming the parameter, before anything is written.
type ParameterSupport struct {
	// Default is what the provider does when the parameter is absent.
	Default string                  `json:"default"`
	Values  map[string]FieldSupport `json:"values"`
}

// NotifyAttendeesParameter is the query parameter of event writes
// (create, update, delete, split) that asks for invitation and update
// emails to attendees (true) or none (false); our extension of the spec.
const NotifyAttendeesParameter = "notifyAttendees"

// Parameters are the parameters a provider declares, with their values.
var Parameters = map[string][]string{NotifyAttendeesParameter: {"true", "false"}}

// CapabilityList is the answer of GET /v1/capabilities: one entry per
// provider type the server has, in the order of [Client.ProviderTypes].
type CapabilityList struct {
	Data []*Capabilities `json:"data"`
}

// CapabilityReporter is a Provider that declares what it does with the
// writable fields. Capabilities returns only the fields that are not
// plainly Supported (or that carry a note); every other field of
// [CalendarFields] and [EventFields] is Supported. A Provider without it
// declares every field Supported. The Client calls it once, in New, and
// refuses a write that gives a value to a field declared Refused before
// calling the provider; the provider itself still refuses values its note
// describes.
type CapabilityReporter interface {
	Capabilities() Capabilities
}

// CalendarFields are the writable calendar fields, in the order a
// refusal is looked for.
var CalendarFields = []string{"name", "hexColor", "timeZone"}

// EventFields are the writable event fields, in the order a refusal is
// looked for.
var EventFields = []string{"title", "description", "start", "end", "isAllDay",
	"publicExtendedProperties", "privateExtendedProperties", "isRecurring", "isException",
	"isCancelled", "recurrence", "originalStart", "recurringEventId", "colorId", "customColor",
	"myResponseStatus", "attendees", "visibility", "location", "conferenceData", "webLink",
	"transparency", "eventType", "organizer", "creator", "reminders", "generateMeetingUrlProvider"}

// derivedNote describes the event fields every provider sets itself; a
// provider's declaration replaces it.
const derivedNote = "Set by the provider from the event's other fields; accepted so that a fetched event can be sent back, and the value sent is not kept."

// derivedEventFields are the fields EventParams accepts for a fetched
// event sent back, whose values come from the provider.
var derivedEventFields = []string{"isException", "originalStart", "recurringEventId", "webLink", "creator"}

// CapabilitiesOf returns p's complete table: its declarations over the
// defaults. A declaration of a field that is not writable is an error.
func CapabilitiesOf(p Provider) (*Capabilities, error) {
	caps := &Capabilities{ProviderType: p.Type(), Calendar: map[string]FieldSupport{}, Event: map[string]FieldSupport{}, Parameters: map[string]ParameterSupport{}}
	for name, values := range Parameters {
		ps := ParameterSupport{Default: "Not declared by the provider.", Values: map[string]FieldSupport{}}
		for _, v := range values {
			ps.Values[v] = FieldSupport{Support: Refused, Note: "Not declared by the provider."}
		}
		caps.Parameters[name] = ps
	}
	for _, f := range CalendarFields {
		caps.Calendar[f] = FieldSupport{Support: Supported}
	}
	for _, f := range EventFields {
		caps.Event[f] = FieldSupport{Support: Supported}
	}
	for _, f := range derivedEventFields {
		caps.Event[f] = FieldSupport{Support: MappedWithLoss, Note: derivedNote}
	}
	r, ok := p.(CapabilityReporter)
	if !ok {
		return caps, nil
	}
	declared := r.Capabilities()
	for _, table := range []struct {
		kind     string
		fields   []string
		declared map[string]FieldSupport
		into     map[string]FieldSupport
	}{{"calendar", CalendarFields, declared.Calendar, caps.Calendar}, {"event", EventFields, declared.Event, caps.Event}} {
		for f, s := range table.declared {
			if !slices.Contains(table.fields, f) {
				return nil, fmt.Errorf("unical: %s declares a capability for %q, which is not a writable %s field", p.Type(), f, table.kind)
			}
			if s.Support != Supported && s.Support != MappedWithLoss && s.Support != Refused {
				return nil, fmt.Errorf("unical: %s declares %q for %s field %q", p.Type(), s.Support, table.kind, f)
			}
			table.into[f] = s
		}
	}
	for name, ps := range declared.Parameters {
		values, ok := Parameters[name]
		if !ok {
			return nil, fmt.Errorf("unical: %s declares a capability for parameter %q, which does not exist", p.Type(), name)
		}
		for v, s := range ps.Values {
			if !slices.Contains(values, v) || (s.Support != Supported && s.Support != Refused) {
				return nil, fmt.Errorf("unical: %s declares %q for value %q of parameter %q", p.Type(), s.Support, v, name)
			}
		}
		into := ParameterSupport{Default: ps.Default, Values: maps.Clone(caps.Parameters[name].Values)}
		maps.Copy(into.Values, ps.Values)
		caps.Parameters[name] = into
	}
	return caps, nil
}

// checkParameter refuses value of parameter name when c refuses it.
func (c *Capabilities) checkParameter(name, value string) error {
	if s := c.Parameters[name].Values[value]; s.Support == Refused {
		return &Error{Code: CodeInvalid, Field: name,
			Message: fmt.Sprintf("%s accounts cannot honour %s=%s: %s See GET /v1/capabilities.", c.ProviderType, name, value, s.Note)}
	}
	return nil
}

// checkNotifyAttendees refuses a notifyAttendees value that the provider
// type cannot honour.
func (c *Client) checkNotifyAttendees(notify *bool, t ProviderType) error {
	if notify == nil {
		return nil
	}
	if caps, ok := c.capabilities[t]; ok {
		return caps.checkParameter(NotifyAttendeesParameter, strconv.FormatBool(*notify))
	}
	return nil
}

// CheckCalendar refuses params when it gives a value to a calendar field
// c refuses.
func (c *Capabilities) CheckCalendar(params *CalendarParams) error {
	given := map[string]bool{
		"name":     filled(params.Name),
		"hexColor": filled(params.HexColor),
		"timeZone": filled(params.TimeZone),
	}
	return c.refuse(CalendarFields, c.Calendar, given)
}

// CheckEvent refuses params when it gives a value to an event field c
// refuses.
func (c *Capabilities) CheckEvent(params *EventParams) error {
	p := params
	given := map[string]bool{
		"title":                      filled(p.Title),
		"description":                filled(p.Description),
		"start":                      filled(p.Start),
		"end":                        filled(p.End),
		"isAllDay":                   filled(p.IsAllDay),
		"publicExtendedProperties":   len(p.PublicExtendedProperties.Value()) > 0,
		"privateExtendedProperties":  len(p.PrivateExtendedProperties.Value()) > 0,
		"isRecurring":                filled(p.IsRecurring),
		"isException":                filled(p.IsException),
		"isCancelled":                filled(p.IsCancelled),
		"recurrence":                 len(p.Recurrence.Value()) > 0,
		"originalStart":              filled(p.OriginalStart),
		"recurringEventId":           filled(p.RecurringEventID),
		"colorId":                    filled(p.ColorID),
		"customColor":                filled(p.CustomColor),
		"myResponseStatus":           filled(p.MyResponseStatus),
		"attendees":                  len(p.Attendees.Value()) > 0,
		"visibility":                 filled(p.Visibility),
		"location":                   filled(p.Location),
		"conferenceData":             p.ConferenceData.Value() != (ConferenceData{}),
		"webLink":                    filled(p.WebLink),
		"transparency":               filled(p.Transparency),
		"eventType":                  filled(p.EventType),
		"organizer":                  filled(p.Organizer),
		"creator":                    filled(p.Creator),
		"reminders":                  p.Reminders.IsSet() && !p.Reminders.IsNull(),
		"generateMeetingUrlProvider": filled(p.GenerateMeetingURLProvider),
	}
	return c.refuse(EventFields, c.Event, given)
}

// refuse returns the refusal of the first given field that table
// refuses.
func (c *Capabilities) refuse(fields []string, table map[string]FieldSupport, given map[string]bool) error {
	for _, f := range fields {
		if s := table[f]; s.Support == Refused && given[f] {
			return &Error{Code: CodeInvalid, Field: f,
				Message: fmt.Sprintf("%s accounts cannot keep %s: %s See GET /v1/capabilities.", c.ProviderType, f, s.Note)}
		}
	}
	return nil
}

// filled reports whether o holds a value other than the zero value.
func filled[T comparable](o Optional[T]) bool {
	v, ok := o.Get()
	var zero T
	return ok && v != zero
}

// Capabilities lists, for each provider type the server has, what it does
// with each writable calendar and event field. It needs no account.
//
// HTTP: GET /v1/capabilities
func (a *App) Capabilities(ctx context.Context) (*CapabilityList, error) {
	list := &CapabilityList{Data: []*Capabilities{}}
	for _, t := range a.c.types {
		if caps, ok := a.c.capabilities[t]; ok {
			// A copy: the Client refuses writes from the original.
			params := make(map[string]ParameterSupport, len(caps.Parameters))
			for name, ps := range caps.Parameters {
				params[name] = ParameterSupport{Default: ps.Default, Values: maps.Clone(ps.Values)}
			}
			list.Data = append(list.Data, &Capabilities{ProviderType: t, Calendar: maps.Clone(caps.Calendar), Event: maps.Clone(caps.Event), Parameters: params})
		}
	}
	return list, nil
}

// checkCalendar refuses a calendar write the account's provider type
// cannot keep.
func (c *Client) checkCalendar(t ProviderType, params *CalendarParams) error {
	if caps, ok := c.capabilities[t]; ok {
		return caps.CheckCalendar(params)
	}
	return nil
}

// checkEvent refuses an event write the account's provider type cannot
// keep.
func (c *Client) checkEvent(t ProviderType, params *EventParams) error {
	if caps, ok := c.capabilities[t]; ok {
		return caps.CheckEvent(params)
	}
	return nil
}
