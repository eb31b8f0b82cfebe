package booking

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
)

// The ledger is the guarantee. Each participant account has one record
// (records.Store collection ledgerCollection of that account) listing the
// intervals its live holds and bookings claim, buffers included. A hold
// or booking claims a participant by reading the record, checking that
// nothing live overlaps and that the type's limits have room, and writing
// it back with its claim by compare-and-set on the record's version: two
// writers that read the same version cannot both write, in one process or
// in several replicas sharing the Store, so two claims that overlap are
// never both in a ledger.
const (
	ledgerCollection = "booking.ledger"
	ledgerKey        = "claims"
	// casAttempts bounds the retries of a compare-and-set that lost to
	// another writer; each loss means that writer made progress.
	casAttempts = 200
	// keepPast is how long a booking stays in the ledger after it began:
	// round robin counts the bookings of 30 days before a slot.
	keepPast = 31 * 24 * time.Hour
)

// claim states.
const (
	// stateHeld is a hold, live until Until.
	stateHeld = "held"
	// stateBooked is a booking, pending or confirmed: it stays busy until
	// the booking is cancelled, rescheduled, or undone by its writer or
	// by recovery.
	stateBooked = "booked"
)

// claim is one interval of a participant's ledger.
type claim struct {
	// ID is the hold's or the booking's id; a rescheduled booking's new
	// slot is claimed under its id plus "@" and the new start.
	ID    string    `json:"id"`
	Type  string    `json:"type"`
	State string    `json:"state"`
	Start time.Time `json:"start"`
	// From and To are the slot with its buffers.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Until is when a hold lapses.
	Until time.Time `json:"until,omitzero"`
}

// owner is the booking or hold id a claim belongs to.
func (c *claim) owner() string {
	id, _, _ := strings.Cut(c.ID, "@")
	return id
}

func (c *claim) live(now time.Time) bool {
	return c.State == stateBooked || now.Before(c.Until)
}

type ledger struct {
	Claims []claim `json:"claims"`
}

// conflicting returns the first live claim of l overlapping [from, to)
// that does not belong to owner, or nil.
func (l *ledger) conflicting(from, to time.Time, owner string, now time.Time) *claim {
	for i := range l.Claims {
		c := &l.Claims[i]
		if c.live(now) && c.owner() != owner && c.From.Before(to) && from.Before(c.To) {
			return c
		}
	}
	return nil
}

// prune drops lapsed holds and bookings too old to count for anything.
func (l *ledger) prune(now time.Time) {
	l.Claims = slices.DeleteFunc(l.Claims, func(c claim) bool {
		return !c.live(now) || c.To.Before(now.Add(-keepPast))
	})
}

// countIn counts the live claims of a booking type that start in [from,
// to), other than owner's.
func (l *ledger) countIn(typeID string, from, to time.Time, owner string, now time.Time) int {
	n := 0
	for i := range l.Claims {
		c := &l.Claims[i]
		if c.Type == typeID && c.live(now) && c.owner() != owner && !c.Start.Before(from) && c.Start.Before(to) {
			n++
		}
	}
	return n
}

