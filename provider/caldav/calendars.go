package caldav

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
)

// propfindCalendars asks for what a calendar is made of, and for the
// scheduling inbox and outbox URLs (RFC 6638 §2.2), which a home that is
// also the principal (DAViCal) answers, so that they are left out of a
// listing even where they are typed as plain calendars.
const propfindCalendars = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">` +
	`<D:prop><D:resourcetype/><D:displayname/><I:calendar-color/><C:calendar-timezone/>` +
	`<C:supported-calendar-component-set/><D:current-user-privilege-set/>` +
	`<C:schedule-inbox-URL/><C:schedule-outbox-URL/></D:prop></D:propfind>`

// propfindTimeZone asks for a calendar's time zone alone.
const propfindTimeZone = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-timezone/></D:prop></D:propfind>`

// ListCalendars lists the calendar collections in the account's calendar
// home that can hold events (PROPFIND Depth 1), sorted by id. A
// calendar's id is its path segment under the home. The scheduling inbox
// and outbox are not calendars one writes to and are left out (DAViCal
// lists them as calendars). DAViCal leaves calendar-timezone out of a
// Depth 1 answer that it gives for one calendar, so a calendar listed
// without one has it read on its own.
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
	boxes := map[string]bool{}
	for i := range ms.Responses {
		for _, name := range []string{"schedule-inbox-URL", "schedule-outbox-URL"} {
			if e, ok := ms.Responses[i].prop(nsCalDAV, name); ok {
				if href, ok := e.child(nsDAV, "href"); ok {
					if u, err := r.URL.Parse(strings.TrimSpace(href.Text)); err == nil {
						if id, ok := calendarID(home, u); ok {
							boxes[id] = true
						}
					}
				}
			}
		}
	}
	cals := []*unical.Calendar{}
	for i := range ms.Responses {
		resp := &ms.Responses[i]
		u, err := r.URL.Parse(resp.Href)
		if err != nil {
			continue
		}
		id, ok := calendarID(home, u)
		if !ok || boxes[id] {
			continue // the home itself, something outside it, or a scheduling box
		}
		cal, ok := toCalendar(id, resp, s.Email)
		if !ok {
			continue
		}
		if _, ok := resp.prop(nsCalDAV, "calendar-timezone"); !ok {
			if cal.TimeZone, err = c.timeZoneOf(ctx, calendarURLIn(home, id)); err != nil {
				return nil, err
			}
		}
		cals = append(cals, cal)
	}
	sort.Slice(cals, func(i, j int) bool { return cals[i].ID < cals[j].ID })
	return cals, nil
}

// timeZoneOf reads one calendar's calendar-timezone; a calendar without
// one has "".
func (c *conn) timeZoneOf(ctx context.Context, u *url.URL) (string, error) {
	_, ms, err := c.propfind(ctx, u, "0", propfindTimeZone, "get calendar")
	if err != nil {
		return "", err
	}
	for i := range ms.Responses {
		if e, ok := ms.Responses[i].prop(nsCalDAV, "calendar-timezone"); ok {
			return timeZoneName(e.Text), nil
		}
	}
	return "", nil
}

// GetCalendar returns one calendar collection of the account's home; a
// collection that does not exist or cannot hold events is CodeNotFound.
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	c := p.conn(s)
	id, u, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return nil, err
	}
	_, ms, err := c.propfind(ctx, u, "0", propfindCalendars, "get calendar")
	if err != nil {
		return nil, err
	}
	for i := range ms.Responses {
		if cal, ok := toCalendar(id, &ms.Responses[i], s.Email); ok {
			return cal, nil
		}
	}
	return nil, unical.Errorf(unical.CodeNotFound, "Calendar %q not found.", calendarID)
}

// calendarURL returns the collection URL of a calendar id: the home URL
// plus the id as one path segment, escaped. Ids that are not one segment
// are CodeInvalid naming calendarId, so that no id can reach outside the
// home.
func calendarURL(s *unical.Session, calendarID string) (*url.URL, error) {
	if err := checkSegment("calendarId", calendarID); err != nil {
		return nil, err
	}
	home, err := homeURL(s)
	if err != nil {
		return nil, err
	}
	return calendarURLIn(home, calendarID), nil
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
	// An id calendarURL refuses ("..", from a server's "%2e%2e") would be
	// listed but could not be read.
	id := path.Clean(rest)
	return id, checkSegment("calendarId", id) == nil
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
	for _, box := range []string{"schedule-inbox", "schedule-outbox"} {
		if _, ok := rt.child(nsCalDAV, box); ok {
			return nil, false
		}
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
// "#RRGGBB", in the case it was written so that a colour reads back as it
// was set; anything else gives "".
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
	return s[:7]
}

// timeZoneName reads the TZID of the VTIMEZONE in a calendar-timezone
// value and returns the IANA name it resolves to, or "".
func timeZoneName(text string) string {
	cal, err := icalmap.Decode(strings.NewReader(strings.TrimSpace(text)))
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

// CreateCalendar creates a calendar collection with MKCALENDAR (RFC 4791
// §5.3.1) under a fresh random id, for VEVENT components, with its name,
// time zone and colour. Xandikos ignores the colour in MKCALENDAR
// (davtest), so the colour is set again with PROPPATCH afterwards. A time
// zone MKCALENDAR did not keep (DAViCal 1.1 drops it there and keeps it
// from PROPPATCH) is set again with PROPPATCH; where that is refused too
// (Xandikos) the calendar is removed and the create is CodeNotImplemented.
func (p *Provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	id, err := newUID()
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	u, err := calendarURL(s, id)
	if err != nil {
		return nil, err
	}
	props, err := calendarProps(params)
	if err != nil {
		return nil, err
	}
	c := p.conn(s)
	body := `<?xml version="1.0" encoding="utf-8"?>` +
		`<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:I="http://apple.com/ns/ical/">` +
		`<D:set><D:prop>` + props.set + mkTimezone(props.tz) +
		`<C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>` +
		`</D:prop></D:set></C:mkcalendar>`
	r, err := c.do(ctx, "MKCALENDAR", u, http.Header{"Content-Type": {"application/xml; charset=utf-8"}}, body)
	if err != nil {
		return nil, err
	}
	if r.StatusCode == http.StatusMultiStatus || r.StatusCode == http.StatusConflict || r.StatusCode == http.StatusMethodNotAllowed || r.StatusCode == http.StatusForbidden {
		// Xandikos answers an existing collection with a 207 holding 403,
		// Radicale with 409; RFC 4791 §5.3.1.1 names 403/405 too.
		return nil, unical.WrapError(unical.CodeUpstream, c.classify(r, "create calendar"), "The CalDAV server refused to create the calendar.")
	}
	if err := c.classify(r, "create calendar"); err != nil {
		return nil, err
	}
	if params.HexColor.Value() != "" {
		if err := c.proppatch(ctx, u, `<D:set><D:prop>`+props.color+`</D:prop></D:set>`); err != nil {
			p.discard(ctx, c, u)
			return nil, err
		}
	}
	cal, err := p.GetCalendar(ctx, s, id)
	if err != nil {
		return nil, err
	}
	tz := params.TimeZone.Value()
	if tz != "" && cal.TimeZone != tz {
		err := c.proppatch(ctx, u, props.tz)
		if err == nil {
			cal, err = p.GetCalendar(ctx, s, id)
		}
		if err != nil && unical.ErrorCode(err) != unical.CodeNotImplemented {
			p.discard(ctx, c, u)
			return nil, err
		}
	}
	// A server may answer MKCALENDAR 201 and PROPPATCH 207 and leave a
	// property out: a calendar that does not hold what was asked is
	// removed and the write refused, never kept short.
	if tz != "" && cal.TimeZone != tz {
		p.discard(ctx, c, u)
		return nil, &unical.Error{Code: unical.CodeNotImplemented, Field: "timeZone",
			Message: "This CalDAV server does not keep a calendar's time zone (calendar-timezone); create the calendar without timeZone."}
	}
	return cal, nil
}

// discard deletes a calendar CreateCalendar made but cannot hand out. The
// write already failed, so a failed delete is not reported over it.
func (p *Provider) discard(ctx context.Context, c *conn, u *url.URL) {
	if r, err := c.do(ctx, http.MethodDelete, u, nil, ""); err == nil {
		_ = c.classify(r, "delete calendar")
	}
}

// UpdateCalendar changes the name, colour and time zone params sets with
// PROPPATCH (RFC 4918 §9.2), checking every property's status in the 207
// answer: a refused one makes the update fail with CodeNotImplemented
// (Xandikos refuses calendar-timezone with 409), before anything else is
// changed.
func (p *Provider) UpdateCalendar(ctx context.Context, s *unical.Session, calendarID string, params *unical.CalendarParams) (*unical.Calendar, error) {
	c := p.conn(s)
	id, u, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return nil, err
	}
	props, err := calendarProps(params)
	if err != nil {
		return nil, err
	}
	// Xandikos applies the other properties of a PROPPATCH even when it
	// refuses one (RFC 4918 §9.2 says it must not), and refuses
	// calendar-timezone, so the time zone goes first and alone: when it is
	// refused nothing has changed. Removing a property goes alone too, as
	// Xandikos fails on removing calendar-color (500).
	var steps []string
	if props.tz != "" {
		steps = append(steps, props.tz)
	}
	if props.remove != "" {
		steps = append(steps, `<D:remove><D:prop>`+props.remove+`</D:prop></D:remove>`)
	}
	if props.set+props.color != "" {
		steps = append(steps, `<D:set><D:prop>`+props.set+props.color+`</D:prop></D:set>`)
	}
	for _, step := range steps {
		if err := c.proppatch(ctx, u, step); err != nil {
			var ue *unical.Error
			if step == props.tz && errors.As(err, &ue) && ue.Code == unical.CodeNotImplemented {
				ue.Field = "timeZone" // the step sends calendar-timezone alone
			}
			return nil, err
		}
	}
	return p.GetCalendar(ctx, s, id)
}

// DeleteCalendar deletes a calendar collection and its events. Radicale
// answers 200 with a multistatus, others 204; any 2xx is success.
func (p *Provider) DeleteCalendar(ctx context.Context, s *unical.Session, calendarID string) error {
	c := p.conn(s)
	id, u, err := p.calendarAt(ctx, c, s, calendarID)
	if err != nil {
		return err
	}
	// Only a calendar may be deleted through this id, never another kind
	// of collection in the home (an inbox, an address book).
	if _, err := p.GetCalendar(ctx, s, id); err != nil {
		return err
	}
	r, err := c.do(ctx, http.MethodDelete, u, nil, "")
	if err != nil {
		return err
	}
	return c.classify(r, "delete calendar")
}

// mkTimezone returns the calendar-timezone element of a set instruction,
// for MKCALENDAR, which takes properties in one DAV:set.
func mkTimezone(tz string) string {
	const open, end = `<D:set><D:prop>`, `</D:prop></D:set>`
	if !strings.HasPrefix(tz, open) {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(tz, open), end)
}

// calProps are the XML property elements of a calendar write: set and
// color go in a DAV:set, remove in a DAV:remove, tz is a whole set or
// remove instruction for calendar-timezone.
type calProps struct {
	set, color, remove, tz string
}

func calendarProps(params *unical.CalendarParams) (calProps, error) {
	var p calProps
	esc := func(s string) string {
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	if v, ok := params.Name.Get(); ok {
		p.set += `<D:displayname>` + esc(v) + `</D:displayname>`
	}
	switch v, ok := params.HexColor.Get(); {
	case ok && v != "":
		p.color = `<I:calendar-color>` + esc(v) + `</I:calendar-color>`
	case params.HexColor.IsSet():
		p.remove += `<I:calendar-color/>`
	}
	switch v, ok := params.TimeZone.Get(); {
	case ok && v != "":
		loc, err := unical.LoadLocation(v)
		if err != nil {
			return p, unical.FieldError("timeZone", "%q is not an IANA time zone name.", v)
		}
		// RFC 4791 §5.2.2: the value is an iCalendar object holding
		// exactly one VTIMEZONE.
		cal := ical.NewCalendar()
		cal.Props.SetText(ical.PropProductID, prodID)
		cal.Props.SetText(ical.PropVersion, "2.0")
		now := time.Now()
		cal.Children = append(cal.Children, icalmap.VTimezone(v, loc, now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0)))
		data, err := encode(cal)
		if err != nil {
			return p, unical.WrapError(unical.CodeInternal, err, "Internal error.")
		}
		p.tz = `<D:set><D:prop><C:calendar-timezone>` + esc(string(data)) + `</C:calendar-timezone></D:prop></D:set>`
	case params.TimeZone.IsSet():
		p.tz = `<D:remove><D:prop><C:calendar-timezone/></D:prop></D:remove>`
	}
	return p, nil
}
