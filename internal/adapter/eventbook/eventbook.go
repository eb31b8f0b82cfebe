// Package eventbook keeps the events of one calendar with the version of
// their last change: the event semantics shared by the in-memory provider
// (provider/memory) and the VIRTUAL provider (provider/virtual), which
// differ only in where a Book lives and how versions and ids are made.
//
// A Book is plain data that encodes to JSON and back, so that the VIRTUAL
// provider can keep one in the Store. It is not safe for concurrent use:
// its owner serializes access (a mutex, or a compare-and-set write).
package eventbook

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/captable"
	"github.com/unical/unical/internal/adapter/precondition"
	"github.com/unical/unical/internal/recur"
)

// Book is one calendar's events by id, deleted ones kept as tombstones
// so that a sync cursor can report them.
type Book struct {
	Events map[string]*Entry `json:"events"`
}

// Entry is one event with the version of its last change.
type Entry struct {
	Event   unical.Event `json:"event"`
	Version int64        `json:"version"`
	Deleted bool         `json:"deleted,omitempty"`
}

// New returns an empty Book.
func New() *Book { return &Book{Events: map[string]*Entry{}} }

// List returns the events q asks for, before paging, in id order: with
// since >= 0 the changes after that version (deleted events as
// isCancelled), else the live events overlapping q's window.
//
// Recurring series are never expanded here: a series is one event, listed
// whatever the window, and with q.SingleEvents it comes with every one of
// its overrides (cancelled ones and ones moved out of the window included),
// which is what the Client needs to expand the series page by page from
// the position a page token carries, as it does for CalDAV. So a listing
// holds the calendar's events, never the window's instances: a
// FREQ=SECONDLY series over a year costs one event. Unexpanded, a series
// comes with its overrides that overlap the window, and cancelled ones are
// left out (sync listings show them, as isCancelled instances).
func (b *Book) List(q *unical.EventQuery, since int64) ([]*unical.Event, error) {
	ids := make([]string, 0, len(b.Events))
	for id := range b.Events {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var all []*unical.Event
	for _, id := range ids {
		st := b.Events[id]
		if since >= 0 {
			if st.Version <= since {
				continue
			}
		} else if st.Deleted {
			continue
		}
		if q.SeriesID != "" && id != q.SeriesID && st.Event.RecurringEventID != q.SeriesID {
			continue
		}
		ev := st.Event
		if st.Deleted {
			ev = unical.Event{ID: id, IsCancelled: true, Recurrence: nil}
		}
		if since < 0 && b.isOverride(st) {
			// Listed with its series: all of them for the Client to
			// expand, else beside it when it overlaps the window and is
			// not cancelled.
			if q.SingleEvents || (!ev.IsCancelled && InWindow(&ev, q.TimeMin, q.TimeMax)) {
				all = append(all, &ev)
			}
			continue
		}
		if !st.Deleted && !ev.IsRecurring && !InWindow(&ev, q.TimeMin, q.TimeMax) {
			continue
		}
		all = append(all, &ev)
	}
	if q.SeriesID != "" && len(all) == 0 && since < 0 {
		if _, ok := b.Events[q.SeriesID]; !ok {
			return nil, unical.Errorf(unical.CodeNotFound, "No event %q.", q.SeriesID)
		}
	}
	return all, nil
}

// Page cuts one page out of all by offset: pageCursor is the previous
// page's next cursor ("" for the first page), pageSize defaults to 100.
// next is "" on the last page.
func Page(all []*unical.Event, pageCursor string, pageSize int) (page []*unical.Event, next string) {
	offset := 0
	if pageCursor != "" {
		offset, _ = strconv.Atoi(pageCursor)
	}
	size := pageSize
	if size <= 0 {
		size = 100
	}
	offset = min(max(offset, 0), len(all))
	end := min(offset+size, len(all))
	if end < len(all) {
		next = strconv.Itoa(end)
	}
	return all[offset:end], next
}

// InWindow reports whether e overlaps [from, to); zero bounds are open.
func InWindow(e *unical.Event, from, to time.Time) bool {
	start, end, err := e.Interval()
	if err != nil {
		return true
	}
	if !to.IsZero() && !start.Before(to) {
		return false
	}
	return from.IsZero() || end.After(from) || (end.Equal(start) && !start.Before(from))
}

// live returns the entry of a live event, or CodeNotFound.
func (b *Book) live(id string) (*Entry, error) {
	st, ok := b.Events[id]
	if !ok || st.Deleted {
		return nil, unical.Errorf(unical.CodeNotFound, "No event %q.", id)
	}
	return st, nil
}

// Get returns a copy of a live event.
func (b *Book) Get(id string) (*unical.Event, error) {
	st, err := b.live(id)
	if err != nil {
		return nil, err
	}
	ev := st.Event
	return &ev, nil
}

// Create adds an event with id at version, made by self (the account's
// email), created and updated at now, and returns a copy. Its iCalUid is
// its id.
func (b *Book) Create(id string, version int64, params *unical.EventParams, self string, now time.Time) *unical.Event {
	return b.CreateUID(id, id, version, params, self, now)
}

// CreateUID is Create with the event's iCalUid.
func (b *Book) CreateUID(id, uid string, version int64, params *unical.EventParams, self string, now time.Time) *unical.Event {
	ts := unical.FormatTimestamp(now)
	ev := unical.Event{ID: id, ICalUID: uid, CreatedAt: ts, EventType: unical.EventTypeDefault}
	Apply(&ev, params, self)
	ev.UpdatedAt = ts
	ev.ETag = etag(version)
	b.Events[ev.ID] = &Entry{Event: ev, Version: version}
	out := ev
	return &out
}

// Update changes the fields params sets of a live event at version and
// returns a copy.
func (b *Book) Update(id string, version int64, params *unical.EventParams, self string, now time.Time) (*unical.Event, error) {
	st, err := b.live(id)
	if err != nil {
		return nil, err
	}
	if err := CheckWrite(params, &st.Event, self); err != nil {
		return nil, err
	}
	Apply(&st.Event, params, self)
	st.changed(version, now)
	out := st.Event
	return &out, nil
}

// Delete turns a live event into a tombstone at version, a series with
// its overrides.
func (b *Book) Delete(id string, version int64) error {
	st, err := b.live(id)
	if err != nil {
		return err
	}
	st.Deleted, st.Version = true, version
	for _, o := range b.Events {
		if !o.Deleted && o.Event.RecurringEventID == id {
			o.Deleted, o.Version = true, version
		}
	}
	return nil
}

// Respond sets self's response on a live event at version, made at now;
// CodeInvalid when self is not an attendee. Like any change it moves the
// event's ETag and updatedAt.
func (b *Book) Respond(id string, version int64, self string, status unical.ResponseStatus, now time.Time) error {
	st, err := b.live(id)
	if err != nil {
		return err
	}
	if !respond(&st.Event, self, status) {
		return notAttendee()
	}
	st.changed(version, now)
	// An answer to a series answers its overridden instances too, as
	// they carry attendee lists of their own.
	for _, o := range b.Events {
		if !o.Deleted && o.Event.RecurringEventID == id && respond(&o.Event, self, status) {
			o.changed(version, now)
		}
	}
	return nil
}

// Restamp gives the entry's last change another version, keeping what
// changed and when: for a store that must number a change again.
func (st *Entry) Restamp(version int64) {
	st.Version = version
	st.Event.ETag = etag(version)
}

// changed records a change of the entry at version, made at now.
func (st *Entry) changed(version int64, now time.Time) {
	st.Version = version
	st.Event.UpdatedAt = unical.FormatTimestamp(now)
	st.Event.ETag = etag(version)
}

// respond sets self's response in ev and reports whether self is an
// attendee.
func respond(ev *unical.Event, self string, status unical.ResponseStatus) bool {
	for i := range ev.Attendees {
		if strings.EqualFold(ev.Attendees[i].Email, self) {
			ev.Attendees[i].ResponseStatus = status
			ev.MyResponseStatus = status
			return true
		}
	}
	return false
}

func notAttendee() error {
	return &unical.Error{Code: unical.CodeInvalid, Field: "responseStatus", Message: "The account is not an attendee of this event."}
}

// isOverride reports whether st is a live override of a live series in b.
func (b *Book) isOverride(st *Entry) bool {
	if st.Deleted || st.Event.RecurringEventID == "" || st.Event.OriginalStart == nil {
		return false
	}
	m, ok := b.Events[st.Event.RecurringEventID]
	return ok && !m.Deleted && m.Event.IsRecurring
}

// series returns the live recurring series whose instance id is, or nil
// when id is no instance id of a series in b.
func (b *Book) series(id string) *Entry {
	seriesID, _, _, err := recur.ParseInstanceID(id)
	if err != nil {
		return nil
	}
	m, ok := b.Events[seriesID]
	if !ok || m.Deleted || !m.Event.IsRecurring {
		return nil
	}
	return m
}

// Instance returns the instance of a series that id names, as a listing
// expands it: its override when it has one, else the occurrence computed
// from the series. ok is false when id names no instance of a series in b
// (the caller then treats it as a plain event id); a cancelled or
// nonexistent instance is CodeNotFound.
//
// The instance methods are what lets a provider edit one occurrence: an
// edited instance is stored as an override (an event with the instance id,
// recurringEventId and originalStart), a deleted one as a cancelled
// override, as iCalendar's RECURRENCE-ID and EXDATE do.
func (b *Book) Instance(id string) (ev *unical.Event, ok bool, err error) {
	m := b.series(id)
	if m == nil {
		return nil, false, nil
	}
	_, orig, _, _ := recur.ParseInstanceID(id)
	// The instance is computed in a one-second window where it starts.
	// Timed series are expanded there as if their instances took no time,
	// else every instance overlapping that second would be built: 86,400
	// for a FREQ=SECONDLY series of day-long events. The end is put back
	// below.
	master := m.Event
	dur := time.Duration(0)
	if start, end, err := master.Interval(); err == nil && !master.IsAllDay && master.End != nil {
		dur = end.Sub(start)
		master.End = master.Start
	}
	events := []*unical.Event{&master}
	from := orig
	overridden := false
	if o, stored := b.Events[id]; stored && !o.Deleted {
		if o.Event.IsCancelled {
			return nil, true, unical.Errorf(unical.CodeNotFound, "No event %q.", id)
		}
		ov := o.Event
		events = append(events, &ov)
		overridden = true
		if start, _, err := ov.Interval(); err == nil {
			from = start // a moved instance is found where it went
		}
	}
	insts, err := unical.ExpandEvents(events, from, from.Add(time.Second))
	if err != nil {
		return nil, true, err
	}
	for _, inst := range insts {
		if inst.ID != id {
			continue
		}
		// An instance that took no time in the expansion takes the
		// series' length; overrides and RDATE periods with an end of
		// their own kept it.
		if dur > 0 && !overridden && inst.Start != nil && (inst.End == nil || *inst.End == *inst.Start) {
			inst.End = endAfter(inst.Start, dur)
		}
		return inst, true, nil
	}
	return nil, true, unical.Errorf(unical.CodeNotFound, "No event %q.", id)
}

// endAfter is the end of a timed instance starting at start that lasts
// dur, in start's zone, as the expansion writes it.
func endAfter(start *unical.EventDateTime, dur time.Duration) *unical.EventDateTime {
	t, err := start.Time("start")
	if err != nil {
		return start
	}
	if loc, err := unical.LoadLocation(start.TimeZone); err == nil && start.TimeZone != "" {
		t = t.In(loc)
	} else {
		t = t.UTC()
	}
	return unical.TimedAt(t.Add(dur))
}

// Lookup returns a copy of the event id names: an instance of a series
// (see Instance) or else a live event (see Get).
func (b *Book) Lookup(id string) (*unical.Event, error) {
	if ev, ok, err := b.Instance(id); ok {
		return ev, err
	}
	return b.Get(id)
}

// CheckIfMatch refuses a write to the event id names when the caller
// sent an If-Match, sent, that is not its etag (internal/adapter/precondition);
// an unknown id is CodeNotFound, as the write would be.
func (b *Book) CheckIfMatch(sent, id string) error {
	if sent == "" {
		return nil
	}
	ev, err := b.Lookup(id)
	if err != nil {
		return err
	}
	return precondition.Check(sent, ev.ETag)
}

// UpdateInstance changes the fields params sets of one instance at
// version, storing it as an override, and returns a copy; ok as for
// Instance. Recurrence does not apply to an instance and is left out.
func (b *Book) UpdateInstance(id string, version int64, params *unical.EventParams, self string, now time.Time) (ev *unical.Event, ok bool, err error) {
	ev, ok, err = b.Instance(id)
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := CheckWrite(params, ev, self); err != nil {
		return nil, true, err
	}
	p := *params
	p.Recurrence = unical.Optional[[]string]{}
	Apply(ev, &p, self)
	b.putOverride(ev, version, now)
	out := *ev
	return &out, true, nil
}

// DeleteInstance cancels one instance at version; ok as for Instance.
func (b *Book) DeleteInstance(id string, version int64, now time.Time) (ok bool, err error) {
	ev, ok, err := b.Instance(id)
	if !ok || err != nil {
		return ok, err
	}
	cancelled := &unical.Event{ID: id, RecurringEventID: ev.RecurringEventID, OriginalStart: ev.OriginalStart, IsCancelled: true, IsException: true}
	b.putOverride(cancelled, version, now)
	return true, nil
}

// RespondInstance sets self's response on one instance at version,
// storing it as an override; ok as for Instance.
func (b *Book) RespondInstance(id string, version int64, self string, status unical.ResponseStatus, now time.Time) (ok bool, err error) {
	ev, ok, err := b.Instance(id)
	if !ok || err != nil {
		return ok, err
	}
	if !respond(ev, self, status) {
		return true, notAttendee()
	}
	b.putOverride(ev, version, now)
	return true, nil
}

// putOverride stores ev as the override of its instance.
func (b *Book) putOverride(ev *unical.Event, version int64, now time.Time) {
	ev.IsRecurring, ev.IsException, ev.Recurrence = false, true, nil
	ev.UpdatedAt = unical.FormatTimestamp(now)
	ev.ETag = etag(version)
	b.Events[ev.ID] = &Entry{Event: *ev, Version: version}
}

func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// Capabilities is what a Book does with the writable fields, declared by
// the providers built on it (see [unical.CapabilityReporter]): everything
// round-trips except what needs a service behind it.
func Capabilities() unical.Capabilities {
	return unical.Capabilities{
		Event: captable.Fields{
			unical.Supported: {"myResponseStatus": "Sets the account's own attendee entry; refused when the account is not among the attendees."},
			unical.Refused:   {"generateMeetingUrlProvider": "No conferencing service creates meetings for these calendars; attach one with conferenceData."},
		}.Table(),
		Parameters: captable.NotifyAttendees(
			"No email is sent: these calendars have no mail service.",
			captable.Fields{
				unical.Supported: {"false": "Nothing is emailed, as always."},
				unical.Refused:   {"true": "These calendars have no mail service, so attendees cannot be emailed."},
			}),
	}
}

// CheckWrite refuses what Apply cannot keep: a myResponseStatus when self
// is not among the attendees the write leaves. cur is the event written
// to, nil for a create.
func CheckWrite(params *unical.EventParams, cur *unical.Event, self string) error {
	my, ok := params.MyResponseStatus.Get()
	if !ok || my == "" {
		return nil
	}
	attendees := params.Attendees.Value()
	if !params.Attendees.IsSet() && cur != nil {
		attendees = cur.Attendees
	}
	for _, a := range attendees {
		if strings.EqualFold(a.Email, self) {
			return nil
		}
	}
	return &unical.Error{Code: unical.CodeInvalid, Field: "myResponseStatus", Message: "myResponseStatus is the account's own answer: the account must be among the attendees."}
}

// Apply copies the fields params sets into ev; self is the account's
// email, the organizer and creator of a new event.
func Apply(ev *unical.Event, params *unical.EventParams, self string) {
	params.ApplyCommon(ev)
	params.ColorID.Apply(&ev.ColorID)
	params.CustomColor.Apply(&ev.CustomColor)
	params.IsAllDay.Apply(&ev.IsAllDay)
	if params.Recurrence.IsSet() {
		ev.Recurrence = params.Recurrence.Value()
		if len(ev.Recurrence) == 0 {
			ev.Recurrence = nil
		}
		ev.IsRecurring = ev.Recurrence != nil
	}
	if v, ok := params.EventType.Get(); ok {
		ev.EventType = v
	}
	if params.Reminders.IsSet() {
		if v, ok := params.Reminders.Get(); ok {
			ev.Reminders = &v
		} else {
			ev.Reminders = nil
		}
	}
	if v, ok := params.ConferenceData.Get(); ok {
		ev.ConferenceData = &v
	} else if params.ConferenceData.IsNull() {
		ev.ConferenceData = nil
	}
	if v, ok := params.MyResponseStatus.Get(); ok && v != "" {
		respond(ev, self, v) // CheckWrite made sure self is an attendee
	}
	if v, ok := params.Organizer.Get(); ok {
		v.IsSelf = v.Email == self
		ev.Organizer = &v
	} else if ev.Organizer == nil {
		ev.Organizer = &unical.Organizer{Email: self, IsSelf: true}
	}
	if ev.Creator == nil {
		ev.Creator = &unical.Creator{Email: self}
	}
	Normalize(ev)
}

// Normalize puts ev's start and end in the form every provider answers:
// timed values with the offset of their time zone where they were written
// without one (see withOffset), all-day values as a dateTime at midnight
// without offset or zone. Apply does it on every write; a store of events
// written before Apply did (VIRTUAL accounts) reads its events through it
// too.
func Normalize(ev *unical.Event) {
	if ev.IsAllDay {
		ev.Start, ev.End = allDayForm(ev.Start), allDayForm(ev.End)
		return
	}
	series := len(ev.Recurrence) > 0
	ev.Start, ev.End = withOffset(ev.Start, series), withOffset(ev.End, false)
}

// allDayForm is d as an all-day value is answered: its date at midnight,
// without offset or zone.
func allDayForm(d *unical.EventDateTime) *unical.EventDateTime {
	if d == nil {
		return nil
	}
	day, err := d.Day("dateTime")
	if err != nil {
		return d // the Client refuses such a value before it gets here
	}
	return unical.AllDayOn(day)
}

// withOffset gives a timed value written without an offset the offset of
// its time zone (of UTC without one) at that instant, keeping the wall
// clock as written: Google, Graph and CalDAV servers answer such a value
// with its offset, and so does a Book.
func withOffset(d *unical.EventDateTime, series bool) *unical.EventDateTime {
	if d == nil || d.DateTime == "" || hasOffset(d.DateTime) {
		return d
	}
	wall, err := time.Parse(unical.LocalDateTimeLayout, d.DateTime)
	if err != nil {
		return d // it has an offset already
	}
	t, err := d.Time("dateTime")
	if err != nil {
		return d // the Client refuses such a value before it gets here
	}
	out := *d
	out.DateTime = t.Format(time.RFC3339)
	if series {
		// The wall clock as written, which a start a DST gap skips
		// keeps (with the offset before the gap), so that the series
		// keeps its time of day.
		out.DateTime = recur.Stamp(wall, t.Location())
	}
	return &out
}

// hasOffset reports whether an RFC 3339 date-time ends in an offset ("Z",
// "+01:00"): the cheap test a read of every stored event can afford.
func hasOffset(s string) bool {
	n := len(s)
	return n > 0 && (s[n-1] == 'Z' || s[n-1] == 'z') || n > 6 && (s[n-6] == '+' || s[n-6] == '-')
}
