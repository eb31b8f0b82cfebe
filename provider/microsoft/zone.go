package microsoft

import (
	"fmt"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/recur"
	"github.com/unical/unical/internal/winzone"
)

// graphLocalLayout is the layout of dateTimeTimeZone.dateTime without its
// fractional seconds. Parsing accepts Graph's seven fractional digits
// because time.Parse allows a fraction after the seconds.
const graphLocalLayout = "2006-01-02T15:04:05"

// zoneLocation resolves a zone name Graph uses (a Windows name, an IANA
// name, "UTC" or "tzone://Microsoft/Utc") to a location and its IANA name.
// Custom zones ("tzone://Microsoft/Custom") and unknown names fail: the
// provider never falls back to UTC silently.
func zoneLocation(name string) (*time.Location, string, error) {
	switch {
	case name == "":
		return nil, "", fmt.Errorf("microsoft: empty time zone name")
	case strings.EqualFold(name, "UTC"), strings.EqualFold(name, "tzone://Microsoft/Utc"), name == "Etc/UTC":
		return time.UTC, "UTC", nil
	}
	iana := name
	if v, ok := winzone.ToIANA(name); ok {
		iana = v
	} else if !strings.Contains(name, "/") {
		return nil, "", fmt.Errorf("microsoft: unknown time zone %q", name)
	}
	loc, err := unical.LoadLocation(iana)
	if err != nil {
		return nil, "", fmt.Errorf("microsoft: unknown time zone %q: %w", name, err)
	}
	return loc, iana, nil
}

// graphZoneName returns the zone name to send Graph for an IANA name: the
// Windows name from CLDR's table, or "UTC". A name that already is a
// Windows name is passed through. field names the request field in the
// error for zones Graph cannot take.
func graphZoneName(name, field string) (string, error) {
	switch name {
	case "", "UTC", "Etc/UTC", "Etc/GMT", "GMT", "Etc/Universal", "Etc/Zulu":
		return "UTC", nil
	}
	if _, ok := winzone.ToIANA(name); ok {
		return name, nil
	}
	if w, ok := winzone.ToWindows(name); ok {
		return w, nil
	}
	return "", unical.FieldError(field, "%q is not a time zone Microsoft Graph knows: use an IANA name such as Europe/Berlin.", name)
}

// parseGraphDateTime reads a dateTimeTimeZone as an instant.
func parseGraphDateTime(d *dateTimeTimeZone) (time.Time, error) {
	tz := d.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	loc, _, err := zoneLocation(tz)
	if err != nil {
		return time.Time{}, err
	}
	t, err := recur.ParseLocal(graphLocalLayout, d.DateTime, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("microsoft: bad dateTime %q: %w", d.DateTime, err)
	}
	return t, nil
}

// formatGraphDateTime renders t as Graph's local date-time in t's zone.
func formatGraphDateTime(t time.Time) string { return t.Format(graphLocalLayout) }
