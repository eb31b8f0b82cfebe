package virtual

import (
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
	"github.com/unical/unical/records"
)

// eventCollection is the records.Store collection of the events: one record
// per event (an edited or cancelled occurrence is an event of its own),
// keyed "<calendar id>/<event id>". Calendar ids hold no '/', and an
// occurrence's id extends its series' id ("<series id>_<start>"), so the
// records of a calendar, and the occurrences of a series, are key ranges.
const eventCollection = "virtual.events"

// reservationTTL is how long a write may take between reserving its
// version and completing it. A reservation that outlives it (its replica
// died) no longer holds sync cursors back; a write that completes after
// it has lost its version makes its change again under a new one.
const reservationTTL = 30 * time.Second

func eventKey(calendarID, eventID string) string { return calendarID + "/" + eventID }

// head is the stored form of one calendar without its events: the record
// of the calendar collection. Every event write goes through it twice,
// to reserve a version and to complete it, and it stays small: its cost
// does not grow with the calendar.
type head struct {
	Calendar unical.Calendar `json:"calendar"`
	// Version is the last version reserved; a change of an event is
	// stored with the version of its write.
	Version int64 `json:"version"`
	// Pending holds the versions reserved by writes that have not
	// completed, with when each reservation lapses. A sync cursor is the
	// last version below all of them: the changes up to it are all
	// stored.
	Pending map[int64]time.Time `json:"pending,omitempty"`
	// MinSync is the oldest cursor still answered: older ones may have
	// missed a forgotten deletion.
	MinSync int64 `json:"minSync,omitempty"`
	// Tombstones counts the deleted events kept for sync cursors.
	Tombstones int `json:"tombstones,omitempty"`
	// Book holds the events of a calendar written before they had records
	// of their own; the first write or read after an upgrade moves them
	// out (see migrate).
	Book *eventbook.Book `json:"book,omitempty"`
}

// stable is the sync cursor a listing that read h at now issues: every
// change with a version up to it is stored. A write still running keeps
// it below its version, so its change is reported by the next sync,
// possibly again; a lapsed reservation no longer does.
func (h *head) stable(now time.Time) int64 {
	v := h.Version
	for pv, lapse := range h.Pending {
		if !now.After(lapse) {
			v = min(v, pv-1)
		}
	}
	return v
}

// loadHead reads a calendar's head and its record version (0 for a
// primary calendar not written yet), moving the events of a calendar
// stored before event records into records of their own.
func (p *Provider) loadHead(ctx context.Context, s *unical.Session, calendarID string) (*head, uint64, error) {
	for range writeAttempts {
		h, version, err := p.readHead(ctx, s, calendarID)
		if err != nil || h.Book == nil {
			return h, version, err
		}
		if err := p.migrate(ctx, s, calendarID, h, version); unical.ErrorCode(err) != unical.CodeConflict {
			if err != nil {
				return nil, 0, err
			}
		}
	}
	return nil, 0, unical.Errorf(unical.CodeConflict, "Calendar %q is changing too fast; try again.", calendarID)
}

func (p *Provider) readHead(ctx context.Context, s *unical.Session, calendarID string) (*head, uint64, error) {
	if !validCalendarID(calendarID) {
		return nil, 0, unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
	}
	rec, err := p.store.GetRecord(ctx, s.ApplicationID, s.AccountID, collection, calendarID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		if calendarID == PrimaryCalendarID {
			return &head{Calendar: primaryCalendar(s)}, 0, nil
		}
		return nil, 0, unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
	}
	if err != nil {
		return nil, 0, err
	}
	var h head
	if err := json.Unmarshal(rec.Data, &h); err != nil {
		return nil, 0, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode calendar: %w", err), "Internal error.")
	}
	if h.Book != nil && len(h.Book.Events) == 0 {
		h.Book = nil
	}
	return &h, rec.Version, nil
}

