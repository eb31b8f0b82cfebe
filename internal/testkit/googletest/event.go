package googletest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical/internal/recur"
)

// storedEvent is an event as kept in a calendar. Deleted events stay as
// status "cancelled" tombstones: they still answer events.get, still block
// their id (insert answers 409 duplicate) and a second delete answers 410
// deleted, per the errors guide.
type storedEvent struct {
	ev     Event
	order  uint64 // insertion order, for the default "stable" list order
	modSeq uint64 // change number of the last write
}

func cloneEvent(ev Event) Event {
	b, err := json.Marshal(ev)
	if err != nil {
		panic("googletest: clone event: " + err.Error())
	}
	var out Event
	if err := json.Unmarshal(b, &out); err != nil {
		panic("googletest: clone event: " + err.Error())
	}
	return out
}

func isCancelled(ev *Event) bool { return ev.Status == "cancelled" }

// when is a parsed EventDateTime.
type when struct {
	t      time.Time // the instant; for all-day, midnight UTC of the date
	allDay bool
}

// parseWhen parses an EventDateTime. A dateTime needs an offset unless
// timeZone names the zone, as the Event reference says.
func parseWhen(dt *EventDateTime, field string) (when, error) {
	if dt == nil || (dt.Date == "" && dt.DateTime == "") {
		return when{}, errRequired("Missing " + field + " time.")
	}
	if dt.Date != "" && dt.DateTime != "" {
		return when{}, errInvalid("Only one of date and dateTime may be set for " + field + ".")
	}
	var loc *time.Location
	if dt.TimeZone != "" {
		l, ok := loadZone(dt.TimeZone)
		if !ok {
			return when{}, errInvalid("Invalid time zone definition for " + field + " time.")
		}
		loc = l
	}
	if dt.Date != "" {
		t, err := time.Parse(time.DateOnly, dt.Date)
		if err != nil {
			return when{}, errInvalid("Invalid " + field + " date.")
		}
		return when{t: t, allDay: true}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, dt.DateTime); err == nil {
		return when{t: t}, nil
	}
	t, err := time.Parse("2006-01-02T15:04:05", dt.DateTime)
	if err != nil {
		return when{}, errInvalid("Invalid " + field + " dateTime.")
	}
	if loc == nil {
		// The condition is documented (EventDateTime.dateTime: "A time
		// zone offset is required unless a time zone is explicitly
		// specified in timeZone"). UNVERIFIED: status, reason and message
		// (not in the errors guide).
		return when{}, &apiError{status: http.StatusBadRequest, domain: "calendar", reason: "missingTimeZone", message: "Missing time zone definition for " + field + " time."}
	}
	// UNVERIFIED: what Google makes of a wall clock that a DST gap skips
	// or a fall-back repeats is not documented; the fake reads it as RFC
	// 5545 §3.3.5 does (moved forward by the gap, the first occurrence).
	return when{t: recur.At(t, loc)}, nil
}

// instant returns the absolute time a when stands for, reading all-day
// dates as midnight in loc (the calendar's zone). UNVERIFIED: Google
// documents no zone for comparing all-day events with timeMin/timeMax.
func (w when) instant(loc *time.Location) time.Time {
	if !w.allDay {
		return w.t
	}
	return recur.Date(w.t.Year(), w.t.Month(), w.t.Day(), 0, 0, 0, loc)
}

// span returns an event's start and end instants.
func span(ev *Event, loc *time.Location) (time.Time, time.Time, bool, error) {
	st, err := parseWhen(ev.Start, "start")
	if err != nil {
		return time.Time{}, time.Time{}, false, err
	}
	en, err := parseWhen(ev.End, "end")
	if err != nil {
		return time.Time{}, time.Time{}, false, err
	}
	return st.instant(loc), en.instant(loc), st.allDay, nil
}

var (
	validStatus       = []string{"confirmed", "tentative", "cancelled"}
	validTransparency = []string{"opaque", "transparent"}
	validVisibility   = []string{"default", "public", "private", "confidential"}
	validResponse     = []string{"needsAction", "declined", "tentative", "accepted"}
	creatableTypes    = []string{"default", "outOfOffice", "focusTime", "workingLocation"}
)

