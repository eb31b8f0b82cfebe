package invite

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/invite/invitelog"
	"github.com/unical/unical/records"
)

// collection is the records.Store collection of an account's invitation
// records, one per event (a series and its occurrences share one), keyed
// calendarID + "/" + eventID.
const collection = "invitations"

// maxConflicts bounds the compare-and-set retries of one record update.
const maxConflicts = 10

// Delivery statuses, and the delivery log's types, live in package
// invitelog, which httpclient shares without this package's iCalendar
// code.
const (
	StatusPending = invitelog.StatusPending
	StatusSent    = invitelog.StatusSent
	StatusFailed  = invitelog.StatusFailed
	StatusReplied = invitelog.StatusReplied
)

// Delivery is one attendee's entry of the delivery log.
type Delivery = invitelog.Delivery

// outgoing is one queued message. It is encoded when sent, with the
// application's From address then.
type outgoing struct {
	ID       string        `json:"id"`
	To       string        `json:"to"`
	Method   string        `json:"method"`
	Sequence int           `json:"sequence"`
	Event    *unical.Event `json:"event"`
	// Organizer is the ORGANIZER's address.
	Organizer     string    `json:"organizer"`
	Attempts      int       `json:"attempts"`
	NextAttemptAt time.Time `json:"nextAttemptAt"`
	// LeaseOwner and LeaseExpiry mark a sender's claim: another sender
	// leaves the message alone until the lease ends.
	LeaseOwner  string    `json:"leaseOwner,omitempty"`
	LeaseExpiry time.Time `json:"leaseExpiry,omitzero"`
}

// snapshot is what the guests were last told about an event: the fields
// whose change raises SEQUENCE (RFC 5546 §2.1.4).
type snapshot struct {
	Title      string                `json:"title"`
	Start      *unical.EventDateTime `json:"start"`
	End        *unical.EventDateTime `json:"end"`
	Location   string                `json:"location"`
	Recurrence []string              `json:"recurrence"`
	Attendees  []string              `json:"attendees"`
}

// record is the stored invitation state of one event.
type record struct {
	UID       string `json:"uid"`
	Organizer string `json:"organizer"`
	Sequence  int    `json:"sequence"`
	// Sent is the series (or single event) as last sent; Occurrences the
	// instances sent on their own, by original start.
	Sent        *snapshot            `json:"sent,omitempty"`
	Occurrences map[string]*snapshot `json:"occurrences,omitempty"`
	Deliveries  []*Delivery          `json:"deliveries"`
	Queue       []*outgoing          `json:"queue"`
	// Deleted marks an event deleted at the organizer: replies to it are
	// refused.
	Deleted bool `json:"deleted,omitempty"`
	// BookedCalendarID and BookedEventID are, for an invitation a VIRTUAL
	// account received (key "in/" + UID), where it was booked; "" once
	// cancelled.
	BookedCalendarID string `json:"bookedCalendarId,omitempty"`
	BookedEventID    string `json:"bookedEventId,omitempty"`
}

// snapshotOf returns the snapshot of e.
func snapshotOf(e *unical.Event) *snapshot {
	return &snapshot{Title: e.Title, Start: e.Start, End: e.End, Location: e.Location, Recurrence: e.Recurrence, Attendees: attendeeAddresses(e, "")}
}

// attendeeAddresses returns the lower-case addresses of e's attendees,
// sorted, without organizer.
func attendeeAddresses(e *unical.Event, organizer string) []string {
	var out []string
	for _, a := range e.Attendees {
		addr := strings.ToLower(a.Email)
		if addr != "" && addr != strings.ToLower(organizer) && !slices.Contains(out, addr) {
			out = append(out, addr)
		}
	}
	slices.Sort(out)
	return out
}

// changed reports whether guests must be told again with a higher
// SEQUENCE: a change of time, place, title, recurrence or attendees.
func (s *snapshot) changed(o *snapshot) bool {
	sameTime := func(a, b *unical.EventDateTime) bool {
		return (a == nil) == (b == nil) && (a == nil || *a == *b)
	}
	return s.Title != o.Title || s.Location != o.Location || !sameTime(s.Start, o.Start) || !sameTime(s.End, o.End) ||
		!slices.Equal(s.Recurrence, o.Recurrence) || !slices.Equal(s.Attendees, o.Attendees)
}

// delivery returns r's delivery for addr, adding one when there is none.
func (r *record) delivery(addr string) *Delivery {
	for _, d := range r.Deliveries {
		if d.Email == addr {
			return d
		}
	}
	d := &Delivery{Email: addr}
	r.Deliveries = append(r.Deliveries, d)
	return d
}

// recordKey is the key of an event's record.
func recordKey(calendarID, eventID string) string { return calendarID + "/" + eventID }

// recordStore is the part of the Store invitations use.
type recordStore interface {
	GetRecord(ctx context.Context, appID, accountID, collection, key string) (*records.Record, error)
	PutRecord(ctx context.Context, appID, accountID, collection, key string, data []byte, ifVersion uint64) (uint64, error)
	ListRecords(ctx context.Context, appID, accountID, collection, prefix, after string, limit int) ([]*records.Record, error)
}

// readRecord returns the record under key with its version; a missing
// one is nil with version 0.
func readRecord(ctx context.Context, st recordStore, appID, accountID, key string) (*record, uint64, error) {
	rec, err := st.GetRecord(ctx, appID, accountID, collection, key)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var r record
	if err := json.Unmarshal(rec.Data, &r); err != nil {
		return nil, 0, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return &r, rec.Version, nil
}

// updateRecord applies fn to the record under key (nil when there is
// none) and stores the result, again from a fresh read when another
// writer got there first. fn returning nil stores nothing.
func updateRecord(ctx context.Context, st recordStore, appID, accountID, key string, fn func(*record) (*record, error)) (*record, error) {
	for range maxConflicts {
		cur, version, err := readRecord(ctx, st, appID, accountID, key)
		if err != nil {
			return nil, err
		}
		next, err := fn(cur)
		if err != nil || next == nil {
			return next, err
		}
		data, err := json.Marshal(next)
		if err != nil {
			return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
		}
		_, err = st.PutRecord(ctx, appID, accountID, collection, key, data, version)
		if unical.ErrorCode(err) == unical.CodeConflict {
			continue
		}
		return next, err
	}
	return nil, unical.Errorf(unical.CodeConflict, "The event's invitations changed too often at once; try again.")
}
