package graphtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Calendars follow https://learn.microsoft.com/graph/api/resources/calendar
// (microsoft-graph-docs-contrib api-reference/v1.0/resources/calendar.md).
//
// Colours, from the Properties table of that page:
//   - color is a calendarColor and writable: "auto, lightBlue, lightGreen,
//     lightOrange, lightGray, lightYellow, lightTeal, lightPink,
//     lightBrown, lightRed, maxColor" (calendarColors below); another value
//     is refused.
//   - hexColor is "The calendar color, expressed in a hex color code ...
//     If the user has never explicitly set a color for the calendar, this
//     property is empty. Read-only." A create or PATCH body naming it is
//     refused like any read-only property, and the fake never derives it
//     from color: the documentation gives no mapping, so it stays what
//     AddCalendar seeded (as if the user had picked it in Outlook).

// Calendar describes a calendar that AddCalendar seeds.
type Calendar struct {
	// Name is the display name. Required.
	Name string
	// Color is one of auto, lightBlue, lightGreen, ... Default "auto".
	Color string
	// HexColor is "#RRGGBB" or empty.
	HexColor string
	// ReadOnly sets canEdit to false: writes to its events answer 403.
	ReadOnly bool
	// OwnerName and OwnerAddress default to the user's.
	OwnerName, OwnerAddress string
}

var calendarColors = []string{"auto", "lightBlue", "lightGreen", "lightOrange", "lightGray", "lightYellow", "lightTeal", "lightPink", "lightBrown", "lightRed", "maxColor"}

type user struct {
	User
	calendars []*calendar
	events    map[string]*event // singles, series masters and exceptions
	removed   []tombstone       // deleted events, for delta
}

type calendar struct {
	id, name, color, hexColor, changeKey string
	isDefault, canEdit                   bool
	ownerName, ownerAddress              string
	allowedProviders                     []string
	defaultProvider                      string
}

func (s *Server) newCalendar(u *user, name string, isDefault bool) *calendar {
	return &calendar{
		id: newID("AAMkAGI2", 30), name: name, color: "auto", changeKey: newChangeKey(),
		isDefault: isDefault, canEdit: true,
		ownerName: u.DisplayName, ownerAddress: u.Mail,
		allowedProviders: []string{"teamsForBusiness"}, defaultProvider: "teamsForBusiness",
	}
}

func newChangeKey() string { return newID("", 12) }

// AddCalendar seeds a calendar for userID and returns its ID.
func (s *Server) AddCalendar(userID string, cal Calendar) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[userID]
	if !ok {
		return "", errUnknownUser(userID)
	}
	c := s.newCalendar(u, cal.Name, false)
	if cal.Color != "" {
		c.color = cal.Color
	}
	c.hexColor = cal.HexColor
	c.canEdit = !cal.ReadOnly
	if cal.OwnerName != "" {
		c.ownerName = cal.OwnerName
	}
	if cal.OwnerAddress != "" {
		c.ownerAddress = cal.OwnerAddress
	}
	u.calendars = append(u.calendars, c)
	return c.id, nil
}

// DefaultCalendarID returns the ID of userID's default calendar.
func (s *Server) DefaultCalendarID(userID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.users[userID]; ok {
		return u.calendars[0].id
	}
	return ""
}

