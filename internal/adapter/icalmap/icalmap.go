package icalmap

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/recur"
	"github.com/unical/unical/internal/winzone"
)

// Names of the X- properties and parameter that hold extended properties.
const (
	PropPublic  = "X-UNICAL-PUBLIC"
	PropPrivate = "X-UNICAL-PRIVATE"
	ParamKey    = "X-UNICAL-KEY"
)

// recurrenceProps are the properties that make up the recurrence field, in
// the order they are listed.
var recurrenceProps = []string{"RRULE", "EXRULE", ical.PropRecurrenceDates, ical.PropExceptionDates}

// Options tune how a VEVENT is read.
type Options struct {
	// Self is the account's own address. It sets Organizer.IsSelf and
	// MyResponseStatus (from the attendee with that address). Empty means
	// neither is set.
	Self string
	// Floating is the zone that floating date-times (no TZID, no Z) are read
	// in; nil means UTC.
	Floating *time.Location
	// Zones are the zones the object's own VTIMEZONEs define, from
	// [Zones], for TZIDs that are neither IANA nor Windows names. Times in
	// such a zone are shown in UTC, since unical's timeZone fields hold
	// IANA names only, and recurrence lines naming it are rewritten to UTC.
	Zones map[string]*time.Location
}

// ToEvent reads one VEVENT. It fills every mapped field but leaves ID,
// ETag and RecurringEventID to the caller, who knows the resource. opts may
// be nil.
func ToEvent(comp *ical.Component, opts *Options) (*unical.Event, error) {
	if comp == nil || comp.Name != ical.CompEvent {
		return nil, errors.New("icalmap: not a VEVENT")
	}
	if opts == nil {
		opts = &Options{}
	}
	floating := opts.Floating
	if floating == nil {
		floating = time.UTC
	}
	e := &unical.Event{}
	var err error
	text := func(name string) string {
		if err != nil {
			return ""
		}
		var s string
		s, err = comp.Props.Text(name)
		return s
	}
	e.Title = text(ical.PropSummary)
	e.Description = text(ical.PropDescription)
	e.Location = text(ical.PropLocation)
	e.ICalUID = text(ical.PropUID)
	if err != nil {
		return nil, fmt.Errorf("icalmap: %w", err)
	}

	startProp := comp.Props.Get(ical.PropDateTimeStart)
	if startProp == nil {
		return nil, errors.New("icalmap: VEVENT has no DTSTART")
	}
	start, allDay, err := readTime(startProp, floating, opts.Zones)
	if err != nil {
		return nil, fmt.Errorf("icalmap: DTSTART: %w", err)
	}
	e.IsAllDay = allDay
	if _, custom, _ := resolveTZID(startProp.Params.Get(ical.ParamTimezoneID), opts.Zones); custom {
		start = start.UTC()
	}
	e.Start = eventTime(start, allDay)
	if !allDay && (comp.Props.Get(ical.PropRecurrenceRule) != nil || comp.Props.Get(ical.PropRecurrenceDates) != nil) {
		e.Start = seriesStart(startProp, start)
	}
	end, err := readEnd(comp, start, allDay, floating, opts.Zones)
	if err != nil {
		return nil, err
	}
	if end.Location() != start.Location() && !allDay {
		if _, ok := customZone(end.Location(), opts.Zones); ok {
			end = end.UTC()
		}
	}
	e.End = eventTime(end, allDay)

	if p := comp.Props.Get(ical.PropRecurrenceID); p != nil {
		orig, origAllDay, err := readTime(p, floating, opts.Zones)
		if err != nil {
			return nil, fmt.Errorf("icalmap: RECURRENCE-ID: %w", err)
		}
		if origAllDay {
			e.OriginalStart = &unical.EventDateTime{Date: orig.Format(unical.DateLayout)}
		} else {
			e.OriginalStart = unical.TimedAt(orig)
		}
		e.IsException = true
	}

	for _, name := range recurrenceProps {
		for _, p := range comp.Props.Values(name) {
			if err := normalizeTZID(&p, opts.Zones); err != nil {
				return nil, fmt.Errorf("icalmap: %s: %w", name, err)
			}
			e.Recurrence = append(e.Recurrence, formatLines(&p)...)
			if name == "RRULE" || name == ical.PropRecurrenceDates {
				e.IsRecurring = true
			}
		}
	}

	for _, p := range comp.Props.Values(ical.PropAttendee) {
		a := unical.Attendee{
			Name:           p.Params.Get(ical.ParamCommonName),
			Email:          address(p.Value),
			ResponseStatus: ResponseStatusOf(p.Params.Get(ical.ParamParticipationStatus)),
			Optional:       strings.EqualFold(p.Params.Get(ical.ParamRole), "OPT-PARTICIPANT"),
		}
		if opts.Self != "" && strings.EqualFold(a.Email, opts.Self) {
			e.MyResponseStatus = a.ResponseStatus
		}
		e.Attendees = append(e.Attendees, a)
	}
	// An ORGANIZER without an address names nobody; Apply writes none.
	if p := comp.Props.Get(ical.PropOrganizer); p != nil && address(p.Value) != "" {
		e.Organizer = &unical.Organizer{
			Name:  p.Params.Get(ical.ParamCommonName),
			Email: address(p.Value),
		}
		e.Organizer.IsSelf = opts.Self != "" && strings.EqualFold(e.Organizer.Email, opts.Self)
	}

	e.Transparency = unical.TransparencyOpaque
	if strings.EqualFold(text(ical.PropTransparency), "TRANSPARENT") {
		e.Transparency = unical.TransparencyTransparent
	}
	switch strings.ToUpper(text(ical.PropClass)) {
	case "PUBLIC":
		e.Visibility = unical.VisibilityPublic
	case "PRIVATE":
		e.Visibility = unical.VisibilityPrivate
	case "CONFIDENTIAL":
		e.Visibility = unical.VisibilityConfidential
	default:
		e.Visibility = unical.VisibilityDefault
	}
	e.IsCancelled = strings.EqualFold(text(ical.PropStatus), "CANCELLED")
	if err != nil {
		return nil, fmt.Errorf("icalmap: %w", err)
	}

	if t, ok := readStamp(comp, ical.PropCreated); ok {
		e.CreatedAt = unical.FormatTimestamp(t)
	}
	if t, ok := readStamp(comp, ical.PropLastModified); ok {
		e.UpdatedAt = unical.FormatTimestamp(t)
	} else if t, ok := readStamp(comp, ical.PropDateTimeStamp); ok {
		e.UpdatedAt = unical.FormatTimestamp(t)
	}

	e.PublicExtendedProperties, err = readExtended(comp, PropPublic)
	if err != nil {
		return nil, err
	}
	e.PrivateExtendedProperties, err = readExtended(comp, PropPrivate)
	if err != nil {
		return nil, err
	}
	if err := readFields(comp, e); err != nil {
		return nil, err
	}
	return e, nil
}

