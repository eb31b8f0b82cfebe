package unical

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// EditScope says which occurrences of a recurring series a write on one
// occurrence changes (the scope query parameter of PUT and DELETE on an
// event).
type EditScope string

// The edit scopes.
const (
	// ScopeThis changes the one event or occurrence the id names (the
	// default).
	ScopeThis EditScope = "this"
	// ScopeThisAndFollowing changes an occurrence and every later one: the
	// series ends before it and, for an update, a new series starts there.
	ScopeThisAndFollowing EditScope = "thisAndFollowing"
)

// EditScopes lists the accepted scope values.
var EditScopes = []string{string(ScopeThis), string(ScopeThisAndFollowing)}

// UpdateEventWithScope is [App.UpdateEvent] with an edit scope. With
// ScopeThisAndFollowing, eventID must name an occurrence: the series ends
// before it (see [SplitRecurrence]) and a new series starts at it, made of
// the series' fields with params applied; the answer is the new series.
// Overridden and cancelled occurrences from the split on (within 364 days
// of it) move to the new series: an override keeps what it
// changed, and its own times when it had moved; cancelled occurrences stay
// cancelled. Splitting at the first occurrence updates the whole series.
//
// HTTP: PUT /v1/events/{endUserAccountId}/{calendarId}/{eventId}?scope=thisAndFollowing
//
// Returns CodeInvalid naming scope for an unknown scope, or for
// thisAndFollowing on an id that is not an occurrence, and naming the
// field for bad values; nothing is written then.
func (a *App) UpdateEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, params *EventParams, opts ...WriteOptions) (*Event, error) {
	o, err := OptionsOf(opts, OptionNotifyAttendees, OptionIfMatch)
	if err != nil {
		return nil, err
	}
	// A split makes several writes: the key covers the whole call, and
	// the writes inside run without it.
	return idempotent(ctx, a, o, "UpdateEventWithScope", func(ctx context.Context) (*Event, error) {
		return a.updateEventWithScope(ctx, accountID, calendarID, eventID, scope, params, o)
	}, accountID, calendarID, eventID, scope, params)
}

func (a *App) updateEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, params *EventParams, o WriteOptions) (*Event, error) {
	if err := checkEnum("scope", string(scope), EditScopes); err != nil {
		return nil, err
	}
	if scope != ScopeThisAndFollowing {
		return a.updateEvent(ctx, accountID, calendarID, eventID, params, o)
	}
	if err := params.validate(false, nil); err != nil {
		return nil, err
	}
	sp, err := a.planSplit(ctx, accountID, calendarID, eventID, o)
	if err != nil {
		return nil, err
	}
	if err := a.c.checkEvent(sp.p.Type(), params); err != nil {
		return nil, err
	}
	if sp.first {
		return a.updateEvent(ctx, accountID, calendarID, sp.master.ID, params, o)
	}
	create, shift, err := sp.newSeriesParams(params)
	if err != nil {
		return nil, err
	}
	splitter, native := splitterOf(sp.p)
	// A SeriesSplitter keeps the old series' exceptions itself.
	if err := sp.read(ctx, !native); err != nil {
		return nil, err
	}
	if native {
		e, err := splitter.SplitSeries(ctx, sp.s, calendarID, sp.request(create, shift))
		if err != nil {
			return nil, a.ProviderFailed(ctx, accountID, err)
		}
		return e, nil
	}
	// Without a SeriesSplitter the split is written as Google's guide
	// describes it ("Recurring events", "Modifying all following
	// instances": trim the original's recurrence, insert a new recurring
	// event), which is also how Outlook splits a Graph series. The new
	// series comes first, so a failure leaves the old one whole.
	created, err := sp.p.CreateEvent(ctx, sp.s, calendarID, create)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	if err := sp.moveExceptions(ctx, created, shift); err != nil {
		// Best effort: without the new series the calendar shows what it
		// showed before.
		_ = sp.p.DeleteEvent(ctx, sp.s, calendarID, created.ID)
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	if err := sp.endSeries(ctx); err != nil {
		if !sp.oldChanged {
			_ = sp.p.DeleteEvent(ctx, sp.s, calendarID, created.ID)
		}
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	if e, err := sp.p.GetEvent(ctx, sp.s, calendarID, created.ID); err == nil {
		return e, nil
	}
	return created, nil
}

// DeleteEventWithScope is [App.DeleteEvent] with an edit scope. With
// ScopeThisAndFollowing, eventID must name an occurrence: the series ends
// before it, and its overrides from there on are deleted. Splitting at the
// first occurrence deletes the whole series.
//
// HTTP: DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}?scope=thisAndFollowing
//
// Returns CodeInvalid naming scope for an unknown scope, or for
// thisAndFollowing on an id that is not an occurrence; nothing is written
// then.
func (a *App) DeleteEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, opts ...WriteOptions) (*Success, error) {
	o, err := OptionsOf(opts, OptionNotifyAttendees, OptionIfMatch)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "DeleteEventWithScope", func(ctx context.Context) (*Success, error) {
		return a.deleteEventWithScope(ctx, accountID, calendarID, eventID, scope, o)
	}, accountID, calendarID, eventID, scope)
}

