package booking

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
)

const (
	// lease is how long a booking's writer may take before recovery may
	// undo what it wrote; the writer stops itself leaseMargin earlier.
	lease       = 2 * time.Minute
	leaseMargin = 30 * time.Second
	// markerProperty is the private extended property that names the
	// booking an event belongs to, so that recovery finds the events of a
	// writer that died before it could record their ids.
	markerProperty = "unicalBookingId"
	// roundRobinLookback is how far before a slot round robin counts the
	// bookings of a member.
	roundRobinLookback = 30 * 24 * time.Hour
)

// afterEvents, when set (by tests), runs after a booking's events are
// written and before its record is: a test stops the writer there as if
// its process were killed.
var afterEvents func()

// bookingRecord is a stored booking with what the layer needs to undo
// it.
type bookingRecord struct {
	Booking
	// ClaimID is the ledger claim of the booking's current slot.
	ClaimID string `json:"claimId"`
	// From and To are the slot with the type's buffers.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// pendingRecord is a booking or reschedule being written: written before
// the ledger claims and the events, removed after, so that recovery can
// undo the writes of a writer that died.
type pendingRecord struct {
	Booking bookingRecord `json:"booking"`
	// Lease is when the writer has given up; recovery acts after it.
	Lease time.Time `json:"lease"`
	// Targets are the calendars events are written to.
	Targets []BookingEvent `json:"targets"`
	// Claimed are the accounts claimed under ClaimID.
	Claimed []string `json:"claimed"`
	ClaimID string   `json:"claimId"`
	// Reschedule is set for a reschedule: the slot to go back to.
	Reschedule *slotRecord `json:"reschedule,omitempty"`
}

type slotRecord struct {
	Start unical.EventDateTime `json:"start"`
	End   unical.EventDateTime `json:"end"`
	// ClaimID is the claim of the old slot.
	ClaimID string `json:"claimId"`
}

// typeRules is a booking type with its participants' schedules.
type typeRules struct {
	t         *BookingType
	schedules map[string]*Schedule
	loc       *time.Location
}

func (s *Service) loadType(ctx context.Context, id string) (*typeRules, error) {
	if id == "" {
		return nil, unical.FieldError("bookingTypeId", "bookingTypeId is required.")
	}
	t, err := s.GetBookingType(ctx, id)
	if err != nil {
		return nil, err
	}
	r := &typeRules{t: t, schedules: map[string]*Schedule{}}
	if r.loc, err = unical.LoadLocation(t.TimeZone); err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	for _, p := range t.Participants {
		if p.ScheduleID != "" && r.schedules[p.ScheduleID] == nil {
			sch, err := s.GetSchedule(ctx, p.ScheduleID)
			if err != nil {
				return nil, err
			}
			r.schedules[p.ScheduleID] = sch
		}
	}
	return r, nil
}

// participantLoc is the zone a participant's limits count in: its
// working hours' zone, else the type's.
func (r *typeRules) participantLoc(i int) *time.Location {
	p := r.t.Participants[i]
	zone := ""
	if p.WorkingHours != nil {
		zone = p.WorkingHours.TimeZone
	} else if sch := r.schedules[p.ScheduleID]; sch != nil {
		zone = sch.TimeZone
	}
	if loc, err := unical.LoadLocation(zone); zone != "" && err == nil {
		return loc
	}
	return r.loc
}

func (r *typeRules) locs() map[string]*time.Location {
	out := map[string]*time.Location{}
	for i, p := range r.t.Participants {
		out[p.EndUserAccountID] = r.participantLoc(i)
	}
	return out
}

// slotAt reads a slot start of the type and checks it against the grid,
// the notice and the horizon.
func (s *Service) slotAt(r *typeRules, value string) (time.Time, time.Time, error) {
	if value == "" {
		return time.Time{}, time.Time{}, unical.FieldError("startDateTime", "startDateTime is required.")
	}
	start, err := unical.ParseDateTime("startDateTime", value, r.loc)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	t, now := r.t, s.c.Config().Now()
	local := start.In(r.loc)
	mins := local.Hour()*60 + local.Minute()
	if local.Second() != 0 || local.Nanosecond() != 0 || mins%t.IntervalMinutes != 0 {
		return time.Time{}, time.Time{}, unical.FieldError("startDateTime", "startDateTime is not on the booking type's grid: slots start every %d minutes from midnight in %s.", t.IntervalMinutes, t.TimeZone)
	}
	if start.Before(now.Add(time.Duration(t.MinimumNoticeMinutes) * time.Minute)) {
		return time.Time{}, time.Time{}, unical.FieldError("startDateTime", "startDateTime is sooner than the booking type's minimum notice of %d minutes.", t.MinimumNoticeMinutes)
	}
	if !start.Before(now.AddDate(0, 0, t.HorizonDays)) {
		return time.Time{}, time.Time{}, unical.FieldError("startDateTime", "startDateTime is beyond the booking type's horizon of %d days.", t.HorizonDays)
	}
	return start, start.Add(time.Duration(t.DurationMinutes) * time.Minute), nil
}

// ListSlots answers the slots of a booking type in a window: availability
// under the type's rules, minus live holds and bookings of the
// application, minus the days and weeks a limit has filled, never beyond
// the horizon nor inside the notice.
//
// HTTP: GET /v1/bookingTypes/{id}/slots
func (s *Service) ListSlots(ctx context.Context, bookingTypeID string, params *SlotParams) (*availability.Result, error) {
	if params == nil {
		params = &SlotParams{}
	}
	r, err := s.loadType(ctx, bookingTypeID)
	if err != nil {
		return nil, err
	}
	q := s.availabilityParams(r.t, r.schedules)
	q.StartDateTime, q.EndDateTime = params.StartDateTime, params.EndDateTime
	if params.TimeZone != "" {
		q.TimeZone = params.TimeZone
	}
	now := s.c.Config().Now()
	horizon := now.AddDate(0, 0, r.t.HorizonDays)
	loc, err := unical.LoadLocation(q.TimeZone)
	if err != nil {
		return nil, unical.FieldError("timeZone", "timeZone %q is not an IANA time zone name.", q.TimeZone)
	}
	start, err1 := unical.ParseDateTime("startDateTime", params.StartDateTime, loc)
	end, err2 := unical.ParseDateTime("endDateTime", params.EndDateTime, loc)
	if err1 == nil && err2 == nil && end.After(start) && end.After(horizon) {
		// Slots start before the horizon; one that starts just before it
		// may end after it.
		end = horizon.Add(time.Duration(r.t.DurationMinutes) * time.Minute)
		if !end.After(start.Add(time.Duration(r.t.DurationMinutes) * time.Minute)) {
			return &availability.Result{Data: []*availability.Slot{}}, nil
		}
		q.EndDateTime = end.Format(time.RFC3339Nano)
	}
	extra := map[string][]availability.Busy{}
	for i, p := range r.t.Participants {
		l, _, err := s.readLedger(ctx, p.EndUserAccountID)
		if err != nil {
			return nil, err
		}
		extra[p.EndUserAccountID] = ledgerBusy(l, r, i, now)
	}
	return availability.FindWith(ctx, s.reads, now, q, extra)
}

// ledgerBusy is the busy time participant i's ledger adds: its live
// claims with their buffers, and the days and weeks whose limit of the
// type is full.
func ledgerBusy(l *ledger, r *typeRules, i int, now time.Time) []availability.Busy {
	var out []availability.Busy
	days, weeks := map[time.Time]int{}, map[time.Time]int{}
	loc := r.participantLoc(i)
	for _, c := range l.Claims {
		if !c.live(now) {
			continue
		}
		out = append(out, availability.Busy{Start: c.From, End: c.To})
		if c.Type == r.t.ID {
			days[dayStart(c.Start, loc)]++
			weeks[weekStart(c.Start, loc)]++
		}
	}
	for d, n := range days {
		if lim := r.t.Limits.PerDay; lim > 0 && n >= lim {
			out = append(out, availability.Busy{Start: d, End: d.AddDate(0, 0, 1)})
		}
	}
	for w, n := range weeks {
		if lim := r.t.Limits.PerWeek; lim > 0 && n >= lim {
			out = append(out, availability.Busy{Start: w, End: w.AddDate(0, 0, 7)})
		}
	}
	return out
}

// choice is who a booking goes to.
type choice struct {
	// participants are the chosen accounts in the type's order.
	participants []string
	organizer    string
	// ledgers are the participants' ledgers as choose read them, for
	// the claim's first attempt.
	ledgers map[string]ledgerRead
}

// providerFree asks the providers which of the type's participants are
// free in [start, end) with the type's buffers and working hours.
func (s *Service) providerFree(ctx context.Context, r *typeRules, start, end time.Time) (map[string]bool, error) {
	q := s.availabilityParams(r.t, r.schedules)
	q.Groups, q.MinimumNoticeMinutes, q.MaxResults = nil, 0, 1
	for i := range q.Participants {
		// Each on its own: the slot is offered when any is free, and
		// lists the free ones.
		q.Participants[i].Required = unical.Some(false)
		q.Participants[i].Group = ""
	}
	q.StartDateTime, q.EndDateTime = start.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano)
	res, err := availability.FindWith(ctx, s.reads, start, q, nil)
	if err != nil {
		return nil, err
	}
	free := map[string]bool{}
	if len(res.Data) > 0 {
		for _, id := range res.Data[0].Participants {
			free[id] = true
		}
	}
	return free, nil
}

