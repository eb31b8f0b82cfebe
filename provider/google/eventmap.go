package google

import (
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/recur"
)

// Google's conference solution type for Meet, and the unified name of it.
const solutionMeet = "hangoutsMeet"

// toEvent maps a Google event. zone names the zone Google rendered
// dateTime values in (the list's timeZone); it fills in timed values that
// carry no zone of their own, and may be empty. self is the account's
// email: myResponseStatus is the response of Google's self attendee, or
// of the account's own entry where Google marks none (a secondary
// calendar's self is the calendar).
func toEvent(g *event, zone, self string) *unical.Event {
	e := &unical.Event{
		ID:               g.ID,
		Title:            g.Summary,
		Description:      g.Description,
		Location:         g.Location,
		ETag:             g.Etag,
		CreatedAt:        timestamp(g.Created),
		UpdatedAt:        timestamp(g.Updated),
		IsCancelled:      g.Status == "cancelled",
		RecurringEventID: g.RecurringEventID,
		IsException:      g.RecurringEventID != "",
		ColorID:          g.ColorID,
		WebLink:          g.HTMLLink,
		ICalUID:          g.ICalUID,
	}
	if len(g.Recurrence) > 0 {
		e.Recurrence = append([]string(nil), g.Recurrence...)
		e.IsRecurring = true
	}
	e.IsAllDay = g.allDay()
	e.Start = fromGoogleTime(g.Start, zone, false)
	e.End = fromGoogleTime(g.End, zone, false)
	// Our all-day originalStart is a date (see unical.EventDateTime).
	e.OriginalStart = fromGoogleTime(g.OriginalStartTime, zone, true)
	if e.IsCancelled && g.Summary == "" && g.Start == nil {
		// A tombstone: Google guarantees nothing more.
		return e
	}
	e.Visibility = unical.Visibility(g.Visibility)
	if e.Visibility == "" {
		e.Visibility = unical.VisibilityDefault
	}
	e.Transparency = unical.Transparency(g.Transparency)
	if e.Transparency == "" {
		e.Transparency = unical.TransparencyOpaque
	}
	e.EventType = eventTypeOf(g.EventType)
	if g.Organizer != nil {
		e.Organizer = &unical.Organizer{Name: g.Organizer.DisplayName, Email: g.Organizer.Email, IsSelf: g.Organizer.Self}
	}
	if g.Creator != nil {
		e.Creator = &unical.Creator{Name: g.Creator.DisplayName, Email: g.Creator.Email, IsSelf: g.Creator.Self}
	}
	for _, a := range g.Attendees {
		e.Attendees = append(e.Attendees, unical.Attendee{
			ID: a.ID, Name: a.DisplayName, Email: a.Email, Optional: a.Optional,
			ResponseStatus: unical.ResponseStatus(a.ResponseStatus),
		})
		if a.Self {
			e.MyResponseStatus = unical.ResponseStatus(a.ResponseStatus)
		}
	}
	if a := ownAttendee(g, self); e.MyResponseStatus == "" && a != nil {
		e.MyResponseStatus = unical.ResponseStatus(a.ResponseStatus)
	}
	if r := g.Reminders; r != nil {
		e.Reminders = &unical.Reminders{UseDefault: r.UseDefault}
		for _, o := range r.Overrides {
			e.Reminders.Overrides = append(e.Reminders.Overrides, unical.ReminderOverride{Method: o.Method, Minutes: o.Minutes})
		}
	}
	if xp := g.ExtendedProperties; xp != nil {
		if len(xp.Private) > 0 {
			e.PrivateExtendedProperties = xp.Private
		}
		if len(xp.Shared) > 0 {
			e.PublicExtendedProperties = xp.Shared
		}
	}
	e.ConferenceData = fromGoogleConference(g)
	return e
}

// eventTypeOf maps Google's eventType. birthday, fromGmail and
// workingLocation have no unified type; they behave like ordinary events
// for our purposes.
func eventTypeOf(t string) unical.EventType {
	switch et := unical.EventType(t); et {
	case unical.EventTypeOutOfOffice, unical.EventTypeFocusTime:
		return et
	}
	return unical.EventTypeDefault
}