// migrate writes each event of a calendar stored in one record as a
// record of its own, then the head without them. Replicas migrating at
// once write the same records; the first head write wins and the others
// read it again.
func (p *Provider) migrate(ctx context.Context, s *unical.Session, calendarID string, h *head, version uint64) error {
	tombstones := 0
	for id, e := range h.Book.Events {
		if e.Deleted {
			tombstones++
		}
		data, err := json.Marshal(e)
		if err != nil {
			return unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: encode event: %w", err), "Internal error.")
		}
		_, err = p.store.PutRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, eventKey(calendarID, id), data, 0)
		if err != nil && unical.ErrorCode(err) != unical.CodeConflict {
			return err
		}
	}
	h.Book, h.Tombstones = nil, tombstones
	_, err := p.putHead(ctx, s, calendarID, h, version)
	return err
}

func (p *Provider) putHead(ctx context.Context, s *unical.Session, calendarID string, h *head, version uint64) (uint64, error) {
	data, err := json.Marshal(h)
	if err != nil {
		return 0, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: encode calendar: %w", err), "Internal error.")
	}
	v, err := p.store.PutRecord(ctx, s.ApplicationID, s.AccountID, collection, calendarID, data, version)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		// The account itself is gone (deleted meanwhile).
		return 0, unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
	}
	return v, err
}

// changeHead reads a calendar's head, lets fn change it and writes it back
// if no one else wrote it meanwhile, else tries again from a fresh read.
func (p *Provider) changeHead(ctx context.Context, s *unical.Session, calendarID string, fn func(*head) error) error {
	for attempt := range writeAttempts {
		if err := pause(ctx, attempt); err != nil {
			return err
		}
		h, version, err := p.loadHead(ctx, s, calendarID)
		if err != nil {
			return err
		}
		if err := fn(h); err != nil {
			return err
		}
		_, err = p.putHead(ctx, s, calendarID, h, version)
		if unical.ErrorCode(err) == unical.CodeConflict {
			continue // another writer won; read its result and redo fn
		}
		return err
	}
	return unical.Errorf(unical.CodeConflict, "Calendar %q is changing too fast; try again.", calendarID)
}

// pause spreads writers that keep colliding with a random pause before
// each retry.
func pause(ctx context.Context, attempt int) error {
	if attempt == 0 {
		return nil
	}
	select {
	case <-time.After(time.Duration(mrand.Int64N(int64(attempt) * int64(time.Millisecond)))):
		return nil
	case <-ctx.Done():
		return unical.WrapError(unical.CodeUnavailable, ctx.Err(), "The request ended before the calendar could be written.")
	}
}

// loaded is the part of a calendar one write reads: some events, in an
// eventbook.Book, with the record versions they were read at.
type loaded struct {
	book     *eventbook.Book
	versions map[string]uint64
}

// load reads the events with the given ids (absent ones are left out)
// and, with series set, the occurrences of the series with that id.
func (p *Provider) load(ctx context.Context, s *unical.Session, calendarID string, ids []string, series string) (*loaded, error) {
	l := &loaded{book: eventbook.New(), versions: map[string]uint64{}}
	add := func(rec *records.Record) error {
		var e eventbook.Entry
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode event: %w", err), "Internal error.")
		}
		eventbook.Normalize(&e.Event) // stored before writes added them
		id := strings.TrimPrefix(rec.Key, calendarID+"/")
		l.book.Events[id] = &e
		l.versions[id] = rec.Version
		return nil
	}
	for _, id := range ids {
		if id == "" || strings.ContainsRune(id, 0) {
			continue
		}
		rec, err := p.store.GetRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, eventKey(calendarID, id))
		if unical.ErrorCode(err) == unical.CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := add(rec); err != nil {
			return nil, err
		}
	}
	if series != "" && !strings.ContainsRune(series, 0) {
		recs, err := p.store.ListRecords(ctx, s.ApplicationID, s.AccountID, eventCollection, eventKey(calendarID, series+"_"), "", 0)
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			if err := add(rec); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

// loadAll reads the events of a calendar that book.List(q, since) may
// answer. A live listing (since < 0) of the whole calendar leaves out
// deleted events and single events outside q's window, so those are
// skipped by the few fields that say so (decoded once per record
// version): a free/busy of one slot decodes the events of that slot (and
// the calendar's series and their overrides), not every event the
// calendar holds.
func (p *Provider) loadAll(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery, since int64) (*eventbook.Book, error) {
	recs, err := p.store.ListRecords(ctx, s.ApplicationID, s.AccountID, eventCollection, calendarID+"/", "", 0)
	if err != nil {
		return nil, err
	}
	narrow := since < 0 && q.SeriesID == "" && (!q.TimeMin.IsZero() || !q.TimeMax.IsZero())
	b := eventbook.New()
	for _, rec := range recs {
		if narrow {
			w, err := p.windows.fields(s, rec)
			if err != nil {
				return nil, err
			}
			if w.deleted || (!w.series && !eventbook.InWindow(&w.times, q.TimeMin, q.TimeMax)) {
				continue
			}
		}
		var e eventbook.Entry
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return nil, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode event: %w", err), "Internal error.")
		}
		eventbook.Normalize(&e.Event) // stored before writes added them
		b.Events[strings.TrimPrefix(rec.Key, calendarID+"/")] = &e
	}
	return b, nil
}