// quietCopy is the options of the write of a booking's k-th event, for
// the request's notifyAttendees choice notify: the organizer's (k 0)
// invites as notify says; a VIRTUAL participant's own copy invites no
// one, so it is written with notifyAttendees false when the request gave
// a value.
func quietCopy(notify *bool, k int) unical.WriteOptions {
	if notify != nil && k > 0 {
		quiet := false
		return unical.WriteOptions{NotifyAttendees: &quiet}
	}
	return unical.WriteOptions{NotifyAttendees: notify}
}

// checkFree answers slotTaken naming the first of accounts the providers
// do not see free in [start, end) with the type's buffers and hours.
func (s *Service) checkFree(ctx context.Context, r *typeRules, start, end time.Time, accounts []string) error {
	free, err := s.providerFree(ctx, r, start, end)
	if err != nil {
		return err
	}
	for _, acc := range accounts {
		if !free[acc] {
			return slotTaken(acc)
		}
	}
	return nil
}

// choose picks the participants of a booking of r at [start, end): every
// required one, each group's required count of free members in order, and
// the round-robin member with the fewest bookings of the type from 30
// days before the slot on. A participant is free when the provider says
// so and its ledger has room (no overlapping claim other than owner's, no
// full limit).
func (s *Service) choose(ctx context.Context, r *typeRules, start, end time.Time, owner string) (*choice, error) {
	free, err := s.providerFree(ctx, r, start, end)
	if err != nil {
		return nil, err
	}
	t := r.t
	from, to := buffered(t, start, end)
	probe := &claimRequest{typ: t, locs: r.locs(), c: claim{ID: owner, Type: t.ID, State: stateBooked, Start: start, From: from, To: to}}
	refusal := map[string]error{}
	counts := map[string]int{}
	read := map[string]ledgerRead{}
	for _, p := range t.Participants {
		acc := p.EndUserAccountID
		if !free[acc] {
			refusal[acc] = slotTaken(acc)
			continue
		}
		l, version, err := s.readLedger(ctx, acc)
		if err != nil {
			return nil, err
		}
		l.prune(s.c.Config().Now())
		read[acc] = ledgerRead{l: &ledger{Claims: slices.Clone(l.Claims)}, version: version}
		counts[acc] = l.countIn(t.ID, start.Add(-roundRobinLookback), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), owner, s.c.Config().Now())
		if err := s.claimOne(l, acc, probe); err != nil {
			refusal[acc] = err
		}
	}
	chosen := map[string]bool{}
	var organizer, assigned, firstGroup string
	groupNeed := map[string]int{}
	for _, g := range t.Groups {
		groupNeed[g.Name] = g.Required
	}
	var robin []string
	for _, p := range t.Participants {
		acc := p.EndUserAccountID
		switch {
		case p.Group != "":
			if groupNeed[p.Group] > 0 && refusal[acc] == nil {
				groupNeed[p.Group]--
				chosen[acc] = true
				firstGroup = cmp.Or(firstGroup, acc)
			}
		case p.Required.Value() || !p.Required.IsSet():
			if err := refusal[acc]; err != nil {
				return nil, err
			}
			chosen[acc] = true
			organizer = cmp.Or(organizer, acc)
		default:
			robin = append(robin, acc)
		}
	}
	for _, g := range t.Groups {
		if groupNeed[g.Name] > 0 {
			return nil, &unical.Error{Code: unical.CodeSlotUnavailable, Field: "startDateTime",
				Message: fmt.Sprintf("The slot is no longer available: too few participants of group %q are free then.", g.Name)}
		}
	}
	if len(robin) > 0 {
		for _, acc := range robin {
			if refusal[acc] == nil && (assigned == "" || counts[acc] < counts[assigned]) {
				assigned = acc
			}
		}
		if assigned == "" {
			return nil, refusal[robin[0]]
		}
		chosen[assigned] = true
	}
	out := &choice{organizer: cmp.Or(organizer, assigned, firstGroup), ledgers: read}
	for _, p := range t.Participants {
		if chosen[p.EndUserAccountID] {
			out.participants = append(out.participants, p.EndUserAccountID)
		}
	}
	return out, nil
}

