package graphtest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical/internal/recur"
)

// Events follow https://learn.microsoft.com/graph/api/resources/event
// (microsoft-graph-docs-contrib api-reference/v1.0/resources/event.md).

type itemBody struct {
	ContentType string `json:"contentType"`
	Content     string `json:"content"`
}

type emailAddress struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

type responseStatus struct {
	Response string `json:"response"`
	Time     string `json:"time"`
}

type attendee struct {
	Type         string         `json:"type"`
	Status       responseStatus `json:"status"`
	EmailAddress emailAddress   `json:"emailAddress"`
}

type recipient struct {
	EmailAddress emailAddress `json:"emailAddress"`
}

type extendedProperty struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

const zeroTime = "0001-01-01T00:00:00Z"

// event is a single instance, a series master or an exception. Occurrences
// are computed from their master (see recur.go).
type event struct {
	id, calendarID string
	typ            string // singleInstance, seriesMaster or exception
	masterID       string // for exceptions
	originalStart  time.Time

	subject               string
	body                  itemBody
	start, end            time.Time
	startZone, endZone    zone
	startWall             time.Time // start's wall clock as sent (digits in UTC), which a series keeps
	isAllDay              bool
	recurrence            *patternedRecurrence
	attendees             []attendee
	organizer             recipient
	response              responseStatus
	showAs, sensitivity   string
	importance            string
	isCancelled           bool
	isOnlineMeeting       bool
	onlineProvider        string
	joinURL               string
	location              json.RawMessage
	locations             json.RawMessage
	categories            []string
	isReminderOn          bool
	reminderMinutes       int
	responseRequested     bool
	allowNewTimeProposals bool
	transactionID         string
	extProps              []extendedProperty
	iCalUID, changeKey    string
	created, modified     time.Time
	modSeq                int64
	cancelled             map[int64]bool   // deleted occurrences, by original start
	exceptions            map[int64]string // exception IDs, by original start
	lastRecurrence        string           // for clearing exceptions on pattern change
}

// tombstone records a deleted single event or series for delta.
type tombstone struct {
	id, calendarID string
	seq            int64
}

var errNotFound = errors.New("not found")

func errUnknownUser(id string) error { return fmt.Errorf("graphtest: unknown user %q", id) }