// windowFields is what a live listing of a window needs to know of a
// stored event to leave it out: deleted, or a single event (no series,
// no occurrence of one) whose times miss the window.
type windowFields struct {
	deleted bool
	series  bool
	// times holds the event's start, end and isAllDay, normalized.
	times unical.Event
}

// windowCache keeps the windowFields of stored events by record version,
// so that a listing decodes only the events written since the last one.
// A record's version changes with every write and never comes back, so
// an entry is never stale, on any replica. The zero value is ready.
type windowCache struct {
	mu      sync.Mutex
	entries map[string]windowEntry
}

type windowEntry struct {
	version uint64
	fields  *windowFields // never changed
}

// maxWindowEntries bounds the cache (some tens of MB); past it, it starts
// over.
const maxWindowEntries = 100_000

// fields returns the windowFields of rec, an event record of s's account.
func (c *windowCache) fields(s *unical.Session, rec *records.Record) (*windowFields, error) {
	key := s.ApplicationID + "\x00" + s.AccountID + "\x00" + rec.Key
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && e.version == rec.Version {
		return e.fields, nil
	}
	var stored struct {
		Event struct {
			Start            *unical.EventDateTime `json:"start"`
			End              *unical.EventDateTime `json:"end"`
			IsAllDay         bool                  `json:"isAllDay"`
			IsRecurring      bool                  `json:"isRecurring"`
			Recurrence       []string              `json:"recurrence"`
			RecurringEventID string                `json:"recurringEventId"`
		} `json:"event"`
		Deleted bool `json:"deleted"`
	}
	if err := json.Unmarshal(rec.Data, &stored); err != nil {
		return nil, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode event: %w", err), "Internal error.")
	}
	ev := stored.Event
	w := &windowFields{deleted: stored.Deleted, series: ev.IsRecurring || ev.RecurringEventID != "",
		times: unical.Event{Start: ev.Start, End: ev.End, IsAllDay: ev.IsAllDay, Recurrence: ev.Recurrence}}
	eventbook.Normalize(&w.times)
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxWindowEntries {
		c.entries = make(map[string]windowEntry)
	}
	c.entries[key] = windowEntry{version: rec.Version, fields: w}
	c.mu.Unlock()
	return w, nil
}