// Apply writes the mapped fields of e into comp, a VEVENT, replacing the
// properties of the mapping table and keeping every other property and
// sub-component. It stamps DTSTAMP and LAST-MODIFIED with now, and CREATED
// when comp has none. The UID is e.ICalUID when set; otherwise comp must
// already have one. Attendees that comp already lists (matched by address)
// keep their other parameters (RSVP, CUTYPE, SCHEDULE-STATUS), as does an
// unchanged organizer (SCHEDULE-AGENT, SENT-BY). A set
// OriginalStart becomes RECURRENCE-ID; a nil one leaves RECURRENCE-ID as it
// is. ID, ETag,
// RecurringEventID, CreatedAt and UpdatedAt of e are ignored, as are the
// fields iCalendar has no place for (conference data, webLink). self is
// the address an email reminder mails ("" for the organizer's).
func Apply(comp *ical.Component, e *unical.Event, now time.Time, self string) error {
	if comp == nil || comp.Name != ical.CompEvent {
		return errors.New("icalmap: not a VEVENT")
	}
	if e.ICalUID != "" {
		comp.Props.SetText(ical.PropUID, textValue(e.ICalUID))
	}
	if comp.Props.Get(ical.PropUID) == nil {
		return errors.New("icalmap: event has no UID")
	}
	if e.Start == nil {
		return errors.New("icalmap: event has no start")
	}
	// Only isAllDay or a bare date make an all-day event: a midnight
	// date-time without offset but with a timeZone is a timed event.
	allDay := e.IsAllDay || (e.Start.Date != "" && e.Start.DateTime == "")
	// Properties whose value does not change are left as they are, so that
	// an update keeps the producer's form: a Windows TZID with its
	// VTIMEZONE, DURATION instead of DTEND, LANGUAGE parameters.
	start, err := writeTime(ical.PropDateTimeStart, e.Start, allDay, "start")
	if err != nil {
		return err
	}
	if !sameTime(comp.Props.Get(ical.PropDateTimeStart), start) {
		comp.Props.Set(start)
	}
	if e.End == nil {
		comp.Props.Del(ical.PropDateTimeEnd)
		comp.Props.Del(ical.PropDuration)
	} else {
		end, err := writeTime(ical.PropDateTimeEnd, e.End, allDay, "end")
		if err != nil {
			return err
		}
		if !sameEnd(comp, end) {
			comp.Props.Del(ical.PropDuration)
			comp.Props.Set(end)
		}
	}

	if o := e.OriginalStart; o != nil {
		rid, err := writeTime(ical.PropRecurrenceID, o, o.Date != "" || allDay && o.IsDateOnly(), "originalStart")
		if err != nil {
			return err
		}
		comp.Props.Set(rid)
	}

	setText(comp, ical.PropSummary, e.Title)
	setText(comp, ical.PropDescription, e.Description)
	setText(comp, ical.PropLocation, e.Location)

	if !slices.Equal(currentRecurrence(comp), e.Recurrence) {
		if err := setRecurrence(comp, e.Recurrence); err != nil {
			return err
		}
	}

	previous := map[string]ical.Params{}
	for _, p := range comp.Props.Values(ical.PropAttendee) {
		previous[strings.ToLower(address(p.Value))] = p.Params
	}
	comp.Props.Del(ical.PropAttendee)
	for _, a := range e.Attendees {
		p := ical.NewProp(ical.PropAttendee)
		if old, ok := previous[strings.ToLower(a.Email)]; ok {
			p.Params = maps.Clone(old)
		}
		p.Value = "mailto:" + a.Email
		setParam(p.Params, ical.ParamCommonName, a.Name)
		p.Params.Set(ical.ParamParticipationStatus, PartStat(a.ResponseStatus))
		switch {
		case a.Optional:
			p.Params.Set(ical.ParamRole, "OPT-PARTICIPANT")
		case strings.EqualFold(p.Params.Get(ical.ParamRole), "OPT-PARTICIPANT"):
			p.Params.Del(ical.ParamRole)
		}
		comp.Props.Add(p)
	}
	// The organizer, when unchanged, keeps its other parameters
	// (SCHEDULE-AGENT, SENT-BY), as attendees do.
	var organizer ical.Params
	if p := comp.Props.Get(ical.PropOrganizer); p != nil && e.Organizer != nil && strings.EqualFold(address(p.Value), e.Organizer.Email) {
		organizer = p.Params
	}
	comp.Props.Del(ical.PropOrganizer)
	if o := e.Organizer; o != nil && o.Email != "" {
		p := ical.NewProp(ical.PropOrganizer)
		if organizer != nil {
			p.Params = maps.Clone(organizer)
		}
		p.Value = "mailto:" + o.Email
		setParam(p.Params, ical.ParamCommonName, o.Name)
		comp.Props.Add(p)
	}

	switch e.Transparency {
	case unical.TransparencyTransparent:
		comp.Props.SetText(ical.PropTransparency, "TRANSPARENT")
	default:
		comp.Props.Del(ical.PropTransparency)
	}
	switch e.Visibility {
	case unical.VisibilityPublic:
		comp.Props.SetText(ical.PropClass, "PUBLIC")
	case unical.VisibilityPrivate:
		comp.Props.SetText(ical.PropClass, "PRIVATE")
	case unical.VisibilityConfidential:
		comp.Props.SetText(ical.PropClass, "CONFIDENTIAL")
	default:
		comp.Props.Del(ical.PropClass)
	}
	status, _ := comp.Props.Text(ical.PropStatus)
	switch {
	case e.IsCancelled:
		comp.Props.SetText(ical.PropStatus, "CANCELLED")
	case strings.EqualFold(status, "CANCELLED"):
		comp.Props.Del(ical.PropStatus)
	}

	if err := writeExtended(comp, PropPublic, e.PublicExtendedProperties); err != nil {
		return err
	}
	if err := writeExtended(comp, PropPrivate, e.PrivateExtendedProperties); err != nil {
		return err
	}
	if err := writeFields(comp, e, self); err != nil {
		return err
	}

	now = now.UTC().Truncate(time.Second)
	comp.Props.SetDateTime(ical.PropDateTimeStamp, now)
	comp.Props.SetDateTime(ical.PropLastModified, now)
	if comp.Props.Get(ical.PropCreated) == nil {
		comp.Props.SetDateTime(ical.PropCreated, now)
	}
	return nil
}