func (a *App) deleteEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, o WriteOptions) (*Success, error) {
	if err := checkEnum("scope", string(scope), EditScopes); err != nil {
		return nil, err
	}
	if scope != ScopeThisAndFollowing {
		return a.deleteEvent(ctx, accountID, calendarID, eventID, o)
	}
	sp, err := a.planSplit(ctx, accountID, calendarID, eventID, o)
	if err != nil {
		return nil, err
	}
	if sp.first {
		return a.deleteEvent(ctx, accountID, calendarID, sp.master.ID, o)
	}
	if splitter, ok := splitterOf(sp.p); ok {
		if _, err := splitter.SplitSeries(ctx, sp.s, calendarID, sp.request(nil, 0)); err != nil {
			return nil, a.ProviderFailed(ctx, accountID, err)
		}
		return &Success{Success: true}, nil
	}
	if err := sp.read(ctx, true); err != nil {
		return nil, err
	}
	if err := sp.endSeries(ctx); err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	return &Success{Success: true}, nil
}

// splitWindow is how far from the split exceptions are looked for, on each
// side: an occurrences listing with a day of margin on both ends, within
// MaxExpandWindow.
const splitWindow = MaxExpandWindow - 2*24*time.Hour

// split is one "this and following" write in progress.
type split struct {
	a                     *App
	p                     Provider
	s                     *Session
	accountID, calendarID string
	master                *Event
	allDay                bool
	start                 time.Time     // series start (date label when all-day)
	at                    time.Time     // original start of the occurrence split at
	dur                   time.Duration // series duration
	first                 bool          // at is the series start: the whole series
	before                []string      // recurrence of the old part

	// What read found: the exceptions of the series after the split and
	// in the year before it, by original start.
	afterExc, beforeExc []exception
	afterOccs           map[int64]*Event // the series' occurrences after the split

	// oldChanged is set once endSeries changed the old series: a failure
	// after that keeps the new series, which then holds the moved
	// overrides.
	oldChanged bool
}

// exception is an overridden or cancelled occurrence.
type exception struct {
	orig      time.Time
	cancelled bool
	changes   *EventParams // the fields the override changed; start and end only when it moved
}

// planSplit reads the occurrence and its series and computes the two
// recurrences; it writes nothing. One If-Match cannot condition two series.
func (a *App) planSplit(ctx context.Context, accountID, calendarID, eventID string, o WriteOptions) (*split, error) {
	if o.IfMatch != "" {
		return nil, invalidf("If-Match", "If-Match cannot condition a scope=thisAndFollowing write, which changes two series.")
	}
	_, p, s, err := a.writeSession(ctx, accountID, o)
	if err != nil {
		return nil, err
	}
	occ, err := p.GetEvent(ctx, s, calendarID, eventID)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	if occ.RecurringEventID == "" || occ.OriginalStart == nil {
		return nil, invalidf("scope", "scope thisAndFollowing needs the id of an occurrence of a recurring series (see the occurrences listing); %q is not one.", eventID)
	}
	master, err := p.GetEvent(ctx, s, calendarID, occ.RecurringEventID)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	sp := &split{a: a, p: p, s: s, accountID: accountID, calendarID: calendarID, master: master, allDay: master.IsAllDay}
	if sp.start, err = seriesStart(master.Start, sp.allDay, "start"); err != nil {
		return nil, WrapError(CodeUpstream, err, "The provider returned a series %q whose start cannot be read.", master.ID)
	}
	end := sp.start
	if master.End != nil {
		if end, err = seriesStart(master.End, sp.allDay, "end"); err != nil {
			return nil, WrapError(CodeUpstream, err, "The provider returned a series %q whose end cannot be read.", master.ID)
		}
	} else if sp.allDay {
		end = sp.start.AddDate(0, 0, 1)
	}
	sp.dur = end.Sub(sp.start)
	if sp.at, err = seriesStart(occ.OriginalStart, sp.allDay, "originalStart"); err != nil {
		return nil, WrapError(CodeUpstream, err, "The provider returned an occurrence %q whose original start cannot be read.", eventID)
	}
	if !sp.at.After(sp.start) {
		sp.first = true
		return sp, nil
	}
	if sp.before, _, err = SplitRecurrence(master.Recurrence, sp.start, sp.allDay, sp.at, 0); err != nil {
		return nil, WrapError(CodeUpstream, err, "The recurrence of series %q cannot be split.", master.ID)
	}
	return sp, nil
}

