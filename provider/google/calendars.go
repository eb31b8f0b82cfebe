package google

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/unical/unical"
)

// conferenceSolutions maps Google conference solution types to the
// unified meeting provider names. The legacy Hangouts types cannot create
// meetings any more and are left out.
var conferenceSolutions = map[string]string{
	"hangoutsMeet": unical.MeetingProviderGoogleMeet,
}

// toCalendar maps a calendar list entry. self is the account's email, used
// to tell calendars shared with the account from its own.
func toCalendar(e *calendarListEntry, self string) *unical.Calendar {
	cal := &unical.Calendar{
		ID:                            e.ID,
		Name:                          e.Summary,
		HexColor:                      strings.ToLower(e.BackgroundColor),
		ReadOnly:                      e.AccessRole != "owner" && e.AccessRole != "writer",
		IsPrimary:                     e.Primary,
		TimeZone:                      e.TimeZone,
		InviteEmail:                   e.ID,
		AllowedOnlineMeetingProviders: []string{},
	}
	if e.SummaryOverride != "" {
		cal.Name = e.SummaryOverride
	}
	if !e.Primary {
		// dataOwner names the owner of a secondary calendar; a primary
		// calendar's id is its owner's email. Calendars with neither (public
		// and holiday calendars) count as shared unless the account owns
		// them.
		owner := e.DataOwner
		if owner == "" && strings.Contains(e.ID, "@") && !strings.HasSuffix(e.ID, ".calendar.google.com") {
			owner = e.ID
		}
		if owner != "" {
			cal.IsShared = !strings.EqualFold(owner, self)
		} else {
			cal.IsShared = e.AccessRole != "owner"
		}
	}
	if e.ConferenceProperties != nil {
		for _, t := range e.ConferenceProperties.AllowedConferenceSolutionTypes {
			if name, ok := conferenceSolutions[t]; ok {
				cal.AllowedOnlineMeetingProviders = append(cal.AllowedOnlineMeetingProviders, name)
			}
		}
	}
	if len(cal.AllowedOnlineMeetingProviders) > 0 {
		cal.DefaultOnlineMeetingProvider = cal.AllowedOnlineMeetingProviders[0]
	}
	return cal
}

func calendarListPath(id string) string { return "/users/me/calendarList/" + escapeID(id) }
func calendarPath(id string) string     { return "/calendars/" + escapeID(id) }

// ListCalendars implements [unical.Provider]: every calendar in the
// account's calendar list, hidden ones included.
func (p *Provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	c := p.conn(s)
	var entries []calendarListEntry
	q := url.Values{"maxResults": {"250"}, "showHidden": {"true"}}
	for {
		var page calendarList
		if err := c.do(ctx, http.MethodGet, c.api("/users/me/calendarList", q), nil, &page); err != nil {
			return nil, err
		}
		entries = append(entries, page.Items...)
		if page.NextPageToken == "" {
			break
		}
		q.Set("pageToken", page.NextPageToken)
	}
	self := s.Email
	for _, e := range entries {
		if e.Primary {
			self = e.ID
		}
	}
	out := make([]*unical.Calendar, 0, len(entries))
	for i := range entries {
		if entries[i].Deleted {
			continue
		}
		out = append(out, toCalendar(&entries[i], self))
	}
	return out, nil
}

// GetCalendar implements [unical.Provider].
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	c := p.conn(s)
	e, err := c.getEntry(ctx, calendarID)
	if err != nil {
		return nil, err
	}
	return toCalendar(e, s.Email), nil
}