// readTime reads a DATE or DATE-TIME property. Dates come back as midnight
// UTC with allDay set; date-times in their TZID's zone, UTC, or floating.
func readTime(p *ical.Prop, floating *time.Location, zones map[string]*time.Location) (t time.Time, allDay bool, err error) {
	v := p.Value
	if p.ValueType() == ical.ValueDate || (p.Params.Get(ical.ParamValue) == "" && len(v) == len("20060102")) {
		t, err = time.ParseInLocation("20060102", v, time.UTC)
		return t, true, err
	}
	if strings.HasSuffix(v, "Z") {
		t, err = time.ParseInLocation("20060102T150405Z", v, time.UTC)
		return t, false, err
	}
	loc := floating
	if tzid := p.Params.Get(ical.ParamTimezoneID); tzid != "" {
		loc, _, err = resolveTZID(tzid, zones)
		if err != nil {
			return time.Time{}, false, err
		}
	}
	t, err = recur.ParseLocal(icalLocalLayout, v, loc)
	return t, false, err
}

// icalLocalLayout is an iCalendar DATE-TIME without the UTC "Z".
const icalLocalLayout = "20060102T150405"

// seriesStart returns the EventDateTime of a series start t, read from
// p: the wall clock as p has it (see recur.Stamp), so that a start a DST
// gap skips keeps its time of day for the series.
func seriesStart(p *ical.Prop, t time.Time) *unical.EventDateTime {
	if wall, err := time.Parse(icalLocalLayout, p.Value); err == nil && recur.At(wall, t.Location()).Equal(t) {
		return &unical.EventDateTime{DateTime: recur.Stamp(wall, t.Location()), TimeZone: unical.TimedAt(t).TimeZone}
	}
	return unical.TimedAt(t)
}