func buffered(t *BookingType, start, end time.Time) (time.Time, time.Time) {
	return start.Add(-time.Duration(t.BufferBeforeMinutes) * time.Minute), end.Add(time.Duration(t.BufferAfterMinutes) * time.Minute)
}

func (r *typeRules) dateTime(t time.Time) unical.EventDateTime {
	return unical.EventDateTime{DateTime: t.In(r.loc).Format(time.RFC3339), TimeZone: r.t.TimeZone}
}

// CreateHold reserves a slot of a booking type for ttlSeconds (default
// 300, at most 900): the participants are chosen as for a booking and
// their ledgers hold the slot, so that every other hold and booking of
// the application sees it busy until it expires or is booked.
//
// HTTP: POST /v1/holds
//
// Returns CodeSlotUnavailable or CodeLimitReached naming the participant,
// CodeInvalid naming startDateTime off the grid, inside the notice or
// beyond the horizon.
func (s *Service) CreateHold(ctx context.Context, params *HoldParams, opts ...unical.WriteOptions) (*Hold, error) {
	o, err := unical.OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return once(ctx, s, o, "CreateHold", func(ctx context.Context) (*Hold, error) { return s.createHold(ctx, params) }, params)
}

func (s *Service) createHold(ctx context.Context, params *HoldParams) (*Hold, error) {
	s = s.memoized()
	if params == nil {
		params = &HoldParams{}
	}
	ttl := params.TTLSeconds
	if ttl == 0 {
		ttl = DefaultHoldTTL
	}
	if ttl < 1 || ttl > MaxHoldTTL {
		return nil, unical.FieldError("ttlSeconds", "ttlSeconds must be between 1 and %d.", MaxHoldTTL)
	}
	r, err := s.loadType(ctx, params.BookingTypeID)
	if err != nil {
		return nil, bookingTypeField(err)
	}
	start, end, err := s.slotAt(r, params.StartDateTime)
	if err != nil {
		return nil, err
	}
	id := unical.NewID("hold")
	ch, err := s.choose(ctx, r, start, end, id)
	if err != nil {
		return nil, err
	}
	// expiresAt is shown in whole seconds; it is rounded up, so that a
	// hold lasts at least ttlSeconds (rounded down, a 1-second hold could
	// end almost as it is made).
	expires := s.c.Config().Now().UTC().Add(time.Duration(ttl) * time.Second)
	if whole := expires.Truncate(time.Second); whole.Before(expires) {
		expires = whole.Add(time.Second)
	}
	h := &Hold{ID: id, BookingTypeID: r.t.ID, Start: r.dateTime(start), End: r.dateTime(end),
		ExpiresAt: expires, Participants: ch.participants}
	from, to := buffered(r.t, start, end)
	req := &claimRequest{typ: r.t, locs: r.locs(), c: claim{ID: id, Type: r.t.ID, State: stateHeld, Start: start, From: from, To: to, Until: h.ExpiresAt}}
	held, err := appRecord(holdsCollection, id, h)
	if err != nil {
		return nil, err
	}
	if _, err := s.claimWith(ctx, sortedIDs(ch.participants), req, held, ch.ledgers); err != nil {
		return nil, err
	}
	return h, nil
}

