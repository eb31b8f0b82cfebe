package microsoft

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/recur"
)

var _ unical.FreeBusyQuerier = (*Provider)(nil)

// Free/busy limits. "The time period to look up must be less than 62
// days" (microsoft-graph-docs-contrib concepts/outlook-get-free-busy-schedule.md,
// ms.date 11/07/2024, "Limits and error conditions"), so longer windows are
// asked in parts of 61 days; the calendar view is read at most
// maxFreeBusyPages pages per calendar. One address is asked per request,
// well under the documented 20.
const (
	scheduleWindow   = 61 * 24 * time.Hour
	scheduleInterval = 1440 // availabilityViewInterval, minutes; unused by unical, so the shortest view
	maxFreeBusyPages = 100
)

// QueryFreeBusy returns the busy intervals of each calendar in
// [q.Start, q.End). The account's default calendar is asked through
// getSchedule (POST /me/calendar/getSchedule, which reads the mailbox's
// default calendar), in windows of at most 61 days, with the window and
// the answer in the requested zone (Prefer: outlook.timezone). Every other
// calendar, and the default one where getSchedule cannot answer (personal
// Microsoft accounts, a mailbox without an address), is read from its
// calendar view: events that are not cancelled, not shown as free and not
// declined block time, all-day events their whole days in the requested
// zone. Items Graph shows as free do not block time either way.
func (p *Provider) QueryFreeBusy(ctx context.Context, s *unical.Session, q *unical.FreeBusyQuery) (map[string][]unical.Interval, error) {
	c := p.client(s)
	loc := time.UTC
	if q.TimeZone != "" {
		l, err := unical.LoadLocation(q.TimeZone)
		if err != nil {
			return nil, unical.FieldError("timeZone", "%q is not an IANA time zone name.", q.TimeZone)
		}
		loc = l
	}
	// The zone getSchedule reads the window in and answers in; a zone
	// Graph does not know is asked in UTC, which names the same instants.
	zone, err := graphZoneName(loc.String(), "timeZone")
	if err != nil {
		zone, loc = "UTC", time.UTC
	}

	out := make(map[string][]unical.Interval, len(q.CalendarIDs))
	defaultID := ""
	if s.Email != "" {
		var def calendar
		if err := c.do(ctx, request{method: "GET", target: "/me/calendar"}, &def); err != nil {
			return nil, err
		}
		defaultID = def.ID
	}
	for _, id := range q.CalendarIDs {
		if _, done := out[id]; done {
			continue
		}
		if id == defaultID {
			busy, ok, err := c.schedule(ctx, s.Email, q.Start, q.End, zone, loc)
			if err != nil {
				return nil, err
			}
			if ok {
				out[id] = busy
				continue
			}
		}
		busy, err := c.viewBusy(ctx, id, q.Start, q.End, loc)
		if err != nil {
			return nil, err
		}
		out[id] = busy
	}
	return out, nil
}

// schedule asks getSchedule for address's busy time. ok is false when
// Graph cannot answer for the mailbox, so the caller reads the calendar
// view instead.
func (c *client) schedule(ctx context.Context, address string, from, to time.Time, zone string, loc *time.Location) (busy []unical.Interval, ok bool, err error) {
	busy = []unical.Interval{}
	for start := from; start.Before(to); start = start.Add(scheduleWindow) {
		end := start.Add(scheduleWindow)
		if end.After(to) {
			end = to
		}
		var resp collection[scheduleInformation]
		err := c.do(ctx, request{
			method: "POST", target: "/me/calendar/getSchedule",
			header: map[string]string{"Prefer": `outlook.timezone="` + zone + `"`},
			body: map[string]any{
				"schedules":                []string{address},
				"startTime":                dateTimeTimeZone{DateTime: formatGraphDateTime(start.In(loc)), TimeZone: zone},
				"endTime":                  dateTimeTimeZone{DateTime: formatGraphDateTime(end.In(loc)), TimeZone: zone},
				"availabilityViewInterval": scheduleInterval,
			},
		}, &resp)
		switch unical.ErrorCode(err) {
		case "":
		case unical.CodeInvalid, unical.CodeNotFound, unical.CodeNotImplemented, unical.CodeUpstream:
			// Personal accounts and some mailboxes cannot use getSchedule;
			// how Graph refuses them is not documented, so any refusal
			// that is not about the account, throttling or availability
			// falls back to the calendar view.
			return nil, false, nil
		default:
			return nil, false, err
		}
		if len(resp.Value) != 1 || resp.Value[0].Error != nil {
			return nil, false, nil
		}
		for _, it := range resp.Value[0].ScheduleItems {
			if strings.EqualFold(it.Status, "free") {
				continue
			}
			s, err1 := parseGraphDateTime(&it.Start)
			e, err2 := parseGraphDateTime(&it.End)
			if err1 != nil || err2 != nil {
				return nil, false, unical.Errorf(unical.CodeUpstream, "Microsoft Graph returned a schedule item unical cannot read.")
			}
			busy = append(busy, unical.Interval{Start: s, End: e})
		}
	}
	return busy, true, nil
}

// viewBusy computes a calendar's busy time from its calendar view.
func (c *client) viewBusy(ctx context.Context, calendarID string, from, to time.Time, loc *time.Location) ([]unical.Interval, error) {
	busy := []unical.Interval{}
	req := request{
		method: "GET", target: calendarPath(calendarID) + "/calendarView",
		query:  url.Values{"startDateTime": {graphTime(from)}, "endDateTime": {graphTime(to)}},
		header: map[string]string{"Prefer": "odata.maxpagesize=" + strconv.Itoa(1000)},
	}
	for range maxFreeBusyPages {
		var page collection[event]
		if err := c.do(ctx, req, &page); err != nil {
			return nil, err
		}
		for i := range page.Value {
			e, err := eventFromGraph(&page.Value[i], readOptions{SelfEmail: c.s.Email})
			if err != nil {
				return nil, err
			}
			if e.IsCancelled || e.Transparency == unical.TransparencyTransparent || e.MyResponseStatus == unical.ResponseDeclined {
				continue
			}
			start, end, err := e.Interval()
			if err != nil {
				continue
			}
			if e.IsAllDay {
				// All-day events name dates: they block those days in the
				// requested zone, as unical's computed free/busy does.
				start = recur.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, loc)
				end = recur.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, loc)
			}
			busy = append(busy, unical.Interval{Start: start, End: end})
		}
		if page.NextLink == "" {
			return busy, nil
		}
		req = request{method: "GET", target: page.NextLink, header: req.header}
	}
	return nil, unical.Errorf(unical.CodeUnavailable, "The calendar has too many events in this window to compute free/busy; ask for a shorter window.")
}