// resolveTZID resolves tzid with [ResolveTZID], then among zones defined
// by the object's VTIMEZONEs; custom reports the latter.
func resolveTZID(tzid string, zones map[string]*time.Location) (loc *time.Location, custom bool, err error) {
	loc, err = ResolveTZID(tzid)
	if err == nil {
		return loc, false, nil
	}
	if z, ok := zones[tzid]; ok {
		// A zone [Zones] matched to an IANA zone carries that name.
		return z, z.String() == tzid, nil
	}
	return nil, false, err
}

// ResolveTZID turns a TZID parameter into a zone: an IANA name, a name with
// a "/mozilla.org/..."-style path prefix, or a Windows zone name.
func ResolveTZID(tzid string) (*time.Location, error) {
	name := strings.Trim(tzid, `"`)
	if loc, err := unical.LoadLocation(name); err == nil {
		return loc, nil
	}
	if iana, ok := winzone.ToIANA(name); ok {
		return unical.LoadLocation(iana)
	}
	// Some producers prefix the IANA name with a path of their own
	// ("/mozilla.org/20050126_1/Europe/Berlin"); try the last two segments.
	if parts := strings.Split(name, "/"); len(parts) > 2 {
		if loc, err := unical.LoadLocation(strings.Join(parts[len(parts)-2:], "/")); err == nil {
			return loc, nil
		}
	}
	return nil, fmt.Errorf("unknown TZID %q", tzid)
}

// readEnd returns the exclusive end: DTEND, DTSTART+DURATION, or the RFC
// 5545 default (one day for a date, zero length for a date-time).
func readEnd(comp *ical.Component, start time.Time, allDay bool, floating *time.Location, zones map[string]*time.Location) (time.Time, error) {
	if p := comp.Props.Get(ical.PropDateTimeEnd); p != nil {
		end, endAllDay, err := readTime(p, floating, zones)
		if err != nil {
			return time.Time{}, fmt.Errorf("icalmap: DTEND: %w", err)
		}
		if endAllDay != allDay {
			return time.Time{}, errors.New("icalmap: DTSTART and DTEND have different value types")
		}
		return end, nil
	}
	if p := comp.Props.Get(ical.PropDuration); p != nil {
		d, err := p.Duration()
		if err != nil {
			return time.Time{}, fmt.Errorf("icalmap: DURATION: %w", err)
		}
		if allDay {
			return start.AddDate(0, 0, int(d/(24*time.Hour))), nil
		}
		return start.Add(d), nil
	}
	if allDay {
		return start.AddDate(0, 0, 1), nil
	}
	return start, nil
}

// eventTime returns the EventDateTime of t: a midnight date-time without
// offset for all-day values, else t with its offset and zone name.
func eventTime(t time.Time, allDay bool) *unical.EventDateTime {
	if allDay {
		return unical.AllDayOn(t)
	}
	return unical.TimedAt(t)
}

