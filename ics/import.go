package ics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/icalmap"
)

// Import limits.
const (
	// MaxImportBytes is the largest iCalendar body Import reads: 4 MiB.
	MaxImportBytes = 4 << 20
	// MaxImportEvents is the most VEVENT components one import holds.
	MaxImportEvents = 5_000
)

// ImportUIDKey is the private extended property under which an imported
// event keeps the UID it had in the file. Providers choose the iCalendar
// UID of an event they create, so this is how a second import of the same
// file finds the events of the first.
const ImportUIDKey = "unical.icsUid"

// occurrenceWindow is how far from an override's original start the
// occurrences of its series are searched for it: wide enough for an
// occurrence moved by months, and within the expansion limit.
const occurrenceWindow = 180 * 24 * time.Hour

// ImportResult counts what an import did, one count per VEVENT component
// (a series, a single event, or an override of one occurrence), and lists
// the components the provider refused.
type ImportResult struct {
	Created   int           `json:"created"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Errors    []ImportError `json:"errors"`
}

// ImportError is a component that was not imported. Nothing of it was
// written.
type ImportError struct {
	// UID is the component's UID in the file.
	UID string `json:"uid"`
	// Property names the iCalendar property at fault, or the component
	// (VTODO) that is not imported, when known.
	Property string `json:"property,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// parsed is one VEVENT of the file, read.
type parsed struct {
	ev *unical.Event
}

// series is the VEVENTs of one UID: the series or single event, and the
// overrides of its occurrences.
type series struct {
	uid       string
	master    *parsed
	overrides []*parsed
}

// Import writes the VEVENTs of an iCalendar object into a calendar of api.
// Each UID's event is created, or updated when the calendar already has
// an event with that UID (its iCalendar UID, or [ImportUIDKey] from an
// earlier import), or left alone when it already holds what the file
// says; RECURRENCE-ID components change the matching occurrence of their
// series. Importing the same file twice changes nothing the second time.
//
// A body that is not iCalendar, or a VEVENT that cannot be mapped, fails
// the whole import before anything is written: a CodeInvalid error
// naming the property, with the UID in its message. A component the
// provider refuses is listed in ImportResult.Errors with nothing of it
// written (a series created for it is deleted again), and the import goes
// on. A failure that is not the component's (the provider is down, the
// account expired) stops the import with that error; the events written
// before stay, and running the import again completes it.
//
// Attendees and organizers are not imported, so that an import never
// sends invitations; components other than VEVENT (VTODO, VJOURNAL) are
// listed as errors and skipped.
//
// Import is idempotent by UID already, and makes many writes: an
// Idempotency-Key in ctx (unical.WithIdempotencyKey) is not passed on to
// them, because the second write would find the key used by the first.
func Import(ctx context.Context, api unical.API, accountID, calendarID string, body io.Reader) (*ImportResult, error) {
	ctx = unical.WithIdempotencyKey(ctx, "")
	data, err := io.ReadAll(io.LimitReader(body, MaxImportBytes+1))
	if err != nil {
		return nil, &unical.Error{Code: unical.CodeInvalid, Field: "body", Message: "The body could not be read.", Err: err}
	}
	if len(data) > MaxImportBytes {
		return nil, &unical.Error{Code: unical.CodeTooLarge, Field: "body", Message: fmt.Sprintf("An iCalendar import is at most %d bytes.", MaxImportBytes)}
	}
	groups, skipped, err := parse(data)
	if err != nil {
		return nil, err
	}
	existing, err := importedEvents(ctx, api, accountID, calendarID)
	if err != nil {
		return nil, err
	}
	res := &ImportResult{Errors: skipped}
	im := &importer{ctx: ctx, api: api, accountID: accountID, calendarID: calendarID, res: res}
	for _, g := range groups {
		if err := im.series(g, existing[g.uid]); err != nil {
			return nil, err
		}
	}
	if res.Errors == nil {
		res.Errors = []ImportError{}
	}
	return res, nil
}

// parse reads the body into the VEVENTs of each UID, in file order, and
// the components it does not import.
func parse(data []byte) ([]*series, []ImportError, error) {
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("BEGIN:VCALENDAR")) {
		return nil, nil, unical.FieldError("body", "The body is not an iCalendar object (RFC 5545): it must begin with BEGIN:VCALENDAR.")
	}
	cal, err := icalmap.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, nil, &unical.Error{Code: unical.CodeInvalid, Field: "body", Message: "The body is not a valid iCalendar object: " + plain(err), Err: err}
	}
	zones := icalmap.Zones(cal)
	byUID := map[string]*series{}
	var order []*series
	var skipped []ImportError
	n := 0
	for _, comp := range cal.Children {
		switch comp.Name {
		case ical.CompTimezone:
			continue
		case ical.CompEvent:
		default:
			uid, _ := comp.Props.Text(ical.PropUID)
			skipped = append(skipped, ImportError{UID: uid, Property: comp.Name, Message: comp.Name + " components are not imported; only VEVENT is."})
			continue
		}
		if n++; n > MaxImportEvents {
			return nil, nil, unical.FieldError("body", "An import holds at most %d VEVENT components; split the file.", MaxImportEvents)
		}
		uid, _ := comp.Props.Text(ical.PropUID)
		if strings.TrimSpace(uid) == "" {
			return nil, nil, unical.FieldError(ical.PropUID, "VEVENT number %d has no UID.", n)
		}
		ev, err := icalmap.ToEvent(comp, &icalmap.Options{Zones: zones})
		if err != nil {
			return nil, nil, componentError(uid, err)
		}
		g := byUID[uid]
		if g == nil {
			g = &series{uid: uid}
			byUID[uid] = g
			order = append(order, g)
		}
		switch {
		case ev.OriginalStart != nil:
			g.overrides = append(g.overrides, &parsed{ev: ev})
		case g.master != nil:
			return nil, nil, unical.FieldError(ical.PropUID, "Two VEVENTs without RECURRENCE-ID share the UID %q.", uid)
		default:
			g.master = &parsed{ev: ev}
		}
	}
	for _, g := range order {
		switch {
		case g.master == nil:
			return nil, nil, unical.FieldError(ical.PropRecurrenceID, "The event with UID %q changes occurrences (RECURRENCE-ID) of a series the file does not hold.", g.uid)
		case len(g.overrides) > 0 && !g.master.ev.IsRecurring:
			return nil, nil, unical.FieldError(ical.PropRecurrenceID, "The event with UID %q has RECURRENCE-ID components but no RRULE or RDATE.", g.uid)
		}
	}
	return order, skipped, nil
}

