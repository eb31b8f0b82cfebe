package googletest

import (
	"net/http"
	"strconv"
)

// colorPair is one palette entry of the Colors resource.
type colorPair struct {
	Background string `json:"background"`
	Foreground string `json:"foreground"`
}

// The palettes of GET colors: calendar colours 1–24 (for calendarList
// entries) and event colours 1–11 (for Event.colorId). UNVERIFIED: the hex
// values are Google's long-standing palette as widely reproduced, not
// re-read from a live response.
var (
	calendarPalette = []string{
		"#ac725e", "#d06b64", "#f83a22", "#fa573c", "#ff7537", "#ffad46", "#42d692", "#16a765",
		"#7bd148", "#b3dc6c", "#fbe983", "#fad165", "#92e1c0", "#9fe1e7", "#9fc6e7", "#4986e7",
		"#9a9cff", "#b99aff", "#c2c2c2", "#cabdbf", "#cca6ac", "#f691b2", "#cd74e6", "#a47ae2",
	}
	eventPalette = []string{
		"#a4bdfc", "#7ae7bf", "#dbadff", "#ff887c", "#fbd75b", "#ffb878",
		"#46d6db", "#e1e1e1", "#5484ed", "#51b749", "#dc2127",
	}
)

func palette(colors []string, fg string) map[string]colorPair {
	m := make(map[string]colorPair, len(colors))
	for i, bg := range colors {
		m[strconv.Itoa(i+1)] = colorPair{Background: bg, Foreground: fg}
	}
	return m
}

// calendarColor returns the palette colours of a calendar colorId.
func calendarColor(id string) (colorPair, bool) {
	p, ok := palette(calendarPalette, "#000000")[id]
	return p, ok
}

// colorsGet serves GET colors.
func (s *Server) colorsGet(c *call) (int, any, error) {
	return http.StatusOK, map[string]any{
		"kind":     "calendar#colors",
		"updated":  "2012-02-14T00:00:00.000Z",
		"calendar": palette(calendarPalette, "#000000"),
		"event":    palette(eventPalette, "#1d1d1d"),
	}, nil
}