func bookingTypeField(err error) error {
	var e *unical.Error
	if errors.As(err, &e) && e.Code == unical.CodeNotFound && e.Field == "" {
		named := *e
		named.Field = "bookingTypeId"
		return &named
	}
	return err
}

func sortedIDs(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// CreateBooking books a slot of a booking type, by startDateTime or by a
// live hold's holdId: it chooses the participants (or takes the hold's),
// claims the slot in their ledgers, checks their busy time at the
// providers for exactly that slot, writes the event in the organizer's
// calendar with the guest and the other participants as attendees (and
// in each other VIRTUAL participant's own calendar) and answers the
// confirmed booking. A failure undoes every write and answers the error
// naming the participant.
//
// HTTP: POST /v1/bookings
//
// Returns CodeSlotUnavailable or CodeLimitReached naming the participant,
// CodeInvalid naming the field, the provider's error naming the
// participant.
func (s *Service) CreateBooking(ctx context.Context, params *BookingParams, opts ...unical.WriteOptions) (*Booking, error) {
	o, err := unical.OptionsOf(opts, unical.OptionNotifyAttendees)
	if err != nil {
		return nil, err
	}
	return once(ctx, s, o, "CreateBooking", func(ctx context.Context) (*Booking, error) { return s.createBooking(ctx, params, o.NotifyAttendees) }, params)
}

func (s *Service) createBooking(ctx context.Context, params *BookingParams, notify *bool) (*Booking, error) {
	s = s.memoized()
	if params == nil {
		params = &BookingParams{}
	}
	if err := checkGuest(&params.Guest); err != nil {
		return nil, err
	}
	if len(params.Metadata) > 50 {
		return nil, unical.FieldError("metadata", "metadata may hold at most 50 keys.")
	}
	r, err := s.loadType(ctx, params.BookingTypeID)
	if err != nil {
		return nil, bookingTypeField(err)
	}
	id := unical.NewID("bk")
	var (
		start, end time.Time
		ch         *choice
		replace    string
	)
	switch {
	case params.HoldID != "" && params.StartDateTime != "":
		return nil, unical.FieldError("holdId", "Send startDateTime or holdId, not both.")
	case params.HoldID != "":
		var h Hold
		if _, err := s.getRecord(ctx, holdsCollection, params.HoldID, "Hold", &h); err != nil {
			return nil, holdField(err)
		}
		if h.BookingTypeID != r.t.ID {
			return nil, unical.FieldError("holdId", "The hold is for booking type %s, not %s.", h.BookingTypeID, r.t.ID)
		}
		if !s.c.Config().Now().Before(h.ExpiresAt) {
			return nil, &unical.Error{Code: unical.CodeConflict, Field: "holdId", Message: "The hold has expired; make a new hold or book the slot by startDateTime."}
		}
		start, _ = time.Parse(time.RFC3339, h.Start.DateTime)
		end, _ = time.Parse(time.RFC3339, h.End.DateTime)
		if err := s.checkFree(ctx, r, start, end, h.Participants); err != nil {
			return nil, err
		}
		ch = &choice{participants: h.Participants, organizer: organizerOf(r.t, h.Participants)}
		replace = h.ID
	default:
		if start, end, err = s.slotAt(r, params.StartDateTime); err != nil {
			return nil, err
		}
		if ch, err = s.choose(ctx, r, start, end, id); err != nil {
			return nil, err
		}
	}
	now := s.now()
	from, to := buffered(r.t, start, end)
	rec := bookingRecord{
		Booking: Booking{ID: id, BookingTypeID: r.t.ID, Status: StatusConfirmed, Start: r.dateTime(start), End: r.dateTime(end),
			Participants: ch.participants, Guest: params.Guest, Metadata: params.Metadata, Events: []BookingEvent{}, CreatedAt: now, UpdatedAt: now},
		ClaimID: id, From: from, To: to,
	}
	accounts, err := s.accounts(ctx, ch.participants)
	if err != nil {
		return nil, err
	}
	targets, err := s.targets(ctx, r, ch, accounts)
	if err != nil {
		return nil, err
	}
	pending := &pendingRecord{Booking: rec, Lease: now.Add(lease), Targets: targets, Claimed: sortedIDs(ch.participants), ClaimID: id}
	wctx, cancel := context.WithDeadline(ctx, pending.Lease.Add(-leaseMargin))
	defer cancel()
	write, err := appRecord(pendingCollection, id, pending)
	if err != nil {
		return nil, err
	}
	req := &claimRequest{typ: r.t, locs: r.locs(), replace: replace,
		c: claim{ID: id, Type: r.t.ID, State: stateBooked, Start: start, From: from, To: to}}
	pendingVersion, err := s.claimWith(wctx, pending.Claimed, req, write, ch.ledgers)
	if err != nil {
		return nil, err
	}
	undo := func() { s.undo(ctx, pending, pendingVersion, notify) }
	// The organizer's event, the one that invites, is written last, so
	// that no invitation goes out for a booking undone because a copy
	// failed.
	rec.Events = make([]BookingEvent, len(targets))
	for i := range targets {
		k := (i + 1) % len(targets)
		tg := targets[k]
		ev, err := s.app.CreateEvent(wctx, tg.EndUserAccountID, tg.CalendarID, s.eventParams(r, &rec, tg.EndUserAccountID, ch, accounts), quietCopy(notify, k))
		if err != nil {
			undo()
			return nil, participantFailed(tg.EndUserAccountID, err)
		}
		tg.EventID = ev.ID
		rec.Events[k] = tg
	}
	if afterEvents != nil {
		afterEvents()
	}
	if err := s.recordBooking(wctx, &rec, pendingVersion); err != nil {
		undo()
		return nil, err
	}
	if replace != "" {
		_ = s.store.DeleteRecord(context.WithoutCancel(ctx), s.app.ID(), appRecords, holdsCollection, replace, 0)
	}
	s.notify(context.WithoutCancel(ctx), EventTypeCreated, &rec.Booking)
	return &rec.Booking, nil
}

func holdField(err error) error {
	var e *unical.Error
	if errors.As(err, &e) && e.Code == unical.CodeNotFound {
		named := *e
		named.Field = "holdId"
		return &named
	}
	return err
}

func checkGuest(g *Guest) error {
	if g.Email == "" || !strings.Contains(g.Email, "@") || len(g.Email) > 320 {
		return unical.FieldError("guest.email", "guest.email must be an email address.")
	}
	if len(g.Name) > 255 {
		return unical.FieldError("guest.name", "guest.name may be at most 255 characters.")
	}
	if g.TimeZone != "" {
		if _, err := unical.LoadLocation(g.TimeZone); err != nil {
			return unical.FieldError("guest.timeZone", "guest.timeZone %q is not an IANA time zone name.", g.TimeZone)
		}
	}
	return nil
}

// organizerOf is the organizer among chosen participants: the first
// required one, else the first chosen.
func organizerOf(t *BookingType, chosen []string) string {
	for _, p := range t.Participants {
		if slices.Contains(chosen, p.EndUserAccountID) && p.Group == "" && (!p.Required.IsSet() || p.Required.Value()) {
			return p.EndUserAccountID
		}
	}
	if len(chosen) > 0 {
		return chosen[0]
	}
	return ""
}

// accounts reads the chosen participants' accounts.
func (s *Service) accounts(ctx context.Context, ids []string) (map[string]*unical.Account, error) {
	out := map[string]*unical.Account{}
	for _, id := range ids {
		a, err := s.reads.GetAccount(ctx, id)
		if err != nil {
			return nil, participantFailed(id, err)
		}
		out[id] = a
	}
	return out, nil
}

// targets are the calendars a booking writes to: the organizer's, then
// each other VIRTUAL participant's own, which no invitation reaches.
func (s *Service) targets(ctx context.Context, r *typeRules, ch *choice, accounts map[string]*unical.Account) ([]BookingEvent, error) {
	var out []BookingEvent
	for _, p := range r.t.Participants {
		acc := p.EndUserAccountID
		if !slices.Contains(ch.participants, acc) {
			continue
		}
		if acc != ch.organizer && accounts[acc].ProviderType != unical.ProviderVirtual {
			continue
		}
		cal, err := s.calendarOf(ctx, &p)
		if err != nil {
			return nil, participantFailed(acc, err)
		}
		tg := BookingEvent{EndUserAccountID: acc, CalendarID: cal}
		if acc == ch.organizer {
			out = slices.Insert(out, 0, tg)
		} else {
			out = append(out, tg)
		}
	}
	return out, nil
}

// calendarOf is the calendar a participant's event goes to: the first
// of its calendarIds, else its primary calendar, else (CalDAV) its first
// own calendar.
func (s *Service) calendarOf(ctx context.Context, p *Participant) (string, error) {
	if len(p.CalendarIDs) > 0 {
		return p.CalendarIDs[0], nil
	}
	var own string
	for c, err := range unical.AllCalendars(ctx, s.reads, p.EndUserAccountID, nil, nil) {
		if err != nil {
			return "", err
		}
		if c.IsPrimary {
			return c.ID, nil
		}
		if own == "" && !c.IsShared && !c.ReadOnly {
			own = c.ID
		}
	}
	if own == "" {
		return "", unical.Errorf(unical.CodeNotFound, "The account has no calendar a booking can be written to.")
	}
	return own, nil
}

// eventParams is the event of a booking in acc's calendar.
func (s *Service) eventParams(r *typeRules, b *bookingRecord, acc string, ch *choice, accounts map[string]*unical.Account) *unical.EventParams {
	t := r.t
	title := t.Event.Title
	if title == "" {
		title = t.Name
		if who := cmp.Or(b.Guest.Name, b.Guest.Email); who != "" {
			title += " with " + who
		}
	}
	attendees := []unical.Attendee{{Email: b.Guest.Email, Name: b.Guest.Name}}
	for _, id := range ch.participants {
		if id != acc {
			attendees = append(attendees, unical.Attendee{Email: accounts[id].Email})
		}
	}
	p := &unical.EventParams{
		Title: unical.Some(title), Start: unical.Some(b.Start), End: unical.Some(b.End),
		Attendees:                 unical.Some(attendees),
		PrivateExtendedProperties: unical.Some(map[string]string{markerProperty: b.ID}),
	}
	if t.Event.Description != "" {
		p.Description = unical.Some(t.Event.Description)
	}
	if t.Event.Location != "" {
		p.Location = unical.Some(t.Event.Location)
	}
	if t.Event.GenerateMeetingURLProvider != "" && acc == ch.organizer {
		p.GenerateMeetingURLProvider = unical.Some(t.Event.GenerateMeetingURLProvider)
	}
	return p
}

// undoPending removes what a booking's writer wrote: every event of the
// targets' calendars that carries the booking's marker in its slot (a
// reschedule's events move back instead), its ledger claims and its
// pending record. The writer itself and recovery both undo this way, so
// an event whose id never reached the writer goes too. notify is the
// writer's notifyAttendees choice (nil for recovery's).
func (s *Service) undoPending(ctx context.Context, p *pendingRecord, version uint64, notify *bool) error {
	var errs []error
	if p.Reschedule != nil {
		errs = append(errs, s.moveEvents(ctx, &p.Booking, p.Reschedule.Start, p.Reschedule.End, notify))
	} else {
		errs = append(errs, s.deleteMarked(ctx, &p.Booking.Booking, p.Targets, notify))
	}
	errs = append(errs, s.releaseAll(ctx, p.Claimed, p.ClaimID))
	if err := errors.Join(errs...); err != nil {
		// The pending record stays for recovery to try again.
		return err
	}
	err := s.store.DeleteRecord(ctx, s.app.ID(), appRecords, pendingCollection, p.Booking.ID, version)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil
	}
	return err
}

