package icalmap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/winzone"
)

// zoneHorizon is where the observances of an embedded VTIMEZONE stop
// being expanded: the end of TZif version 1's 32-bit transition times.
var zoneHorizon = time.Date(2037, 12, 31, 0, 0, 0, 0, time.UTC)

// Zones returns the zones that cal's VTIMEZONE components define under a
// TZID that is neither an IANA nor a Windows name (reference §4.2: "evaluate
// the embedded VTIMEZONE STANDARD/DAYLIGHT rules"). Pass them as
// [Options.Zones]. A VTIMEZONE that cannot be read is left out, so its
// TZID stays an error rather than becoming UTC.
//
// Most such zones are real zones under another label (Lotus Notes, old
// Exchange, hand-written exports), so a zone whose offsets agree hour by
// hour with one of CLDR's IANA zones over four years around today becomes
// that IANA zone: events then keep a zone name the rest of unical knows,
// and series expand across DST correctly. Only the others stay custom.
func Zones(cal *ical.Calendar) map[string]*time.Location {
	var zones map[string]*time.Location
	for _, comp := range cal.Children {
		if comp.Name != ical.CompTimezone {
			continue
		}
		tzid, err := comp.Props.Text(ical.PropTimezoneID)
		if err != nil || tzid == "" {
			continue
		}
		if _, err := ResolveTZID(tzid); err == nil {
			continue
		}
		loc, err := ParseVTimezone(comp)
		if err != nil {
			continue
		}
		if iana, ok := matchIANA(loc); ok {
			loc = iana
		}
		if zones == nil {
			zones = map[string]*time.Location{}
		}
		zones[tzid] = loc
	}
	return zones
}

// maxOnsets bounds the onsets one observance's RRULE may give up to
// zoneHorizon.
const maxOnsets = 1000

// transition is one onset of an observance.
type transition struct {
	at     int64 // Unix seconds
	offset int
	dst    bool
	abbr   string
}

// ParseVTimezone turns a VTIMEZONE (RFC 5545 §3.6.5) into a
// [time.Location]: every observance's onsets (DTSTART, RDATE, RRULE up to
// 2037) become transitions of a TZif file (RFC 8536) that
// time.LoadLocationFromTZData reads. Go cannot build a Location from rules
// any other way.
func ParseVTimezone(vtz *ical.Component) (*time.Location, error) {
	tzid, _ := vtz.Props.Text(ical.PropTimezoneID)
	var ts []transition
	for _, obs := range vtz.Children {
		if obs.Name != ical.CompTimezoneStandard && obs.Name != ical.CompTimezoneDaylight {
			continue
		}
		from, err := readOffset(obs, ical.PropTimezoneOffsetFrom)
		if err != nil {
			return nil, err
		}
		to, err := readOffset(obs, ical.PropTimezoneOffsetTo)
		if err != nil {
			return nil, err
		}
		abbr, _ := obs.Props.Text(ical.PropTimezoneName)
		if abbr == "" {
			abbr = utcOffset(to)
		}
		dst := obs.Name == ical.CompTimezoneDaylight
		p := obs.Props.Get(ical.PropDateTimeStart)
		if p == nil {
			return nil, errors.New("icalmap: VTIMEZONE observance without DTSTART")
		}
		// Onsets are local times in the offset before them; reading them
		// as UTC and subtracting that offset gives the instant.
		start, err := time.ParseInLocation("20060102T150405", p.Value, time.UTC)
		if err != nil {
			return nil, fmt.Errorf("icalmap: VTIMEZONE DTSTART: %w", err)
		}
		// RFC 5545 §3.6.5: DTSTART is the first onset, the RRULE gives
		// the later ones.
		onsets := []time.Time{start}
		if rp := obs.Props.Get("RRULE"); rp != nil {
			opt, err := rrule.StrToROptionInLocation(rp.Value, time.UTC)
			if err != nil {
				return nil, fmt.Errorf("icalmap: VTIMEZONE RRULE: %w", err)
			}
			if y := start.Year(); y < 1 {
				// rrule-go fills its per-year tables only once the year
				// differs from the zero it starts with: a rule walked from
				// the year 0 indexes empty tables and panics.
				return nil, fmt.Errorf("icalmap: VTIMEZONE DTSTART %q of a rule is before the year 1", p.Value)
			}
			opt.Dtstart = start
			if start.Year() < 1900 && opt.Count == 0 {
				// rrule-go stops after a few hundred iterations, so a rule
				// from 1601 (Outlook) would never reach today; start it in
				// 1900 instead, which a rule without COUNT allows.
				opt.Dtstart = time.Date(1900, start.Month(), start.Day(), start.Hour(), start.Minute(), start.Second(), 0, time.UTC)
			}
			if !opt.Until.IsZero() {
				// UNTIL is UTC; compare it with local onsets loosely by
				// adding the offset back.
				opt.Until = opt.Until.Add(time.Duration(from) * time.Second)
			}
			r, err := rrule.NewRRule(*opt)
			if err != nil {
				return nil, fmt.Errorf("icalmap: VTIMEZONE RRULE: %w", err)
			}
			// Real rules are yearly: about 140 onsets up to the horizon.
			// A sub-daily one would make millions (and take minutes), so
			// the onsets are counted.
			next := r.Iterator()
			for n := 0; ; n++ {
				t, ok := next()
				if !ok || t.After(zoneHorizon) {
					break
				}
				if n == maxOnsets {
					return nil, fmt.Errorf("icalmap: VTIMEZONE RRULE %q has more than %d onsets before %d", rp.Value, maxOnsets, zoneHorizon.Year())
				}
				onsets = append(onsets, t)
			}
		}
		for _, rd := range obs.Props.Values(ical.PropRecurrenceDates) {
			for _, v := range strings.Split(rd.Value, ",") {
				if t, err := time.ParseInLocation("20060102T150405", strings.TrimSpace(v), time.UTC); err == nil {
					onsets = append(onsets, t)
				}
			}
		}
		for _, o := range onsets {
			ts = append(ts, transition{at: o.Unix() - int64(from), offset: to, dst: dst, abbr: abbr})
		}
	}
	if len(ts) == 0 {
		return nil, errors.New("icalmap: VTIMEZONE without observances")
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].at < ts[j].at })
	return time.LoadLocationFromTZData(tzid, tzif(ts))
}

