// Package virtual is the VIRTUAL provider: calendars that live only in
// unicald's Store, for rooms, equipment and people without a Google,
// Microsoft or CalDAV account. It is our extension of the spec's provider
// types (see "Accounts" in docs/api.md).
//
// A VIRTUAL account needs no credentials: it is made with just an email,
// which names the resource (the organizer and attendee address of its
// events). It starts with a primary calendar and may create more.
//
// Each calendar is one small record of the Store's [records.Store]
// (its name, zone and version counter), and each event, or tombstone of a
// deleted one, is a record of its own; every record is written with
// compare-and-set, so that replicas sharing a Store never lose each
// other's writes and every Store that passes store/storetest works, and a
// write costs the same in a calendar of 10 events or 100,000 (see
// Provider.write). The event semantics (windows, recurrence, RSVP, paging, sync cursors) are
// internal/adapter/eventbook's, the same as the in-memory provider's, so the
// provider passes provider/providertest. Single occurrences of a series
// are read, edited, answered and cancelled by their instance ids
// ("<series id>_<original start>"); an edited one is kept as an override.
//
// A calendar holds any number of events; only the newest
// [MaxTombstones] deletions are remembered: a sync cursor older than a
// forgotten deletion answers CodeGone (the Client's sync token then
// reports sync_token_expired). Calendars stored before events had records
// of their own are moved to them on their first read or write.
package virtual

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/eventbook"
	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/internal/recur"
	"github.com/unical/unical/provider/kit"
	"github.com/unical/unical/records"
)

// MaxTombstones is how many deleted events a calendar remembers for sync
// cursors; past it the oldest half is forgotten.
const MaxTombstones = 1000

// collection is the records.Store collection of the calendars; the record
// key is the calendar id.
const collection = "virtual.calendars"

// PrimaryCalendarID is the id of every VIRTUAL account's primary calendar,
// which exists from the start and cannot be deleted.
const PrimaryCalendarID = "primary"

// writeAttempts bounds the compare-and-set retries of one write; each
// retry means another writer changed the calendar in between.
const writeAttempts = 16

// DefaultUIDHost is the domain of the iCalUid of VIRTUAL events when the
// provider knows no public URL of the server: a name under .invalid (RFC
// 2606), which is no one's domain. The id before the "@" is unique on
// its own, so the domain only gives the UID the form RFC 5545 §3.8.4.7
// recommends.
const DefaultUIDHost = "unical.invalid"

// Config configures the VIRTUAL provider. Store is required.
type Config struct {
	// Store keeps the calendars and events. It should be the Store the
	// Client is configured with, so that deleting an account deletes its
	// calendars.
	Store records.Store
	// PublicURL is the server's public base URL (unical.Config.PublicURL).
	// Its host is the domain of the events' iCalUid, "<event id>@<host>";
	// empty (or without a host): DefaultUIDHost.
	PublicURL string
}

// Provider is the VIRTUAL provider. All state is in the Store, so it is
// safe for concurrent use and for replicas; the process keeps only what
// it derived from stored records, by their versions (windows).
type Provider struct {
	store   records.Store
	windows windowCache
	now     func() time.Time
	// uidHost is the domain of new events' iCalUid.
	uidHost string
	// maxTombstones is MaxTombstones, lower in tests.
	maxTombstones int
}

var _ unical.Provider = (*Provider)(nil)

var _ unical.CapabilityReporter = (*Provider)(nil)

// Capabilities implements [unical.CapabilityReporter]: the table of
// internal/adapter/eventbook, which keeps the events.
func (p *Provider) Capabilities() unical.Capabilities { return eventbook.Capabilities() }

