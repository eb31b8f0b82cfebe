package graphtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// getSchedule follows "calendar: getSchedule",
// https://learn.microsoft.com/graph/api/calendar-getschedule, and
// scheduleInformation: one entry per address with scheduleItems, an
// availabilityView digit per availabilityViewInterval minutes (0 free,
// 1 tentative, 2 busy, 3 out of office, 4 working elsewhere) and
// workingHours; times in the Prefer: outlook.timezone zone, else UTC.
// Free/busy comes from each user's default calendar. The reference's
// example ("200220010" for an item that starts before the window) matches
// the busiest-item-per-slot rule below.
//
// Limits, from "Get free/busy schedule of Outlook calendar users and
// resources" (concepts/outlook-get-free-busy-schedule.md, ms.date
// 11/07/2024, "Limits and error conditions"): "up to 20 entities at once"
// and "The time period to look up must be less than 62 days". The error
// codes are the ones users report from Graph: ErrorTimeIntervalTooBig
// ("The allowed limit = 62 days", microsoftgraph/microsoft-graph-docs PR
// 19703) and ErrorMailboxDataArrayTooBig (issue 7047, which saw Graph
// accept up to 100 addresses; the fake holds clients to the documented 20).
// Both answer 400 here; the status is not documented.
const (
	maxScheduleWindow  = 62 * 24 * time.Hour
	maxScheduleEntries = 20
)

func (c *call) getSchedule() {
	var req struct {
		Schedules                []string          `json:"schedules"`
		StartTime                *dateTimeTimeZone `json:"startTime"`
		EndTime                  *dateTimeTimeZone `json:"endTime"`
		AvailabilityViewInterval *int              `json:"availabilityViewInterval"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(c.w, c.r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		c.fail(http.StatusBadRequest, "RequestBodyRead", "Cannot read the request body: %v", err)
		return
	}
	if len(req.Schedules) == 0 || req.StartTime == nil || req.EndTime == nil {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "schedules, startTime and endTime are required.")
		return
	}
	interval := 30
	if req.AvailabilityViewInterval != nil {
		interval = *req.AvailabilityViewInterval
	}
	if interval < 5 || interval > 1440 {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "availabilityViewInterval must be between 5 and 1440 minutes.")
		return
	}
	from, _, err := parseDTTZ(*req.StartTime)
	if err != nil {
		c.fail(http.StatusBadRequest, "TimeZoneNotSupportedException", "%v", err)
		return
	}
	to, _, err := parseDTTZ(*req.EndTime)
	if err != nil {
		c.fail(http.StatusBadRequest, "TimeZoneNotSupportedException", "%v", err)
		return
	}
	if !to.After(from) {
		c.fail(http.StatusBadRequest, "ErrorInvalidParameter", "endTime must be later than startTime.")
		return
	}
	if to.Sub(from) >= maxScheduleWindow {
		c.fail(http.StatusBadRequest, "ErrorTimeIntervalTooBig", "The requested time duration specified for FreeBusyViewOptions.TimeWindow is too long; it must be less than 62 days (graphtest).")
		return
	}
	if len(req.Schedules) > maxScheduleEntries {
		c.fail(http.StatusBadRequest, "ErrorMailboxDataArrayTooBig", "There are too many target users in the schedules array; graphtest allows %d, the request has %d.", maxScheduleEntries, len(req.Schedules))
		return
	}
	values := make([]any, 0, len(req.Schedules))
	for _, addr := range req.Schedules {
		values = append(values, c.scheduleFor(addr, from, to, time.Duration(interval)*time.Minute))
	}
	c.reply(http.StatusOK, map[string]any{
		"@odata.context": c.context("Collection(microsoft.graph.scheduleInformation)"),
		"value":          values,
	})
}

var availability = map[string]byte{"free": '0', "tentative": '1', "busy": '2', "oof": '3', "workingElsewhere": '4', "unknown": '0'}

// rank orders availability digits by how busy they are, so that a slot
// shows the busiest overlapping item.
var rank = map[byte]int{'0': 0, '1': 1, '4': 2, '2': 3, '3': 4}

func (c *call) scheduleFor(addr string, from, to time.Time, interval time.Duration) map[string]any {
	var u *user
	for _, id := range c.s.userOrder {
		cand := c.s.users[id]
		if strings.EqualFold(cand.Mail, addr) || strings.EqualFold(cand.UserPrincipalName, addr) {
			u = cand
		}
	}
	if u == nil {
		// "If getSchedule cannot identify a specified user or resource, it
		// returns a single schedule item and indicates the error"
		// (outlook-get-free-busy-schedule.md): one scheduleInformation with
		// error (freeBusyError: message, responseCode). UNVERIFIED: the
		// responseCode value; no page found names it.
		return map[string]any{
			"scheduleId": addr, "availabilityView": "", "scheduleItems": []any{},
			"error": map[string]any{"message": "The specified user could not be found.", "responseCode": "ErrorMailRecipientNotFound"},
		}
	}
	var items []any
	slots := int((to.Sub(from) + interval - 1) / interval)
	view := []byte(strings.Repeat("0", slots))
	for _, in := range u.view(u.defaultCalendar(), from, to) {
		ev := in.ev
		if ev.isCancelled || ev.showAs == "free" {
			continue
		}
		item := map[string]any{
			"isPrivate": ev.sensitivity == "private",
			"status":    ev.showAs,
			"start":     c.renderTime(in.start, ev.isAllDay, ev.startZone),
			"end":       c.renderTime(in.end, ev.isAllDay, ev.endZone),
		}
		if ev.sensitivity != "private" {
			item["subject"] = ev.subject
			var loc struct {
				DisplayName string `json:"displayName"`
			}
			_ = json.Unmarshal(ev.location, &loc)
			item["location"] = loc.DisplayName
		}
		items = append(items, item)
		d := availability[ev.showAs]
		for i := range view {
			s := from.Add(time.Duration(i) * interval)
			e := s.Add(interval)
			if in.start.Before(e) && in.end.After(s) && rank[d] > rank[view[i]] {
				view[i] = d
			}
		}
	}
	return map[string]any{
		"scheduleId":       addr,
		"availabilityView": string(view),
		"scheduleItems":    nonNil(items),
		"workingHours": map[string]any{
			"daysOfWeek": []string{"monday", "tuesday", "wednesday", "thursday", "friday"},
			"startTime":  "08:00:00.0000000",
			"endTime":    "17:00:00.0000000",
			"timeZone":   map[string]any{"name": u.TimeZone},
		},
	}
}
