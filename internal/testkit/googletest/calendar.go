package googletest

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"
)

// user is a Google account known to the fake.
type user struct {
	sub, email, name, timeZone string
	emailUnverified            bool
	order                      int
	primary                    string                // primary calendar id, the email
	entries                    map[string]*listEntry // calendarList, by calendar id
}

// listEntry is a user's calendarList entry: the per-user view of a
// calendar (colour, visibility, role). See "calendarList vs calendars" in
// the reference.
type listEntry struct {
	calendarID       string
	accessRole       string
	summaryOverride  string
	colorID, bg, fg  string
	hidden, selected bool
	deleted          bool
	defaultReminders []EventReminder
	etag             string
	modSeq, order    uint64
}

// calendar is the shared calendar object and its events.
type calendar struct {
	id, summary, description, location, timeZone string
	ownerSub                                     string
	primary                                      bool
	etag                                         string
	solutionTypes                                []string
	resourceID                                   string // stable id of the events collection for push channels
	events                                       map[string]*storedEvent
	eventOrder                                   uint64 // insertion counter for stable default ordering
	deleted                                      bool
	updated                                      time.Time
}

var roleRank = map[string]int{"freeBusyReader": 1, "reader": 2, "writer": 3, "owner": 4}

func canWrite(e *listEntry) bool { return roleRank[e.accessRole] >= roleRank["writer"] }