func (u *user) calendar(id string) *calendar {
	for _, c := range u.calendars {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (u *user) defaultCalendar() *calendar { return u.calendars[0] }

// pathCalendar returns the calendar a path names: {cid}, /me/calendar (the
// default) or nil for /me/events (any calendar). It writes 404 and returns
// ok=false for an unknown {cid}.
func (c *call) pathCalendar() (cal *calendar, ok bool) {
	if cid := c.r.PathValue("cid"); cid != "" {
		cal = c.user.calendar(cid)
		if cal == nil {
			c.fail(http.StatusNotFound, "ErrorItemNotFound", "The specified object was not found in the store.")
			return nil, false
		}
		return cal, true
	}
	if strings.HasPrefix(c.r.URL.Path, "/v1.0/me/calendar/") || c.r.URL.Path == "/v1.0/me/calendar" {
		return c.user.defaultCalendar(), true
	}
	return nil, true
}

func (c *call) calendarJSON(cal *calendar) map[string]any {
	return map[string]any{
		"@odata.etag":                   quoteETag(cal.changeKey),
		"id":                            cal.id,
		"name":                          cal.name,
		"color":                         cal.color,
		"hexColor":                      cal.hexColor,
		"isDefaultCalendar":             cal.isDefault,
		"changeKey":                     cal.changeKey,
		"canShare":                      cal.canEdit,
		"canViewPrivateItems":           true,
		"canEdit":                       cal.canEdit,
		"isRemovable":                   !cal.isDefault,
		"isTallyingResponses":           true,
		"allowedOnlineMeetingProviders": slices.Clone(cal.allowedProviders),
		"defaultOnlineMeetingProvider":  cal.defaultProvider,
		"owner":                         map[string]any{"name": cal.ownerName, "address": cal.ownerAddress},
	}
}

// listCalendars handles GET /me/calendars, paged with $top/$skip and
// @odata.nextLink.
func (c *call) listCalendars() {
	if !c.checkQuery("$top", "$skip", "$select") {
		return
	}
	lo, hi, next, ok := c.page(len(c.user.calendars))
	if !ok {
		return
	}
	items := make([]any, 0, hi-lo)
	for _, cal := range c.user.calendars[lo:hi] {
		items = append(items, c.selected(c.calendarJSON(cal)))
	}
	c.collection("users('"+c.user.ID+"')/calendars", items, next)
}

// getCalendar handles GET /me/calendar and GET /me/calendars/{cid}.
func (c *call) getCalendar() {
	cal, ok := c.pathCalendar()
	if !ok {
		return
	}
	m := c.selected(c.calendarJSON(cal))
	m["@odata.context"] = c.context("users('" + c.user.ID + "')/calendars/$entity")
	c.reply(http.StatusOK, m)
}

// createCalendar handles POST /me/calendars: 201 with the calendar; 409
// ErrorFolderExists for a name already in use.
func (c *call) createCalendar() {
	body, ok := c.decodeBody()
	if !ok {
		return
	}
	cal := c.s.newCalendar(c.user, "", false)
	if !c.applyCalendar(cal, body) {
		return
	}
	if cal.name == "" {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "The calendar name is required.")
		return
	}
	if c.nameTaken(cal.name, "") {
		c.fail(http.StatusConflict, "ErrorFolderExists", "A folder with the specified name already exists.")
		return
	}
	c.user.calendars = append(c.user.calendars, cal)
	m := c.calendarJSON(cal)
	m["@odata.context"] = c.context("users('" + c.user.ID + "')/calendars/$entity")
	c.reply(http.StatusCreated, m)
}

func (c *call) nameTaken(name, exceptID string) bool {
	for _, other := range c.user.calendars {
		if other.id != exceptID && strings.EqualFold(other.name, name) {
			return true
		}
	}
	return false
}

// applyCalendar sets name and color from a request body. Read-only
// properties are refused.
func (c *call) applyCalendar(cal *calendar, body map[string]json.RawMessage) bool {
	for k, raw := range body {
		switch k {
		case "name":
			if err := json.Unmarshal(raw, &cal.name); err != nil {
				c.fail(http.StatusBadRequest, "RequestBodyRead", "Invalid value for 'name': %v", err)
				return false
			}
		case "color":
			var color string
			if err := json.Unmarshal(raw, &color); err != nil || !slices.Contains(calendarColors, color) {
				c.fail(http.StatusBadRequest, "RequestBodyRead", "Invalid value for 'color': %s", raw)
				return false
			}
			cal.color = color
		case "@odata.type", "@odata.etag":
		default:
			c.fail(http.StatusBadRequest, "RequestBodyRead", "The property '%s' does not exist or is read-only on type 'microsoft.graph.calendar'.", k)
			return false
		}
	}
	return true
}

// updateCalendar handles PATCH /me/calendar and /me/calendars/{cid}.
func (c *call) updateCalendar() {
	cal, ok := c.pathCalendar()
	if !ok {
		return
	}
	body, ok := c.decodeBody()
	if !ok {
		return
	}
	updated := *cal
	if !c.applyCalendar(&updated, body) {
		return
	}
	if updated.name == "" || c.nameTaken(updated.name, cal.id) {
		c.fail(http.StatusConflict, "ErrorFolderExists", "A folder with the specified name already exists.")
		return
	}
	updated.changeKey = newChangeKey()
	*cal = updated
	m := c.calendarJSON(cal)
	m["@odata.context"] = c.context("users('" + c.user.ID + "')/calendars/$entity")
	c.reply(http.StatusOK, m)
}

// deleteCalendar handles DELETE /me/calendars/{cid}: 204. The default
// calendar (isRemovable false) cannot be deleted. UNVERIFIED: the status
// and error code of that refusal; resources/calendar.md only describes
// isRemovable, and no page or issue found names the answer.
func (c *call) deleteCalendar() {
	cal, ok := c.pathCalendar()
	if !ok {
		return
	}
	if cal.isDefault {
		c.fail(http.StatusBadRequest, "ErrorCannotDeleteObject", "The default calendar cannot be deleted.")
		return
	}
	for id, ev := range c.user.events {
		if ev.calendarID == cal.id {
			c.removeEvent(ev)
			delete(c.user.events, id)
		}
	}
	c.user.calendars = slices.DeleteFunc(c.user.calendars, func(x *calendar) bool { return x == cal })
	c.noContent(http.StatusNoContent)
}

// selected applies $select to an entity: only the listed properties, plus
// id and @odata.etag, remain.
func (c *call) selected(m map[string]any) map[string]any {
	sel := c.r.URL.Query().Get("$select")
	if sel == "" {
		return m
	}
	keep := map[string]bool{"id": true, "@odata.etag": true, "@odata.type": true}
	for _, p := range strings.Split(sel, ",") {
		keep[strings.TrimSpace(p)] = true
	}
	for k := range m {
		if !keep[k] {
			delete(m, k)
		}
	}
	return m
}
