package graphtest

import (
	"net/http"
	"strings"
	"time"
)

// calendarView follows "List calendarView",
// https://learn.microsoft.com/graph/api/calendar-list-calendarview: both
// startDateTime and endDateTime are required; an offset in a value is
// honoured and a value without one is UTC; Prefer: outlook.timezone changes
// only the zone of start and end in the response; $top is 1..1000.

// window parses the startDateTime and endDateTime query parameters (names
// are case-insensitive, as in the documented examples).
func (c *call) window() (from, to time.Time, ok bool) {
	var start, end string
	for k, v := range c.r.URL.Query() {
		switch strings.ToLower(k) {
		case "startdatetime":
			start = v[0]
		case "enddatetime":
			end = v[0]
		}
	}
	if start == "" || end == "" {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.")
		return time.Time{}, time.Time{}, false
	}
	var err error
	if from, err = parseLocal(start, time.UTC); err != nil {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "The value '%s' of parameter 'StartDateTime' is invalid.", start)
		return time.Time{}, time.Time{}, false
	}
	if to, err = parseLocal(end, time.UTC); err != nil {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "The value '%s' of parameter 'EndDateTime' is invalid.", end)
		return time.Time{}, time.Time{}, false
	}
	if !to.After(from) {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "The parameter 'EndDateTime' must be later than 'StartDateTime'.")
		return time.Time{}, time.Time{}, false
	}
	return from, to, true
}

// calendarView handles GET /me/calendarView, /me/calendar/calendarView and
// /me/calendars/{cid}/calendarView: occurrences, exceptions and single
// instances in the window, paged with @odata.nextLink ($skip).
func (c *call) calendarView() {
	cal, ok := c.pathCalendar()
	if !ok || !c.checkQuery("$top", "$skip", "$select", "$filter", "$expand", "$orderby") || !c.checkExpand() {
		return
	}
	if cal == nil && !strings.Contains(c.r.URL.Path, "/calendars/") {
		cal = c.user.defaultCalendar() // /me/calendarView is the default calendar.
	}
	from, to, ok := c.window()
	if !ok {
		return
	}
	keep, ok := c.eventFilter()
	if !ok {
		return
	}
	var list []instance
	for _, in := range c.user.view(cal, from, to) {
		if keep(in.ev) {
			list = append(list, in)
		}
	}
	lo, hi, next, ok := c.page(len(list))
	if !ok {
		return
	}
	items := make([]any, 0, hi-lo)
	for _, in := range list[lo:hi] {
		items = append(items, c.eventJSON(in))
	}
	c.collection("users('"+c.user.ID+"')/calendarView", items, next)
}

// listInstances handles GET .../events/{eid}/instances: the occurrences and
// exceptions of one series in the window.
func (c *call) listInstances() {
	if !c.checkQuery("$top", "$skip", "$select", "$expand", "$orderby") || !c.checkExpand() {
		return
	}
	in, _, ok := c.lookup()
	if !ok {
		return
	}
	from, to, ok := c.window()
	if !ok {
		return
	}
	if in.typ != "seriesMaster" {
		c.fail(http.StatusBadRequest, "ErrorInvalidRequest", "The instances of an event can be listed only for a series master.")
		return
	}
	list := c.user.instancesIn(in.ev, from, to)
	lo, hi, next, ok := c.page(len(list))
	if !ok {
		return
	}
	items := make([]any, 0, hi-lo)
	for _, x := range list[lo:hi] {
		items = append(items, c.eventJSON(x))
	}
	c.collection("users('"+c.user.ID+"')/events('"+in.id+"')/instances", items, next)
}
