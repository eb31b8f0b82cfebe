package icalmap

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/emersion/go-ical"
)

// formatLines writes a recurrence property as content lines without
// folding, parameters sorted by name. A multi-valued EXDATE or RDATE gives
// one line per value.
func formatLines(p *ical.Prop) []string {
	var head strings.Builder
	head.WriteString(p.Name)
	for _, name := range slices.Sorted(maps.Keys(p.Params)) {
		head.WriteString(";" + name + "=")
		for i, v := range p.Params[name] {
			if i > 0 {
				head.WriteString(",")
			}
			if strings.ContainsAny(v, ";:,") {
				v = `"` + v + `"`
			}
			head.WriteString(v)
		}
	}
	values := []string{p.Value}
	if p.Name == ical.PropExceptionDates || p.Name == ical.PropRecurrenceDates {
		values = strings.Split(p.Value, ",")
	}
	lines := make([]string, 0, len(values))
	for _, v := range values {
		lines = append(lines, head.String()+":"+strings.TrimSpace(v))
	}
	return lines
}

// parseLine reads one unfolded content line ("EXDATE;TZID=Europe/Berlin:
// 20250107T090000") into a property. Parameter values may be quoted.
func parseLine(line string) (*ical.Prop, error) {
	i := strings.IndexAny(line, ";:")
	if i <= 0 {
		return nil, fmt.Errorf("icalmap: %q is not an iCalendar line such as RRULE:FREQ=DAILY", line)
	}
	p := ical.NewProp(line[:i])
	rest := line[i:]
	for strings.HasPrefix(rest, ";") {
		rest = rest[1:]
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("icalmap: %q: parameter without a value", line)
		}
		name := rest[:eq]
		rest = rest[eq+1:]
		for {
			var v string
			if strings.HasPrefix(rest, `"`) {
				end := strings.IndexByte(rest[1:], '"')
				if end < 0 {
					return nil, fmt.Errorf("icalmap: %q: unterminated quoted parameter", line)
				}
				v, rest = rest[1:end+1], rest[end+2:]
			} else {
				end := strings.IndexAny(rest, ";:,")
				if end < 0 {
					return nil, fmt.Errorf("icalmap: %q: missing colon", line)
				}
				v, rest = rest[:end], rest[end:]
			}
			p.Params.Add(name, v)
			if !strings.HasPrefix(rest, ",") {
				break
			}
			rest = rest[1:]
		}
	}
	if !strings.HasPrefix(rest, ":") {
		return nil, fmt.Errorf("icalmap: %q: missing colon", line)
	}
	p.Value = rest[1:]
	if p.Value == "" {
		return nil, fmt.Errorf("icalmap: %q: empty value", line)
	}
	return p, nil
}

// splitValues returns p as one property per value for EXDATE and RDATE,
// and p itself otherwise.
func splitValues(p *ical.Prop) []*ical.Prop {
	if p.Name != ical.PropExceptionDates && p.Name != ical.PropRecurrenceDates || !strings.Contains(p.Value, ",") {
		return []*ical.Prop{p}
	}
	var out []*ical.Prop
	for _, v := range strings.Split(p.Value, ",") {
		q := ical.NewProp(p.Name)
		q.Params = maps.Clone(p.Params)
		q.Value = strings.TrimSpace(v)
		out = append(out, q)
	}
	return out
}
