package caldav

import (
	"context"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/icalmap"
)

const propfindCalendars = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">` +
	`<D:prop><D:resourcetype/><D:displayname/><I:calendar-color/><C:calendar-timezone/>` +
	`<C:supported-calendar-component-set/><D:current-user-privilege-set/></D:prop></D:propfind>`

// ListCalendars lists the calendar collections in the account's calendar
// home that can hold events (PROPFIND Depth 1), sorted by id. A
// calendar's id is its path segment under the home.
func (p *Provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	home, err := homeURL(s)
	if err != nil {
		return nil, err
	}
	c := p.conn(s)
	r, ms, err := c.propfind(ctx, home, "1", propfindCalendars, "list calendars")
	if err != nil {
		return nil, err
	}
	cals := []*unical.Calendar{}
	for i := range ms.Responses {
		resp := &ms.Responses[i]
		u, err := r.URL.Parse(resp.Href)
		if err != nil {
			continue
		}
		id, ok := calendarID(home, u)
		if !ok {
			continue // the home itself, or something outside it
		}
		if cal, ok := toCalendar(id, resp, s.Email); ok {
			cals = append(cals, cal)
		}
	}
	sort.Slice(cals, func(i, j int) bool { return cals[i].ID < cals[j].ID })
	return cals, nil
}

// GetCalendar returns one calendar collection of the account's home; a
// collection that does not exist or cannot hold events is CodeNotFound.
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	u, err := calendarURL(s, calendarID)
	if err != nil {
		return nil, err
	}
	c := p.conn(s)
	_, ms, err := c.propfind(ctx, u, "0", propfindCalendars, "get calendar")
	if err != nil {
		return nil, err
	}
	for i := range ms.Responses {
		if cal, ok := toCalendar(calendarID, &ms.Responses[i], s.Email); ok {
			return cal, nil
		}
	}
	return nil, unical.Errorf(unical.CodeNotFound, "Calendar %q not found.", calendarID)
}

// calendarURL returns the collection URL of a calendar id: the home URL
// plus the id as one path segment. Ids that are not one segment are
// CodeNotFound, so that no id can reach outside the home.
func calendarURL(s *unical.Session, calendarID string) (*url.URL, error) {
	if calendarID == "" || calendarID == "." || calendarID == ".." || strings.ContainsAny(calendarID, "/\\") {
		return nil, unical.Errorf(unical.CodeNotFound, "Calendar %q not found.", calendarID)
	}
	home, err := homeURL(s)
	if err != nil {
		return nil, err
	}
	return home.JoinPath(calendarID + "/"), nil
}

// calendarID returns the id of the collection at u: its path segment
// directly under home. It reports false for the home itself and anything
// that is not a direct child of it.
func calendarID(home, u *url.URL) (string, bool) {
	if u.Host != "" && !strings.EqualFold(u.Host, home.Host) {
		return "", false
	}
	hp := strings.TrimSuffix(home.Path, "/") + "/"
	p := u.Path
	if !strings.HasPrefix(p, hp) {
		return "", false
	}
	rest := strings.TrimSuffix(p[len(hp):], "/")
	if rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	return path.Clean(rest), true
}

// toCalendar maps one PROPFIND response to a calendar. It reports false
// for a collection that is not a calendar or cannot hold VEVENTs.
func toCalendar(id string, r *msResponse, email string) (*unical.Calendar, bool) {
	rt, ok := r.prop(nsDAV, "resourcetype")
	if !ok {
		return nil, false
	}
	if _, ok := rt.child(nsCalDAV, "calendar"); !ok {
		return nil, false
	}
	if set, ok := r.prop(nsCalDAV, "supported-calendar-component-set"); ok && len(set.Children) > 0 {
		events := false
		for _, comp := range set.Children {
			for _, a := range comp.Attrs {
				if a.Name.Local == "name" && strings.EqualFold(a.Value, ical.CompEvent) {
					events = true
				}
			}
		}
		if !events {
			return nil, false
		}
	}
	cal := &unical.Calendar{
		ID:                            id,
		Name:                          id,
		InviteEmail:                   email,
		AllowedOnlineMeetingProviders: []string{},
	}
	if e, ok := r.prop(nsDAV, "displayname"); ok && strings.TrimSpace(e.Text) != "" {
		cal.Name = strings.TrimSpace(e.Text)
	}
	if e, ok := r.prop(nsApple, "calendar-color"); ok {
		cal.HexColor = hexColor(e.Text)
	}
	if e, ok := r.prop(nsCalDAV, "calendar-timezone"); ok {
		cal.TimeZone = timeZoneName(e.Text)
	}
	if e, ok := r.prop(nsDAV, "current-user-privilege-set"); ok {
		cal.ReadOnly = !canWrite(e)
	}
	return cal, true
}

// hexColor turns an Apple calendar-color ("#RRGGBB" or "#RRGGBBAA") into
// "#RRGGBB"; anything else gives "".
func hexColor(s string) string {
	s = strings.TrimSpace(s)
	if len(s) != 7 && len(s) != 9 || s[0] != '#' {
		return ""
	}
	for _, r := range s[1:] {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return ""
		}
	}
	return strings.ToUpper(s[:7])
}

// timeZoneName reads the TZID of the VTIMEZONE in a calendar-timezone
// value and returns the IANA name it resolves to, or "".
func timeZoneName(text string) string {
	cal, err := ical.NewDecoder(strings.NewReader(strings.TrimSpace(text))).Decode()
	if err != nil {
		return ""
	}
	for _, comp := range cal.Children {
		if comp.Name != ical.CompTimezone {
			continue
		}
		tzid, err := comp.Props.Text(ical.PropTimezoneID)
		if err != nil || tzid == "" {
			continue
		}
		if loc, err := icalmap.ResolveTZID(tzid); err == nil {
			return loc.String()
		}
	}
	return ""
}

// canWrite reports whether a current-user-privilege-set grants a write
// privilege (RFC 3744: write, write-content, bind or all).
func canWrite(set *element) bool {
	for _, priv := range set.Children {
		if priv.XMLName.Space != nsDAV || priv.XMLName.Local != "privilege" {
			continue
		}
		for _, p := range priv.Children {
			if p.XMLName.Space != nsDAV {
				continue
			}
			switch p.XMLName.Local {
			case "write", "write-content", "bind", "all":
				return true
			}
		}
	}
	return false
}