// write changes some events of a calendar: it reserves a version in the
// calendar's head, reads the events ids names (and, with series set, the
// occurrences of that series), lets fn change them at that version,
// stores each changed event with compare-and-set, and completes the
// version in the head. A lost race on an event reads it again and redoes
// fn; an error from fn writes nothing. Each step writes one small record,
// so a write costs the same in a calendar of 10 events or 100,000.
func (p *Provider) write(ctx context.Context, s *unical.Session, calendarID string, ids []string, series string, fn func(b *eventbook.Book, version int64) error) error {
	version, err := p.reserve(ctx, s, calendarID)
	if err != nil {
		return err
	}
	changed, deleted, err := p.writeEvents(ctx, s, calendarID, ids, series, version, fn)
	if err != nil {
		// Nothing was written: the reservation only needs to go, and if
		// that fails too it lapses.
		_, _, _ = p.complete(context.WithoutCancel(ctx), s, calendarID, version, 0)
		return err
	}
	for range writeAttempts {
		lapsed, tombstones, err := p.complete(ctx, s, calendarID, version, deleted)
		if err != nil {
			return err
		}
		if !lapsed {
			// The head complete wrote says whether any are due: most
			// writes read it no further.
			if tombstones <= p.maxTombstones {
				return nil
			}
			return p.forgetTombstones(ctx, s, calendarID)
		}
		// The write took longer than its reservation: a sync cursor may
		// have passed its version, so the change is made again under a
		// new one.
		next, err := p.reserve(ctx, s, calendarID)
		if err != nil {
			return err
		}
		if err := p.restamp(ctx, s, calendarID, changed, version, next); err != nil {
			return err
		}
		version = next
	}
	return unical.Errorf(unical.CodeConflict, "Calendar %q is changing too fast; try again.", calendarID)
}

// reserve takes the next version of a calendar for a write.
func (p *Provider) reserve(ctx context.Context, s *unical.Session, calendarID string) (int64, error) {
	var version int64
	err := p.changeHead(ctx, s, calendarID, func(h *head) error {
		now := p.now()
		for v, lapse := range h.Pending {
			if now.After(lapse) {
				delete(h.Pending, v)
			}
		}
		h.Version++
		version = h.Version
		if h.Pending == nil {
			h.Pending = map[int64]time.Time{}
		}
		h.Pending[version] = now.Add(reservationTTL)
		return nil
	})
	return version, err
}

// complete ends the reservation of version, counting the events its write
// deleted; lapsed reports that the reservation had already lapsed, and
// tombstones is the calendar's count of them as complete left it.
func (p *Provider) complete(ctx context.Context, s *unical.Session, calendarID string, version int64, deleted int) (lapsed bool, tombstones int, err error) {
	err = p.changeHead(ctx, s, calendarID, func(h *head) error {
		tombstones = h.Tombstones
		if _, ok := h.Pending[version]; !ok {
			lapsed = true
			return nil
		}
		lapsed = false
		delete(h.Pending, version)
		h.Tombstones += deleted
		tombstones = h.Tombstones
		return nil
	})
	return lapsed, tombstones, err
}

// restamp moves the events a write changed at version from to version to,
// unless a later write changed them since.
func (p *Provider) restamp(ctx context.Context, s *unical.Session, calendarID string, ids []string, from, to int64) error {
	l, err := p.load(ctx, s, calendarID, ids, "")
	if err != nil {
		return err
	}
	for id, e := range l.book.Events {
		if e.Version != from {
			continue
		}
		e.Restamp(to)
		data, err := json.Marshal(e)
		if err != nil {
			return unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: encode event: %w", err), "Internal error.")
		}
		_, err = p.store.PutRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, eventKey(calendarID, id), data, l.versions[id])
		if err != nil && unical.ErrorCode(err) != unical.CodeConflict {
			return err
		}
	}
	return nil
}