// propertyInError finds the property icalmap names in an error
// ("icalmap: DTSTART: ...").
var propertyInError = regexp.MustCompile(`icalmap: ([A-Z][A-Z-]*)\b`)

// componentError is the 400 for a VEVENT that cannot be mapped, naming
// the property and, in its message, the UID.
func componentError(uid string, err error) error {
	prop := "VEVENT"
	if m := propertyInError.FindStringSubmatch(err.Error()); m != nil {
		prop = m[1]
	}
	return &unical.Error{Code: unical.CodeInvalid, Field: prop,
		Message: fmt.Sprintf("The event with UID %q cannot be imported: %s", uid, plain(err)), Err: err}
}

// plain is an error's text without the package prefixes.
func plain(err error) string {
	return strings.ReplaceAll(err.Error(), "icalmap: ", "")
}

// importedEvents maps each UID the calendar's series and single events
// answer to: their iCalendar UID and the UID an earlier import recorded.
func importedEvents(ctx context.Context, api unical.API, accountID, calendarID string) (map[string]*unical.Event, error) {
	out := map[string]*unical.Event{}
	n := 0
	for e, err := range unical.AllEvents(ctx, api, accountID, calendarID, &unical.EventListParams{Limit: unical.MaxPageSize}, nil) {
		if err != nil {
			return nil, err
		}
		if n++; n > MaxExportEvents {
			return nil, unical.FieldError("calendarId", "Imports go into calendars of at most %d events.", MaxExportEvents)
		}
		if e.RecurringEventID != "" || e.IsCancelled {
			continue
		}
		if e.ICalUID != "" {
			if _, taken := out[e.ICalUID]; !taken {
				out[e.ICalUID] = e
			}
		}
		if uid := e.PrivateExtendedProperties[ImportUIDKey]; uid != "" {
			out[uid] = e // an earlier import's record wins
		}
	}
	return out, nil
}

// importer writes the series of one import.
type importer struct {
	ctx                   context.Context
	api                   unical.API
	accountID, calendarID string
	res                   *ImportResult
}

// counts are what one series' components did.
type counts struct{ created, updated, unchanged int }

