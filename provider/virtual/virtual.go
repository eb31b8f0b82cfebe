// Package virtual is the VIRTUAL provider: calendars that live only in
// unicald's Store, for rooms, equipment and people without a Google,
// Microsoft or CalDAV account. It is our extension of the spec's provider
// types (see the README's "API decisions").
//
// A VIRTUAL account needs no credentials: it is made with just an email,
// which names the resource (the organizer and attendee address of its
// events). It starts with a primary calendar and may create more.
//
// Each calendar, with all its events and the tombstones of deleted ones, is
// one record of the Store's [unical.RecordStore], written with
// compare-and-set, so that replicas sharing a Store never lose each
// other's writes and every Store that passes store/storetest works. The
// event semantics (windows, recurrence, RSVP, paging, sync cursors) are
// internal/eventbook's, the same as the in-memory provider's, so the
// provider passes provider/providertest. Single occurrences of a series
// are read, edited, answered and cancelled by their instance ids
// ("<series id>_<original start>"); an edited one is kept as an override.
//
// Limits that follow from one record per calendar: every write rewrites
// the calendar's record, so a calendar holds at most [MaxEvents] live
// events, and only the newest [MaxTombstones] deletions are remembered: a
// sync cursor older than a forgotten deletion answers CodeGone (the
// Client's sync token then reports sync_token_expired).
package virtual

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/eventbook"
)

// Limits of one calendar; see the package comment.
const (
	// MaxEvents is the most live events (series count once) a calendar
	// holds; creating one more is CodeConflict.
	MaxEvents = 2500
	// MaxTombstones is how many deleted events a calendar remembers for
	// sync cursors; past it the oldest half is forgotten.
	MaxTombstones = 1000
)

// collection is the RecordStore collection of the calendars; the record
// key is the calendar id.
const collection = "virtual.calendars"

// PrimaryCalendarID is the id of every VIRTUAL account's primary calendar,
// which exists from the start and cannot be deleted.
const PrimaryCalendarID = "primary"

// writeAttempts bounds the compare-and-set retries of one write; each
// retry means another writer changed the calendar in between.
const writeAttempts = 16

// Provider is the VIRTUAL provider. It keeps nothing in the process: all
// state is in the Store, so it is safe for concurrent use and for
// replicas.
type Provider struct {
	store unical.RecordStore
	now   func() time.Time
	// maxEvents and maxTombstones are MaxEvents and MaxTombstones, lower
	// in tests.
	maxEvents, maxTombstones int
}

var _ unical.Provider = (*Provider)(nil)

var _ unical.CapabilityReporter = (*Provider)(nil)

// Capabilities implements [unical.CapabilityReporter]: the table of
// internal/eventbook, which keeps the events.
func (p *Provider) Capabilities() unical.Capabilities { return eventbook.Capabilities() }

// New returns the VIRTUAL provider keeping its calendars in store, which
// should be the Store the Client is configured with (so that deleting an
// account deletes its calendars).
func New(store unical.RecordStore) *Provider {
	return &Provider{store: store, now: time.Now, maxEvents: MaxEvents, maxTombstones: MaxTombstones}
}

// state is the stored form of one calendar: the record's data.
type state struct {
	Calendar unical.Calendar `json:"calendar"`
	Book     *eventbook.Book `json:"book"`
	// Version is the version of the calendar's last event change; a sync
	// cursor is the Version it was issued at.
	Version int64 `json:"version"`
	// MinSync is the oldest cursor still answered: older ones may have
	// missed a forgotten deletion.
	MinSync int64 `json:"minSync,omitempty"`
}

// Type implements unical.Provider.
func (p *Provider) Type() unical.ProviderType { return unical.ProviderVirtual }

// Connect implements unical.Provider: there are no credentials to check,
// and the email is the account's identity.
func (p *Provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	return &unical.Connection{Email: params.Email}, nil
}