// New returns the VIRTUAL provider keeping its calendars in cfg.Store.
func New(cfg Config) *Provider {
	host := DefaultUIDHost
	if u, err := url.Parse(cfg.PublicURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return &Provider{store: cfg.Store, now: time.Now, uidHost: host, maxTombstones: MaxTombstones}
}

// Type implements unical.Provider.
func (p *Provider) Type() unical.ProviderType { return unical.ProviderVirtual }

// Info implements [unical.Describer].
func (p *Provider) Info() kit.ProviderInfo {
	return kit.ProviderInfo{DisplayName: "Virtual calendars"}
}

// Connect implements unical.Provider: there are no credentials to check,
// and the email is the account's identity.
func (p *Provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	return &unical.Connection{Email: params.Email}, nil
}

// primaryCalendar is the primary calendar of an account that has not
// written it yet: it exists from the start without a write.
func primaryCalendar(s *unical.Session) unical.Calendar {
	return unical.Calendar{
		ID: PrimaryCalendarID, Name: s.Email, IsPrimary: true, TimeZone: "UTC", InviteEmail: s.Email,
		AllowedOnlineMeetingProviders: []string{}, // as it reads back from the Store
	}
}

// validCalendarID reports whether id can name a calendar: record keys are
// non-empty and hold no NUL byte, so any other id names none.
func validCalendarID(id string) bool {
	return id != "" && !strings.ContainsRune(id, 0)
}

// legacyCalendarID reports whether id is a calendar id of the form
// made before ids.New ("cal_" and 24 hex digits, the creation time
// first): such calendars were all made before any of the new form.
func legacyCalendarID(id string) bool {
	rest, ok := strings.CutPrefix(id, "cal_")
	if !ok || len(rest) != 24 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}

// ListCalendars implements unical.Provider: the primary calendar, then the
// others in creation order.
func (p *Provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	recs, err := p.store.ListRecords(ctx, s.ApplicationID, s.AccountID, collection, "", "", 0)
	if err != nil {
		return nil, err
	}
	// Key order is creation order within each id form; calendars of the
	// older form came first.
	slices.SortStableFunc(recs, func(a, b *records.Record) int {
		return cmp.Compare(legacyOrder(a.Key), legacyOrder(b.Key))
	})
	first := primaryCalendar(s)
	out := []*unical.Calendar{&first}
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

// legacyOrder sorts calendars of the older id form first.
func legacyOrder(id string) int {
	if legacyCalendarID(id) {
		return 0
	}
	return 1
}

// GetCalendar implements unical.Provider.
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	h, _, err := p.loadHead(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	return &h.Calendar, nil
}

// CreateCalendar implements unical.Provider. A calendar without a time
// zone gets UTC.
func (p *Provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	id := ids.New("cal")
	h := &head{Calendar: unical.Calendar{ID: id, InviteEmail: s.Email, AllowedOnlineMeetingProviders: []string{}}}
	params.Apply(&h.Calendar)
	if h.Calendar.TimeZone == "" {
		h.Calendar.TimeZone = "UTC"
	}
	if _, err := p.putHead(ctx, s, id, h, 0); err != nil {
		return nil, err
	}
	return &h.Calendar, nil
}

// UpdateCalendar implements unical.Provider.
func (p *Provider) UpdateCalendar(ctx context.Context, s *unical.Session, calendarID string, params *unical.CalendarParams) (*unical.Calendar, error) {
	var out unical.Calendar
	err := p.changeHead(ctx, s, calendarID, func(h *head) error {
		params.Apply(&h.Calendar)
		if params.TimeZone.IsSet() && h.Calendar.TimeZone == "" {
			h.Calendar.TimeZone = "UTC"
		}
		out = h.Calendar
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteCalendar implements unical.Provider; the primary calendar cannot
// be deleted. The calendar goes first, then its events, so that a
// deletion cut short leaves events no one can reach (calendar ids are
// never used again), never a calendar with half its events.
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
	if err != nil {
		return err
	}
	recs, err := p.store.ListRecords(ctx, s.ApplicationID, s.AccountID, eventCollection, calendarID+"/", "", 0)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := p.store.DeleteRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, rec.Key, 0); err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
			return err
		}
	}
	return nil
}

// ListEvents implements unical.Provider. It returns recurring series
// unexpanded, as CalDAV does, for the Client to expand page by page (see
// eventbook.Book.List), pages by offset, and issues cursors
// "v:<version>".
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	h, _, err := p.loadHead(ctx, s, calendarID)
	if err != nil {
		return nil, err
	}
	var since int64 = -1
	if q.SyncCursor != "" {
		v, err := strconv.ParseInt(strings.TrimPrefix(q.SyncCursor, "v:"), 10, 64)
		if err != nil || !strings.HasPrefix(q.SyncCursor, "v:") || v < h.MinSync || v > h.Version {
			return nil, unical.Errorf(unical.CodeGone, "The sync cursor expired.")
		}
		since = v
	}
	book, err := p.loadAll(ctx, s, calendarID, q, since)
	if err != nil {
		return nil, err
	}
	all, err := book.List(q, since)
	if err != nil {
		return nil, err
	}
	batch := &unical.EventBatch{}
	batch.Events, batch.NextPageCursor = eventbook.Page(all, q.PageCursor, q.PageSize)
	if batch.NextPageCursor == "" {
		batch.NextSyncCursor = "v:" + strconv.FormatInt(h.stable(p.now()), 10)
	}
	return batch, nil
}