// series imports one UID's components. It returns an error only for a
// failure that stops the import; a refused component is recorded.
func (im *importer) series(g *series, have *unical.Event) error {
	var c counts
	ev := g.master.ev
	created := false
	var id string
	switch {
	case ev.IsCancelled && have == nil:
		c.unchanged++
	case ev.IsCancelled:
		if _, err := im.api.DeleteEvent(im.ctx, im.accountID, im.calendarID, have.ID); err != nil {
			return im.refused(g.uid, err, "")
		}
		c.updated++
	case have == nil:
		e, err := im.api.CreateEvent(im.ctx, im.accountID, im.calendarID, seriesParams(ev, g.uid))
		if err != nil {
			return im.refused(g.uid, err, "")
		}
		id, created = e.ID, true
		c.created++
	case sameSeries(have, ev, g.uid):
		id = have.ID
		c.unchanged++
	default:
		if _, err := im.api.UpdateEvent(im.ctx, im.accountID, im.calendarID, have.ID, seriesParams(ev, g.uid)); err != nil {
			return im.refused(g.uid, err, "")
		}
		id = have.ID
		c.updated++
	}
	if id != "" && len(g.overrides) > 0 {
		occ := &occurrences{im: im, seriesID: id, allDay: ev.IsAllDay, seen: map[string]*unical.Event{}}
		for _, o := range g.overrides {
			what, err := im.override(occ, o.ev)
			if err != nil {
				if created {
					// Nothing of a refused component is written: the series
					// created for it goes again.
					if _, derr := im.api.DeleteEvent(im.ctx, im.accountID, im.calendarID, id); derr != nil {
						return derr
					}
					c = counts{}
				}
				im.res.Created += c.created
				im.res.Updated += c.updated
				im.res.Unchanged += c.unchanged
				return im.refused(g.uid, err, ical.PropRecurrenceID)
			}
			switch {
			case what == unchanged:
				c.unchanged++
			case created:
				c.created++
			default:
				c.updated++
			}
		}
	}
	im.res.Created += c.created
	im.res.Updated += c.updated
	im.res.Unchanged += c.unchanged
	return nil
}

type outcome int

const (
	unchanged outcome = iota
	written
)

// override applies one RECURRENCE-ID component to its occurrence.
func (im *importer) override(occ *occurrences, ev *unical.Event) (outcome, error) {
	have, err := occ.find(ev.OriginalStart)
	if err != nil {
		return 0, err
	}
	if ev.IsCancelled {
		if have == nil || have.IsCancelled {
			return unchanged, nil
		}
		if _, err := im.api.DeleteEvent(im.ctx, im.accountID, im.calendarID, have.ID); err != nil {
			return 0, err
		}
		return written, nil
	}
	if have == nil {
		return 0, unical.FieldError(ical.PropRecurrenceID, "The series has no occurrence at %s.", describe(ev.OriginalStart))
	}
	if sameCommon(have, ev) {
		return unchanged, nil
	}
	if _, err := im.api.UpdateEvent(im.ctx, im.accountID, im.calendarID, have.ID, commonParams(ev)); err != nil {
		return 0, err
	}
	return written, nil
}

// refused records a component the provider refused, or returns err when
// it is not the component's fault.
func (im *importer) refused(uid string, err error, fallback string) error {
	var ue *unical.Error
	if !errors.As(err, &ue) {
		return err
	}
	switch ue.Code {
	case unical.CodeInvalid, unical.CodeConflict, unical.CodePrecondition, unical.CodeNotImplemented, unical.CodeTooLarge:
	default:
		return err
	}
	prop := propertyOfField(ue.Field)
	if prop == "" {
		prop = fallback
	}
	im.res.Errors = append(im.res.Errors, ImportError{UID: uid, Property: prop, Message: ue.Message})
	return nil
}

// propertyOfField names the iCalendar property of an event field.
func propertyOfField(field string) string {
	head := field
	if i := strings.IndexAny(field, ".["); i >= 0 {
		head = field[:i]
	}
	switch head {
	case "title":
		return ical.PropSummary
	case "description":
		return ical.PropDescription
	case "location":
		return ical.PropLocation
	case "start", "isAllDay":
		return ical.PropDateTimeStart
	case "end":
		return ical.PropDateTimeEnd
	case "recurrence", "isRecurring":
		return "RRULE"
	case "originalStart":
		return ical.PropRecurrenceID
	case "visibility":
		return ical.PropClass
	case "transparency":
		return ical.PropTransparency
	case "privateExtendedProperties":
		return icalmap.PropPrivate
	case "publicExtendedProperties":
		return icalmap.PropPublic
	}
	return ""
}

// occurrences finds the occurrences of one series by original start,
// listing a window around each one asked for once.
type occurrences struct {
	im       *importer
	seriesID string
	allDay   bool
	seen     map[string]*unical.Event
	listed   [][2]time.Time
}