// primary is the primary calendar of an account that has not written it
// yet: it exists from the start without a write.
func primary(s *unical.Session) *state {
	return &state{
		Calendar: unical.Calendar{
			ID: PrimaryCalendarID, Name: s.Email, IsPrimary: true, TimeZone: "UTC", InviteEmail: s.Email,
			AllowedOnlineMeetingProviders: []string{}, // as it reads back from the Store
		},
		Book: eventbook.New(),
	}
}

// load reads a calendar and the version of its record (0 for a primary
// calendar not written yet).
func (p *Provider) load(ctx context.Context, s *unical.Session, calendarID string) (*state, uint64, error) {
	if !validCalendarID(calendarID) {
		return nil, 0, unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
	}
	rec, err := p.store.GetRecord(ctx, s.ApplicationID, s.AccountID, collection, calendarID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		if calendarID == PrimaryCalendarID {
			return primary(s), 0, nil
		}
		return nil, 0, unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := decode(rec.Data)
	if err != nil {
		return nil, 0, err
	}
	return st, rec.Version, nil
}

// validCalendarID reports whether id can name a calendar: record keys are
// non-empty and hold no NUL byte, so any other id names none.
func validCalendarID(id string) bool {
	return id != "" && !strings.ContainsRune(id, 0)
}

func decode(data []byte) (*state, error) {
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode calendar: %w", err), "Internal error.")
	}
	if st.Book == nil {
		st.Book = eventbook.New()
	}
	if st.Book.Events == nil {
		st.Book.Events = map[string]*eventbook.Entry{}
	}
	return &st, nil
}

// update reads a calendar, lets fn change it and writes it back if no one
// else wrote it meanwhile, else tries again from a fresh read. An error
// from fn writes nothing.
func (p *Provider) update(ctx context.Context, s *unical.Session, calendarID string, fn func(*state) error) error {
	for attempt := range writeAttempts {
		if attempt > 0 {
			// A random pause spreads writers that keep colliding.
			select {
			case <-time.After(time.Duration(mrand.Int64N(int64(attempt) * int64(time.Millisecond)))):
			case <-ctx.Done():
				return unical.WrapError(unical.CodeUnavailable, ctx.Err(), "The request ended before the calendar could be written.")
			}
		}
		st, version, err := p.load(ctx, s, calendarID)
		if err != nil {
			return err
		}
		if err := fn(st); err != nil {
			return err
		}
		data, err := json.Marshal(st)
		if err != nil {
			return unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: encode calendar: %w", err), "Internal error.")
		}
		_, err = p.store.PutRecord(ctx, s.ApplicationID, s.AccountID, collection, calendarID, data, version)
		switch unical.ErrorCode(err) {
		case unical.CodeConflict:
			continue // another writer won; read its result and redo fn
		case unical.CodeNotFound:
			// The account itself is gone (deleted meanwhile).
			return unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
		}
		return err
	}
	return unical.Errorf(unical.CodeConflict, "Calendar %q is changing too fast; try again.", calendarID)
}

// newID returns a random id with prefix; ids of calendars start with the
// time in hex, so that listing them in key order lists them in creation
// order.
func newID(prefix string, t time.Time) string {
	var r [8]byte
	rand.Read(r[:])
	if prefix == "cal" {
		return fmt.Sprintf("cal_%016x%s", t.UnixNano(), hex.EncodeToString(r[:4]))
	}
	return prefix + hex.EncodeToString(r[:])
}

// ListCalendars implements unical.Provider: the primary calendar, then the
// others in creation order.
func (p *Provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	recs, err := p.store.ListRecords(ctx, s.ApplicationID, s.AccountID, collection, "", "", 0)
	if err != nil {
		return nil, err
	}
	out := []*unical.Calendar{&primary(s).Calendar}
	for _, rec := range recs {
		// Only the calendar is decoded, not its events.
		var head struct {
			Calendar unical.Calendar `json:"calendar"`
		}
		if err := json.Unmarshal(rec.Data, &head); err != nil {
			return nil, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode calendar: %w", err), "Internal error.")
		}
		if rec.Key == PrimaryCalendarID {
			out[0] = &head.Calendar
			continue
		}
		out = append(out, &head.Calendar)
	}
	return out, nil
}