// readLedger returns an account's ledger and its version (0 when it has
// none yet).
func (s *Service) readLedger(ctx context.Context, accountID string) (*ledger, uint64, error) {
	rec, err := s.store.GetRecord(ctx, s.app.ID(), accountID, ledgerCollection, ledgerKey)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return &ledger{}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var l ledger
	if err := json.Unmarshal(rec.Data, &l); err != nil {
		return nil, 0, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return &l, rec.Version, nil
}

// updateLedger changes an account's ledger with fn by compare-and-set,
// reading it again and calling fn again whenever another writer got there
// first. An error from fn ends it and is returned.
func (s *Service) updateLedger(ctx context.Context, accountID string, fn func(*ledger) error) error {
	for range casAttempts {
		l, version, err := s.readLedger(ctx, accountID)
		if err != nil {
			return err
		}
		l.prune(s.c.Config().Now())
		if err := fn(l); err != nil {
			return err
		}
		data, err := json.Marshal(l)
		if err != nil {
			return unical.WrapError(unical.CodeInternal, err, "Internal error.")
		}
		_, err = s.store.PutRecord(ctx, s.app.ID(), accountID, ledgerCollection, ledgerKey, data, version)
		if unical.ErrorCode(err) == unical.CodeConflict {
			continue
		}
		return err
	}
	return unical.Errorf(unical.CodeConflict, "Too many concurrent bookings for participant %s; retry.", accountID)
}

// claimRequest is what claim asks of every participant.
type claimRequest struct {
	typ  *BookingType
	c    claim
	locs map[string]*time.Location // limit zones by account
	// replace is a claim id that the new claim takes the place of (the
	// hold a booking is made from).
	replace string
}

// claimAll claims req.c for each account in order, or none: on a
// refusal or failure the claims already made are released.
func (s *Service) claimAll(ctx context.Context, accounts []string, req *claimRequest) error {
	for i, acc := range accounts {
		err := s.updateLedger(ctx, acc, func(l *ledger) error { return s.claimOne(l, acc, req) })
		if err != nil {
			s.releaseAll(ctx, accounts[:i], req.c.ID)
			return err
		}
	}
	return nil
}

// claimOne adds req's claim to acc's ledger l unless it is taken or a
// limit is full.
func (s *Service) claimOne(l *ledger, acc string, req *claimRequest) error {
	now := s.c.Config().Now()
	owner := req.c.owner()
	if req.replace != "" {
		i := slices.IndexFunc(l.Claims, func(c claim) bool { return c.ID == req.replace })
		if i < 0 {
			return &unical.Error{Code: unical.CodeConflict, Field: "holdId", Message: "The hold has expired or was used; make a new hold or book the slot by startDateTime."}
		}
		l.Claims = slices.Delete(l.Claims, i, i+1)
		owner = req.replace
	}
	if c := l.conflicting(req.c.From, req.c.To, owner, now); c != nil {
		return slotTaken(acc)
	}
	if lim := req.typ.Limits; lim.PerDay > 0 || lim.PerWeek > 0 {
		loc := req.locs[acc]
		if loc == nil {
			loc = time.UTC
		}
		day := dayStart(req.c.Start, loc)
		if lim.PerDay > 0 && l.countIn(req.typ.ID, day, day.AddDate(0, 0, 1), owner, now) >= lim.PerDay {
			return limitFull(acc, "perDay")
		}
		week := weekStart(req.c.Start, loc)
		if lim.PerWeek > 0 && l.countIn(req.typ.ID, week, week.AddDate(0, 0, 7), owner, now) >= lim.PerWeek {
			return limitFull(acc, "perWeek")
		}
	}
	l.Claims = append(l.Claims, req.c)
	return nil
}

// releaseAll removes the claims with id from the accounts' ledgers. It
// runs on undo paths, so it goes on after a failure and detaches from
// the caller's cancellation.
func (s *Service) releaseAll(ctx context.Context, accounts []string, ids ...string) error {
	ctx = context.WithoutCancel(ctx)
	var first error
	for _, acc := range accounts {
		err := s.updateLedger(ctx, acc, func(l *ledger) error {
			l.Claims = slices.DeleteFunc(l.Claims, func(c claim) bool { return slices.Contains(ids, c.ID) })
			return nil
		})
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

func slotTaken(acc string) error {
	return &unical.Error{Code: unical.CodeSlotUnavailable, Field: "startDateTime",
		Message: fmt.Sprintf("The slot is no longer available: participant %s is busy then.", acc)}
}

func limitFull(acc, which string) error {
	return &unical.Error{Code: unical.CodeLimitReached, Field: "startDateTime",
		Message: fmt.Sprintf("Participant %s has reached the booking type's limits.%s for that period.", acc, which)}
}

// dayStart is the midnight that starts t's day in loc.
func dayStart(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// weekStart is the Monday midnight that starts t's week in loc.
func weekStart(t time.Time, loc *time.Location) time.Time {
	d := dayStart(t, loc)
	back := (int(d.Weekday()) + 6) % 7
	return d.AddDate(0, 0, -back)
}