func (o *occurrences) find(orig *unical.EventDateTime) (*unical.Event, error) {
	key, at, err := originalKey(orig, o.allDay)
	if err != nil {
		return nil, err
	}
	if e, ok := o.seen[key]; ok {
		return e, nil
	}
	for _, w := range o.listed {
		if !at.Before(w[0].Add(occurrenceWindow/2)) && at.Before(w[1].Add(-occurrenceWindow/2)) {
			return nil, nil // listed well around it: no such occurrence
		}
	}
	w := [2]time.Time{at.Add(-occurrenceWindow), at.Add(occurrenceWindow)}
	o.listed = append(o.listed, w)
	params := &unical.OccurrenceListParams{Start: w[0], End: w[1], Limit: unical.MaxPageSize}
	for e, err := range unical.AllOccurrences(o.im.ctx, o.im.api, o.im.accountID, o.im.calendarID, o.seriesID, params, nil) {
		if err != nil {
			return nil, err
		}
		if e.OriginalStart == nil {
			continue
		}
		if k, _, err := originalKey(e.OriginalStart, o.allDay); err == nil {
			o.seen[k] = e
		}
	}
	return o.seen[key], nil
}

// originalKey identifies an original start: the day of an all-day series,
// else the instant.
func originalKey(d *unical.EventDateTime, allDay bool) (string, time.Time, error) {
	if allDay {
		t, err := d.Day("originalStart")
		return t.Format(unical.DateLayout), t, err
	}
	t, err := d.Time("originalStart")
	return t.UTC().Format(time.RFC3339), t, err
}

func describe(d *unical.EventDateTime) string {
	if d.Date != "" {
		return d.Date
	}
	return d.DateTime
}

// seriesParams are the fields an import writes for a series or single
// event.
func seriesParams(ev *unical.Event, uid string) *unical.EventParams {
	p := commonParams(ev)
	p.Recurrence = unical.Some(nonNil(ev.Recurrence))
	p.PublicExtendedProperties = unical.Some(nonNilMap(ev.PublicExtendedProperties))
	p.PrivateExtendedProperties = unical.Some(withUID(ev.PrivateExtendedProperties, uid))
	return p
}

// commonParams are the fields an import writes for every component,
// overrides included.
func commonParams(ev *unical.Event) *unical.EventParams {
	p := &unical.EventParams{
		Title:        unical.Some(ev.Title),
		Description:  unical.Some(ev.Description),
		Location:     unical.Some(ev.Location),
		Start:        unical.Some(*ev.Start),
		IsAllDay:     unical.Some(ev.IsAllDay),
		Transparency: unical.Some(transparency(ev.Transparency)),
		Visibility:   unical.Some(visibility(ev.Visibility)),
	}
	if ev.End != nil {
		p.End = unical.Some(*ev.End)
	}
	return p
}

// sameSeries reports whether have already holds what the file says of a
// series or single event.
func sameSeries(have, ev *unical.Event, uid string) bool {
	return sameCommon(have, ev) &&
		slices.Equal(normalized(have.Recurrence), normalized(ev.Recurrence)) &&
		maps.Equal(nonNilMap(have.PublicExtendedProperties), nonNilMap(ev.PublicExtendedProperties)) &&
		maps.Equal(nonNilMap(have.PrivateExtendedProperties), withUID(ev.PrivateExtendedProperties, uid))
}

// sameCommon compares the fields commonParams writes, times as instants
// (or days, for all-day events), so that a provider showing a time in
// another zone is not a change.
func sameCommon(have, ev *unical.Event) bool {
	return have.Title == ev.Title && have.Description == ev.Description && have.Location == ev.Location &&
		have.IsAllDay == ev.IsAllDay &&
		sameTime(have.Start, ev.Start, ev.IsAllDay) && sameTime(have.End, ev.End, ev.IsAllDay) &&
		transparency(have.Transparency) == transparency(ev.Transparency) &&
		visibility(have.Visibility) == visibility(ev.Visibility)
}

func sameTime(a, b *unical.EventDateTime, allDay bool) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ka, _, erra := originalKey(a, allDay)
	kb, _, errb := originalKey(b, allDay)
	return erra == nil && errb == nil && ka == kb
}

// normalized sorts recurrence lines and upper-cases their names, the
// forms in which providers may give back what was written.
func normalized(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		name, rest, _ := strings.Cut(strings.TrimSpace(l), ":")
		out = append(out, strings.ToUpper(name)+":"+rest)
	}
	slices.Sort(out)
	return out
}

func transparency(t unical.Transparency) unical.Transparency {
	if t == "" {
		return unical.TransparencyOpaque
	}
	return t
}

func visibility(v unical.Visibility) unical.Visibility {
	if v == "" {
		return unical.VisibilityDefault
	}
	return v
}

func withUID(m map[string]string, uid string) map[string]string {
	out := maps.Clone(nonNilMap(m))
	out[ImportUIDKey] = uid
	return out
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