func loadZone(name string) (*time.Location, bool) {
	if name == "" {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	return loc, err == nil
}

// userByEmailLocked finds the user with that email, the verified one
// when an unverified account claims the same address.
func (s *Server) userByEmailLocked(email string) *user {
	var found *user
	for _, u := range s.st.users {
		if strings.EqualFold(u.email, email) && (found == nil || found.emailUnverified) {
			found = u
		}
	}
	return found
}

// resolveCalendar finds the calendar a path names ("primary" is the
// caller's primary calendar) and the caller's entry for it. A calendar the
// caller has no entry for is 404, as the errors guide says for calendars
// "the user can not access".
func (s *Server) resolveCalendar(c *call, id string) (*calendar, *listEntry, error) {
	if id == "primary" {
		id = c.user.primary
	}
	cal := s.st.calendar[id]
	e := c.user.entries[id]
	if cal == nil || cal.deleted || e == nil || e.deleted {
		return nil, nil, errNotFound()
	}
	return cal, e, nil
}

type conferenceProperties struct {
	AllowedConferenceSolutionTypes []string `json:"allowedConferenceSolutionTypes"`
}

type notification struct {
	Type   string `json:"type"`
	Method string `json:"method"`
}

type notificationSettings struct {
	Notifications []notification `json:"notifications"`
}

type calendarListEntryJSON struct {
	Kind                 string                `json:"kind"`
	Etag                 string                `json:"etag"`
	ID                   string                `json:"id"`
	Summary              string                `json:"summary,omitempty"`
	Description          string                `json:"description,omitempty"`
	Location             string                `json:"location,omitempty"`
	TimeZone             string                `json:"timeZone,omitempty"`
	SummaryOverride      string                `json:"summaryOverride,omitempty"`
	ColorID              string                `json:"colorId,omitempty"`
	BackgroundColor      string                `json:"backgroundColor,omitempty"`
	ForegroundColor      string                `json:"foregroundColor,omitempty"`
	Hidden               bool                  `json:"hidden,omitempty"`
	Selected             bool                  `json:"selected,omitempty"`
	AccessRole           string                `json:"accessRole,omitempty"`
	DefaultReminders     []EventReminder       `json:"defaultReminders,omitempty"`
	NotificationSettings *notificationSettings `json:"notificationSettings,omitempty"`
	Primary              bool                  `json:"primary,omitempty"`
	Deleted              bool                  `json:"deleted,omitempty"`
	ConferenceProperties *conferenceProperties `json:"conferenceProperties,omitempty"`
	DataOwner            string                `json:"dataOwner,omitempty"`
}

func (s *Server) renderEntry(u *user, e *listEntry) calendarListEntryJSON {
	cal := s.st.calendar[e.calendarID]
	out := calendarListEntryJSON{Kind: "calendar#calendarListEntry", Etag: e.etag, ID: e.calendarID}
	if e.deleted || cal == nil || cal.deleted {
		// Deleted entries only surface in sync or with showDeleted.
		out.Deleted = true
		return out
	}
	out.Summary = cal.summary
	out.Description = cal.description
	out.Location = cal.location
	out.TimeZone = cal.timeZone
	out.SummaryOverride = e.summaryOverride
	out.ColorID, out.BackgroundColor, out.ForegroundColor = e.colorID, e.bg, e.fg
	out.Hidden, out.Selected = e.hidden, e.selected
	out.AccessRole = e.accessRole
	out.DefaultReminders = e.defaultReminders
	if out.DefaultReminders == nil {
		out.DefaultReminders = []EventReminder{}
	}
	out.Primary = cal.id == u.primary
	out.ConferenceProperties = &conferenceProperties{AllowedConferenceSolutionTypes: cal.solutionTypes}
	if e.accessRole == "owner" {
		out.NotificationSettings = &notificationSettings{Notifications: []notification{
			{Type: "eventCreation", Method: "email"}, {Type: "eventChange", Method: "email"},
			{Type: "eventCancellation", Method: "email"}, {Type: "eventResponse", Method: "email"},
		}}
	}
	if !cal.primary {
		if o := s.st.users[cal.ownerSub]; o != nil {
			out.DataOwner = o.email
		}
	}
	return out
}

type calendarListJSON struct {
	Kind          string                  `json:"kind"`
	Etag          string                  `json:"etag"`
	NextPageToken string                  `json:"nextPageToken,omitempty"`
	NextSyncToken string                  `json:"nextSyncToken,omitempty"`
	Items         []calendarListEntryJSON `json:"items"`
}

// calendarListList serves GET users/me/calendarList, with paging and the
// sync-token rules of the reference: minAccessRole cannot be combined with
// syncToken, deleted and hidden entries always come back on incremental
// sync, and showDeleted/showHidden may not be false then.
func (s *Server) calendarListList(c *call) (int, any, error) {
	maxResults, err := intParam(c.q, "maxResults", 100, 1, 250)
	if err != nil {
		return 0, nil, err
	}
	showDeleted, err := boolParam(c.q, "showDeleted")
	if err != nil {
		return 0, nil, err
	}
	showHidden, err := boolParam(c.q, "showHidden")
	if err != nil {
		return 0, nil, err
	}
	minRole := c.q.Get("minAccessRole")
	if minRole != "" && roleRank[minRole] == 0 {
		return 0, nil, errInvalidParam("minAccessRole", "Invalid value for minAccessRole: "+minRole)
	}
	collection := "calendarList:" + c.user.sub
	var since *syncCursor
	if tok := c.q.Get("syncToken"); tok != "" {
		if minRole != "" {
			return 0, nil, errSyncTokenRestricted("minAccessRole")
		}
		for _, p := range []string{"showDeleted", "showHidden"} {
			if c.q.Get(p) == "false" {
				return 0, nil, errSyncTokenRestricted(p)
			}
		}
		cur, err := s.lookupSync(tok, collection)
		if err != nil {
			return 0, nil, err
		}
		since = &cur
	}

	compute := func() []string {
		entries := make([]*listEntry, 0, len(c.user.entries))
		for _, e := range c.user.entries {
			cal := s.st.calendar[e.calendarID]
			gone := e.deleted || cal == nil || cal.deleted
			switch {
			case since != nil:
				if e.modSeq <= since.seq {
					continue
				}
			case gone && !showDeleted:
				continue
			case e.hidden && !showHidden:
				continue
			case minRole != "" && roleRank[e.accessRole] < roleRank[minRole]:
				continue
			}
			entries = append(entries, e)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].order < entries[j].order })
		ids := make([]string, len(entries))
		for i, e := range entries {
			ids[i] = e.calendarID
		}
		return ids
	}
	render := func(id string) (any, bool) {
		e := c.user.entries[id]
		if e == nil {
			return nil, false
		}
		return s.renderEntry(c.user, e), true
	}
	pg, err := s.paginate(c, collection, maxResults, true, compute, render)
	if err != nil {
		return 0, nil, err
	}
	out := calendarListJSON{
		Kind: "calendar#calendarList", Etag: etagFor(s.st.seq),
		NextPageToken: pg.nextPage, NextSyncToken: pg.nextSync,
		Items: make([]calendarListEntryJSON, 0, len(pg.items)),
	}
	for _, it := range pg.items {
		out.Items = append(out.Items, it.(calendarListEntryJSON))
	}
	return http.StatusOK, out, nil
}

