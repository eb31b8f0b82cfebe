package series

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
)

// splitWindow is how far from the split exceptions are looked for, on each
// side: an occurrences listing with a day of margin on both ends, within
// unical.MaxExpandWindow.
const splitWindow = unical.MaxExpandWindow - 2*24*time.Hour

// split is one "this and following" write in progress.
type split struct {
	app                   *unical.App
	p                     unical.Provider
	s                     *unical.Session
	accountID, calendarID string
	master                *unical.Event
	allDay                bool
	start                 time.Time     // series start (date label when all-day)
	at                    time.Time     // original start of the occurrence split at
	dur                   time.Duration // series duration
	first                 bool          // at is the series start: the whole series
	before                []string      // recurrence of the old part

	// What read found: the exceptions of the series after the split and
	// in the year before it, by original start.
	afterExc, beforeExc []exception
	afterOccs           map[int64]*unical.Event // the series' occurrences after the split

	// oldChanged is set once endSeries changed the old series: a failure
	// after that keeps the new series, which then holds the moved
	// overrides.
	oldChanged bool
}

// exception is an overridden or cancelled occurrence.
type exception struct {
	orig      time.Time
	cancelled bool
	changes   *unical.EventParams // the fields the override changed; start and end only when it moved
}

// planSplit reads the occurrence and its series and computes the two
// recurrences; it writes nothing. One If-Match cannot condition two series.
func planSplit(ctx context.Context, app *unical.App, accountID, calendarID, eventID string, o unical.WriteOptions) (*split, error) {
	if o.IfMatch != "" {
		return nil, unical.FieldError("If-Match", "If-Match cannot condition a scope=thisAndFollowing write, which changes two series.")
	}
	_, p, s, err := app.WriteSession(ctx, accountID, o)
	if err != nil {
		return nil, err
	}
	occ, err := p.GetEvent(ctx, s, calendarID, eventID)
	if err != nil {
		return nil, app.ProviderFailed(ctx, accountID, err)
	}
	if occ.RecurringEventID == "" || occ.OriginalStart == nil {
		return nil, unical.FieldError("scope", "scope thisAndFollowing needs the id of an occurrence of a recurring series (see the occurrences listing); %q is not one.", eventID)
	}
	master, err := p.GetEvent(ctx, s, calendarID, occ.RecurringEventID)
	if err != nil {
		return nil, app.ProviderFailed(ctx, accountID, err)
	}
	sp := &split{app: app, p: p, s: s, accountID: accountID, calendarID: calendarID, master: master, allDay: master.IsAllDay}
	if sp.start, err = seriesStart(master.Start, sp.allDay, "start"); err != nil {
		return nil, unical.WrapError(unical.CodeUpstream, err, "The provider returned a series %q whose start cannot be read.", master.ID)
	}
	end := sp.start
	if master.End != nil {
		if end, err = seriesStart(master.End, sp.allDay, "end"); err != nil {
			return nil, unical.WrapError(unical.CodeUpstream, err, "The provider returned a series %q whose end cannot be read.", master.ID)
		}
	} else if sp.allDay {
		end = sp.start.AddDate(0, 0, 1)
	}
	sp.dur = end.Sub(sp.start)
	if sp.at, err = seriesStart(occ.OriginalStart, sp.allDay, "originalStart"); err != nil {
		return nil, unical.WrapError(unical.CodeUpstream, err, "The provider returned an occurrence %q whose original start cannot be read.", eventID)
	}
	if !sp.at.After(sp.start) {
		sp.first = true
		return sp, nil
	}
	if sp.before, _, err = unical.SplitRecurrence(master.Recurrence, sp.start, sp.allDay, sp.at, 0); err != nil {
		return nil, unical.WrapError(unical.CodeUpstream, err, "The recurrence of series %q cannot be split.", master.ID)
	}
	return sp, nil
}