// newSeriesParams returns what creates the new series: the series' fields,
// starting at the occurrence's slot, with params applied; and how far the
// new series moved from the old slots.
func (sp *split) newSeriesParams(params *EventParams) (*EventParams, time.Duration, error) {
	m := sp.master
	create := &EventParams{
		Title: Some(m.Title), IsAllDay: Some(m.IsAllDay),
		Visibility: Some(m.Visibility), Transparency: Some(m.Transparency),
	}
	optString := func(v string) Optional[string] {
		if v == "" {
			return Optional[string]{}
		}
		return Some(v)
	}
	create.Description, create.Location = optString(m.Description), optString(m.Location)
	if m.Visibility == "" {
		create.Visibility = Optional[Visibility]{}
	}
	if m.Transparency == "" {
		create.Transparency = Optional[Transparency]{}
	}
	if len(m.Attendees) > 0 {
		create.Attendees = Some(m.Attendees)
	}
	if len(m.PublicExtendedProperties) > 0 {
		create.PublicExtendedProperties = Some(m.PublicExtendedProperties)
	}
	if len(m.PrivateExtendedProperties) > 0 {
		create.PrivateExtendedProperties = Some(m.PrivateExtendedProperties)
	}
	if m.Reminders != nil {
		create.Reminders = Some(*m.Reminders)
	}
	slot := sp.eventTime(sp.at)
	create.Start = Some(*slot)
	create.End = Some(*sp.eventTime(sp.at.Add(sp.dur)))

	// The request's fields win; the derived ones say nothing about the new
	// series.
	dst, src := reflect.ValueOf(create).Elem(), reflect.ValueOf(params).Elem()
	for i := range src.NumField() {
		if src.Field(i).Interface().(interface{ IsSet() bool }).IsSet() {
			dst.Field(i).Set(src.Field(i))
		}
	}
	create.IsRecurring, create.IsException, create.IsCancelled = Optional[bool]{}, Optional[bool]{}, Optional[bool]{}
	create.OriginalStart, create.RecurringEventID = Optional[EventDateTime]{}, Optional[string]{}
	create.WebLink, create.Creator = Optional[string]{}, Optional[Creator]{}

	allDay := create.IsAllDay.Value()
	if allDay != sp.allDay && !params.Start.IsSet() {
		return nil, 0, invalidf("start", "Changing isAllDay of the following occurrences needs a start for the new series.")
	}
	if params.Start.IsSet() && !params.End.IsSet() {
		v := create.Start.Value()
		ns, err := seriesStart(&v, allDay, "start")
		if err != nil {
			return nil, 0, err
		}
		if allDay == sp.allDay {
			create.End = Some(*sp.eventTimeAllDay(ns.Add(sp.dur), allDay, v.TimeZone))
		} else {
			create.End = Optional[EventDateTime]{}
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
			return nil, 0, invalidf("start", "The following occurrences can move by at most 292 years.")
		}
	}
	if !params.Recurrence.IsSet() {
		_, after, err := SplitRecurrence(sp.master.Recurrence, sp.start, sp.allDay, sp.at, shift)
		if err != nil {
			return nil, 0, WrapError(CodeUpstream, err, "The recurrence of series %q cannot be split.", sp.master.ID)
		}
		// Cancelled occurrences move one by one (Graph has no EXDATE).
		after = slices.DeleteFunc(after, isExdate)
		create.Recurrence = Some(after)
	}
	if err := create.validate(true, nil); err != nil {
		return nil, 0, err
	}
	return create, shift, nil
}

func isExdate(line string) bool {
	return len(line) >= 6 && strings.EqualFold(line[:6], "EXDATE")
}

// eventTime returns t as an event time of the series.
func (sp *split) eventTime(t time.Time) *EventDateTime {
	return sp.eventTimeAllDay(t, sp.allDay, sp.master.Start.TimeZone)
}