// calendarListGet serves GET users/me/calendarList/{calendarId}.
func (s *Server) calendarListGet(c *call) (int, any, error) {
	_, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.renderEntry(c.user, e), nil
}

func (s *Server) calendarListPatch(c *call) (int, any, error) {
	return s.calendarListWrite(c, false)
}

func (s *Server) calendarListUpdate(c *call) (int, any, error) {
	return s.calendarListWrite(c, true)
}

// calendarListWrite applies PATCH (merge) or PUT (replace) to the writable
// fields of an entry. backgroundColor/foregroundColor are only written with
// colorRgbFormat=true, as the reference requires.
func (s *Server) calendarListWrite(c *call, replace bool) (int, any, error) {
	_, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	var body map[string]json.RawMessage
	if err := decodeBody(c.body, &body); err != nil {
		return 0, nil, err
	}
	rgb, err := boolParam(c.q, "colorRgbFormat")
	if err != nil {
		return 0, nil, err
	}
	next := *e
	if replace {
		next.summaryOverride, next.hidden, next.selected, next.defaultReminders = "", false, false, nil
	}
	str := func(key string, dst *string) error {
		raw, ok := body[key]
		if !ok {
			return nil
		}
		*dst = ""
		if string(raw) == "null" {
			return nil
		}
		if json.Unmarshal(raw, dst) != nil {
			return errInvalid("Invalid value for " + key + ".")
		}
		return nil
	}
	boolean := func(key string, dst *bool) error {
		raw, ok := body[key]
		if !ok {
			return nil
		}
		*dst = false
		if string(raw) == "null" {
			return nil
		}
		if json.Unmarshal(raw, dst) != nil {
			return errInvalid("Invalid value for " + key + ".")
		}
		return nil
	}
	for _, f := range []error{
		str("summaryOverride", &next.summaryOverride),
		str("colorId", &next.colorID),
		boolean("hidden", &next.hidden),
		boolean("selected", &next.selected),
	} {
		if f != nil {
			return 0, nil, f
		}
	}
	if _, set := body["colorId"]; set && next.colorID != "" {
		// Choosing a palette colour sets the entry's RGB colours too.
		p, ok := calendarColor(next.colorID)
		if !ok {
			return 0, nil, errInvalid("Invalid colorId value.")
		}
		next.bg, next.fg = p.Background, p.Foreground
	}
	if rgb {
		if err := str("backgroundColor", &next.bg); err != nil {
			return 0, nil, err
		}
		if err := str("foregroundColor", &next.fg); err != nil {
			return 0, nil, err
		}
	}
	if raw, ok := body["defaultReminders"]; ok {
		next.defaultReminders = nil
		if string(raw) != "null" && json.Unmarshal(raw, &next.defaultReminders) != nil {
			return 0, nil, errInvalid("Invalid value for defaultReminders.")
		}
	}
	seq := s.nextSeq()
	next.etag, next.modSeq = etagFor(seq), seq
	*e = next
	return http.StatusOK, s.renderEntry(c.user, e), nil
}