// validateEvent checks a complete event before it is stored.
func validateEvent(ev *Event) error {
	st, err := parseWhen(ev.Start, "start")
	if err != nil {
		return err
	}
	en, err := parseWhen(ev.End, "end")
	if err != nil {
		return err
	}
	if st.allDay != en.allDay {
		return errInvalid("Start and end times must either both be date or both be dateTime.")
	}
	if !en.t.After(st.t) {
		return &apiError{status: http.StatusBadRequest, domain: "calendar", reason: "timeRangeEmpty", message: "The specified time range is empty."}
	}
	if len(ev.Recurrence) > 0 {
		if ev.RecurringEventID != "" {
			return errInvalid("Instances of recurring events cannot have a recurrence.")
		}
		if !st.allDay && ev.Start.TimeZone == "" {
			// "For recurring events this field is required and specifies
			// the time zone in which the recurrence is expanded."
			return &apiError{status: http.StatusBadRequest, domain: "calendar", reason: "missingTimeZone", message: "Missing time zone definition for start time."}
		}
		if _, err := newSeries(ev); err != nil {
			return errInvalid("Invalid recurrence rule: " + err.Error())
		}
	}
	if !slices.Contains(validStatus, ev.Status) {
		return errInvalid("Invalid status value.")
	}
	if ev.Transparency != "" && !slices.Contains(validTransparency, ev.Transparency) {
		return errInvalid("Invalid transparency value.")
	}
	if ev.Visibility != "" && !slices.Contains(validVisibility, ev.Visibility) {
		return errInvalid("Invalid visibility value.")
	}
	if ev.ColorID != "" {
		// Event.colorId: "The color of the event. This is an ID referring
		// to an entry in the event section of the colors definition (see
		// the colors endpoint)"; the event palette has ids 1 to 11.
		// UNVERIFIED: the wording of the 400.
		if n, err := strconv.Atoi(ev.ColorID); err != nil || n < 1 || n > len(eventPalette) || strconv.Itoa(n) != ev.ColorID {
			return errInvalid("Invalid color value.")
		}
	}
	if r := ev.Reminders; r != nil {
		// Event.reminders.overrides: "The maximum number of override
		// reminders is 5"; minutes: "Valid values are between 0 and
		// 40320 (4 weeks in minutes)"; overrides only "if the event
		// doesn't use the default reminders". UNVERIFIED: the wording.
		if len(r.Overrides) > 5 {
			return errInvalid("Too many reminders.")
		}
		if r.UseDefault && len(r.Overrides) > 0 {
			return errInvalid("Cannot specify both default reminders and overrides at the same time.")
		}
		for _, o := range r.Overrides {
			if o.Minutes < 0 || o.Minutes > 40320 {
				return errInvalid("Invalid reminder minutes value.")
			}
		}
	}
	for i := range ev.Attendees {
		a := &ev.Attendees[i]
		if a.Email == "" {
			return errRequired("Missing attendee email.")
		}
		if a.ResponseStatus == "" {
			a.ResponseStatus = "needsAction"
		}
		if !slices.Contains(validResponse, a.ResponseStatus) {
			return errInvalid("Invalid attendee responseStatus.")
		}
	}
	return nil
}