func (sp *split) eventTimeAllDay(t time.Time, allDay bool, zone string) *EventDateTime {
	if allDay {
		return AllDayOn(t)
	}
	if zone != "" {
		if loc, err := LoadLocation(zone); err == nil {
			t = t.In(loc)
		}
	}
	return TimedAt(t)
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
func (sp *split) occurrences(ctx context.Context, seriesID string, from, to time.Time) (map[int64]*Event, error) {
	out := map[int64]*Event{}
	// A day of margin: the listing keeps occurrences that overlap the
	// window, and all-day labels are read in the account's zone.
	params := &OccurrenceListParams{Start: from.Add(-24 * time.Hour), End: to.Add(24 * time.Hour), Limit: MaxPageSize}
	for e, err := range AllOccurrences(ctx, sp.a, sp.accountID, sp.calendarID, seriesID, params, nil) {
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
func (sp *split) exceptions(ctx context.Context, seriesID string, from, to time.Time) ([]exception, map[int64]*Event, error) {
	actual, err := sp.occurrences(ctx, seriesID, from, to)
	if err != nil {
		return nil, nil, err
	}
	// What the series makes on its own: its rules without exclusions.
	bare := *sp.master
	bare.Recurrence = slices.DeleteFunc(slices.Clone(sp.master.Recurrence), isExdate)
	made, err := ExpandEvents([]*Event{&bare}, from.Add(-sp.dur), to)
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
func changes(slot, got *Event, allDay bool) *EventParams {
	var p EventParams
	differs := false
	str := func(dst *Optional[string], a, b string) {
		if a != b {
			*dst, differs = Some(b), true
		}
	}
	str(&p.Title, slot.Title, got.Title)
	str(&p.Description, slot.Description, got.Description)
	str(&p.Location, slot.Location, got.Location)
	if got.Visibility != slot.Visibility && got.Visibility != "" {
		p.Visibility, differs = Some(got.Visibility), true
	}
	if got.Transparency != slot.Transparency && got.Transparency != "" {
		p.Transparency, differs = Some(got.Transparency), true
	}
	if !slices.EqualFunc(slot.Attendees, got.Attendees, attendeeAlike) {
		p.Attendees, differs = Some(got.Attendees), true
	}
	if !maps.Equal(slot.PublicExtendedProperties, got.PublicExtendedProperties) {
		p.PublicExtendedProperties, differs = Some(got.PublicExtendedProperties), true
	}
	if !maps.Equal(slot.PrivateExtendedProperties, got.PrivateExtendedProperties) {
		p.PrivateExtendedProperties, differs = Some(got.PrivateExtendedProperties), true
	}
	moved := !sameTime(slot.Start, got.Start, allDay) || !sameTime(slot.End, got.End, allDay)
	if moved {
		differs = true
		if got.Start != nil {
			p.Start = Some(*got.Start)
		}
		if got.End != nil {
			p.End = Some(*got.End)
		}
	}
	if !differs {
		return nil
	}
	return &p
}

// attendeeAlike compares guests by address and answer, the parts an
// override changes; providers differ in the ids and names they fill in.
func attendeeAlike(a, b Attendee) bool {
	return a.Email == b.Email && a.ResponseStatus == b.ResponseStatus && a.Optional == b.Optional
}

func sameTime(a, b *EventDateTime, allDay bool) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, err1 := seriesStart(a, allDay, "")
	tb, err2 := seriesStart(b, allDay, "")
	return err1 == nil && err2 == nil && ta.Equal(tb)
}

// request is the split for a [SeriesSplitter]: create is nil for a
// delete.
func (sp *split) request(create *EventParams, shift time.Duration) *SeriesSplit {
	req := &SeriesSplit{SeriesID: sp.master.ID, At: sp.at, AllDay: sp.allDay, Before: sp.before, New: create, Shift: shift}
	if create != nil {
		for _, ex := range sp.afterExc {
			req.Exceptions = append(req.Exceptions, SplitException{OriginalStart: ex.orig, Cancelled: ex.cancelled, Changes: ex.changes})
		}
	}
	return req
}

// moveExceptions gives the new series the exceptions found after the
// split: cancelled occurrences are deleted, overrides are written onto the
// occurrence at the same place in the new series. An override that did not
// move follows the new series' times; one that moved keeps its own.
func (sp *split) moveExceptions(ctx context.Context, created *Event, shift time.Duration) error {
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
		if err := sp.p.DeleteEvent(ctx, sp.s, sp.calendarID, occ.ID); err != nil && ErrorCode(err) != CodeNotFound {
			return err
		}
		sp.oldChanged = true
	}
	if _, err := sp.p.UpdateEvent(ctx, sp.s, sp.calendarID, sp.master.ID, &EventParams{Recurrence: Some(sp.before)}); err != nil {
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
func (sp *split) slot(orig time.Time) *Event {
	e := *sp.master
	e.Start, e.End = sp.eventTime(orig), sp.eventTime(orig.Add(sp.dur))
	return &e
}
