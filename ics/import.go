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
	"unicode/utf8"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/icalmap"
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
// occurrences of its series are searched for it, when it is not where it
// started or where the file moves it: wide enough for an occurrence moved
// by months, and within the expansion limit.
const occurrenceWindow = 180 * 24 * time.Hour

// maxOccurrenceLookup bounds the occurrences read to find the one an
// override names: a FREQ=SECONDLY series holds 31 million in the search
// window. Past it, the override is refused (and its series with it).
const maxOccurrenceLookup = 2_000

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
	// invalid, when set, refuses the whole UID: one of its components
	// holds text that is not UTF-8.
	invalid *ImportError
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
// naming the property, with the UID in its message.
//
// Otherwise each UID (a series or single event with the overrides of its
// occurrences) is applied whole or not at all: a UID that the provider
// refuses, whose RECURRENCE-ID names no occurrence or cannot be found
// among the first [maxOccurrenceLookup] occurrences around it, or whose
// text is not UTF-8, is listed in ImportResult.Errors, what the import
// wrote for it is undone (a series it created is deleted again, fields it
// changed are written back), and the import goes on with the next UID. A
// failure that is not the UID's (the provider is down, the account
// expired) stops the import with that error after the same undo; the
// UIDs applied before stay, and running the import again completes it.
//
// Attendees and organizers are not imported, so that an import never
// sends invitations; components other than VEVENT (VTODO, VJOURNAL) are
// listed as errors and skipped.
//
// Import is idempotent by UID already; its many writes are made without
// an Idempotency-Key.
func Import(ctx context.Context, api unical.API, accountID, calendarID string, body io.Reader) (*ImportResult, error) {
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
		g := byUID[uid]
		if g == nil {
			g = &series{uid: uid}
			byUID[uid] = g
			order = append(order, g)
		}
		if prop := notUTF8(comp); prop != "" {
			// Refused for its UID alone, before it is mapped: stored, the
			// bytes would come back as U+FFFD.
			if g.invalid == nil {
				g.invalid = &ImportError{UID: strings.ToValidUTF8(uid, "\uFFFD"), Property: prop,
					Message: fmt.Sprintf("The %s of VEVENT number %d is not valid UTF-8.", prop, n)}
			}
			continue
		}
		ev, err := icalmap.ToEvent(comp, &icalmap.Options{Zones: zones})
		if err != nil {
			return nil, nil, componentError(uid, err)
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
		case g.invalid != nil:
		case g.master == nil:
			return nil, nil, unical.FieldError(ical.PropRecurrenceID, "The event with UID %q changes occurrences (RECURRENCE-ID) of a series the file does not hold.", g.uid)
		case len(g.overrides) > 0 && !g.master.ev.IsRecurring:
			return nil, nil, unical.FieldError(ical.PropRecurrenceID, "The event with UID %q has RECURRENCE-ID components but no RRULE or RDATE.", g.uid)
		}
	}
	return order, skipped, nil
}

// notUTF8 returns the name of the first property of comp, or of a
// component inside it, whose value or parameters are not valid UTF-8, or
// "" when all are.
func notUTF8(comp *ical.Component) string {
	for _, name := range slices.Sorted(maps.Keys(comp.Props)) {
		for _, p := range comp.Props[name] {
			if !utf8.ValidString(p.Value) {
				return name
			}
			for _, values := range p.Params {
				for _, v := range values {
					if !utf8.ValidString(v) {
						return name
					}
				}
			}
		}
	}
	for _, child := range comp.Children {
		if name := notUTF8(child); name != "" {
			return name
		}
	}
	return ""
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

// series imports one UID's components, whole or not at all. It returns an
// error only for a failure that stops the import; a refused UID is
// recorded. Either way, what it wrote for a UID that failed is undone.
func (im *importer) series(g *series, have *unical.Event) error {
	if g.invalid != nil {
		im.res.Errors = append(im.res.Errors, *g.invalid)
		return nil
	}
	var undo []undoFunc
	c, prop, err := im.apply(g, have, &undo)
	if err != nil {
		// Undone last write first, with a context of its own: the
		// request's may be what ended.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(im.ctx), undoTimeout)
		defer cancel()
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](ctx); uerr != nil {
				return uerr // what is left is partial: the import stops
			}
		}
		return im.refused(g.uid, err, prop)
	}
	im.res.Created += c.created
	im.res.Updated += c.updated
	im.res.Unchanged += c.unchanged
	return nil
}