// withSeries returns the event ids a write of eventID reads: the event,
// and the series of an instance id.
func withSeries(eventID string) []string {
	if series, _, _, err := recur.ParseInstanceID(eventID); err == nil {
		return []string{eventID, series}
	}
	return []string{eventID}
}

// GetEvent implements unical.Provider.
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	if _, _, err := p.loadHead(ctx, s, calendarID); err != nil {
		return nil, err
	}
	l, err := p.load(ctx, s, calendarID, withSeries(eventID), "")
	if err != nil {
		return nil, err
	}
	return l.book.Lookup(eventID)
}

// CreateEvent implements unical.Provider.
func (p *Provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	if err := eventbook.CheckSizes(params); err != nil {
		return nil, err
	}
	if err := eventbook.CheckWrite(params, nil, s.Email); err != nil {
		return nil, err
	}
	// Instance ids are "<series id>_<original start>", split at the last
	// underscore, so the one in the id is no trouble.
	id := ids.New("evt")
	var out *unical.Event
	err := p.write(ctx, s, calendarID, nil, "", func(b *eventbook.Book, version int64) error {
		out = b.CreateUID(id, id+"@"+p.uidHost, version, params, s.Email, p.now())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return roundTrip(out)
}

// UpdateEvent implements unical.Provider.
func (p *Provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (*unical.Event, error) {
	if err := eventbook.CheckSizes(params); err != nil {
		return nil, err
	}
	var out *unical.Event
	err := p.write(ctx, s, calendarID, withSeries(eventID), "", func(b *eventbook.Book, version int64) (err error) {
		if err := b.CheckIfMatch(s.IfMatch, eventID); err != nil {
			return err
		}
		var ok bool
		if out, ok, err = b.UpdateInstance(eventID, version, params, s.Email, p.now()); ok {
			return err
		}
		out, err = b.Update(eventID, version, params, s.Email, p.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return roundTrip(out)
}

// DeleteEvent implements unical.Provider. Deleting a series deletes its
// edited and cancelled occurrences too.
func (p *Provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) error {
	return p.write(ctx, s, calendarID, withSeries(eventID), eventID, func(b *eventbook.Book, version int64) error {
		if err := b.CheckIfMatch(s.IfMatch, eventID); err != nil {
			return err
		}
		if ok, err := b.DeleteInstance(eventID, version, p.now()); ok {
			return err
		}
		return b.Delete(eventID, version)
	})
}

// RespondToEvent implements unical.Provider. An answer to a series
// answers its edited occurrences too.
func (p *Provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	return p.write(ctx, s, calendarID, withSeries(eventID), eventID, func(b *eventbook.Book, version int64) error {
		if ok, err := b.RespondInstance(eventID, version, s.Email, status, p.now()); ok {
			return err
		}
		return b.Respond(eventID, version, s.Email, status, p.now())
	})
}

// expireSyncCursors makes every cursor of a calendar issued so far answer
// CodeGone, for the conformance suite.
func (p *Provider) expireSyncCursors(ctx context.Context, s *unical.Session, calendarID string) error {
	return p.changeHead(ctx, s, calendarID, func(h *head) error {
		h.Version++
		h.MinSync = h.Version
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

// Add returns providers with New(cfg) appended, unless one of type
// VIRTUAL is already among them: how unicald and the test stacks give
// every Client virtual calendars.
func Add(providers []unical.Provider, cfg Config) []unical.Provider {
	for _, p := range providers {
		if p.Type() == unical.ProviderVirtual {
			return providers
		}
	}
	return append(slices.Clip(providers), New(cfg))
}