// writeTime builds DTSTART or DTEND from d.
func writeTime(name string, d *unical.EventDateTime, allDay bool, field string) (*ical.Prop, error) {
	p := ical.NewProp(name)
	if allDay {
		day, err := d.Day(field)
		if err != nil {
			return nil, err
		}
		p.SetDate(day)
		return p, nil
	}
	t, err := d.Time(field)
	if err != nil {
		return nil, err
	}
	if d.TimeZone == "" || d.TimeZone == "UTC" {
		p.SetDateTime(t.UTC())
		return p, nil
	}
	p.SetDateTime(t)
	if wall := recur.WallOf(d.DateTime, t); recur.At(wall, t.Location()).Equal(t) {
		// The wall clock as written, which a time a DST gap skips keeps
		// (the instant's would not); RFC 5545 §3.3.5 reads it back the same.
		p.Value = wall.Format(icalLocalLayout)
	}
	return p, nil
}

// readStamp reads a UTC timestamp property; a broken one counts as absent.
func readStamp(comp *ical.Component, name string) (time.Time, bool) {
	p := comp.Props.Get(name)
	if p == nil {
		return time.Time{}, false
	}
	t, _, err := readTime(p, time.UTC, nil)
	return t, err == nil
}

// ResponseStatusOf is the response status of a PARTSTAT value (RFC 5545
// §3.2.12); an unknown one is needsAction.
func ResponseStatusOf(s string) unical.ResponseStatus {
	switch strings.ToUpper(s) {
	case "ACCEPTED":
		return unical.ResponseAccepted
	case "DECLINED":
		return unical.ResponseDeclined
	case "TENTATIVE":
		return unical.ResponseTentative
	}
	return unical.ResponseNeedsAction
}

// PartStat is the PARTSTAT value (RFC 5545 §3.2.12) of a response status;
// a status with no iCalendar counterpart is NEEDS-ACTION.
func PartStat(s unical.ResponseStatus) string {
	switch s {
	case unical.ResponseAccepted:
		return "ACCEPTED"
	case unical.ResponseDeclined:
		return "DECLINED"
	case unical.ResponseTentative:
		return "TENTATIVE"
	}
	return "NEEDS-ACTION"
}

// address strips the mailto: scheme from a CAL-ADDRESS.
func address(v string) string {
	if len(v) >= 7 && strings.EqualFold(v[:7], "mailto:") {
		return v[7:]
	}
	return v
}

func setText(comp *ical.Component, name, value string) {
	value = textValue(value)
	if value == "" {
		comp.Props.Del(name)
		return
	}
	if p := comp.Props.Get(name); p != nil {
		if v, err := p.Text(); err == nil && v == value {
			return // keep LANGUAGE, ALTREP and the like
		}
	}
	comp.Props.SetText(name, value)
}

// setParam sets a parameter, or removes it for "". A parameter value
// cannot hold a double quote or a control character (RFC 5545 §3.1,
// param-value), and go-ical refuses to encode one, so a name such as
// `Bob "The Builder"` is written with single quotes instead.
func setParam(params ical.Params, name, value string) {
	value = paramSanitizer.Replace(value)
	if value == "" {
		params.Del(name)
		return
	}
	params.Set(name, value)
}

// readExtended reads the extended properties stored as name.
func readExtended(comp *ical.Component, name string) (map[string]string, error) {
	props := comp.Props.Values(name)
	if len(props) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(props))
	for _, p := range props {
		v, err := p.Text()
		if err != nil {
			return nil, fmt.Errorf("icalmap: %s: %w", name, err)
		}
		m[unescapeKey(p.Params.Get(ParamKey))] = v
	}
	return m, nil
}

// writeExtended replaces the extended properties stored as name, sorted by
// key so that the output is stable.
func writeExtended(comp *ical.Component, name string, m map[string]string) error {
	comp.Props.Del(name)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.ContainsAny(k, "\r\n") {
			return fmt.Errorf("icalmap: extended property key %q holds a line break", k)
		}
		p := ical.NewProp(name)
		p.Params.Set(ParamKey, escapeKey(k))
		p.SetText(textValue(m[k]))
		comp.Props.Add(p)
	}
	return nil
}

// textValue turns the carriage returns of s into line feeds: a TEXT value
// (RFC 5545 §3.3.11) can only hold a line break as the escape "\n", which
// go-ical writes for a line feed, while it refuses to encode a carriage
// return, so a description with Windows line endings could not be saved.
func textValue(s string) string { return crReplacer.Replace(s) }