func (c *conn) getEntry(ctx context.Context, calendarID string) (*calendarListEntry, error) {
	if calendarID == "" {
		return nil, unical.Errorf(unical.CodeNotFound, "Google has no such calendar.")
	}
	var e calendarListEntry
	if err := c.do(ctx, http.MethodGet, c.api(calendarListPath(calendarID), nil), nil, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// colorPatch is the calendar list change that sets or clears a colour.
// Google needs colorRgbFormat=true to take RGB values.
func colorPatch(params *unical.CalendarParams) map[string]any {
	if !params.HexColor.IsSet() {
		return nil
	}
	hex, ok := params.HexColor.Get()
	if !ok {
		return map[string]any{"backgroundColor": nil, "foregroundColor": nil}
	}
	return map[string]any{"backgroundColor": strings.ToLower(hex), "foregroundColor": foregroundFor(hex)}
}

// foregroundFor picks black or white text for a #RRGGBB background by its
// perceived brightness (ITU-R BT.601 weights).
func foregroundFor(hex string) string {
	if len(hex) != 7 {
		return "#000000"
	}
	var rgb [3]int
	for i := range rgb {
		for _, ch := range strings.ToLower(hex[1+2*i : 3+2*i]) {
			v := strings.IndexRune("0123456789abcdef", ch)
			if v < 0 {
				return "#000000"
			}
			rgb[i] = rgb[i]*16 + v
		}
	}
	if rgb[0]*299+rgb[1]*587+rgb[2]*114 >= 128000 {
		return "#000000"
	}
	return "#ffffff"
}

// CreateCalendar implements [unical.Provider]: a secondary calendar, then
// its colour in the account's calendar list.
func (p *Provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	c := p.conn(s)
	body := map[string]any{"summary": params.Name.Value()}
	if tz, ok := params.TimeZone.Get(); ok && tz != "" {
		body["timeZone"] = tz
	}
	var created calendarResource
	if err := c.do(ctx, http.MethodPost, c.api("/calendars", nil), body, &created); err != nil {
		return nil, err
	}
	if created.ID == "" {
		return nil, unical.Errorf(unical.CodeUpstream, "Google created a calendar without an id.")
	}
	var e *calendarListEntry
	if patch := colorPatch(params); patch != nil {
		var pe calendarListEntry
		u := c.api(calendarListPath(created.ID), url.Values{"colorRgbFormat": {"true"}})
		if err := c.do(ctx, http.MethodPatch, u, patch, &pe); err != nil {
			return nil, err
		}
		e = &pe
	} else {
		var err error
		if e, err = c.getEntry(ctx, created.ID); err != nil {
			return nil, err
		}
	}
	return toCalendar(e, s.Email), nil
}

// UpdateCalendar implements [unical.Provider]. The name and time zone are
// properties of the calendar, which only its owner may change; for a
// calendar owned by someone else the name is the account's own
// summaryOverride. The colour is the account's calendar list colour. Google
// calendars always have a time zone, so a null timeZone leaves it alone.
func (p *Provider) UpdateCalendar(ctx context.Context, s *unical.Session, calendarID string, params *unical.CalendarParams) (*unical.Calendar, error) {
	c := p.conn(s)
	e, err := c.getEntry(ctx, calendarID)
	if err != nil {
		return nil, err
	}
	calPatch := map[string]any{}
	entryPatch := colorPatch(params)
	if entryPatch == nil {
		entryPatch = map[string]any{}
	}
	if name, ok := params.Name.Get(); ok {
		if e.AccessRole == "owner" {
			calPatch["summary"] = name
			if e.SummaryOverride != "" {
				entryPatch["summaryOverride"] = nil
			}
		} else {
			entryPatch["summaryOverride"] = name
		}
	}
	if tz, ok := params.TimeZone.Get(); ok && tz != "" {
		calPatch["timeZone"] = tz
	}
	if len(calPatch) > 0 {
		if err := c.do(ctx, http.MethodPatch, c.api(calendarPath(e.ID), nil), calPatch, nil); err != nil {
			return nil, err
		}
	}
	if len(entryPatch) > 0 {
		var pe calendarListEntry
		u := c.api(calendarListPath(e.ID), url.Values{"colorRgbFormat": {"true"}})
		if err := c.do(ctx, http.MethodPatch, u, entryPatch, &pe); err != nil {
			return nil, err
		}
		e = &pe
	} else if len(calPatch) > 0 {
		if e, err = c.getEntry(ctx, e.ID); err != nil {
			return nil, err
		}
	}
	return toCalendar(e, s.Email), nil
}

// DeleteCalendar implements [unical.Provider]: it deletes a secondary
// calendar the account owns, with its events. The primary calendar and
// calendars of other owners are CodeConflict; a calendar Google reports as
// already deleted counts as deleted.
func (p *Provider) DeleteCalendar(ctx context.Context, s *unical.Session, calendarID string) error {
	if calendarID == "" {
		return unical.Errorf(unical.CodeNotFound, "Google has no such calendar.")
	}
	c := p.conn(s)
	err := c.do(ctx, http.MethodDelete, c.api(calendarPath(calendarID), nil), nil, nil)
	if isAlreadyDeleted(err) {
		return nil
	}
	return err
}

// isAlreadyDeleted reports Google's 410 "deleted", which Google documents
// as safe to treat as success for deletes.
func isAlreadyDeleted(err error) bool {
	var e *unical.Error
	if !errors.As(err, &e) || e.Code != unical.CodeNotFound {
		return false
	}
	var ae *APIError
	ok := errors.As(e.Err, &ae)
	return ok && ae.Status == http.StatusGone && ae.Reason == "deleted"
}