// calendarListDelete serves DELETE users/me/calendarList/{calendarId}:
// unsubscribing, which leaves the calendar itself alone.
func (s *Server) calendarListDelete(c *call) (int, any, error) {
	cal, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	if cal.id == c.user.primary {
		// UNVERIFIED: status, reason and message; neither the errors guide
		// nor the calendarList.delete reference says how removing the
		// primary calendar is refused, and searching public issues found no
		// quoted answer.
		return 0, nil, &apiError{status: http.StatusBadRequest, domain: "global", reason: "cannotChangeOwnPrimarySubscription", message: "Cannot remove the primary calendar from the calendar list."}
	}
	seq := s.nextSeq()
	e.deleted, e.etag, e.modSeq = true, etagFor(seq), seq
	return http.StatusNoContent, nil, nil
}

type calendarJSON struct {
	Kind                 string                `json:"kind"`
	Etag                 string                `json:"etag"`
	ID                   string                `json:"id"`
	Summary              string                `json:"summary"`
	Description          string                `json:"description,omitempty"`
	Location             string                `json:"location,omitempty"`
	TimeZone             string                `json:"timeZone,omitempty"`
	ConferenceProperties *conferenceProperties `json:"conferenceProperties,omitempty"`
	DataOwner            string                `json:"dataOwner,omitempty"`
}

func (s *Server) renderCalendar(cal *calendar) calendarJSON {
	out := calendarJSON{
		Kind: "calendar#calendar", Etag: cal.etag, ID: cal.id, Summary: cal.summary,
		Description: cal.description, Location: cal.location, TimeZone: cal.timeZone,
		ConferenceProperties: &conferenceProperties{AllowedConferenceSolutionTypes: cal.solutionTypes},
	}
	if !cal.primary {
		// dataOwner: read-only, set only for secondary calendars.
		if o := s.st.users[cal.ownerSub]; o != nil {
			out.DataOwner = o.email
		}
	}
	return out
}

// calendarBody is the writable part of the Calendar resource.
type calendarBody struct {
	Summary     *string `json:"summary"`
	Description *string `json:"description"`
	Location    *string `json:"location"`
	TimeZone    *string `json:"timeZone"`
}

// newCalendarLocked creates a calendar owned by u and subscribes u to it
// with the owner role.
func (s *Server) newCalendarLocked(u *user, cal *calendar) *calendar {
	seq := s.nextSeq()
	cal.ownerSub = u.sub
	cal.etag = etagFor(seq)
	cal.events = map[string]*storedEvent{}
	cal.resourceID = randomID(27, alnum)
	cal.updated = s.now()
	if cal.timeZone == "" {
		cal.timeZone = u.timeZone
	}
	if cal.solutionTypes == nil {
		cal.solutionTypes = []string{"hangoutsMeet"}
	}
	s.st.calendar[cal.id] = cal
	s.subscribeLocked(u, cal.id, "owner")
	return cal
}

// subscribeLocked adds (or revives) u's calendarList entry for id.
func (s *Server) subscribeLocked(u *user, id, role string) *listEntry {
	seq := s.nextSeq()
	e := u.entries[id]
	if e == nil {
		e = &listEntry{calendarID: id, order: seq, colorID: "14", bg: "#9fe1e7", fg: "#000000", selected: true}
		u.entries[id] = e
	}
	e.accessRole, e.deleted = role, false
	e.etag, e.modSeq = etagFor(seq), seq
	if role == "owner" && e.defaultReminders == nil {
		e.defaultReminders = []EventReminder{{Method: "popup", Minutes: 10}}
	}
	return e
}