// validClientID reports whether a client-chosen event id is allowed:
// base32hex characters [a-v0-9], length 5 to 1024 (Event.id reference).
func validClientID(id string) bool {
	if len(id) < 5 || len(id) > 1024 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'v') && !(r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// htmlLink builds the Calendar UI link Google returns: eid is
// base64url("<eventId> <calendarId>"). The link is not served by the fake.
func htmlLink(calID, eventID string) string {
	eid := base64.RawURLEncoding.EncodeToString([]byte(eventID + " " + calID))
	return "https://www.google.com/calendar/event?eid=" + eid
}

// defaultOrganizer is who Google records as organizer of an event created
// through the API: the owner for a primary calendar, the calendar itself
// for a secondary one.
func (s *Server) defaultOrganizer(cal *calendar) *EventPerson {
	if cal.primary {
		if o := s.st.users[cal.ownerSub]; o != nil {
			return &EventPerson{Email: o.email, DisplayName: o.name}
		}
	}
	return &EventPerson{Email: cal.id, DisplayName: cal.summary}
}

// isOrganizerCopyLocked reports whether cal is the organizer's calendar
// for ev (organizer.self would be true there).
func (s *Server) isOrganizerCopyLocked(cal *calendar, ev *Event) bool {
	if ev.Organizer == nil {
		return true
	}
	owner := s.st.users[cal.ownerSub]
	return strings.EqualFold(ev.Organizer.Email, cal.id) || (cal.primary && owner != nil && strings.EqualFold(ev.Organizer.Email, owner.email))
}

// sharedGuestPropsChanged reports whether a write changes one of the
// shared properties only the organizer may set. A field left out counts as
// its default (guestsCanInviteOthers true, guestsCanModify false,
// guestsCanSeeOtherGuests true): the errors guide says an update without
// them "is equivalent to trying to set them to their default values".
func sharedGuestPropsChanged(cur, next *Event) bool {
	eff := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	return eff(cur.GuestsCanInviteOthers, true) != eff(next.GuestsCanInviteOthers, true) ||
		eff(cur.GuestsCanModify, false) != eff(next.GuestsCanModify, false) ||
		eff(cur.GuestsCanSeeOtherGuests, true) != eff(next.GuestsCanSeeOtherGuests, true)
}

// readOnlyEventKeys are body fields the server owns; clients' values are
// ignored on insert, patch and update.
var readOnlyEventKeys = []string{
	"kind", "etag", "id", "htmlLink", "created", "updated", "creator", "organizer",
	"iCalUID", "recurringEventId", "originalStartTime", "hangoutLink",
}

// conferenceVersion reads conferenceDataVersion; without 1 the server
// ignores conferenceData in bodies ("Version 0 assumes no conference data
// support and ignores conference data in the event's body").
// checkSendUpdates validates sendUpdates, whose values the events.insert,
// patch, update and delete references enumerate: "all", "externalOnly",
// "none". The fake sends no email either way. UNVERIFIED: the body of the
// 400 for another value.
func checkSendUpdates(c *call) error {
	switch v := c.q.Get("sendUpdates"); v {
	case "", "all", "externalOnly", "none":
		return nil
	default:
		return errInvalidParam("sendUpdates", "Invalid value for sendUpdates: "+v)
	}
}

func conferenceVersion(c *call) (int, error) {
	if err := checkSendUpdates(c); err != nil {
		return 0, err
	}
	v := c.q.Get("conferenceDataVersion")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1 {
		return 0, errInvalidParam("conferenceDataVersion", "Invalid conferenceDataVersion value.")
	}
	return n, nil
}

// insertEventLocked creates an event. seed is set for events added through
// [Server.AddEvent], which may preset organizer, creator and iCalUID.
func (s *Server) insertEventLocked(cal *calendar, actor *user, body Event, confVersion int, seed bool) (*storedEvent, error) {
	ev := cloneEvent(body)
	if ev.ID != "" {
		if !validClientID(ev.ID) {
			return nil, errInvalid("Invalid resource id value.")
		}
		if cal.events[ev.ID] != nil {
			return nil, errDuplicate()
		}
	} else {
		ev.ID = randomID(26, base32hex)
	}
	ev.Kind, ev.Etag, ev.HTMLLink, ev.HangoutLink = "", "", "", ""
	if !seed {
		// Event.iCalUID is writable on insert ("only one of them should
		// be supplied at event creation time"); organizer and creator
		// are the server's.
		ev.Organizer, ev.Creator = nil, nil
		ev.RecurringEventID, ev.OriginalStartTime = "", nil
	}
	if ev.Organizer == nil {
		ev.Organizer = s.defaultOrganizer(cal)
	}
	if ev.Creator == nil {
		ev.Creator = &EventPerson{Email: actor.email, DisplayName: actor.name}
	}
	if ev.ICalUID == "" {
		ev.ICalUID = ev.ID + "@google.com"
	}
	if ev.Status == "" {
		ev.Status = "confirmed"
	}
	if ev.EventType == "" {
		ev.EventType = "default"
	}
	if !slices.Contains(creatableTypes, ev.EventType) {
		return nil, errInvalid("Event type cannot be created: " + ev.EventType)
	}
	if ev.Reminders == nil {
		ev.Reminders = &EventReminders{UseDefault: true}
	}
	if confVersion < 1 {
		ev.ConferenceData = nil
	}
	if err := validateEvent(&ev); err != nil {
		return nil, err
	}
	if err := s.applyConference(cal, &ev, nil); err != nil {
		return nil, err
	}
	seq := s.nextSeq()
	now := s.stamp()
	ev.Created, ev.Updated, ev.Etag = now, now, etagFor(seq)
	ev.HTMLLink = htmlLink(cal.id, ev.ID)
	cal.eventOrder++
	se := &storedEvent{ev: ev, order: cal.eventOrder, modSeq: seq}
	cal.events[ev.ID] = se
	s.touchLocked(cal)
	return se, nil
}

// touchLocked records that a calendar's events changed and tells its push
// channels.
func (s *Server) touchLocked(cal *calendar) {
	cal.updated = s.now()
	s.notifyLocked(cal.id, "exists")
}

// lookupEventLocked finds an event or recurring instance by id. For an
// instance id of a series with no stored exception, it materializes the
// instance from the master; stored reports whether the returned event is
// already a stored record.
func (s *Server) lookupEventLocked(cal *calendar, id string) (ev Event, stored *storedEvent, ok bool) {
	if se := cal.events[id]; se != nil {
		return se.ev, se, true
	}
	masterID, orig, allDay, ok := parseInstanceID(id)
	if !ok {
		return Event{}, nil, false
	}
	m := cal.events[masterID]
	if m == nil || len(m.ev.Recurrence) == 0 {
		return Event{}, nil, false
	}
	sr, err := newSeries(&m.ev)
	if err != nil || sr.allDay != allDay || !sr.has(orig) {
		return Event{}, nil, false
	}
	return sr.instance(&m.ev, orig), nil, true
}

// eventsInsert serves POST calendars/{calendarId}/events.
func (s *Server) eventsInsert(c *call) (int, any, error) {
	cal, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	if !canWrite(e) {
		return 0, nil, errAccessLevel()
	}
	cv, err := conferenceVersion(c)
	if err != nil {
		return 0, nil, err
	}
	var body Event
	if err := decodeBody(c.body, &body); err != nil {
		return 0, nil, err
	}
	se, err := s.insertEventLocked(cal, c.user, body, cv, false)
	if err != nil {
		return 0, nil, err
	}
	loc, err := s.responseZone(c, cal)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.renderFull(cal, se.ev, loc, maxAttendeesParam(c)), nil
}

// eventsGet serves GET calendars/{calendarId}/events/{eventId}. Cancelled
// events are returned too ("events.get always returns them"). If-None-Match
// with the current etag answers 304.
func (s *Server) eventsGet(c *call) (int, any, error) {
	cal, _, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	ev, se, ok := s.lookupEventLocked(cal, c.r.PathValue("eventId"))
	if !ok {
		return 0, nil, errNotFound()
	}
	if se != nil {
		s.settleConferenceLocked(se)
		ev = se.ev
	}
	if inm := c.r.Header.Get("If-None-Match"); inm != "" && inm == ev.Etag {
		return http.StatusNotModified, nil, nil
	}
	loc, err := s.responseZone(c, cal)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.renderFull(cal, ev, loc, maxAttendeesParam(c)), nil
}

func (s *Server) eventsPatch(c *call) (int, any, error) { return s.writeEvent(c, false) }

func (s *Server) eventsUpdate(c *call) (int, any, error) { return s.writeEvent(c, true) }

// writeEvent applies PATCH (replace=false) or PUT (replace=true).
//
// PATCH follows Google's patch semantics (Performance tips, "Patch":
// https://developers.google.com/workspace/calendar/api/guides/performance):
// nested objects merge field by field, "Patch requests that contain arrays
// replace the existing array with the one you provide", and null clears a
// field. The one exception is attendeesOmitted, which "can be used to only
// update the participant's response" (Event.attendeesOmitted): then the
// attendees sent are merged into the stored list by email. PUT replaces every writable field. Writing an
// instance of a recurring event stores an exception that keeps
// recurringEventId and originalStartTime.
func (s *Server) writeEvent(c *call, replace bool) (int, any, error) {
	cal, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	if !canWrite(e) {
		return 0, nil, errAccessLevel()
	}
	cv, err := conferenceVersion(c)
	if err != nil {
		return 0, nil, err
	}
	cur, stored, ok := s.lookupEventLocked(cal, c.r.PathValue("eventId"))
	if !ok {
		return 0, nil, errNotFound()
	}
	if im := c.r.Header.Get("If-Match"); im != "" && im != cur.Etag {
		return 0, nil, errConditionNotMet()
	}
	var patch map[string]any
	if err := decodeBody(c.body, &patch); err != nil {
		return 0, nil, err
	}
	if patch == nil {
		patch = map[string]any{}
	}
	for _, k := range readOnlyEventKeys {
		delete(patch, k)
	}
	if cv < 1 {
		delete(patch, "conferenceData")
	}
	if omitted, _ := patch["attendeesOmitted"].(bool); omitted {
		// attendeesOmitted: the body carries only some attendees (typically
		// the caller's own entry to RSVP); merge them by email instead of
		// replacing the list.
		patch["attendees"] = mergeAttendees(cur.Attendees, patch["attendees"])
		delete(patch, "attendeesOmitted")
	}

	var base map[string]any
	if replace {
		// Keep only what a PUT cannot change, plus conference data when
		// the client did not declare conference support.
		base = map[string]any{}
		full := toMap(cur)
		for _, k := range append(slices.Clone(readOnlyEventKeys), "sequence", "eventType") {
			if v, ok := full[k]; ok {
				base[k] = v
			}
		}
		if cv < 1 {
			if v, ok := full["conferenceData"]; ok {
				base["conferenceData"] = v
			}
		}
	} else {
		base = toMap(cur)
	}
	mergePatch(base, patch)
	var next Event
	b, _ := json.Marshal(base)
	if err := json.Unmarshal(b, &next); err != nil {
		return 0, nil, errInvalid("Invalid event body.")
	}
	// Server-owned fields come back from the current version.
	next.ID, next.ICalUID, next.Created = cur.ID, cur.ICalUID, cur.Created
	next.Organizer, next.Creator = cur.Organizer, cur.Creator
	next.RecurringEventID, next.OriginalStartTime = cur.RecurringEventID, cur.OriginalStartTime
	next.HTMLLink = cur.HTMLLink
	if next.EventType == "" {
		next.EventType = cur.EventType
	}
	if next.EventType != cur.EventType {
		return 0, nil, errInvalid("The event type cannot be changed.")
	}
	if next.Status == "" {
		next.Status = "confirmed"
	}
	if next.Reminders == nil {
		next.Reminders = &EventReminders{UseDefault: true}
	}
	if !s.isOrganizerCopyLocked(cal, &cur) && sharedGuestPropsChanged(&cur, &next) {
		return 0, nil, errForbiddenForNonOrganizer()
	}
	if next.RecurringEventID != "" {
		next.Recurrence = nil
	}
	if err := validateEvent(&next); err != nil {
		return 0, nil, err
	}
	if err := s.applyConference(cal, &next, &cur); err != nil {
		return 0, nil, err
	}
	if _, set := patch["sequence"]; !set && significantChange(&cur, &next) {
		// RFC 5545 §3.8.7.4: SEQUENCE grows with significant revisions
		// (start, end, recurrence, status).
		next.Sequence = cur.Sequence + 1
	}
	seq := s.nextSeq()
	next.Updated, next.Etag = s.stamp(), etagFor(seq)
	if stored == nil {
		cal.eventOrder++
		stored = &storedEvent{order: cal.eventOrder}
		cal.events[next.ID] = stored
	}
	stored.ev, stored.modSeq = next, seq
	if len(cur.Recurrence) > 0 && isCancelled(&next) && !isCancelled(&cur) {
		s.cancelExceptionsLocked(cal, next.ID)
	}
	s.touchLocked(cal)
	loc, err := s.responseZone(c, cal)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.renderFull(cal, next, loc, maxAttendeesParam(c)), nil
}

func significantChange(a, b *Event) bool {
	same := func(x, y any) bool {
		bx, _ := json.Marshal(x)
		by, _ := json.Marshal(y)
		return string(bx) == string(by)
	}
	return !same(a.Start, b.Start) || !same(a.End, b.End) || !same(a.Recurrence, b.Recurrence) || a.Status != b.Status
}

// eventsDelete serves DELETE calendars/{calendarId}/events/{eventId}. The
// event becomes a cancelled tombstone; deleting it again answers 410
// deleted, as the errors guide documents. Deleting an instance stores a
// cancelled exception; deleting a series cancels its exceptions too.
func (s *Server) eventsDelete(c *call) (int, any, error) {
	cal, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	if !canWrite(e) {
		return 0, nil, errAccessLevel()
	}
	if err := checkSendUpdates(c); err != nil {
		return 0, nil, err
	}
	cur, stored, ok := s.lookupEventLocked(cal, c.r.PathValue("eventId"))
	if !ok {
		return 0, nil, errNotFound()
	}
	if isCancelled(&cur) {
		return 0, nil, errDeleted()
	}
	if im := c.r.Header.Get("If-Match"); im != "" && im != cur.Etag {
		return 0, nil, errConditionNotMet()
	}
	s.cancelLocked(cal, cur, stored)
	s.touchLocked(cal)
	return http.StatusNoContent, nil, nil
}

// cancelLocked turns an event (or materialized instance) into a cancelled
// tombstone.
func (s *Server) cancelLocked(cal *calendar, cur Event, stored *storedEvent) {
	seq := s.nextSeq()
	cur.Status, cur.Updated, cur.Etag = "cancelled", s.stamp(), etagFor(seq)
	if stored == nil {
		cal.eventOrder++
		stored = &storedEvent{order: cal.eventOrder}
		cal.events[cur.ID] = stored
	}
	stored.ev, stored.modSeq = cur, seq
	if len(cur.Recurrence) > 0 {
		s.cancelExceptionsLocked(cal, cur.ID)
	}
}

func (s *Server) cancelExceptionsLocked(cal *calendar, masterID string) {
	for _, se := range cal.events {
		if se.ev.RecurringEventID == masterID && !isCancelled(&se.ev) {
			seq := s.nextSeq()
			se.ev.Status, se.ev.Updated, se.ev.Etag = "cancelled", s.stamp(), etagFor(seq)
			se.modSeq = seq
		}
	}
}

func toMap(ev Event) map[string]any {
	b, _ := json.Marshal(ev)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// mergePatch applies patch to dst: objects merge recursively, arrays and
// scalars replace, null deletes.
func mergePatch(dst, patch map[string]any) {
	for k, v := range patch {
		if v == nil {
			delete(dst, k)
			continue
		}
		pm, pok := v.(map[string]any)
		dm, dok := dst[k].(map[string]any)
		if pok && dok {
			mergePatch(dm, pm)
			continue
		}
		if pok {
			fresh := map[string]any{}
			mergePatch(fresh, pm)
			dst[k] = fresh
			continue
		}
		dst[k] = v
	}
}

// mergeAttendees merges attendee entries from a patch into the current list
// by email, for attendeesOmitted updates.
func mergeAttendees(cur []EventAttendee, patch any) any {
	list, _ := patch.([]any)
	merged := toMap(Event{Attendees: cur})["attendees"]
	out, _ := merged.([]any)
	for _, p := range list {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		email, _ := pm["email"].(string)
		found := false
		for _, o := range out {
			om := o.(map[string]any)
			if oe, _ := om["email"].(string); strings.EqualFold(oe, email) {
				mergePatch(om, pm)
				found = true
			}
		}
		if !found {
			out = append(out, pm)
		}
	}
	return out
}

// meetIconURI is the icon Google returns for Meet conferences.
const meetIconURI = "https://fonts.gstatic.com/s/i/productlogos/meet_2020q4/v6/web-512dp/logo_meet_2020q4_color_2x_web_512dp.png"

// applyConference honours conferenceData.createRequest (only reached with
// conferenceDataVersion=1). Creation is asynchronous at Google: the
// ConferenceData reference says the data "is generated asynchronously" and
// createRequest.status.statusCode is "pending" while the request is "still
// being processed", "success" once "the entry points are populated" and
// "failure" when "there are no entry points" (discovery document,
// ConferenceRequestStatus.statusCode). A new requestId creates a Meet
// conference: at once with "success", or, after [Server.SetConferencePending],
// first as "pending" with no conference id, solution or entry points. A
// repeated requestId is ignored, as the reference says.
func (s *Server) applyConference(cal *calendar, ev, prev *Event) error {
	cd := ev.ConferenceData
	if cd == nil {
		ev.HangoutLink = ""
		return nil
	}
	if cr := cd.CreateRequest; cr != nil {
		same := prev != nil && prev.ConferenceData != nil && prev.ConferenceData.CreateRequest != nil &&
			prev.ConferenceData.CreateRequest.RequestID == cr.RequestID
		if same {
			kept := *prev.ConferenceData
			ev.ConferenceData = &kept
		} else {
			if cr.RequestID == "" {
				return errRequired("Missing conference create request id.")
			}
			typ := ""
			if cr.ConferenceSolutionKey != nil {
				typ = cr.ConferenceSolutionKey.Type
			}
			if !slices.Contains(cal.solutionTypes, typ) {
				// UNVERIFIED wording; the restriction to the calendar's
				// allowedConferenceSolutionTypes is documented.
				return errInvalid("Invalid conference type value.")
			}
			switch {
			case typ != "hangoutsMeet":
				// The fake can only create Meet conferences.
				cr.Status = &ConferenceRequestStatus{StatusCode: "failure"}
				ev.ConferenceData = &ConferenceData{CreateRequest: cr}
			case s.st.conferencePendingReads > 0:
				s.st.pendingConferences[cr.RequestID] = s.st.conferencePendingReads
				ev.ConferenceData = &ConferenceData{CreateRequest: &CreateConferenceRequest{
					RequestID:             cr.RequestID,
					ConferenceSolutionKey: &ConferenceSolutionKey{Type: "hangoutsMeet"},
					Status:                &ConferenceRequestStatus{StatusCode: "pending"},
				}}
			default:
				ev.ConferenceData = meetConference(cr.RequestID)
			}
		}
	}
	setHangoutLink(ev)
	return nil
}

// meetConference is a created Meet conference for a create request.
func meetConference(requestID string) *ConferenceData {
	code := randomID(3, lower) + "-" + randomID(4, lower) + "-" + randomID(3, lower)
	uri := "https://meet.google.com/" + code
	return &ConferenceData{
		ConferenceID: code,
		ConferenceSolution: &ConferenceSolution{
			Key: ConferenceSolutionKey{Type: "hangoutsMeet"}, Name: "Google Meet", IconURI: meetIconURI,
		},
		CreateRequest: &CreateConferenceRequest{
			RequestID:             requestID,
			ConferenceSolutionKey: &ConferenceSolutionKey{Type: "hangoutsMeet"},
			Status:                &ConferenceRequestStatus{StatusCode: "success"},
		},
		EntryPoints: []EntryPoint{{EntryPointType: "video", URI: uri, Label: "meet.google.com/" + code}},
	}
}

// setHangoutLink derives the read-only hangoutLink from a Meet
// conference's video entry point.
func setHangoutLink(ev *Event) {
	ev.HangoutLink = ""
	if ev.ConferenceData == nil || ev.ConferenceData.ConferenceSolution == nil || ev.ConferenceData.ConferenceSolution.Key.Type != "hangoutsMeet" {
		return
	}
	for _, ep := range ev.ConferenceData.EntryPoints {
		if ep.EntryPointType == "video" {
			ev.HangoutLink = ep.URI
		}
	}
}

// settleConferenceLocked counts one events.get of a stored event whose
// Meet creation is pending, and completes the conference when the reads
// set by [Server.SetConferencePending] are used up. Completing it is a
// change of the event (new etag, seen by incremental sync).
func (s *Server) settleConferenceLocked(se *storedEvent) {
	cd := se.ev.ConferenceData
	if cd == nil || cd.CreateRequest == nil || cd.CreateRequest.Status == nil || cd.CreateRequest.Status.StatusCode != "pending" {
		return
	}
	id := cd.CreateRequest.RequestID
	if left, ok := s.st.pendingConferences[id]; ok && left > 1 {
		s.st.pendingConferences[id] = left - 1
		return
	}
	delete(s.st.pendingConferences, id)
	se.ev.ConferenceData = meetConference(id)
	setHangoutLink(&se.ev)
	seq := s.nextSeq()
	se.ev.Etag, se.modSeq = etagFor(seq), seq
	se.ev.Updated = s.stamp()
}

func maxAttendeesParam(c *call) int {
	n, err := strconv.Atoi(c.q.Get("maxAttendees"))
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// responseZone is the zone dateTimes are rendered in: the timeZone query
// parameter, else the calendar's ("Time zone used in the response … The
// default is the time zone of the calendar").
func (s *Server) responseZone(c *call, cal *calendar) (*time.Location, error) {
	if tz := c.q.Get("timeZone"); tz != "" {
		loc, ok := loadZone(tz)
		if !ok {
			return nil, errInvalidParam("timeZone", "Invalid time zone definition.")
		}
		return loc, nil
	}
	if loc, ok := loadZone(cal.timeZone); ok {
		return loc, nil
	}
	return time.UTC, nil
}

func renderDT(dt *EventDateTime, loc *time.Location) *EventDateTime {
	if dt == nil {
		return nil
	}
	out := *dt
	if dt.DateTime != "" {
		if w, err := parseWhen(dt, "start"); err == nil {
			out.DateTime = w.t.In(loc).Format(time.RFC3339)
		}
	}
	return &out
}

// renderFull renders an event as the caller sees it: kind, times in the
// response zone, and the viewer-relative self flags (organizer.self when
// the organizer is this calendar, creator.self when the creator is, and
// attendees[].self for this calendar's attendee: each "corresponds to the
// calendar on which this copy of the event appears").
func (s *Server) renderFull(cal *calendar, ev Event, loc *time.Location, maxAttendees int) Event {
	out := cloneEvent(ev)
	out.Kind = "calendar#event"
	out.Start, out.End = renderDT(ev.Start, loc), renderDT(ev.End, loc)
	out.OriginalStartTime = renderDT(ev.OriginalStartTime, loc)
	owner := s.st.users[cal.ownerSub]
	isMe := func(email string) bool {
		return strings.EqualFold(email, cal.id) || (cal.primary && owner != nil && strings.EqualFold(email, owner.email))
	}
	if out.Organizer != nil {
		out.Organizer.Self = isMe(out.Organizer.Email)
	}
	if out.Creator != nil {
		out.Creator.Self = isMe(out.Creator.Email)
	}
	for i := range out.Attendees {
		a := &out.Attendees[i]
		a.Self = isMe(a.Email)
		a.Organizer = out.Organizer != nil && strings.EqualFold(a.Email, out.Organizer.Email)
	}
	if maxAttendees > 0 && len(out.Attendees) > maxAttendees {
		// "If there are more than the specified number of attendees, only
		// the participant is returned."
		var keep []EventAttendee
		for _, a := range out.Attendees {
			if a.Self {
				keep = append(keep, a)
			}
		}
		out.Attendees, out.AttendeesOmitted = keep, true
	}
	return out
}

// tombstone is how cancelled events appear in lists. The Event.status
// reference guarantees only id for a deleted event, and id,
// recurringEventId and originalStartTime for a cancelled exception; the
// fake sends no more, so clients cannot come to rely on more.
type tombstone struct {
	Kind              string         `json:"kind"`
	Etag              string         `json:"etag"`
	ID                string         `json:"id"`
	Status            string         `json:"status"`
	RecurringEventID  string         `json:"recurringEventId,omitempty"`
	OriginalStartTime *EventDateTime `json:"originalStartTime,omitempty"`
}

func renderTombstone(ev Event, loc *time.Location) tombstone {
	return tombstone{
		Kind: "calendar#event", Etag: ev.Etag, ID: ev.ID, Status: "cancelled",
		RecurringEventID: ev.RecurringEventID, OriginalStartTime: renderDT(ev.OriginalStartTime, loc),
	}
}
