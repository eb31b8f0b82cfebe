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
// isCancelled), else the live events overlapping q's window. Recurring
// series are expanded when q.SingleEvents and not clientExpands.
func (b *Book) List(q *unical.EventQuery, since int64, clientExpands bool) ([]*unical.Event, error) {
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
		if q.SeriesID != "" && id != q.SeriesID {
			continue
		}
		ev := st.Event
		if st.Deleted {
			ev = unical.Event{ID: id, IsCancelled: true, Recurrence: nil}
		}
		if q.SingleEvents && ev.IsRecurring && !st.Deleted && !clientExpands {
			inst, err := unical.ExpandEvents([]*unical.Event{&ev}, q.TimeMin, q.TimeMax)
			if err != nil {
				return nil, err
			}
			all = append(all, inst...)
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
// email), created and updated at now, and returns a copy.
func (b *Book) Create(id string, version int64, params *unical.EventParams, self string, now time.Time) *unical.Event {
	ts := unical.FormatTimestamp(now)
	ev := unical.Event{ID: id, CreatedAt: ts, EventType: unical.EventTypeDefault}
	ev.ICalUID = ev.ID
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
	Apply(&st.Event, params, self)
	st.Event.UpdatedAt = unical.FormatTimestamp(now)
	st.Event.ETag = etag(version)
	st.Version = version
	out := st.Event
	return &out, nil
}

// Delete turns a live event into a tombstone at version.
func (b *Book) Delete(id string, version int64) error {
	st, err := b.live(id)
	if err != nil {
		return err
	}
	st.Deleted, st.Version = true, version
	return nil
}

// Respond sets self's response on a live event at version; CodeInvalid
// when self is not an attendee.
func (b *Book) Respond(id string, version int64, self string, status unical.ResponseStatus) error {
	st, err := b.live(id)
	if err != nil {
		return err
	}
	for i := range st.Event.Attendees {
		if strings.EqualFold(st.Event.Attendees[i].Email, self) {
			st.Event.Attendees[i].ResponseStatus = status
			st.Event.MyResponseStatus = status
			st.Version = version
			return nil
		}
	}
	return &unical.Error{Code: unical.CodeInvalid, Field: "responseStatus", Message: "The account is not an attendee of this event."}
}

func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// Apply copies the fields params sets into ev; self is the account's
// email, the organizer and creator of a new event.
func Apply(ev *unical.Event, params *unical.EventParams, self string) {
	params.ApplyCommon(ev)
	if params.ColorID.IsSet() {
		ev.ColorID = params.ColorID.Value()
	}
	if params.CustomColor.IsSet() {
		ev.CustomColor = params.CustomColor.Value()
	}
	if params.IsAllDay.IsSet() {
		ev.IsAllDay = params.IsAllDay.Value()
	}
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
	if v, ok := params.Organizer.Get(); ok {
		v.IsSelf = v.Email == self
		ev.Organizer = &v
	} else if ev.Organizer == nil {
		ev.Organizer = &unical.Organizer{Email: self, IsSelf: true}
	}
	if ev.Creator == nil {
		ev.Creator = &unical.Creator{Email: self}
	}
}