// fromGoogleTime maps an EventDateTime. All-day values become midnight
// without an offset, or the bare date for an originalStart.
func fromGoogleTime(d *eventDateTime, zone string, keepDate bool) *unical.EventDateTime {
	if d == nil {
		return nil
	}
	if d.Date != "" {
		if keepDate {
			return &unical.EventDateTime{Date: d.Date}
		}
		return &unical.EventDateTime{DateTime: d.Date + "T00:00:00"}
	}
	if d.DateTime == "" {
		return nil
	}
	out := &unical.EventDateTime{DateTime: d.DateTime, TimeZone: d.TimeZone}
	if out.TimeZone == "" {
		out.TimeZone = zone
		return out
	}
	// Google renders dateTime in the calendar's zone (or the request's
	// timeZone parameter: events.list and events.get "Time zone used in
	// the response. Optional. The default is the time zone of the
	// calendar."), not in the event's own start.timeZone; we answer the
	// event's zone's wall clock and offset, as every provider does.
	if t, err := time.Parse(time.RFC3339, d.DateTime); err == nil {
		if loc, err := unical.LoadLocation(d.TimeZone); err == nil {
			out.DateTime = t.In(loc).Format(time.RFC3339)
		}
	}
	return out
}

func fromGoogleConference(g *event) *unical.ConferenceData {
	cd := g.ConferenceData
	if cd == nil {
		if g.HangoutLink == "" {
			return nil
		}
		return &unical.ConferenceData{ConferenceType: unical.MeetingProviderGoogleMeet, JoinURL: g.HangoutLink}
	}
	out := &unical.ConferenceData{
		ConferenceID: cd.ConferenceID,
		ConferenceDetails: &unical.ConferenceDetails{
			ConferenceID:       cd.ConferenceID,
			ConferenceSolution: cd.ConferenceSolution,
			CreateRequest:      cd.CreateRequest,
			EntryPoints:        cd.EntryPoints,
		},
	}
	typ := ""
	switch {
	case cd.ConferenceSolution != nil && cd.ConferenceSolution.Key != nil:
		typ = cd.ConferenceSolution.Key.Type
	case cd.CreateRequest != nil && cd.CreateRequest.ConferenceSolutionKey != nil:
		typ = cd.CreateRequest.ConferenceSolutionKey.Type
	}
	out.ConferenceType = typ
	if name, ok := conferenceSolutions[typ]; ok {
		out.ConferenceType = name
	}
	for _, ep := range cd.EntryPoints {
		if ep.EntryPointType == "video" {
			out.JoinURL = ep.URI
			break
		}
	}
	if out.JoinURL == "" {
		out.JoinURL = g.HangoutLink
	}
	return out
}

// timestamp rewrites Google's RFC 3339 stamps in our format.
func timestamp(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return unical.FormatTimestamp(t)
}

