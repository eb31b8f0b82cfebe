package microsoft

import (
	"context"
	"fmt"
	"math"
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
		HexColor:                      hexColorFromGraph(g),
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

// primaryID is the calendar id that names the account's default calendar
// on every provider.
const primaryID = "primary"

// calendarPath is the path of a calendar: "primary" is the default
// calendar, /me/calendar (resources/calendar.md; Graph has no calendar
// whose id is "primary" and answers /me/calendars/primary 404).
func calendarPath(id string) string {
	if id == primaryID {
		return "/me/calendar"
	}
	return "/me/calendars/" + pathID(id)
}

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

// calendarBody builds a calendar create or PATCH body: the name, and the
// colour as the nearest of Graph's presets (see calendar colours below).
// Graph calendars have no zone, so timeZone is accepted and ignored.
func calendarBody(params *unical.CalendarParams) map[string]any {
	body := map[string]any{}
	if v, ok := params.Name.Get(); ok {
		body["name"] = v
	}
	if v, ok := params.HexColor.Get(); ok {
		if preset, ok := nearestPreset(v); ok {
			body["color"] = preset
		}
	} else if params.HexColor.IsNull() {
		body["color"] = colorAuto
	}
	return body
}

// Calendar colours. Graph's calendar resource documents hexColor as
// read-only ("The calendar color, expressed in a hex color code ...
// Read-only", resources/calendar.md) and color as the writable
// calendarColor enum (auto, lightBlue, lightGreen, lightOrange, lightGray,
// lightYellow, lightTeal, lightPink, lightBrown, lightRed, maxColor). So a
// hexColor written through unical is stored as the nearest preset and read
// back as that preset's colour; auto
// and maxColor (a sentinel, not a colour) read back as Graph's hexColor,
// which is empty unless the user picked a colour in Outlook.
//
// Graph names the presets but documents no RGB for them. The values are
// those of [MS-OXOCFG] section 2.2.9.15, PidTagWlinkCalendarColor
// (https://learn.microsoft.com/openspecs/exchange_server_protocols/ms-oxocfg/035e65bb-64f2-480a-9c62-a91255ab7cfc),
// whose hue matches the preset's name; MS-OXOCFG has no orange, so
// lightOrange is unical's choice.
const colorAuto = "auto"

var calendarPresets = []struct {
	name    string
	r, g, b int
}{
	{"lightBlue", 0x8d, 0xae, 0xd9},
	{"lightGreen", 0x9c, 0xbf, 0x8b},
	{"lightOrange", 0xf0, 0xb2, 0x7a},
	{"lightGray", 0xb0, 0xb6, 0xbe},
	{"lightYellow", 0xff, 0xdf, 0x86},
	{"lightTeal", 0x8b, 0xbf, 0xae},
	{"lightPink", 0xd1, 0x95, 0xaa},
	{"lightBrown", 0xc3, 0xb0, 0x8d},
	{"lightRed", 0xd3, 0x96, 0x96},
}

// nearestPreset returns the preset closest to a "#RRGGBB" colour. The
// distance is the "redmean" weighting of RGB differences (Riemersma,
// "Colour metric", compuphase.com), which follows perceived difference
// far better than plain RGB distance at no cost: with plain distance pure
// red would land on lightOrange rather than lightRed.
func nearestPreset(hex string) (string, bool) {
	var r, g, b int
	if len(hex) != 7 || hex[0] != '#' {
		return "", false
	}
	if _, err := fmt.Sscanf(hex[1:], "%02x%02x%02x", &r, &g, &b); err != nil {
		return "", false
	}
	best, bestDist := "", math.Inf(1)
	for _, p := range calendarPresets {
		rMean := float64(p.r+r) / 2
		dr, dg, db := float64(p.r-r), float64(p.g-g), float64(p.b-b)
		d := (2+rMean/256)*dr*dr + 4*dg*dg + (2+(255-rMean)/256)*db*db
		if d < bestDist {
			best, bestDist = p.name, d
		}
	}
	return best, true
}

// hexColorFromGraph is the colour unical shows for a Graph calendar: the
// preset's colour, or Graph's read-only hexColor for auto and maxColor.
func hexColorFromGraph(g *calendar) string {
	for _, p := range calendarPresets {
		if strings.EqualFold(g.Color, p.name) {
			return fmt.Sprintf("#%02x%02x%02x", p.r, p.g, p.b)
		}
	}
	return g.HexColor
}

// CreateCalendar creates a calendar.
func (p *Provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	var g calendar
	if err := p.client(s).do(ctx, request{method: "POST", target: "/me/calendars", body: calendarBody(params)}, &g); err != nil {
		return nil, err
	}
	return calendarFromGraph(&g, s.Email), nil
}

// UpdateCalendar renames and recolours a calendar.
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