// calendarsInsert serves POST calendars: create a secondary calendar.
func (s *Server) calendarsInsert(c *call) (int, any, error) {
	var b calendarBody
	if err := decodeBody(c.body, &b); err != nil {
		return 0, nil, err
	}
	if b.Summary == nil || *b.Summary == "" {
		return 0, nil, errRequired("Missing title.")
	}
	cal := &calendar{id: "c_" + randomID(26, base32hex) + "@group.calendar.google.com", summary: *b.Summary}
	if b.Description != nil {
		cal.description = *b.Description
	}
	if b.Location != nil {
		cal.location = *b.Location
	}
	if b.TimeZone != nil && *b.TimeZone != "" {
		if _, ok := loadZone(*b.TimeZone); !ok {
			return 0, nil, errInvalid("Invalid time zone definition.")
		}
		cal.timeZone = *b.TimeZone
	}
	s.newCalendarLocked(c.user, cal)
	return http.StatusOK, s.renderCalendar(cal), nil
}

// calendarsGet serves GET calendars/{calendarId}.
func (s *Server) calendarsGet(c *call) (int, any, error) {
	cal, _, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.renderCalendar(cal), nil
}

func (s *Server) calendarsPatch(c *call) (int, any, error) { return s.calendarsWrite(c, false) }

func (s *Server) calendarsUpdate(c *call) (int, any, error) { return s.calendarsWrite(c, true) }

// calendarsWrite applies PATCH or PUT to calendar metadata. Only owners may
// change it. Per the calendarList.list reference, changes to these
// read-only-in-the-list fields do not surface the entry in calendarList
// incremental sync, so no entry is touched here.
func (s *Server) calendarsWrite(c *call, replace bool) (int, any, error) {
	cal, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	if e.accessRole != "owner" {
		return 0, nil, errForbidden("Forbidden")
	}
	var b calendarBody
	if err := decodeBody(c.body, &b); err != nil {
		return 0, nil, err
	}
	if replace && (b.Summary == nil || *b.Summary == "") {
		return 0, nil, errRequired("Missing title.")
	}
	if b.TimeZone != nil && *b.TimeZone != "" {
		if _, ok := loadZone(*b.TimeZone); !ok {
			return 0, nil, errInvalid("Invalid time zone definition.")
		}
	}
	set := func(dst *string, v *string) {
		switch {
		case v != nil:
			*dst = *v
		case replace:
			*dst = ""
		}
	}
	set(&cal.summary, b.Summary)
	set(&cal.description, b.Description)
	set(&cal.location, b.Location)
	if b.TimeZone != nil && *b.TimeZone != "" {
		cal.timeZone = *b.TimeZone
	}
	cal.etag = etagFor(s.nextSeq())
	return http.StatusOK, s.renderCalendar(cal), nil
}

// calendarsDelete serves DELETE calendars/{calendarId}. Only secondary
// calendars can be deleted; the primary one is refused with 403
// cannotDeletePrimaryCalendar. UNVERIFIED: the reference says only that
// calendars.delete "Deletes a secondary calendar" (use calendars.clear for
// the primary); status, reason and message are not documented and no
// quoted answer was found in public issues.
func (s *Server) calendarsDelete(c *call) (int, any, error) {
	cal, e, err := s.resolveCalendar(c, c.r.PathValue("calendarId"))
	if err != nil {
		return 0, nil, err
	}
	if cal.primary {
		return 0, nil, &apiError{status: http.StatusForbidden, domain: "global", reason: "cannotDeletePrimaryCalendar", message: "Cannot delete primary calendar."}
	}
	if e.accessRole != "owner" {
		return 0, nil, errForbidden("Forbidden")
	}
	s.deleteCalendarLocked(cal)
	return http.StatusNoContent, nil, nil
}

// deleteCalendarLocked removes a calendar from every calendar list and
// tells its push channels the collection no longer exists.
func (s *Server) deleteCalendarLocked(cal *calendar) {
	cal.deleted = true
	for _, u := range s.st.users {
		if e := u.entries[cal.id]; e != nil && !e.deleted {
			seq := s.nextSeq()
			e.deleted, e.etag, e.modSeq = true, etagFor(seq), seq
		}
	}
	s.notifyLocked(cal.id, "not_exists")
}