// undo is undoPending for a writer that failed: what it cannot undo now
// stays in the pending record, for recovery to finish after the lease.
func (s *Service) undo(ctx context.Context, p *pendingRecord, version uint64, notify *bool) {
	if err := s.undoPending(context.WithoutCancel(ctx), p, version, notify); err != nil {
		s.c.Config().Logger.ErrorContext(ctx, "booking: undo a failed write; recovery will finish it", "applicationId", s.app.ID(), "bookingId", p.Booking.ID, "err", err)
	}
}

// deleteMarked deletes the events of b in the targets' calendars that
// carry its marker.
func (s *Service) deleteMarked(ctx context.Context, b *Booking, targets []BookingEvent, notify *bool) error {
	start, _ := time.Parse(time.RFC3339, b.Start.DateTime)
	end, _ := time.Parse(time.RFC3339, b.End.DateTime)
	var errs []error
	for k, tg := range targets {
		for ev, err := range unical.AllEvents(ctx, s.app, tg.EndUserAccountID, tg.CalendarID, &unical.EventListParams{Start: start.Add(-time.Minute), End: end.Add(time.Minute)}, nil) {
			if err != nil {
				errs = append(errs, err)
				break
			}
			if ev.PrivateExtendedProperties[markerProperty] != b.ID {
				continue
			}
			if _, err := s.app.DeleteEvent(ctx, tg.EndUserAccountID, tg.CalendarID, ev.ID, quietCopy(notify, k)); err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// participantFailed names the participant in err's message, keeping its
// code.
func participantFailed(acc string, err error) error {
	var e *unical.Error
	if !errors.As(err, &e) || e.Code == unical.CodeInternal {
		return err
	}
	named := *e
	named.Message = fmt.Sprintf("Participant %s: %s", acc, strings.TrimSpace(e.Message))
	named.Err = err
	return &named
}
