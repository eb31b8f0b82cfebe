package caldav

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
)

// scheduleToken is the DAV header token of a server that does RFC 6638
// scheduling (§2). Xandikos announces "calendar-auto-scheduling", which
// is not it, and does no scheduling.
const scheduleToken = "calendar-auto-schedule"

// paramScheduleAgent is RFC 6638 §7.1's parameter: CLIENT tells the
// server to send no scheduling message for that calendar user.
const paramScheduleAgent = "SCHEDULE-AGENT"

// maxSchedulingEntries bounds schedulingCache; past it the cache starts
// over, which costs one OPTIONS per account.
const maxSchedulingEntries = 10000

// schedulingCache remembers, per account and calendar home, whether the
// server announced scheduling, so that notifyAttendees=true costs one
// OPTIONS per account rather than one per write.
type schedulingCache struct {
	mu sync.Mutex
	m  map[string]bool
}

// schedules reports whether the server holding calURL does RFC 6638
// scheduling: whether the DAV header of OPTIONS on the calendar lists
// calendar-auto-schedule.
func (p *Provider) schedules(ctx context.Context, c *conn, s *unical.Session, calURL *url.URL) (bool, error) {
	key := strings.Join([]string{s.ApplicationID, s.AccountID, s.Email, calURL.JoinPath("..").String()}, "\x00")
	p.scheduling.mu.Lock()
	known, ok := p.scheduling.m[key]
	p.scheduling.mu.Unlock()
	if ok {
		return known, nil
	}
	r, err := c.do(ctx, http.MethodOptions, calURL, nil, "")
	if err != nil {
		return false, err
	}
	if r.StatusCode == http.StatusNotFound {
		return false, unical.Errorf(unical.CodeNotFound, "Calendar not found.")
	}
	if err := c.classify(r, "ask for scheduling"); err != nil {
		return false, err
	}
	found := false
	for _, line := range r.Header.Values("DAV") {
		for _, tok := range strings.Split(line, ",") {
			found = found || strings.TrimSpace(tok) == scheduleToken
		}
	}
	p.scheduling.mu.Lock()
	if p.scheduling.m == nil || len(p.scheduling.m) >= maxSchedulingEntries {
		p.scheduling.m = map[string]bool{}
	}
	p.scheduling.m[key] = found
	p.scheduling.mu.Unlock()
	return found, nil
}

// Schedules reports whether the server holding the calendar does RFC
// 6638 scheduling itself (calendar-auto-schedule in its DAV header), so
// that it sends the invitations of writes made with notifyAttendees=true.
// Package invite mails them for servers that do not.
func (p *Provider) Schedules(ctx context.Context, s *unical.Session, calendarID string) (bool, error) {
	calURL, err := calendarURL(s, calendarID)
	if err != nil {
		return false, err
	}
	return p.schedules(ctx, p.conn(s), s, calURL)
}

// checkNotify refuses notifyAttendees=true of s, before anything is
// written, when the server does no scheduling: nobody could send the
// invitations.
func (p *Provider) checkNotify(ctx context.Context, c *conn, s *unical.Session, calURL *url.URL) error {
	if s.NotifyAttendees == nil || !*s.NotifyAttendees {
		return nil
	}
	ok, err := p.schedules(ctx, c, s, calURL)
	if err != nil {
		return err
	}
	if !ok {
		return unical.FieldError(unical.NotifyAttendeesParameter,
			"%s accounts cannot honour %s=true on this server: it does no scheduling (its DAV header lacks %s, RFC 6638 §2), so nobody would send the invitations.",
			ProviderType, unical.NotifyAttendeesParameter, scheduleToken)
	}
	return nil
}

// markScheduleAgent writes the notifyAttendees choice notify, if any,
// into every VEVENT of cal as SCHEDULE-AGENT on each ATTENDEE and on the
// ORGANIZER (RFC 6638 §7.1): CLIENT for false, so that the server sends
// no invitation, update, cancellation or reply; for true the parameter is
// removed, which is SERVER. It reports whether cal has attendees.
func markScheduleAgent(notify *bool, cal *ical.Calendar) bool {
	attendees := false
	for _, comp := range cal.Children {
		if comp.Name != ical.CompEvent {
			continue
		}
		for _, name := range []string{ical.PropAttendee, ical.PropOrganizer} {
			props := comp.Props.Values(name)
			attendees = attendees || name == ical.PropAttendee && len(props) > 0
			if notify == nil {
				continue
			}
			for i := range props {
				if props[i].Params == nil {
					props[i].Params = ical.Params{}
				}
				if *notify {
					props[i].Params.Del(paramScheduleAgent)
				} else {
					props[i].Params.Set(paramScheduleAgent, "CLIENT")
				}
			}
		}
	}
	return attendees
}