// readOffset reads a UTC-OFFSET property (RFC 5545 §3.3.14): ±hhmm[ss].
func readOffset(obs *ical.Component, name string) (int, error) {
	p := obs.Props.Get(name)
	if p == nil {
		return 0, fmt.Errorf("icalmap: VTIMEZONE observance without %s", name)
	}
	v := strings.TrimSpace(p.Value)
	if len(v) != 5 && len(v) != 7 || (v[0] != '+' && v[0] != '-') {
		return 0, fmt.Errorf("icalmap: %s %q is not a UTC offset", name, v)
	}
	n := 0
	for i, unit := range []int{3600, 60, 1} {
		if 1+2*i >= len(v) {
			break
		}
		d, err := strconv.Atoi(v[1+2*i : 3+2*i])
		if err != nil {
			return 0, fmt.Errorf("icalmap: %s %q is not a UTC offset", name, v)
		}
		n += d * unit
	}
	if v[0] == '-' {
		n = -n
	}
	return n, nil
}

// tzif encodes transitions as a version 1 TZif file (RFC 8536 §3). Times
// before the first transition use the first transition's offset-before,
// which Go takes from the first local time type.
func tzif(ts []transition) []byte {
	type ttinfo struct {
		offset int
		dst    bool
		abbr   string
	}
	var types []ttinfo
	index := map[ttinfo]int{}
	typeOf := func(t ttinfo) int {
		if i, ok := index[t]; ok {
			return i
		}
		index[t] = len(types)
		types = append(types, t)
		return len(types) - 1
	}
	// Onsets before 1901 (Outlook starts its rules in 1601) do not fit in
	// 32 bits: the last of them is kept at the earliest representable time,
	// so that it still gives the offset in force from then on.
	var kept []transition
	for _, t := range ts {
		switch {
		case t.at < -1<<31:
			t.at = -1 << 31
			if len(kept) > 0 && kept[0].at == t.at {
				kept[0] = t
				continue
			}
			kept = append(kept, t)
		case t.at < 1<<31:
			kept = append(kept, t)
		}
	}
	var times []int32
	var idx []byte
	for _, t := range kept {
		if n := len(times); n > 0 && int64(times[n-1]) == t.at {
			idx[n-1] = byte(typeOf(ttinfo{t.offset, t.dst, t.abbr}))
			continue
		}
		times = append(times, int32(t.at))
		idx = append(idx, byte(typeOf(ttinfo{t.offset, t.dst, t.abbr})))
	}
	var chars []byte
	abbrIndex := map[string]int{}
	for _, t := range types {
		if _, ok := abbrIndex[t.abbr]; !ok {
			abbrIndex[t.abbr] = len(chars)
			chars = append(chars, t.abbr...)
			chars = append(chars, 0)
		}
	}
	var b bytes.Buffer
	b.WriteString("TZif")
	b.WriteByte(0) // version 1
	b.Write(make([]byte, 15))
	for _, n := range []int{0, 0, 0, len(times), len(types), len(chars)} {
		_ = binary.Write(&b, binary.BigEndian, uint32(n))
	}
	for _, t := range times {
		_ = binary.Write(&b, binary.BigEndian, t)
	}
	b.Write(idx)
	for _, t := range types {
		_ = binary.Write(&b, binary.BigEndian, int32(t.offset))
		if t.dst {
			b.WriteByte(1)
		} else {
			b.WriteByte(0)
		}
		b.WriteByte(byte(abbrIndex[t.abbr]))
	}
	b.Write(chars)
	return b.Bytes()
}

// candidates are the IANA zones a custom VTIMEZONE is compared with: the
// zone CLDR names for each Windows zone, one per distinct set of rules.
var candidates = sync.OnceValue(func() []*time.Location {
	var out []*time.Location
	seen := map[string]bool{}
	for _, w := range winzone.WindowsNames() {
		name, ok := winzone.ToIANA(w)
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		if loc, err := unical.LoadLocation(name); err == nil {
			out = append(out, loc)
		}
	}
	return out
})

// matchIANA returns the IANA zone whose offsets equal loc's at every hour
// from the start of last year to the end of the year after next.
func matchIANA(loc *time.Location) (*time.Location, bool) {
	y := time.Now().Year()
	from, to := time.Date(y-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(y+3, 1, 1, 0, 0, 0, 0, time.UTC)
	probes := []time.Time{time.Date(y, 1, 15, 12, 0, 0, 0, time.UTC), time.Date(y, 7, 15, 12, 0, 0, 0, time.UTC)}
next:
	for _, c := range candidates() {
		for _, at := range probes {
			_, a := at.In(loc).Zone()
			_, b := at.In(c).Zone()
			if a != b {
				continue next
			}
		}
		for at := from; at.Before(to); at = at.Add(time.Hour) {
			_, a := at.In(loc).Zone()
			_, b := at.In(c).Zone()
			if a != b {
				continue next
			}
		}
		return c, true
	}
	return nil, false
}