// apply writes one UID's components, appending to undo what puts back
// each write. On error, prop is the property to name when the error does
// not name one.
func (im *importer) apply(g *series, have *unical.Event, undo *[]undoFunc) (c counts, prop string, err error) {
	ev := g.master.ev
	created := false
	var id string
	switch {
	case ev.IsCancelled && have == nil:
		c.unchanged++
	case ev.IsCancelled:
		// A deletion cannot be undone, so it is the UID's only write.
		if _, err := im.api.DeleteEvent(im.ctx, im.accountID, im.calendarID, have.ID); err != nil {
			return c, "", err
		}
		c.updated++
	case have == nil:
		e, err := im.api.CreateEvent(im.ctx, im.accountID, im.calendarID, seriesParams(ev, g.uid))
		if err != nil {
			return c, "", err
		}
		id, created = e.ID, true
		*undo = append(*undo, im.deleteAgain(id))
		c.created++
	case sameSeries(have, ev, g.uid):
		id = have.ID
		c.unchanged++
	default:
		if _, err := im.api.UpdateEvent(im.ctx, im.accountID, im.calendarID, have.ID, seriesParams(ev, g.uid)); err != nil {
			return c, "", err
		}
		*undo = append(*undo, im.writeBack(have.ID, restoreSeries(have)))
		id = have.ID
		c.updated++
	}
	if id == "" || len(g.overrides) == 0 {
		return c, "", nil
	}
	occ := &occurrences{im: im, seriesID: id, allDay: ev.IsAllDay, seen: map[string]*unical.Event{}}
	// Cancellations go last: a deleted occurrence cannot be written back,
	// so they wait until every change that can fail has been made.
	ordered := slices.Clone(g.overrides)
	slices.SortStableFunc(ordered, func(a, b *parsed) int {
		switch {
		case a.ev.IsCancelled == b.ev.IsCancelled:
			return 0
		case b.ev.IsCancelled:
			return -1
		}
		return 1
	})
	for _, o := range ordered {
		what, err := im.override(occ, o.ev, undo)
		if err != nil {
			return c, ical.PropRecurrenceID, err
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
	return c, "", nil
}

// undoFunc puts back one write of a UID that failed.
type undoFunc func(ctx context.Context) error

// undoTimeout bounds the undoing of one UID.
const undoTimeout = time.Minute

// deleteAgain undoes the creation of a series.
func (im *importer) deleteAgain(id string) undoFunc {
	return func(ctx context.Context) error {
		_, err := im.api.DeleteEvent(ctx, im.accountID, im.calendarID, id)
		return err
	}
}

// writeBack undoes an update of an event by writing its former fields.
func (im *importer) writeBack(id string, params *unical.EventParams) undoFunc {
	return func(ctx context.Context) error {
		_, err := im.api.UpdateEvent(ctx, im.accountID, im.calendarID, id, params)
		return err
	}
}

// restoreSeries are the fields seriesParams writes, as have holds them.
func restoreSeries(have *unical.Event) *unical.EventParams {
	p := commonParams(have)
	p.Recurrence = unical.Some(nonNil(have.Recurrence))
	p.PublicExtendedProperties = unical.Some(nonNilMap(have.PublicExtendedProperties))
	p.PrivateExtendedProperties = unical.Some(nonNilMap(have.PrivateExtendedProperties))
	return p
}

type outcome int

const (
	unchanged outcome = iota
	written
)

// override applies one RECURRENCE-ID component to its occurrence,
// appending to undo what puts a change back.
func (im *importer) override(occ *occurrences, ev *unical.Event, undo *[]undoFunc) (outcome, error) {
	have, err := occ.find(ev.OriginalStart, ev.Start)
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
	*undo = append(*undo, im.writeBack(have.ID, commonParams(have)))
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

// occurrences finds the occurrences of one series by original start.
// It reads few of them: an occurrence is looked for where it started and
// where the file moves it (a second import of the same file finds it
// there), and only then in a wide window around its original start; at
// most maxOccurrenceLookup occurrences per lookup, so that a
// FREQ=SECONDLY series costs no more than a weekly one.
type occurrences struct {
	im       *importer
	seriesID string
	allDay   bool
	seen     map[string]*unical.Event
	listed   [][2]time.Time // wide windows read to their end
}

// find returns the occurrence whose original start is orig, nil when the
// series has none, or a CodeInvalid error naming RECURRENCE-ID when it
// cannot be found within the lookup bound. moved is where the file puts
// the occurrence (nil for a cancellation).
func (o *occurrences) find(orig, moved *unical.EventDateTime) (*unical.Event, error) {
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
	step := time.Second
	if o.allDay {
		step = 24 * time.Hour
	}
	windows := [][2]time.Time{{at, at.Add(step)}}
	if moved != nil {
		if _, to, err := originalKey(moved, o.allDay); err == nil && !to.Equal(at) {
			windows = append(windows, [2]time.Time{to, to.Add(step)})
		}
	}
	wide := [2]time.Time{at.Add(-occurrenceWindow), at.Add(occurrenceWindow)}
	windows = append(windows, wide)
	budget := maxOccurrenceLookup
	for _, w := range windows {
		found, err := o.list(w, key, &budget)
		if err != nil {
			return nil, err
		}
		if found != nil {
			return found, nil
		}
	}
	o.listed = append(o.listed, wide)
	return nil, nil
}

// list reads the occurrences of window w until the one with key, taking
// each from budget; CodeInvalid naming RECURRENCE-ID when the budget runs
// out first.
func (o *occurrences) list(w [2]time.Time, key string, budget *int) (*unical.Event, error) {
	params := &unical.OccurrenceListParams{Start: w[0], End: w[1], Limit: unical.MaxPageSize}
	for e, err := range unical.AllOccurrences(o.im.ctx, o.im.api, o.im.accountID, o.im.calendarID, o.seriesID, params, nil) {
		if err != nil {
			return nil, err
		}
		if *budget == 0 {
			return nil, unical.FieldError(ical.PropRecurrenceID, "The series has too many occurrences to find the one at %s among them (more than %d around it).", key, maxOccurrenceLookup)
		}
		*budget--
		if e.OriginalStart == nil {
			continue
		}
		k, _, err := originalKey(e.OriginalStart, o.allDay)
		if err != nil {
			continue
		}
		o.seen[k] = e
		if k == key {
			return e, nil
		}
	}
	return nil, nil
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