// newSeriesParams returns what creates the new series: the series' fields,
// starting at the occurrence's slot, with params applied; and how far the
// new series moved from the old slots.
func (sp *split) newSeriesParams(params *unical.EventParams) (*unical.EventParams, time.Duration, error) {
	m := sp.master
	create := &unical.EventParams{
		Title: unical.Some(m.Title), IsAllDay: unical.Some(m.IsAllDay),
		Visibility: unical.Some(m.Visibility), Transparency: unical.Some(m.Transparency),
	}
	optString := func(v string) unical.Optional[string] {
		if v == "" {
			return unical.Optional[string]{}
		}
		return unical.Some(v)
	}
	create.Description, create.Location = optString(m.Description), optString(m.Location)
	if m.Visibility == "" {
		create.Visibility = unical.Optional[unical.Visibility]{}
	}
	if m.Transparency == "" {
		create.Transparency = unical.Optional[unical.Transparency]{}
	}
	if len(m.Attendees) > 0 {
		create.Attendees = unical.Some(m.Attendees)
	}
	if len(m.PublicExtendedProperties) > 0 {
		create.PublicExtendedProperties = unical.Some(m.PublicExtendedProperties)
	}
	if len(m.PrivateExtendedProperties) > 0 {
		create.PrivateExtendedProperties = unical.Some(m.PrivateExtendedProperties)
	}
	if m.Reminders != nil {
		create.Reminders = unical.Some(*m.Reminders)
	}
	slot := sp.eventTime(sp.at)
	create.Start = unical.Some(*slot)
	create.End = unical.Some(*sp.eventTime(sp.at.Add(sp.dur)))

	// The request's fields win; the derived ones say nothing about the new
	// series.
	dst, src := reflect.ValueOf(create).Elem(), reflect.ValueOf(params).Elem()
	for i := range src.NumField() {
		if src.Field(i).Interface().(interface{ IsSet() bool }).IsSet() {
			dst.Field(i).Set(src.Field(i))
		}
	}
	create.IsRecurring, create.IsException, create.IsCancelled = unical.Optional[bool]{}, unical.Optional[bool]{}, unical.Optional[bool]{}
	create.OriginalStart, create.RecurringEventID = unical.Optional[unical.EventDateTime]{}, unical.Optional[string]{}
	create.WebLink, create.Creator = unical.Optional[string]{}, unical.Optional[unical.Creator]{}

	allDay := create.IsAllDay.Value()
	if allDay != sp.allDay && !params.Start.IsSet() {
		return nil, 0, unical.FieldError("start", "Changing isAllDay of the following occurrences needs a start for the new series.")
	}
	if params.Start.IsSet() && !params.End.IsSet() {
		v := create.Start.Value()
		ns, err := seriesStart(&v, allDay, "start")
		if err != nil {
			return nil, 0, err
		}
		if allDay == sp.allDay {
			create.End = unical.Some(*sp.eventTimeAllDay(ns.Add(sp.dur), allDay, v.TimeZone))
		} else {
			create.End = unical.Optional[unical.EventDateTime]{}
		}
	}
	v := create.Start.Value()
	newStart, err := seriesStart(&v, allDay, "start")
	if err != nil {
		return nil, 0, err
	}
	shift := time.Duration(0)
	if allDay == sp.allDay {
		if shift = newStart.Sub(sp.at); !sp.at.Add(shift).Equal(newStart) {
			// Sub stops at the largest Duration, about 292 years.
			return nil, 0, unical.FieldError("start", "The following occurrences can move by at most 292 years.")
		}
	}
	if !params.Recurrence.IsSet() {
		_, after, err := unical.SplitRecurrence(sp.master.Recurrence, sp.start, sp.allDay, sp.at, shift)
		if err != nil {
			return nil, 0, unical.WrapError(unical.CodeUpstream, err, "The recurrence of series %q cannot be split.", sp.master.ID)
		}
		// Cancelled occurrences move one by one (Graph has no EXDATE).
		after = slices.DeleteFunc(after, isExdate)
		create.Recurrence = unical.Some(after)
	}
	if err := create.Validate(true, nil); err != nil {
		return nil, 0, err
	}
	return create, shift, nil
}

func isExdate(line string) bool {
	return len(line) >= 6 && strings.EqualFold(line[:6], "EXDATE")
}

// eventTime returns t as an event time of the series.
func (sp *split) eventTime(t time.Time) *unical.EventDateTime {
	return sp.eventTimeAllDay(t, sp.allDay, sp.master.Start.TimeZone)
}

func (sp *split) eventTimeAllDay(t time.Time, allDay bool, zone string) *unical.EventDateTime {
	if allDay {
		return unical.AllDayOn(t)
	}
	if zone != "" {
		if loc, err := unical.LoadLocation(zone); err == nil {
			t = t.In(loc)
		}
	}
	return unical.TimedAt(t)
}

// read finds the exceptions of the series after the split and, with
// before (to make again those the provider drops), in the year before it,
// by comparing the provider's occurrences with those the series' own rule
// makes.
func (sp *split) read(ctx context.Context, before bool) error {
	var err error
	if sp.afterExc, sp.afterOccs, err = sp.exceptions(ctx, sp.master.ID, sp.at, sp.at.Add(splitWindow)); err != nil || !before {
		return err
	}
	from := sp.at.Add(-splitWindow)
	if from.Before(sp.start) {
		from = sp.start
	}
	sp.beforeExc, _, err = sp.exceptions(ctx, sp.master.ID, from, sp.at)
	return err
}

