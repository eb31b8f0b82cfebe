package microsoft

import (
	"context"
	"strings"

	"github.com/unical/unical"
)

// calendarFromGraph maps a Graph calendar: readOnly from canEdit,
// isPrimary from isDefaultCalendar, isShared when the owner is someone
// else. Graph calendars have no time zone of their own, so timeZone is
// left empty.
func calendarFromGraph(g *calendar, selfEmail string) *unical.Calendar {
	c := &unical.Calendar{
		ID:                            g.ID,
		Name:                          g.Name,
		HexColor:                      g.HexColor,
		ReadOnly:                      !g.CanEdit,
		IsPrimary:                     g.IsDefaultCalendar,
		AllowedOnlineMeetingProviders: g.AllowedOnlineMeetingProviders,
		DefaultOnlineMeetingProvider:  g.DefaultOnlineMeetingProvider,
	}
	if g.Owner != nil && g.Owner.Address != "" {
		c.InviteEmail = g.Owner.Address
		c.IsShared = selfEmail != "" && !strings.EqualFold(g.Owner.Address, selfEmail)
	}
	return c
}

// calendarPath is the path of a calendar.
func calendarPath(id string) string { return "/me/calendars/" + pathID(id) }

// ListCalendars returns every calendar of the account, following
// @odata.nextLink.
func (p *Provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	c := p.client(s)
	var out []*unical.Calendar
	next := "/me/calendars"
	for next != "" {
		var page collection[calendar]
		if err := c.do(ctx, request{method: "GET", target: next}, &page); err != nil {
			return nil, err
		}
		for i := range page.Value {
			out = append(out, calendarFromGraph(&page.Value[i], s.Email))
		}
		next = page.NextLink
	}
	return out, nil
}

// GetCalendar returns one calendar.
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	var g calendar
	if err := p.client(s).do(ctx, request{method: "GET", target: calendarPath(calendarID)}, &g); err != nil {
		return nil, err
	}
	return calendarFromGraph(&g, s.Email), nil
}

// calendarBody builds a calendar create or PATCH body. Graph's hexColor
// is read-only and calendars have no zone, so only the name is written;
// hexColor and timeZone are accepted and ignored.
func calendarBody(params *unical.CalendarParams) map[string]any {
	body := map[string]any{}
	if v, ok := params.Name.Get(); ok {
		body["name"] = v
	}
	return body
}

// CreateCalendar creates a calendar.
func (p *Provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	var g calendar
	if err := p.client(s).do(ctx, request{method: "POST", target: "/me/calendars", body: calendarBody(params)}, &g); err != nil {
		return nil, err
	}
	return calendarFromGraph(&g, s.Email), nil
}

// UpdateCalendar renames a calendar.
func (p *Provider) UpdateCalendar(ctx context.Context, s *unical.Session, calendarID string, params *unical.CalendarParams) (*unical.Calendar, error) {
	body := calendarBody(params)
	if len(body) == 0 {
		return p.GetCalendar(ctx, s, calendarID)
	}
	var g calendar
	if err := p.client(s).do(ctx, request{method: "PATCH", target: calendarPath(calendarID), body: body}, &g); err != nil {
		return nil, err
	}
	return calendarFromGraph(&g, s.Email), nil
}

// DeleteCalendar deletes a calendar. Graph refuses to delete the default
// calendar.
func (p *Provider) DeleteCalendar(ctx context.Context, s *unical.Session, calendarID string) error {
	return p.client(s).do(ctx, request{method: "DELETE", target: calendarPath(calendarID)}, nil)
}