// writeEvents runs fn on the events it reads and stores those fn changed
// (their Version is version), retrying on a lost race. It returns their
// ids and how many events fn deleted. A race lost after some events were
// stored redoes fn on what is stored then, its own writes included.
func (p *Provider) writeEvents(ctx context.Context, s *unical.Session, calendarID string, ids []string, series string, version int64, fn func(*eventbook.Book, int64) error) (changed []string, deleted int, err error) {
	var before *eventbook.Book
	for attempt := range writeAttempts {
		if err := pause(ctx, attempt); err != nil {
			return nil, 0, err
		}
		l, err := p.load(ctx, s, calendarID, ids, series)
		if err != nil {
			return nil, 0, err
		}
		if attempt == 0 {
			before = clone(l.book)
		} else {
			// What this write stored before it lost a race goes back to
			// how it was, so that fn is applied once.
			for id, e := range l.book.Events {
				if e.Version != version {
					continue
				}
				if old, ok := before.Events[id]; ok {
					l.book.Events[id] = old
				} else {
					delete(l.book.Events, id)
				}
			}
			before = clone(l.book)
		}
		wasDeleted := map[string]bool{}
		for id, e := range l.book.Events {
			wasDeleted[id] = e.Deleted
		}
		if err := fn(l.book, version); err != nil {
			return nil, 0, err
		}
		changed = slices.Sorted(func(yield func(string) bool) {
			for id, e := range l.book.Events {
				if e.Version == version && !yield(id) {
					return
				}
			}
		})
		deleted = 0
		conflict := false
		for _, id := range changed {
			e := l.book.Events[id]
			data, err := json.Marshal(e)
			if err != nil {
				return nil, 0, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: encode event: %w", err), "Internal error.")
			}
			_, err = p.store.PutRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, eventKey(calendarID, id), data, l.versions[id])
			if unical.ErrorCode(err) == unical.CodeConflict {
				conflict = true
				break
			}
			if err != nil {
				return nil, 0, err
			}
			if e.Deleted && !wasDeleted[id] {
				deleted++
			}
		}
		if !conflict {
			return changed, deleted, nil
		}
	}
	return nil, 0, unical.Errorf(unical.CodeConflict, "Calendar %q is changing too fast; try again.", calendarID)
}

// forgetTombstones keeps the stored deletions bounded: past
// maxTombstones, all but the newest half are forgotten and cursors from
// before the newest forgotten deletion answer CodeGone, since they would
// miss it. It reads the whole calendar, once per maxTombstones/2
// deletions. A write calls it when the head it completed counts more than
// maxTombstones; it reads the head again, since another replica may have
// forgotten them meanwhile.
func (p *Provider) forgetTombstones(ctx context.Context, s *unical.Session, calendarID string) error {
	h, _, err := p.loadHead(ctx, s, calendarID)
	if err != nil || h.Tombstones <= p.maxTombstones {
		return err
	}
	recs, err := p.store.ListRecords(ctx, s.ApplicationID, s.AccountID, eventCollection, calendarID+"/", "", 0)
	if err != nil {
		return err
	}
	type dead struct {
		rec     *records.Record
		version int64
	}
	var deads []dead
	for _, rec := range recs {
		var e eventbook.Entry
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode event: %w", err), "Internal error.")
		}
		if e.Deleted {
			deads = append(deads, dead{rec, e.Version})
		}
	}
	if len(deads) <= p.maxTombstones {
		return nil
	}
	slices.SortFunc(deads, func(a, b dead) int { return int(a.version - b.version) })
	forget := deads[:len(deads)-p.maxTombstones/2]
	// The cursors are cut first: a deletion forgotten before that would be
	// missed by a sync running in between.
	newest := forget[len(forget)-1].version
	if err := p.changeHead(ctx, s, calendarID, func(h *head) error {
		h.MinSync = max(h.MinSync, newest)
		return nil
	}); err != nil {
		return err
	}
	gone := 0
	for _, d := range forget {
		err := p.store.DeleteRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, d.rec.Key, d.rec.Version)
		switch unical.ErrorCode(err) {
		case "":
			gone++
		case unical.CodeConflict, unical.CodeNotFound:
			// Changed (made again) or forgotten by another replica.
		default:
			return err
		}
	}
	return p.changeHead(ctx, s, calendarID, func(h *head) error {
		h.Tombstones = max(0, h.Tombstones-gone)
		return nil
	})
}

// clone returns a deep copy of b.
func clone(b *eventbook.Book) *eventbook.Book {
	data, err := json.Marshal(b)
	out := eventbook.New()
	if err == nil {
		json.Unmarshal(data, out)
	}
	return out
}