// occurrences lists the occurrences of series id starting in [from, to),
// by original start.
func (sp *split) occurrences(ctx context.Context, seriesID string, from, to time.Time) (map[int64]*unical.Event, error) {
	out := map[int64]*unical.Event{}
	// A day of margin: the listing keeps occurrences that overlap the
	// window, and all-day labels are read in the account's zone.
	params := &unical.OccurrenceListParams{Start: from.Add(-24 * time.Hour), End: to.Add(24 * time.Hour), Limit: unical.MaxPageSize}
	for e, err := range unical.AllOccurrences(ctx, sp.app, sp.accountID, sp.calendarID, seriesID, params, nil) {
		if err != nil {
			return nil, err
		}
		if e.OriginalStart == nil {
			continue
		}
		orig, err := seriesStart(e.OriginalStart, sp.allDay, "originalStart")
		if err != nil || orig.Before(from) || !orig.Before(to) {
			continue
		}
		out[orig.Unix()] = e
	}
	return out, nil
}

// exceptions returns the overridden and cancelled occurrences of the series
// that originally start in [from, to), the split occurrence left out.
func (sp *split) exceptions(ctx context.Context, seriesID string, from, to time.Time) ([]exception, map[int64]*unical.Event, error) {
	actual, err := sp.occurrences(ctx, seriesID, from, to)
	if err != nil {
		return nil, nil, err
	}
	// What the series makes on its own: its rules without exclusions.
	bare := *sp.master
	bare.Recurrence = slices.DeleteFunc(slices.Clone(sp.master.Recurrence), isExdate)
	made, err := unical.ExpandEvents([]*unical.Event{&bare}, from.Add(-sp.dur), to)
	if err != nil {
		return nil, nil, err
	}
	var out []exception
	for _, m := range made {
		orig, err := seriesStart(m.OriginalStart, sp.allDay, "originalStart")
		if err != nil || orig.Before(from) || !orig.Before(to) || orig.Equal(sp.at) {
			continue
		}
		got, ok := actual[orig.Unix()]
		if !ok {
			out = append(out, exception{orig: orig, cancelled: true})
			continue
		}
		if ch := changes(m, got, sp.allDay); ch != nil {
			out = append(out, exception{orig: orig, changes: ch})
		}
	}
	return out, actual, nil
}

// changes returns the fields in which an occurrence differs from its slot
// in the series, or nil when it does not. Start and end are among them
// only when the occurrence moved: one that did not follows its series.
func changes(slot, got *unical.Event, allDay bool) *unical.EventParams {
	var p unical.EventParams
	differs := false
	str := func(dst *unical.Optional[string], a, b string) {
		if a != b {
			*dst, differs = unical.Some(b), true
		}
	}
	str(&p.Title, slot.Title, got.Title)
	str(&p.Description, slot.Description, got.Description)
	str(&p.Location, slot.Location, got.Location)
	if got.Visibility != slot.Visibility && got.Visibility != "" {
		p.Visibility, differs = unical.Some(got.Visibility), true
	}
	if got.Transparency != slot.Transparency && got.Transparency != "" {
		p.Transparency, differs = unical.Some(got.Transparency), true
	}
	if !slices.EqualFunc(slot.Attendees, got.Attendees, attendeeAlike) {
		p.Attendees, differs = unical.Some(got.Attendees), true
	}
	if !maps.Equal(slot.PublicExtendedProperties, got.PublicExtendedProperties) {
		p.PublicExtendedProperties, differs = unical.Some(got.PublicExtendedProperties), true
	}
	if !maps.Equal(slot.PrivateExtendedProperties, got.PrivateExtendedProperties) {
		p.PrivateExtendedProperties, differs = unical.Some(got.PrivateExtendedProperties), true
	}
	moved := !sameTime(slot.Start, got.Start, allDay) || !sameTime(slot.End, got.End, allDay)
	if moved {
		differs = true
		if got.Start != nil {
			p.Start = unical.Some(*got.Start)
		}
		if got.End != nil {
			p.End = unical.Some(*got.End)
		}
	}
	if !differs {
		return nil
	}
	return &p
}

// attendeeAlike compares guests by address and answer, the parts an
// override changes; providers differ in the ids and names they fill in.
func attendeeAlike(a, b unical.Attendee) bool {
	return a.Email == b.Email && a.ResponseStatus == b.ResponseStatus && a.Optional == b.Optional
}