var crReplacer = strings.NewReplacer("\r\n", "\n", "\r", "\n")

var paramSanitizer = strings.NewReplacer(`"`, "'", "\r", "", "\n", " ")

var (
	keyEscaper   = strings.NewReplacer("%", "%25", `"`, "%22")
	keyUnescaper = strings.NewReplacer("%25", "%", "%22", `"`)
)

func escapeKey(k string) string   { return keyEscaper.Replace(k) }
func unescapeKey(k string) string { return keyUnescaper.Replace(k) }

// customZone reports whether loc is one of zones.
func customZone(loc *time.Location, zones map[string]*time.Location) (string, bool) {
	for name, z := range zones {
		if z == loc {
			return name, true
		}
	}
	return "", false
}

// normalizeTZID rewrites the TZID of a recurrence property so that the
// recurrence engine, which knows IANA names only, can read the line: a
// Windows or prefixed name becomes its IANA name, and the values of a
// zone defined only by the object's VTIMEZONE become UTC date-times. The
// property's parameters are copied first, as they are shared with the
// component.
func normalizeTZID(p *ical.Prop, zones map[string]*time.Location) error {
	tzid := p.Params.Get(ical.ParamTimezoneID)
	if tzid == "" {
		return nil
	}
	loc, custom, err := resolveTZID(tzid, zones)
	if err != nil {
		return err
	}
	p.Params = maps.Clone(p.Params)
	if !custom {
		p.Params.Set(ical.ParamTimezoneID, loc.String())
		return nil
	}
	if p.Name == "RRULE" || p.Name == "EXRULE" {
		return nil
	}
	var vals []string
	for _, v := range strings.Split(p.Value, ",") {
		t, err := recur.ParseLocal(icalLocalLayout, strings.TrimSpace(v), loc)
		if err != nil {
			return err
		}
		vals = append(vals, t.UTC().Format("20060102T150405Z"))
	}
	p.Params.Del(ical.ParamTimezoneID)
	p.Value = strings.Join(vals, ",")
	return nil
}

// sameTime reports whether the DATE or DATE-TIME properties a and b name
// the same value: the same instant, both dates or both date-times, in the
// same zone (a Windows TZID and its IANA name count as the same).
func sameTime(a, b *ical.Prop) bool {
	if a == nil || b == nil {
		return false
	}
	ta, da, err1 := readTime(a, time.UTC, nil)
	tb, db, err2 := readTime(b, time.UTC, nil)
	return err1 == nil && err2 == nil && da == db && ta.Equal(tb) && ta.Location().String() == tb.Location().String()
}

// sameEnd reports whether comp already ends at end, by DTEND or by
// DTSTART plus DURATION.
func sameEnd(comp *ical.Component, end *ical.Prop) bool {
	if cur := comp.Props.Get(ical.PropDateTimeEnd); cur != nil {
		return sameTime(cur, end)
	}
	if comp.Props.Get(ical.PropDuration) == nil {
		return false
	}
	start, allDay, err := readTime(comp.Props.Get(ical.PropDateTimeStart), time.UTC, nil)
	if err != nil {
		return false
	}
	cur, err := readEnd(comp, start, allDay, time.UTC, nil)
	want, wantAllDay, err2 := readTime(end, time.UTC, nil)
	return err == nil && err2 == nil && wantAllDay == allDay && cur.Equal(want)
}

// currentRecurrence returns comp's recurrence lines as ToEvent reads them,
// or nil if they cannot be read.
func currentRecurrence(comp *ical.Component) []string {
	var lines []string
	for _, name := range recurrenceProps {
		for _, p := range comp.Props.Values(name) {
			if normalizeTZID(&p, nil) != nil {
				return nil
			}
			lines = append(lines, formatLines(&p)...)
		}
	}
	return lines
}

// setRecurrence replaces comp's recurrence properties with lines, one
// value per EXDATE and RDATE property.
func setRecurrence(comp *ical.Component, lines []string) error {
	for _, name := range recurrenceProps {
		comp.Props.Del(name)
	}
	for _, line := range lines {
		// As recur.Validate reads them: surrounding white space (a CR
		// from CRLF input) is not part of the line, an empty line is none.
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		p, err := parseLine(line)
		if err != nil {
			return err
		}
		for _, v := range splitValues(p) {
			comp.Props.Add(v)
		}
	}
	return nil
}
