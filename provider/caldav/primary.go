package caldav

import (
	"context"
	"net/url"
	"strings"

	"github.com/unical/unical"
)

// primaryID is the calendar id that names the account's default calendar
// on every provider.
const primaryID = "primary"

// propfindDefaultCalendar asks a principal or a scheduling inbox for the
// default calendar (RFC 6638 §9.2) and the principal for its inbox.
const propfindDefaultCalendar = `<?xml version="1.0" encoding="utf-8"?>` +
	`<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
	`<D:prop><C:schedule-default-calendar-URL/><C:schedule-inbox-URL/></D:prop></D:propfind>`

// calendarAt returns the id and collection URL of calendarID, where
// "primary" is the calendar the server announces as the default one:
// RFC 6638 §9.2 puts schedule-default-calendar-URL on the scheduling
// inbox (Cyrus), DAViCal on the principal, so the principal is asked
// first and its inbox next. A default calendar outside the home, or none
// announced, leaves "primary" the collection of that name if there is
// one; else it is CodeInvalid naming calendarId.
func (p *Provider) calendarAt(ctx context.Context, c *conn, s *unical.Session, id string) (string, *url.URL, error) {
	if id != primaryID {
		u, err := calendarURL(s, id)
		return id, u, err
	}
	home, err := homeURL(s)
	if err != nil {
		return "", nil, err
	}
	st, err := readState(s)
	if err != nil {
		return "", nil, unical.WrapError(unical.CodeAccountExpired, err, "The CalDAV account must be reconnected.")
	}
	at, err := url.Parse(st.PrincipalURL)
	if err != nil || st.PrincipalURL == "" {
		return "", nil, unical.Errorf(unical.CodeAccountExpired, "The CalDAV account must be reconnected.")
	}
	for range 2 { // the principal, then its inbox
		def, inbox, err := c.defaultCalendar(ctx, at)
		if err != nil {
			return "", nil, err
		}
		if def != nil {
			if id, ok := calendarID(home, def); ok {
				return id, calendarURLIn(home, id), nil
			}
			break
		}
		if inbox == nil {
			break
		}
		at = inbox
	}
	u := calendarURLIn(home, primaryID)
	if _, ms, err := c.propfind(ctx, u, "0", propfindCalendars, "get calendar"); err == nil {
		for i := range ms.Responses {
			if _, ok := toCalendar(primaryID, &ms.Responses[i], s.Email); ok {
				return primaryID, u, nil
			}
		}
	} else if code := unical.ErrorCode(err); code != unical.CodeNotFound {
		return "", nil, err
	}
	return "", nil, unical.FieldError("calendarId",
		`This CalDAV server announces no default calendar (RFC 6638 schedule-default-calendar-URL), so "primary" names none; use a calendar id from the calendar list.`)
}

// defaultCalendar reads schedule-default-calendar-URL and
// schedule-inbox-URL of the resource at u; either is nil when absent.
func (c *conn) defaultCalendar(ctx context.Context, u *url.URL) (def, inbox *url.URL, err error) {
	r, ms, err := c.propfind(ctx, u, "0", propfindDefaultCalendar, "find the default calendar")
	if err != nil {
		if unical.ErrorCode(err) == unical.CodeNotFound {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	href := func(name string) *url.URL {
		for i := range ms.Responses {
			e, ok := ms.Responses[i].prop(nsCalDAV, name)
			if !ok {
				continue
			}
			if h, ok := e.child(nsDAV, "href"); ok {
				if v, err := r.URL.Parse(strings.TrimSpace(h.Text)); err == nil {
					return v
				}
			}
		}
		return nil
	}
	return href("schedule-default-calendar-URL"), href("schedule-inbox-URL"), nil
}

// calendarURLIn is the collection URL of an id already checked to be one
// segment. url.URL.JoinPath takes escaped segments: unescaped, an id such
// as "%2e%2e" would become ".." on the wire.
func calendarURLIn(home *url.URL, id string) *url.URL {
	return home.JoinPath(url.PathEscape(id) + "/")
}