func sameTime(a, b *unical.EventDateTime, allDay bool) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, err1 := seriesStart(a, allDay, "")
	tb, err2 := seriesStart(b, allDay, "")
	return err1 == nil && err2 == nil && ta.Equal(tb)
}

// request is the split for a [unical.SeriesSplitter]: create is nil for a
// delete.
func (sp *split) request(create *unical.EventParams, shift time.Duration) *unical.SeriesSplit {
	req := &unical.SeriesSplit{SeriesID: sp.master.ID, At: sp.at, AllDay: sp.allDay, Before: sp.before, New: create, Shift: shift}
	if create != nil {
		for _, ex := range sp.afterExc {
			req.Exceptions = append(req.Exceptions, unical.SplitException{OriginalStart: ex.orig, Cancelled: ex.cancelled, Changes: ex.changes})
		}
	}
	return req
}

// moveExceptions gives the new series the exceptions found after the
// split: cancelled occurrences are deleted, overrides are written onto the
// occurrence at the same place in the new series. An override that did not
// move follows the new series' times; one that moved keeps its own.
func (sp *split) moveExceptions(ctx context.Context, created *unical.Event, shift time.Duration) error {
	if len(sp.afterExc) == 0 || !created.IsRecurring {
		return nil
	}
	newStart := sp.at.Add(shift)
	occs, err := sp.occurrences(ctx, created.ID, newStart, newStart.Add(splitWindow))
	if err != nil {
		return err
	}
	for _, ex := range sp.afterExc {
		occ, ok := occs[ex.orig.Add(shift).Unix()]
		if !ok {
			continue // the new rule makes no such occurrence
		}
		if ex.cancelled {
			err = sp.p.DeleteEvent(ctx, sp.s, sp.calendarID, occ.ID)
		} else {
			_, err = sp.p.UpdateEvent(ctx, sp.s, sp.calendarID, occ.ID, ex.changes)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// endSeries ends the old series before the split: its overrides from the
// split on are deleted (so that no orphaned override outlives the rule),
// its recurrence is cut, and the exceptions before the split that the
// provider dropped with the recurrence change are made again: Exchange,
// behind Graph, removes every exception of a series whose recurrence
// changes ([MS-OXOCAL] §3.1.4.7.3.5, "Updating a Recurring Series"; Outlook
// warns "Any exceptions associated with this recurring appointment will be
// cancelled"), and internal/testkit/graphtest does the same.
func (sp *split) endSeries(ctx context.Context) error {
	for _, ex := range sp.afterExc {
		occ, ok := sp.afterOccs[ex.orig.Unix()]
		if ex.cancelled || !ok {
			continue
		}
		if err := sp.p.DeleteEvent(ctx, sp.s, sp.calendarID, occ.ID); err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
			return err
		}
		sp.oldChanged = true
	}
	if _, err := sp.p.UpdateEvent(ctx, sp.s, sp.calendarID, sp.master.ID, &unical.EventParams{Recurrence: unical.Some(sp.before)}); err != nil {
		return err
	}
	if len(sp.beforeExc) == 0 {
		return nil
	}
	from := sp.at.Add(-splitWindow)
	if from.Before(sp.start) {
		from = sp.start
	}
	now, err := sp.occurrences(ctx, sp.master.ID, from, sp.at)
	if err != nil {
		return err
	}
	for _, ex := range sp.beforeExc {
		occ, ok := now[ex.orig.Unix()]
		switch {
		case ex.cancelled && ok:
			err = sp.p.DeleteEvent(ctx, sp.s, sp.calendarID, occ.ID)
		case !ex.cancelled && ok:
			if changes(sp.slot(ex.orig), occ, sp.allDay) == nil {
				_, err = sp.p.UpdateEvent(ctx, sp.s, sp.calendarID, occ.ID, ex.changes)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// slot returns the occurrence the series itself makes at orig.
func (sp *split) slot(orig time.Time) *unical.Event {
	e := *sp.master
	e.Start, e.End = sp.eventTime(orig), sp.eventTime(orig.Add(sp.dur))
	return &e
}

// seriesStart returns the DTSTART of a series as the recurrence engine
// wants it, as the root's expansion reads it: an instant in the series
// zone, or a date label for all-day series.
func seriesStart(d *unical.EventDateTime, allDay bool, field string) (time.Time, error) {
	if allDay {
		return d.Day(field)
	}
	return d.Time(field)
}
