package graphtest

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // Zones must load on machines without a tz database.

	"github.com/unical/unical/internal/recur"
	"github.com/unical/unical/internal/winzone"
)

// dateTimeTimeZone is Graph's local date-time plus zone name,
// https://learn.microsoft.com/graph/api/resources/datetimetimezone: the
// dateTime has no offset and, in responses, seven fractional digits.
type dateTimeTimeZone struct {
	DateTime string `json:"dateTime"`
	TimeZone string `json:"timeZone"`
}

// zone is a zone name as a client spelled it and its location.
type zone struct {
	name string
	loc  *time.Location
}

var utcZone = zone{"UTC", time.UTC}

// lookupZone resolves a dateTimeTimeZone zone name: any Windows zone name
// (through CLDR's table) or an IANA name. Graph documents a fixed list of
// IANA names it accepts; the fake accepts every IANA name Go can load.
func lookupZone(name string) (zone, bool) {
	if name == "" {
		return zone{}, false
	}
	if name == "UTC" || strings.EqualFold(name, "tzone://Microsoft/Utc") {
		return zone{name, time.UTC}, true
	}
	if iana, ok := winzone.ToIANA(name); ok {
		if loc, err := time.LoadLocation(iana); err == nil {
			return zone{name, loc}, true
		}
	}
	if strings.Contains(name, "/") {
		if loc, err := time.LoadLocation(name); err == nil {
			return zone{name, loc}, true
		}
	}
	return zone{}, false
}

// outputZone is the zone of start and end in responses: the Prefer:
// outlook.timezone zone, else UTC (the documented default).
func outputZone(pref string) zone {
	if z, ok := lookupZone(pref); ok {
		return z
	}
	return utcZone
}

// parseDTTZ parses a dateTimeTimeZone into an instant and its zone.
func parseDTTZ(v dateTimeTimeZone) (time.Time, zone, error) {
	z, ok := lookupZone(v.TimeZone)
	if !ok {
		return time.Time{}, zone{}, fmt.Errorf("A valid TimeZone value must be specified. The following TimeZone value is not supported: '%s'.", v.TimeZone) //nolint:staticcheck // Graph's own message, word for word
	}
	t, err := parseLocal(v.DateTime, z.loc)
	if err != nil {
		return time.Time{}, zone{}, err
	}
	return t, z, nil
}

// parseLocal parses an ISO 8601 date-time. A value with an offset keeps it;
// one without is read in loc.
func parseLocal(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		// UNVERIFIED: Graph does not document how it reads a wall clock a
		// DST gap skips or a fall-back repeats; the fake follows RFC 5545
		// §3.3.5 (moved forward by the gap, the first occurrence).
		if t, err := recur.ParseLocal(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot parse %q as an ISO 8601 date-time", s)
}

// formatLocal renders t in z the way Graph does: "2019-03-15T12:00:00.0000000".
func formatLocal(t time.Time, z zone) dateTimeTimeZone {
	return dateTimeTimeZone{DateTime: t.In(z.loc).Format("2006-01-02T15:04:05.0000000"), TimeZone: z.name}
}

// formatStamp renders a DateTimeOffset in UTC with seven fractional digits,
// as createdDateTime and lastModifiedDateTime are.
func formatStamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.0000000Z")
}

// formatUTC renders originalStart and similar values: "2017-10-06T17:00:00Z".
func formatUTC(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