// eventBody builds the JSON body of an insert (cur nil) or of a PATCH of
// cur from params. A PATCH merges nested objects field by field, replaces
// arrays and clears what is sent as null (Calendar API "Performance tips",
// patch semantics), so nested values that must replace the stored ones
// (start, end, extended properties) spell out the keys to drop as null.
// self is the account's email.
func eventBody(params *unical.EventParams, cur *event, self string) (map[string]any, error) {
	b := map[string]any{}
	patch := cur != nil
	str := func(key string, o unical.Optional[string]) {
		if v, ok := o.Get(); ok {
			b[key] = v
		} else if o.IsNull() {
			b[key] = nil
		}
	}
	str("summary", params.Title)
	str("description", params.Description)
	str("location", params.Location)
	str("colorId", params.ColorID)
	if params.Visibility.IsSet() {
		b["visibility"] = nilIfEmpty(string(params.Visibility.Value()))
	}
	if params.Transparency.IsSet() {
		b["transparency"] = nilIfEmpty(string(params.Transparency.Value()))
	}
	if v, ok := params.EventType.Get(); ok && v != "" {
		// eventType is immutable at Google; sending the current one back
		// is harmless, another one is refused by Google.
		if cur == nil || eventTypeOf(cur.EventType) != v {
			b["eventType"] = string(v)
		}
	}
	// isCancelled true is a delete (UpdateEvent); false restores a
	// cancelled one.
	if v, ok := params.IsCancelled.Get(); ok && !v && cur != nil && cur.Status == "cancelled" {
		b["status"] = "confirmed"
	}
	if err := timesBody(b, params, cur); err != nil {
		return nil, err
	}
	if params.Recurrence.IsSet() {
		lines := params.Recurrence.Value()
		switch {
		case len(lines) > 0:
			b["recurrence"] = lines
		case patch:
			b["recurrence"] = nil
		}
	}
	attendeesBody(b, params, cur, self)
	if params.Reminders.IsSet() {
		r, ok := params.Reminders.Get()
		switch {
		case !ok || r.UseDefault:
			// Google refuses overrides together with useDefault.
			b["reminders"] = map[string]any{"useDefault": true, "overrides": nil}
		default:
			list := []map[string]any{}
			for _, o := range r.Overrides {
				list = append(list, map[string]any{"method": o.Method, "minutes": o.Minutes})
			}
			b["reminders"] = map[string]any{"useDefault": false, "overrides": list}
		}
	}
	xp := map[string]any{}
	var curPrivate, curShared map[string]string
	if cur != nil && cur.ExtendedProperties != nil {
		curPrivate, curShared = cur.ExtendedProperties.Private, cur.ExtendedProperties.Shared
	}
	if params.PrivateExtendedProperties.IsSet() {
		xp["private"] = replaceMap(params.PrivateExtendedProperties.Value(), curPrivate)
	}
	if params.PublicExtendedProperties.IsSet() {
		xp["shared"] = replaceMap(params.PublicExtendedProperties.Value(), curShared)
	}
	if len(xp) > 0 {
		b["extendedProperties"] = xp
	}
	if err := conferenceBody(b, params, patch); err != nil {
		return nil, err
	}
	return b, nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// replaceMap is the extended-properties patch that makes the stored map
// equal to want: new values, and null for stored keys to delete (the
// extended properties guide: a key patched to null is removed).
func replaceMap(want, cur map[string]string) map[string]any {
	out := map[string]any{}
	for k := range cur {
		out[k] = nil
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}

// timesBody sets start and end. Whether the event is all-day comes from
// isAllDay, else from the current event, else from the shape of start
// (a bare date). A missing all-day end is the next day. Google refuses
// timed events that do not end after they start (400 "The specified time
// range is empty"), so a timed event without an end, or with an end at its
// start, is CodeInvalid naming end rather than a guess. Recurring timed events need a timeZone (Event.start
// reference: it "specifies the time zone in which the recurrence is
// expanded"); without one we expand in UTC.
func timesBody(b map[string]any, params *unical.EventParams, cur *event) error {
	patch := cur != nil
	allDay := false
	switch {
	case params.IsAllDay.IsSet():
		allDay = params.IsAllDay.Value()
	case cur != nil:
		allDay = cur.allDay()
	default:
		if s, ok := params.Start.Get(); ok {
			allDay = s.Date != "" && s.DateTime == ""
		}
	}
	recurs := len(params.Recurrence.Value()) > 0
	if !params.Recurrence.IsSet() && cur != nil {
		recurs = len(cur.Recurrence) > 0
	}
	reshape := cur != nil && params.IsAllDay.IsSet() && allDay != cur.allDay()
	var start, end *unical.EventDateTime
	if v, ok := params.Start.Get(); ok {
		start = &v
	} else if reshape {
		start = fromGoogleTime(cur.Start, "", false)
	}
	if v, ok := params.End.Get(); ok {
		end = &v
	} else if reshape && !params.End.IsNull() {
		end = fromGoogleTime(cur.End, "", false)
	}
	if start == nil && end == nil && !params.End.IsNull() {
		return ensureRecurrenceZone(b, params, cur)
	}
	if start != nil {
		s, err := toGoogleTime(start, allDay, recurs, patch, "start")
		if err != nil {
			return err
		}
		b["start"] = s
	}
	switch {
	case end != nil:
		e, err := toGoogleTime(end, allDay, recurs, patch, "end")
		if err != nil {
			return err
		}
		if start != nil && !allDay {
			st, _ := start.Time("start")
			if en, _ := end.Time("end"); !en.After(st) {
				return errNeedsEnd()
			}
		}
		if s, ok := b["start"].(map[string]any); ok && allDay && !params.End.IsSet() {
			// A timed end converted to a day: the all-day end is exclusive,
			// so the event keeps at least its first day.
			if sd, ed := s["date"].(string), e["date"].(string); ed <= sd {
				e = defaultEnd(s)
			}
		}
		b["end"] = e
	case (cur == nil || params.End.IsNull()) && !allDay:
		return errNeedsEnd()
	case cur == nil || params.End.IsNull():
		// No end, or one cleared: Google needs one.
		from := start
		if from == nil {
			from = fromGoogleTime(cur.Start, "", false)
		}
		s, err := toGoogleTime(from, allDay, recurs, patch, "start")
		if err != nil {
			return err
		}
		b["end"] = defaultEnd(s)
	}
	return nil
}

// ensureRecurrenceZone gives the stored start and end a time zone when an
// update makes a timed event recur and it has none.
func ensureRecurrenceZone(b map[string]any, params *unical.EventParams, cur *event) error {
	if cur == nil || cur.allDay() || len(params.Recurrence.Value()) == 0 {
		return nil
	}
	if cur.Start != nil && cur.Start.TimeZone == "" {
		b["start"] = map[string]any{"timeZone": "UTC"}
	}
	if cur.End != nil && cur.End.TimeZone == "" {
		b["end"] = map[string]any{"timeZone": "UTC"}
	}
	return nil
}

// toGoogleTime maps one of our EventDateTimes. In a patch, the key of the
// other shape is sent as null so that Google drops it.
func toGoogleTime(d *unical.EventDateTime, allDay, recurs, patch bool, field string) (map[string]any, error) {
	out := map[string]any{}
	if allDay {
		day, err := d.Day(field)
		if err != nil {
			return nil, err
		}
		out["date"] = day.Format(unical.DateLayout)
		if patch {
			out["dateTime"], out["timeZone"] = nil, nil
		}
		return out, nil
	}
	t, err := d.Time(field)
	if err != nil {
		return nil, err
	}
	zone := d.TimeZone
	if zone == "" && recurs {
		zone, t = "UTC", t.UTC()
	}
	out["dateTime"] = t.Format(time.RFC3339)
	if wall := recur.WallOf(d.DateTime, t); zone != "" && wall.Format(unical.LocalDateTimeLayout) != t.Format(unical.LocalDateTimeLayout) {
		// A wall clock skipped by a DST gap: the instant would not keep
		// it, and a series from it must keep its time of day. Google
		// reads a dateTime without offset in timeZone.
		out["dateTime"] = wall.Format(unical.LocalDateTimeLayout)
	}
	if zone != "" {
		out["timeZone"] = zone
	} else if patch {
		out["timeZone"] = nil
	}
	if patch {
		out["date"] = nil
	}
	return out, nil
}

// errNeedsEnd is the refusal of a timed event that would not end after
// it starts.
func errNeedsEnd() error {
	return unical.FieldError("end", "Google Calendar needs a timed event to end after it starts; give an end.")
}

// defaultEnd is the end of an all-day event given without one: the next
// day.
func defaultEnd(start map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range start {
		out[k] = v
	}
	if d, err := time.Parse(unical.DateLayout, start["date"].(string)); err == nil {
		out["date"] = d.AddDate(0, 0, 1).Format(unical.DateLayout)
	}
	return out
}

// attendeesBody sets attendees and the account's own response. Responses
// the new list leaves out are kept for guests already invited, so that
// rewriting the guest list does not reset their answers.
func attendeesBody(b map[string]any, params *unical.EventParams, cur *event, self string) {
	my, setMine := params.MyResponseStatus.Get()
	setMine = setMine && my != ""
	isMe := func(email string) bool { return isSelf(email, cur, self) }
	if params.Attendees.IsSet() {
		list, ok := params.Attendees.Get()
		if !ok {
			if cur != nil {
				b["attendees"] = nil
			}
			return
		}
		out := []map[string]any{}
		for _, a := range list {
			m := map[string]any{"email": a.Email}
			if a.Name != "" {
				m["displayName"] = a.Name
			}
			if a.Optional {
				m["optional"] = true
			}
			status := string(a.ResponseStatus)
			if status == "" && cur != nil {
				for _, c := range cur.Attendees {
					if strings.EqualFold(c.Email, a.Email) {
						status = c.ResponseStatus
					}
				}
			}
			if setMine && isMe(a.Email) {
				status = string(my)
			}
			if status != "" {
				m["responseStatus"] = status
			}
			out = append(out, m)
		}
		b["attendees"] = out
		return
	}
	if setMine && cur != nil {
		a := cur.selfAttendee()
		if a == nil {
			a = ownAttendee(cur, self)
		}
		if a != nil {
			// events reference, attendeesOmitted: the body may carry just
			// the caller's own entry to change its response.
			b["attendeesOmitted"] = true
			b["attendees"] = []map[string]any{{"email": a.Email, "responseStatus": string(my)}}
		}
	}
}

// conferenceBody sets conferenceData: a Meet create request for
// generateMeetingUrlProvider, or the given conference. Google ignores
// conferenceData unless the request says conferenceDataVersion=1, which
// every write of this package does.
func conferenceBody(b map[string]any, params *unical.EventParams, patch bool) error {
	if gen, ok := params.GenerateMeetingURLProvider.Get(); ok && gen != "" {
		if gen != unical.MeetingProviderGoogleMeet {
			return unical.FieldError("generateMeetingUrlProvider", "Google Calendar can only create %s meetings.", unical.MeetingProviderGoogleMeet)
		}
		b["conferenceData"] = map[string]any{
			"createRequest": map[string]any{
				"requestId":             newID(),
				"conferenceSolutionKey": map[string]any{"type": solutionMeet},
			},
		}
		return nil
	}
	if !params.ConferenceData.IsSet() {
		return nil
	}
	cd, ok := params.ConferenceData.Get()
	if !ok {
		if patch {
			b["conferenceData"] = nil
		}
		return nil
	}
	out := map[string]any{"conferenceId": nil, "conferenceSolution": nil, "entryPoints": nil, "createRequest": nil}
	d := cd.ConferenceDetails
	if d == nil {
		d = &unical.ConferenceDetails{}
	}
	if id := firstNonEmpty(cd.ConferenceID, d.ConferenceID); id != "" {
		out["conferenceId"] = id
	}
	typ := cd.ConferenceType
	if typ == unical.MeetingProviderGoogleMeet {
		typ = solutionMeet
	}
	switch {
	case d.ConferenceSolution != nil:
		out["conferenceSolution"] = d.ConferenceSolution
	case typ != "":
		out["conferenceSolution"] = map[string]any{"key": map[string]any{"type": typ}}
	}
	switch {
	case len(d.EntryPoints) > 0:
		out["entryPoints"] = d.EntryPoints
	case cd.JoinURL != "":
		out["entryPoints"] = []map[string]any{{"entryPointType": "video", "uri": cd.JoinURL}}
	}
	if cr := d.CreateRequest; cr != nil && cr.RequestID != "" {
		// Status is Google's to set.
		out["createRequest"] = map[string]any{"requestId": cr.RequestID, "conferenceSolutionKey": cr.ConferenceSolutionKey}
	}
	if !patch {
		for k, v := range out {
			if v == nil {
				delete(out, k)
			}
		}
	}
	b["conferenceData"] = out
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