// GetCalendar implements unical.Provider.
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	st, _, err := p.load(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	return &st.Calendar, nil
}

// CreateCalendar implements unical.Provider. A calendar without a time
// zone gets UTC.
func (p *Provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	id := newID("cal", p.now())
	st := &state{
		Calendar: unical.Calendar{
			ID: id, Name: params.Name.Value(), HexColor: params.HexColor.Value(), TimeZone: params.TimeZone.Value(),
			InviteEmail: s.Email, AllowedOnlineMeetingProviders: []string{},
		},
		Book: eventbook.New(),
	}
	if st.Calendar.TimeZone == "" {
		st.Calendar.TimeZone = "UTC"
	}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: encode calendar: %w", err), "Internal error.")
	}
	if _, err := p.store.PutRecord(ctx, s.ApplicationID, s.AccountID, collection, id, data, 0); err != nil {
		return nil, err
	}
	return &st.Calendar, nil
}

// UpdateCalendar implements unical.Provider.
func (p *Provider) UpdateCalendar(ctx context.Context, s *unical.Session, calendarID string, params *unical.CalendarParams) (*unical.Calendar, error) {
	var out unical.Calendar
	err := p.update(ctx, s, calendarID, func(st *state) error {
		if v, ok := params.Name.Get(); ok {
			st.Calendar.Name = v
		}
		if params.HexColor.IsSet() {
			st.Calendar.HexColor = params.HexColor.Value()
		}
		if params.TimeZone.IsSet() {
			st.Calendar.TimeZone = params.TimeZone.Value()
			if st.Calendar.TimeZone == "" {
				st.Calendar.TimeZone = "UTC"
			}
		}
		out = st.Calendar
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteCalendar implements unical.Provider; the primary calendar cannot
// be deleted.
func (p *Provider) DeleteCalendar(ctx context.Context, s *unical.Session, calendarID string) error {
	if calendarID == PrimaryCalendarID {
		return unical.Errorf(unical.CodeConflict, "The primary calendar cannot be deleted.")
	}
	if !validCalendarID(calendarID) {
		return unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
	}
	err := p.store.DeleteRecord(ctx, s.ApplicationID, s.AccountID, collection, calendarID, 0)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return unical.Errorf(unical.CodeNotFound, "No calendar %q.", calendarID)
	}
	return err
}

// ListEvents implements unical.Provider. It expands series itself, pages
// by offset, and issues cursors "v:<version>".
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	st, _, err := p.load(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	var since int64 = -1
	if q.SyncCursor != "" {
		v, err := strconv.ParseInt(strings.TrimPrefix(q.SyncCursor, "v:"), 10, 64)
		if err != nil || !strings.HasPrefix(q.SyncCursor, "v:") || v < st.MinSync || v > st.Version {
			return nil, unical.Errorf(unical.CodeGone, "The sync cursor expired.")
		}
		since = v
	}
	all, err := st.Book.List(q, since, false)
	if err != nil {
		return nil, err
	}
	batch := &unical.EventBatch{Expanded: q.SingleEvents}
	batch.Events, batch.NextPageCursor = eventbook.Page(all, q.PageCursor, q.PageSize)
	if batch.NextPageCursor == "" {
		batch.NextSyncCursor = "v:" + strconv.FormatInt(st.Version, 10)
	}
	return batch, nil
}

// GetEvent implements unical.Provider.
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	st, _, err := p.load(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	if ev, ok, err := st.Book.Instance(eventID); ok {
		return ev, err
	}
	return st.Book.Get(eventID)
}

// CreateEvent implements unical.Provider.
func (p *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	// No underscore: instance ids are "<series id>_<original start>".
	if err := eventbook.CheckWrite(params, nil, s.Email); err != nil {
		return nil, err
	}
	id := newID("evt", time.Time{})
	var out *unical.Event
	err := p.update(ctx, s, calendarID, func(st *state) error {
		live := 0
		for _, e := range st.Book.Events {
			if !e.Deleted {
				live++
			}
		}
		if live >= p.maxEvents {
			return unical.Errorf(unical.CodeConflict, "A VIRTUAL calendar holds at most %d events; delete some first.", p.maxEvents)
		}
		st.Version++
		out = st.Book.Create(id, st.Version, params, s.Email, p.now())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return roundTrip(out)
}

// UpdateEvent implements unical.Provider.
func (p *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (*unical.Event, error) {
	var out *unical.Event
	err := p.update(ctx, s, calendarID, func(st *state) (err error) {
		st.Version++
		var ok bool
		if out, ok, err = st.Book.UpdateInstance(eventID, st.Version, params, s.Email, p.now()); ok {
			return err
		}
		out, err = st.Book.Update(eventID, st.Version, params, s.Email, p.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return roundTrip(out)
}

// DeleteEvent implements unical.Provider.
func (p *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) error {
	return p.update(ctx, s, calendarID, func(st *state) error {
		st.Version++
		if ok, err := st.Book.DeleteInstance(eventID, st.Version, p.now()); ok {
			return err
		}
		if err := st.Book.Delete(eventID, st.Version); err != nil {
			return err
		}
		forgetTombstones(st, p.maxTombstones)
		return nil
	})
}

// RespondToEvent implements unical.Provider.
func (p *Provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	return p.update(ctx, s, calendarID, func(st *state) error {
		st.Version++
		if ok, err := st.Book.RespondInstance(eventID, st.Version, s.Email, status, p.now()); ok {
			return err
		}
		return st.Book.Respond(eventID, st.Version, s.Email, status)
	})
}

// forgetTombstones keeps the record bounded: past limit deleted events,
// all but the newest limit/2 are forgotten and cursors from before the
// newest forgotten deletion answer CodeGone, since they would miss it.
func forgetTombstones(st *state, limit int) {
	var dead []*eventbook.Entry
	var ids []string
	for id, e := range st.Book.Events {
		if e.Deleted {
			dead = append(dead, e)
			ids = append(ids, id)
		}
	}
	if len(dead) <= limit {
		return
	}
	order := make([]int, len(dead))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(dead[a].Version, dead[b].Version) })
	for _, i := range order[:len(dead)-limit/2] {
		delete(st.Book.Events, ids[i])
		st.MinSync = max(st.MinSync, dead[i].Version)
	}
}

// expireSyncCursors makes every cursor of a calendar issued so far answer
// CodeGone, for the conformance suite.
func (p *Provider) expireSyncCursors(ctx context.Context, s *unical.Session, calendarID string) error {
	return p.update(ctx, s, calendarID, func(st *state) error {
		st.Version++
		st.MinSync = st.Version
		return nil
	})
}

// roundTrip returns ev as it reads back from the Store, so that what a
// write returns equals what a later read returns (nil and empty slices
// alike).
func roundTrip(ev *unical.Event) (*unical.Event, error) {
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: encode event: %w", err), "Internal error.")
	}
	var out unical.Event
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, unical.WrapError(unical.CodeInternal, fmt.Errorf("virtual: decode event: %w", err), "Internal error.")
	}
	return &out, nil
}

// Add returns providers with a VIRTUAL provider on store appended, unless
// one of type VIRTUAL is already among them: how unicald and the test
// stacks give every Client virtual calendars.
func Add(providers []unical.Provider, store unical.RecordStore) []unical.Provider {
	for _, p := range providers {
		if p.Type() == unical.ProviderVirtual {
			return providers
		}
	}
	return append(slices.Clip(providers), New(store))
}