// AddEvent seeds an event in userID's calendar (the default calendar when
// calendarID is empty) from Graph's JSON wire format, as a POST would, and
// returns its ID. Unlike a POST it also accepts organizer, responseStatus
// and isCancelled, so tests can seed invitations from others. It does not
// send change notifications.
func (s *Server) AddEvent(userID, calendarID, eventJSON string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[userID]
	if !ok {
		return "", errUnknownUser(userID)
	}
	cal := u.defaultCalendar()
	if calendarID != "" {
		if cal = u.calendar(calendarID); cal == nil {
			return "", fmt.Errorf("graphtest: user %q has no calendar %q", userID, calendarID)
		}
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal([]byte(eventJSON), &body); err != nil {
		return "", fmt.Errorf("graphtest: AddEvent: %w", err)
	}
	c := &call{s: s, user: u, now: s.now(), out: utcZone}
	ev, gerr := c.newEvent(cal, body, true)
	if gerr != nil {
		return "", fmt.Errorf("graphtest: AddEvent: %s: %s", gerr.code, gerr.msg)
	}
	return ev.id, nil
}

// graphErr is an error answer built while applying a request body.
type graphErr struct {
	status    int
	code, msg string
}

func badRequest(code, format string, args ...any) *graphErr {
	return &graphErr{http.StatusBadRequest, code, fmt.Sprintf(format, args...)}
}

func (c *call) failWith(e *graphErr) { c.fail(e.status, e.code, "%s", e.msg) }

// newEvent creates an event in cal from a POST body.
func (c *call) newEvent(cal *calendar, body map[string]json.RawMessage, seed bool) (*event, *graphErr) {
	now := c.now
	ev := &event{
		id: newID("AAMkAGI2TG93AAA", 33), calendarID: cal.id, typ: "singleInstance",
		body:   itemBody{ContentType: "html"},
		showAs: "busy", sensitivity: "normal", importance: "normal",
		isReminderOn: true, reminderMinutes: 15, responseRequested: true, allowNewTimeProposals: true,
		organizer: recipient{emailAddress{c.user.DisplayName, c.user.Mail}},
		response:  responseStatus{"organizer", zeroTime},
		iCalUID:   "040000008200E00074C5B7101A82E00800000000" + randomHex(16),
		changeKey: newChangeKey(), created: now, modified: now,
	}
	if e := c.applyEvent(ev, cal, body, true, seed); e != nil {
		return nil, e
	}
	if ev.transactionID != "" {
		for _, other := range c.user.events {
			if other.transactionID == ev.transactionID {
				return other, nil // The retried POST of a created event.
			}
		}
	}
	c.user.events[ev.id] = ev
	c.touch(ev)
	c.notify(ev, "created")
	return ev, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

// touch records a change for delta and the event's version.
func (c *call) touch(ev *event) {
	c.s.seq++
	ev.modSeq = c.s.seq
	ev.modified = c.now
	ev.changeKey = newChangeKey()
	if ev.typ == "exception" {
		if m := c.user.events[ev.masterID]; m != nil {
			m.modSeq = c.s.seq
		}
	}
}

var readOnlyEventProps = []string{
	"@odata.type", "@odata.etag", "@odata.context", "id", "createdDateTime", "lastModifiedDateTime",
	"changeKey", "iCalUId", "type", "seriesMasterId", "originalStart", "webLink", "onlineMeeting",
	"onlineMeetingUrl", "bodyPreview", "hasAttachments", "isOrganizer", "originalStartTimeZone",
	"originalEndTimeZone", "isDraft", "calendar",
}

// applyEvent applies the properties of a POST or PATCH body to ev. seed
// allows properties only the service sets (organizer, responseStatus,
// isCancelled).
func (c *call) applyEvent(ev *event, cal *calendar, body map[string]json.RawMessage, create, seed bool) *graphErr {
	var startIn, endIn *dateTimeTimeZone
	decode := func(k string, raw json.RawMessage, v any) *graphErr {
		if err := json.Unmarshal(raw, v); err != nil {
			return badRequest("RequestBodyRead", "Cannot convert the value of property '%s': %v", k, err)
		}
		return nil
	}
	var e *graphErr
	for k, raw := range body {
		switch k {
		case "subject":
			e = decode(k, raw, &ev.subject)
		case "body":
			var b itemBody
			if e = decode(k, raw, &b); e == nil {
				b.ContentType = strings.ToLower(b.ContentType)
				if b.ContentType == "" {
					b.ContentType = "text"
				}
				if b.ContentType != "html" && b.ContentType != "text" {
					e = badRequest("RequestBodyRead", "body.contentType must be text or html.")
				}
				ev.body = b
			}
		case "start":
			startIn = new(dateTimeTimeZone)
			e = decode(k, raw, startIn)
		case "end":
			endIn = new(dateTimeTimeZone)
			e = decode(k, raw, endIn)
		case "isAllDay":
			e = decode(k, raw, &ev.isAllDay)
		case "recurrence":
			if ev.typ == "exception" {
				e = badRequest("ErrorInvalidRequest", "An exception of a series cannot have a recurrence.")
				break
			}
			var rec *patternedRecurrence
			if e = decode(k, raw, &rec); e == nil {
				ev.recurrence = rec
			}
		case "attendees":
			var as []attendee
			if e = decode(k, raw, &as); e == nil {
				if len(as) > 500 {
					e = badRequest("ErrorInvalidRequest", "An event can have at most 500 attendees.")
					break
				}
				for i := range as {
					if as[i].Type == "" {
						as[i].Type = "required"
					}
					if as[i].Status.Response == "" || !seed {
						as[i].Status = c.keepStatus(ev, as[i].EmailAddress.Address)
					}
				}
				ev.attendees = as
			}
		case "showAs":
			e = decodeEnum(k, raw, &ev.showAs, "free", "tentative", "busy", "oof", "workingElsewhere", "unknown")
		case "sensitivity":
			e = decodeEnum(k, raw, &ev.sensitivity, "normal", "personal", "private", "confidential")
		case "importance":
			e = decodeEnum(k, raw, &ev.importance, "low", "normal", "high")
		case "isOnlineMeeting":
			e = decode(k, raw, &ev.isOnlineMeeting)
		case "onlineMeetingProvider":
			e = decodeEnum(k, raw, &ev.onlineProvider, "unknown", "teamsForBusiness", "skypeForBusiness", "skypeForConsumer")
		case "location":
			ev.location = slices.Clone(raw)
		case "locations":
			ev.locations = slices.Clone(raw)
		case "categories":
			e = decode(k, raw, &ev.categories)
		case "isReminderOn":
			e = decode(k, raw, &ev.isReminderOn)
		case "reminderMinutesBeforeStart":
			e = decode(k, raw, &ev.reminderMinutes)
		case "responseRequested":
			e = decode(k, raw, &ev.responseRequested)
		case "allowNewTimeProposals":
			e = decode(k, raw, &ev.allowNewTimeProposals)
		case "hideAttendees":
		case "transactionId":
			if create {
				e = decode(k, raw, &ev.transactionID)
			}
		case "singleValueExtendedProperties":
			var props []extendedProperty
			if e = decode(k, raw, &props); e == nil {
				for _, p := range props {
					if !extPropID.MatchString(p.ID) {
						e = badRequest("ErrorInvalidProperty", "The extended property id '%s' is not valid.", p.ID)
						break
					}
					ev.setExtProp(p)
				}
			}
		case "organizer":
			if seed {
				e = decode(k, raw, &ev.organizer)
			}
		case "responseStatus":
			if seed {
				e = decode(k, raw, &ev.response)
			}
		case "isCancelled":
			if seed {
				e = decode(k, raw, &ev.isCancelled)
			}
		default:
			if !slices.Contains(readOnlyEventProps, k) {
				e = badRequest("RequestBodyRead", "The property '%s' does not exist on type 'microsoft.graph.event'. Make sure to only use property names that are defined by the type or mark the type as open type.", k)
			}
		}
		if e != nil {
			return e
		}
	}
	if create && (startIn == nil || endIn == nil) {
		return badRequest("ErrorInvalidRequest", "Your request can't be completed. The start and end of the event are required.")
	}
	if startIn != nil {
		t, z, err := parseDTTZ(*startIn)
		if err != nil {
			return badRequest("TimeZoneNotSupportedException", "%v", err)
		}
		ev.start, ev.startZone = t, z
		ev.startWall = t.In(z.loc)
		if w, err := time.Parse("2006-01-02T15:04:05", startIn.DateTime[:min(len(startIn.DateTime), 19)]); err == nil && recur.At(w, z.loc).Equal(t.Truncate(time.Second)) {
			ev.startWall = w
		}
	}
	if endIn != nil {
		t, z, err := parseDTTZ(*endIn)
		if err != nil {
			return badRequest("TimeZoneNotSupportedException", "%v", err)
		}
		ev.end, ev.endZone = t, z
	}
	if ev.end.Before(ev.start) {
		return badRequest("ErrorInvalidRequest", "Your request can't be completed. The end of the event must be after its start.")
	}
	if ev.isAllDay {
		// "If true, regardless of a single-day or multi-day event, start and
		// end time must be set to midnight and be in the same time zone."
		ls, le := ev.start.In(ev.startZone.loc), ev.end.In(ev.endZone.loc)
		if ev.startZone.name != ev.endZone.name || !isMidnight(ls) || !isMidnight(le) || !ev.end.After(ev.start) {
			return badRequest("ErrorInvalidRequest", "Your request can't be completed. An all-day event must start and end at midnight in the same time zone.")
		}
	}
	if ev.recurrence != nil {
		if err := ev.recurrence.validate(ev); err != nil {
			return badRequest("ErrorInvalidRequest", "%v", err)
		}
		if ev.typ == "singleInstance" {
			ev.typ = "seriesMaster"
		}
	} else if ev.typ == "seriesMaster" {
		ev.typ = "singleInstance"
	}
	if ev.typ == "seriesMaster" {
		sig := fmt.Sprintf("%v|%v|%v", ev.recurrence, ev.start.UnixNano(), ev.end.UnixNano())
		if ev.lastRecurrence != "" && sig != ev.lastRecurrence {
			// Changing the pattern or the series times drops its exceptions
			// and deleted occurrences, as Outlook does.
			for _, id := range ev.exceptions {
				delete(c.user.events, id)
			}
			ev.exceptions, ev.cancelled = nil, nil
		}
		ev.lastRecurrence = sig
	}
	if ev.isOnlineMeeting && ev.joinURL == "" {
		provider := ev.onlineProvider
		if provider == "" || provider == "unknown" {
			provider = cal.defaultProvider
		}
		if slices.Contains(cal.allowedProviders, provider) {
			ev.onlineProvider = provider
			ev.joinURL = joinURL(provider)
		}
	}
	if !ev.isOnlineMeeting {
		ev.joinURL = ""
	}
	return nil
}

// keepStatus returns an attendee's existing response, or none.
func (c *call) keepStatus(ev *event, address string) responseStatus {
	for _, a := range ev.attendees {
		if strings.EqualFold(a.EmailAddress.Address, address) {
			return a.Status
		}
	}
	return responseStatus{"none", zeroTime}
}

func isMidnight(t time.Time) bool {
	return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

func decodeEnum(k string, raw json.RawMessage, dst *string, allowed ...string) *graphErr {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil || !slices.Contains(allowed, v) {
		return badRequest("RequestBodyRead", "Requested value '%s' was not found for property '%s'.", strings.Trim(string(raw), `"`), k)
	}
	*dst = v
	return nil
}

func joinURL(provider string) string {
	id := strings.TrimRight(newID("", 18), "=")
	switch provider {
	case "teamsForBusiness":
		return "https://teams.microsoft.com/l/meetup-join/19%3ameeting_" + url.PathEscape(id) + "%40thread.v2/0"
	case "skypeForConsumer":
		return "https://join.skype.com/" + id
	}
	return "https://meet.lync.com/contoso/" + id
}

// extPropID matches single-value extended property IDs such as
// "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name Color".
var extPropID = regexp.MustCompile(`(?i)^\w+ (\{[0-9a-f-]{36}\} (Name \S.*|Id 0x[0-9a-f]+)|0x[0-9a-f]+)$`)

func (ev *event) setExtProp(p extendedProperty) {
	for i, old := range ev.extProps {
		if sameExtPropID(old.ID, p.ID) {
			ev.extProps[i].Value = p.Value
			return
		}
	}
	ev.extProps = append(ev.extProps, p)
}

// etag is the event's @odata.etag, W/"<changeKey>".
func (ev *event) etag() string { return quoteETag(ev.changeKey) }

// eventJSON renders an instance in Graph's wire format, with start and end in
// the call's output zone.
func (c *call) eventJSON(in instance) map[string]any {
	ev := in.ev
	m := map[string]any{
		"@odata.etag":                ev.etag(),
		"id":                         in.id,
		"createdDateTime":            formatStamp(ev.created),
		"lastModifiedDateTime":       formatStamp(ev.modified),
		"changeKey":                  ev.changeKey,
		"categories":                 nonNil(ev.categories),
		"transactionId":              nullable(ev.transactionID),
		"originalStartTimeZone":      ev.startZone.name,
		"originalEndTimeZone":        ev.endZone.name,
		"iCalUId":                    in.iCalUID(),
		"reminderMinutesBeforeStart": ev.reminderMinutes,
		"isReminderOn":               ev.isReminderOn,
		"hasAttachments":             false,
		"subject":                    ev.subject,
		"bodyPreview":                preview(ev.body),
		"importance":                 ev.importance,
		"sensitivity":                ev.sensitivity,
		"isAllDay":                   ev.isAllDay,
		"isCancelled":                ev.isCancelled,
		"isOrganizer":                strings.EqualFold(ev.organizer.EmailAddress.Address, c.user.Mail),
		"responseRequested":          ev.responseRequested,
		"seriesMasterId":             nullable(in.masterID),
		"showAs":                     ev.showAs,
		"type":                       in.typ,
		"webLink":                    "https://outlook.office365.com/owa/?itemid=" + url.QueryEscape(in.id) + "&exvsurl=1&path=/calendar/item",
		"onlineMeetingUrl":           nil,
		"isOnlineMeeting":            ev.isOnlineMeeting,
		"onlineMeetingProvider":      orDefault(ev.onlineProvider, "unknown"),
		"allowNewTimeProposals":      ev.allowNewTimeProposals,
		"isDraft":                    false,
		"hideAttendees":              false,
		"responseStatus":             ev.response,
		"body":                       ev.body,
		"start":                      c.renderTime(in.start, ev.isAllDay, ev.startZone),
		"end":                        c.renderTime(in.end, ev.isAllDay, ev.endZone),
		"location":                   rawOr(ev.location, `{"displayName":"","locationType":"default","uniqueIdType":"unknown","address":{},"coordinates":{}}`),
		"locations":                  rawOr(ev.locations, `[]`),
		"recurrence":                 nil,
		"attendees":                  nonNil(ev.attendees),
		"organizer":                  ev.organizer,
		"onlineMeeting":              nil,
	}
	if in.typ == "seriesMaster" && ev.recurrence != nil {
		m["recurrence"] = ev.recurrence.wire()
	}
	if in.typ == "occurrence" || in.typ == "exception" {
		m["originalStart"] = formatUTC(in.originalStart)
	}
	if ev.joinURL != "" {
		m["onlineMeeting"] = map[string]any{"joinUrl": ev.joinURL}
	}
	m = c.selected(m)
	if props := c.expandedExtProps(ev); props != nil {
		m["singleValueExtendedProperties"] = props
	}
	return m
}

// renderTime renders a start or end. All-day values keep their civil date at
// midnight whatever the output zone. No reference page says so (event.md
// only requires all-day start and end to be midnight); it is corroborated
// by a Microsoft engineer ("All-day events ... will always return midnight
// as the start and end time, regardless of time zone", even with Prefer:
// outlook.timezone; jasonjoh/php-calendar issue 9) and by open docs issues
// asking for exactly that note (microsoft-graph-docs-contrib 471, 6459).
// The timeZone label the fake gives them (the output zone) stays
// UNVERIFIED.
func (c *call) renderTime(t time.Time, allDay bool, z zone) dateTimeTimeZone {
	if allDay {
		l := t.In(z.loc)
		return dateTimeTimeZone{DateTime: time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC).Format("2006-01-02T15:04:05.0000000"), TimeZone: c.out.name}
	}
	return formatLocal(t, c.out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func rawOr(raw json.RawMessage, def string) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(def)
	}
	return raw
}

var tags = regexp.MustCompile(`<[^>]*>`)

func preview(b itemBody) string {
	text := b.Content
	if b.ContentType == "html" {
		text = tags.ReplaceAllString(text, " ")
	}
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 255 {
		text = string(r[:255])
	}
	return text
}

// listEvents handles GET /me/events and /me/calendars/{cid}/events: single
// instances and series masters, not occurrences (api/user-list-events.md).
// /me/events lists the default calendar. UNVERIFIED: the reference says
// only "event objects in the user's mailbox"; users report it returns the
// default calendar's events alone (microsoft-graph-docs issue 6904). An
// event of any calendar can still be read by ID under /me/events/{id}
// ("event IDs are unique across all calendars in the same mailbox", a docs
// maintainer in microsoft-graph-docs issue 391).
func (c *call) listEvents() {
	cal, ok := c.pathCalendar()
	if !ok || !c.checkQuery("$top", "$skip", "$select", "$filter", "$expand", "$orderby") || !c.checkExpand() {
		return
	}
	if cal == nil {
		cal = c.user.defaultCalendar()
	}
	keep, ok := c.eventFilter()
	if !ok {
		return
	}
	var list []*event
	for _, ev := range c.user.events {
		if ev.typ == "exception" || ev.calendarID != cal.id || !keep(ev) {
			continue
		}
		list = append(list, ev)
	}
	slices.SortFunc(list, func(a, b *event) int {
		if d := a.start.Compare(b.start); d != 0 {
			return d
		}
		return strings.Compare(a.id, b.id)
	})
	lo, hi, next, ok := c.page(len(list))
	if !ok {
		return
	}
	items := make([]any, 0, hi-lo)
	for _, ev := range list[lo:hi] {
		items = append(items, c.eventJSON(ev.instance()))
	}
	c.collection("users('"+c.user.ID+"')/events", items, next)
}

// createEvent handles POST .../events: 201 with the event.
func (c *call) createEvent() {
	cal, ok := c.pathCalendar()
	if !ok {
		return
	}
	if cal == nil {
		cal = c.user.defaultCalendar()
	}
	if !cal.canEdit {
		c.fail(http.StatusForbidden, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
		return
	}
	body, ok := c.decodeBody()
	if !ok {
		return
	}
	ev, e := c.newEvent(cal, body, false)
	if e != nil {
		c.failWith(e)
		return
	}
	m := c.eventJSON(ev.instance())
	m["@odata.context"] = c.context("users('" + c.user.ID + "')/events/$entity")
	c.reply(http.StatusCreated, m)
}

// lookup finds the instance {eid} names within the path's calendar.
func (c *call) lookup() (instance, *calendar, bool) {
	cal, ok := c.pathCalendar()
	if !ok {
		return instance{}, nil, false
	}
	in, err := c.user.resolve(c.r.PathValue("eid"))
	if err != nil || (cal != nil && in.ev.calendarID != cal.id) {
		c.fail(http.StatusNotFound, "ErrorItemNotFound", "The specified object was not found in the store.")
		return instance{}, nil, false
	}
	return in, c.user.calendar(in.ev.calendarID), true
}

// ifMatch checks If-Match against the event's etag: 412 on mismatch. Outlook
// answers ErrorIrresolvableConflict (corroborated; /graph/errors lists the
// generic resourceModified).
func (c *call) ifMatch(ev *event) bool {
	h := c.r.Header.Get("If-Match")
	if h == "" || h == "*" {
		return true
	}
	for _, v := range strings.Split(h, ",") {
		v = strings.TrimSpace(v)
		if v == ev.etag() || v == `"`+ev.changeKey+`"` || v == ev.changeKey {
			return true
		}
	}
	c.fail(http.StatusPreconditionFailed, "ErrorIrresolvableConflict", "The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.")
	return false
}

// getEvent handles GET .../events/{eid}.
func (c *call) getEvent() {
	if !c.checkQuery("$select", "$expand") || !c.checkExpand() {
		return
	}
	in, _, ok := c.lookup()
	if !ok {
		return
	}
	m := c.eventJSON(in)
	m["@odata.context"] = c.context("users('" + c.user.ID + "')/events/$entity")
	c.reply(http.StatusOK, m)
}

// updateEvent handles PATCH .../events/{eid}: 200 with the event. Patching
// an occurrence turns it into an exception with the same ID.
func (c *call) updateEvent() {
	in, cal, ok := c.lookup()
	if !ok || !c.writable(cal) || !c.ifMatch(in.ev) {
		return
	}
	body, ok := c.decodeBody()
	if !ok {
		return
	}
	ev := in.ev
	if in.typ == "occurrence" {
		ev = c.newException(in)
	}
	updated := *ev
	updated.attendees = slices.Clone(ev.attendees)
	updated.extProps = slices.Clone(ev.extProps)
	if e := c.applyEvent(&updated, cal, body, false, false); e != nil {
		c.failWith(e)
		return
	}
	*ev = updated
	c.commitException(ev)
	c.touch(ev)
	c.notify(ev, "updated")
	m := c.eventJSON(ev.instance())
	m["@odata.context"] = c.context("users('" + c.user.ID + "')/events/$entity")
	c.reply(http.StatusOK, m)
}

func (c *call) writable(cal *calendar) bool {
	if cal != nil && !cal.canEdit {
		c.fail(http.StatusForbidden, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
		return false
	}
	return true
}

// deleteEvent handles DELETE .../events/{eid}: 204. Deleting a series
// master deletes the series; deleting an occurrence or exception removes
// that instance from the series.
func (c *call) deleteEvent() {
	in, cal, ok := c.lookup()
	if !ok || !c.writable(cal) || !c.ifMatch(in.ev) {
		return
	}
	c.remove(in)
	c.noContent(http.StatusNoContent)
}

// remove deletes an event, a series or one instance of a series, as
// deleteEvent and the cancel action do.
func (c *call) remove(in instance) {
	switch in.typ {
	case "occurrence", "exception":
		master := c.user.events[in.masterID]
		key := in.originalStart.Unix()
		if master.cancelled == nil {
			master.cancelled = make(map[int64]bool)
		}
		master.cancelled[key] = true
		if id, ok := master.exceptions[key]; ok {
			delete(c.user.events, id)
			delete(master.exceptions, key)
		}
		c.touch(master)
		c.notifyDeleted(in.id, master.calendarID)
	default:
		c.removeEvent(in.ev)
		delete(c.user.events, in.ev.id)
		c.notifyDeleted(in.ev.id, in.ev.calendarID)
	}
}

// removeEvent records the deletion of a single event or series for delta
// and drops the series' exceptions.
func (c *call) removeEvent(ev *event) {
	for _, id := range ev.exceptions {
		delete(c.user.events, id)
	}
	c.s.seq++
	c.user.removed = append(c.user.removed, tombstone{ev.id, ev.calendarID, c.s.seq})
}

// eventAction handles POST .../events/{eid}/accept, tentativelyAccept and
// decline (https://learn.microsoft.com/graph/api/event-tentativelyaccept):
// 202 Accepted with no body; and cancel.
func (c *call) eventAction() {
	action := c.r.PathValue("action")
	if action == "cancel" {
		c.cancelEvent()
		return
	}
	responses := map[string]string{"accept": "accepted", "tentativelyAccept": "tentativelyAccepted", "decline": "declined"}
	resp, known := responses[action]
	if !known {
		c.fail(http.StatusBadRequest, "BadRequest", "Resource not found for the segment '%s'.", action)
		return
	}
	in, cal, ok := c.lookup()
	if !ok || !c.writable(cal) {
		return
	}
	body, ok := c.decodeBody()
	if !ok {
		return
	}
	var req struct {
		Comment         *string         `json:"comment"`
		SendResponse    *bool           `json:"sendResponse"`
		ProposedNewTime json.RawMessage `json:"proposedNewTime"`
	}
	for k, raw := range body {
		var err error
		switch k {
		case "comment":
			err = json.Unmarshal(raw, &req.Comment)
		case "sendResponse":
			err = json.Unmarshal(raw, &req.SendResponse)
		case "proposedNewTime":
			if action == "accept" {
				err = errors.New("proposedNewTime is not a parameter of accept")
			}
			req.ProposedNewTime = raw
		default:
			err = fmt.Errorf("the parameter '%s' is not defined for action '%s'", k, action)
		}
		if err != nil {
			c.fail(http.StatusBadRequest, "RequestBodyRead", "%v", err)
			return
		}
	}
	if strings.EqualFold(in.ev.organizer.EmailAddress.Address, c.user.Mail) {
		c.fail(http.StatusBadRequest, "ErrorInvalidRequest", "Your request can't be completed. You can't respond to this meeting because you're the meeting organizer.")
		return
	}
	if len(req.ProposedNewTime) > 0 && string(req.ProposedNewTime) != "null" {
		if req.SendResponse != nil && !*req.SendResponse {
			c.fail(http.StatusBadRequest, "ErrorInvalidRequest", "Your request can't be completed. A new time can be proposed only when sendResponse is true.")
			return
		}
		if !in.ev.allowNewTimeProposals {
			c.fail(http.StatusBadRequest, "ErrorInvalidRequest", "Your request can't be completed. The organizer does not allow new time proposals for this meeting.")
			return
		}
	}
	ev := in.ev
	if in.typ == "occurrence" {
		ev = c.newException(in)
		c.commitException(ev)
	}
	ev.response = responseStatus{resp, formatUTC(c.now)}
	c.touch(ev)
	c.notify(ev, "updated")
	c.noContent(http.StatusAccepted)
}

// cancelEvent handles POST .../events/{eid}/cancel
// (https://learn.microsoft.com/graph/api/event-cancel): only the organizer
// may cancel ("An attendee calling this action gets an error (HTTP 400 Bad
// Request)" with the message below); the event, or the one occurrence
// named, moves to Deleted Items, which for the calendar is a deletion.
// The optional parameter is Comment. 202 Accepted with no body.
func (c *call) cancelEvent() {
	in, cal, ok := c.lookup()
	if !ok || !c.writable(cal) {
		return
	}
	body, ok := c.decodeBody()
	if !ok {
		return
	}
	for k, raw := range body {
		var comment string
		if !strings.EqualFold(k, "comment") || json.Unmarshal(raw, &comment) != nil {
			c.fail(http.StatusBadRequest, "RequestBodyRead", "The parameter '%s' is not defined for action 'cancel'.", k)
			return
		}
	}
	if !strings.EqualFold(in.ev.organizer.EmailAddress.Address, c.user.Mail) {
		c.fail(http.StatusBadRequest, "ErrorInvalidRequest", "Your request can't be completed. You need to be an organizer to cancel a meeting.")
		return
	}
	c.remove(in)
	c.noContent(http.StatusAccepted)
}

// SetAttendeeResponse records an attendee's reply to an event of userID, as
// if the attendee had answered (response is accepted, tentativelyAccepted,
// declined or none). It sends change notifications.
func (s *Server) SetAttendeeResponse(userID, eventID, address, response string) error {
	s.mu.Lock()
	u, ok := s.users[userID]
	if !ok {
		s.mu.Unlock()
		return errUnknownUser(userID)
	}
	c := &call{s: s, user: u, now: s.now()}
	in, err := u.resolve(eventID)
	if err != nil || in.typ == "occurrence" {
		s.mu.Unlock()
		return fmt.Errorf("graphtest: no event %q", eventID)
	}
	found := false
	for i, a := range in.ev.attendees {
		if strings.EqualFold(a.EmailAddress.Address, address) {
			in.ev.attendees[i].Status = responseStatus{response, formatUTC(c.now)}
			found = true
		}
	}
	if found {
		c.touch(in.ev)
		c.notify(in.ev, "updated")
	}
	sends := c.sends
	s.mu.Unlock()
	s.dispatch(sends)
	if !found {
		return fmt.Errorf("graphtest: %s is not an attendee of %q", address, eventID)
	}
	return nil
}

// occurrenceID returns the ID of the occurrence of master at originalStart.
func occurrenceID(masterID string, originalStart time.Time) string {
	return "AAMkOcc" + base64.RawURLEncoding.EncodeToString([]byte(masterID+"\x00"+strconv.FormatInt(originalStart.Unix(), 10)))
}

func parseOccurrenceID(id string) (masterID string, originalStart time.Time, ok bool) {
	raw, found := strings.CutPrefix(id, "AAMkOcc")
	if !found {
		return "", time.Time{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return "", time.Time{}, false
	}
	m, sec, found := strings.Cut(string(b), "\x00")
	n, err := strconv.ParseInt(sec, 10, 64)
	if !found || err != nil {
		return "", time.Time{}, false
	}
	return m, time.Unix(n, 0).UTC(), true
}

// newException copies an occurrence into an exception event (not yet stored).
func (c *call) newException(in instance) *event {
	master := c.user.events[in.masterID]
	ex := *master
	ex.id, ex.typ, ex.masterID = in.id, "exception", master.id
	ex.originalStart, ex.start, ex.end = in.originalStart, in.start, in.end
	ex.recurrence, ex.cancelled, ex.exceptions, ex.lastRecurrence = nil, nil, nil, ""
	ex.attendees = slices.Clone(master.attendees)
	ex.extProps = slices.Clone(master.extProps)
	ex.created = c.now
	ex.iCalUID = in.iCalUID()
	return &ex
}

// commitException stores an exception and links it from its master.
func (c *call) commitException(ev *event) {
	if ev.typ != "exception" {
		return
	}
	master := c.user.events[ev.masterID]
	if master.exceptions == nil {
		master.exceptions = make(map[int64]string)
	}
	master.exceptions[ev.originalStart.Unix()] = ev.id
	c.user.events[ev.id] = ev
}
