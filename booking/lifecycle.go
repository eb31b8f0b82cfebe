package booking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
)

// GetBooking returns a booking.
//
// HTTP: GET /v1/bookings/{id}
func (s *Service) GetBooking(ctx context.Context, id string) (*Booking, error) {
	rec, _, err := s.getBooking(ctx, id)
	if err != nil {
		return nil, err
	}
	return &rec.Booking, nil
}

func (s *Service) getBooking(ctx context.Context, id string) (*bookingRecord, uint64, error) {
	var rec bookingRecord
	version, err := s.getRecord(ctx, bookingsCollection, id, "Booking", &rec)
	if err != nil {
		return nil, 0, err
	}
	return &rec, version, nil
}

// ListBookings lists the application's bookings in id order, of one
// booking type and meeting a window when the parameters say so.
//
// HTTP: GET /v1/bookings
func (s *Service) ListBookings(ctx context.Context, params *BookingListParams) (*unical.Page[*Booking], error) {
	if params == nil {
		params = &BookingListParams{}
	}
	var from, to time.Time
	if params.StartDateTime != "" {
		t, err := unical.ParseDateTime("startDateTime", params.StartDateTime, time.UTC)
		if err != nil {
			return nil, err
		}
		from = t
	}
	if params.EndDateTime != "" {
		t, err := unical.ParseDateTime("endDateTime", params.EndDateTime, time.UTC)
		if err != nil {
			return nil, err
		}
		to = t
	}
	// The page token belongs to the filters it was issued with.
	scope := params.BookingTypeID + "\x1f" + params.StartDateTime + "\x1f" + params.EndDateTime
	page, err := listRecords(ctx, s, "bookings", scope, bookingsCollection, &ListParams{PageToken: params.PageToken, Limit: params.Limit},
		func(b *bookingRecord) string { return b.ID },
		func(b *bookingRecord) bool {
			if params.BookingTypeID != "" && b.BookingTypeID != params.BookingTypeID {
				return false
			}
			start, _ := time.Parse(time.RFC3339, b.Start.DateTime)
			end, _ := time.Parse(time.RFC3339, b.End.DateTime)
			return (from.IsZero() || end.After(from)) && (to.IsZero() || start.Before(to))
		})
	if err != nil {
		return nil, err
	}
	out := &unical.Page[*Booking]{Data: make([]*Booking, len(page.Data)), NextPageToken: page.NextPageToken}
	for i, b := range page.Data {
		out.Data[i] = &b.Booking
	}
	return out, nil
}

// CancelBooking cancels a booking: its events are deleted (the
// organizer's provider tells the attendees, as notifyAttendees says), its
// slot is free again, and booking.cancelled is sent. Cancelling a
// cancelled booking answers it unchanged.
//
// HTTP: DELETE /v1/bookings/{id}
func (s *Service) CancelBooking(ctx context.Context, id string, opts ...unical.WriteOptions) (*Booking, error) {
	o, err := unical.OptionsOf(opts, unical.OptionNotifyAttendees)
	if err != nil {
		return nil, err
	}
	return once(ctx, s, o, "CancelBooking", func(ctx context.Context) (*Booking, error) { return s.cancelBooking(ctx, id, o.NotifyAttendees) }, id)
}

func (s *Service) cancelBooking(ctx context.Context, id string, notify *bool) (*Booking, error) {
	rec, version, err := s.getBooking(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Status == StatusCancelled {
		return &rec.Booking, nil
	}
	for k, ev := range rec.Events {
		if _, err := s.app.DeleteEvent(ctx, ev.EndUserAccountID, ev.CalendarID, ev.EventID, quietCopy(notify, k)); err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
			return nil, participantFailed(ev.EndUserAccountID, err)
		}
	}
	rec.Status, rec.UpdatedAt = StatusCancelled, s.now()
	if _, err := s.putRecord(ctx, bookingsCollection, id, rec, version); err != nil {
		if unical.ErrorCode(err) == unical.CodeConflict {
			return nil, unical.Errorf(unical.CodeConflict, "The booking changed while it was cancelled; retry.")
		}
		return nil, err
	}
	if err := s.releaseAll(ctx, rec.Participants, rec.ClaimID); err != nil {
		return nil, err
	}
	s.notify(context.WithoutCancel(ctx), EventTypeCancelled, &rec.Booking)
	return &rec.Booking, nil
}

// RescheduleBooking moves a booking to another slot of its type with the
// same participants: the new slot is claimed before the old one is
// released, and the events move; either everything moves or nothing does.
// booking.rescheduled is sent.
//
// HTTP: POST /v1/bookings/{id}/reschedule
func (s *Service) RescheduleBooking(ctx context.Context, id string, params *RescheduleParams, opts ...unical.WriteOptions) (*Booking, error) {
	o, err := unical.OptionsOf(opts, unical.OptionNotifyAttendees)
	if err != nil {
		return nil, err
	}
	return once(ctx, s, o, "RescheduleBooking", func(ctx context.Context) (*Booking, error) {
		return s.rescheduleBooking(ctx, id, params, o.NotifyAttendees)
	}, id, params)
}

func (s *Service) rescheduleBooking(ctx context.Context, id string, params *RescheduleParams, notify *bool) (*Booking, error) {
	if params == nil {
		params = &RescheduleParams{}
	}
	rec, version, err := s.getBooking(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Status != StatusConfirmed {
		return nil, unical.Errorf(unical.CodeConflict, "The booking is %s and cannot be rescheduled.", rec.Status)
	}
	r, err := s.loadType(ctx, rec.BookingTypeID)
	if err != nil {
		return nil, err
	}
	start, end, err := s.slotAt(r, params.StartDateTime)
	if err != nil {
		return nil, err
	}
	from, to := buffered(r.t, start, end)
	if !(from.Before(rec.To) && rec.From.Before(to)) {
		// A slot that overlaps the booking's own would meet its own
		// events at the provider; the ledger alone checks it.
		if err := s.checkFree(ctx, r, start, end, rec.Participants); err != nil {
			return nil, err
		}
	}
	moved := *rec
	moved.Start, moved.End, moved.From, moved.To = r.dateTime(start), r.dateTime(end), from, to
	moved.ClaimID = fmt.Sprintf("%s@%d", id, start.Unix())
	moved.UpdatedAt = s.now()
	pending := &pendingRecord{Booking: moved, Lease: s.c.Config().Now().Add(lease), Claimed: sortedIDs(rec.Participants), ClaimID: moved.ClaimID,
		Reschedule: &slotRecord{Start: rec.Start, End: rec.End, ClaimID: rec.ClaimID}}
	pendingVersion, err := s.putRecord(ctx, pendingCollection, id, pending, 0)
	if unical.ErrorCode(err) == unical.CodeConflict {
		return nil, unical.Errorf(unical.CodeConflict, "The booking is being changed by another request; retry.")
	}
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithDeadline(ctx, pending.Lease.Add(-leaseMargin))
	defer cancel()
	req := &claimRequest{typ: r.t, locs: r.locs(), c: claim{ID: moved.ClaimID, Type: r.t.ID, State: stateBooked, Start: start, From: from, To: to}}
	if err := s.claimAll(wctx, pending.Claimed, req); err != nil {
		_ = s.store.DeleteRecord(context.WithoutCancel(ctx), s.app.ID(), appRecords, pendingCollection, id, pendingVersion)
		return nil, err
	}
	undo := func() { s.undo(ctx, pending, pendingVersion, notify) }
	if err := s.moveEvents(wctx, &moved, moved.Start, moved.End, notify); err != nil {
		undo()
		return nil, err
	}
	if _, err := s.putRecord(wctx, bookingsCollection, id, &moved, version); err != nil {
		undo()
		if unical.ErrorCode(err) == unical.CodeConflict {
			return nil, unical.Errorf(unical.CodeConflict, "The booking changed while it was rescheduled; retry.")
		}
		return nil, err
	}
	bg := context.WithoutCancel(ctx)
	_ = s.releaseAll(bg, pending.Claimed, rec.ClaimID)
	_ = s.store.DeleteRecord(bg, s.app.ID(), appRecords, pendingCollection, id, pendingVersion)
	s.notify(bg, EventTypeRescheduled, &moved.Booking)
	return &moved.Booking, nil
}

// moveEvents sets the start and end of b's events. When one fails, the
// ones already moved go back to b's own slot, and the error names the
// participant.
func (s *Service) moveEvents(ctx context.Context, b *bookingRecord, start, end unical.EventDateTime, notify *bool) error {
	for i, ev := range b.Events {
		_, err := s.app.UpdateEvent(ctx, ev.EndUserAccountID, ev.CalendarID, ev.EventID, &unical.EventParams{Start: unical.Some(start), End: unical.Some(end)}, quietCopy(notify, i))
		if err != nil {
			bg := context.WithoutCancel(ctx)
			for j, back := range b.Events[:i] {
				_, _ = s.app.UpdateEvent(bg, back.EndUserAccountID, back.CalendarID, back.EventID, &unical.EventParams{Start: unical.Some(b.Start), End: unical.Some(b.End)}, quietCopy(notify, j))
			}
			return participantFailed(ev.EndUserAccountID, err)
		}
	}
	return nil
}

// notify queues a booking.* message to the application's webhook
// endpoint, signed at delivery as enduseraccount.* messages are. A booking
// without a webhook URL queues nothing.
func (s *Service) notify(ctx context.Context, eventType string, b *Booking) {
	app, err := s.c.Application(ctx, s.app.ID())
	if err != nil || app.WebhookURL == "" {
		return
	}
	data, err := json.Marshal(b)
	if err != nil {
		return
	}
	now := s.now()
	body, err := json.Marshal(Message{EventType: eventType, Timestamp: unical.FormatTimestamp(now), Data: data})
	if err != nil {
		return
	}
	msg := &unical.OutboxMessage{ID: unical.NewID("msg"), ApplicationID: s.app.ID(), EventType: eventType, Payload: body,
		CreatedAt: now, Status: unical.MessagePending, NextAttemptAt: now}
	if err := s.store.EnqueueMessages(ctx, []*unical.OutboxMessage{msg}); err != nil {
		s.c.Config().Logger.Error("booking: queue webhook message", "applicationId", s.app.ID(), "bookingId", b.ID, "error", err)
		return
	}
	s.c.Outbox().Notify()
}

// errorBody is how once keeps an error answer.
type errorBody struct {
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// once runs a write at most once per Idempotency-Key of o, as the App's
// own writes do (App.Idempotency): a retry with the same key,
// arguments and notifyAttendees gets the first answer. The calls the
// write makes run without the key.
func once[R any](ctx context.Context, s *Service, o unical.WriteOptions, op string, fn func(context.Context) (*R, error), args ...any) (*R, error) {
	key := o.IdempotencyKey
	if key == "" {
		return fn(ctx)
	}
	fp := []any{op, args}
	if o.NotifyAttendees != nil {
		fp = append(fp, *o.NotifyAttendees)
	}
	raw, _ := json.Marshal(fp)
	sum := sha256.Sum256(raw)
	var (
		out    *R
		callEr error
	)
	res, replayed, err := s.app.Idempotency().Run(ctx, key, "booking:"+hex.EncodeToString(sum[:]), func(ctx context.Context) idempotency.Answer {
		out, callEr = fn(ctx)
		if callEr != nil {
			var e *unical.Error
			if !errors.As(callEr, &e) {
				return idempotency.Answer{Code: string(unical.CodeInternal)}
			}
			body, _ := json.Marshal(errorBody{Message: e.Message, Field: e.Field})
			return idempotency.Answer{Code: string(e.Code), Body: body}
		}
		body, _ := json.Marshal(out)
		return idempotency.Answer{Body: body}
	})
	if err != nil {
		return nil, err
	}
	if !replayed {
		return out, callEr
	}
	if res.Code != "" {
		var e errorBody
		_ = json.Unmarshal(res.Body, &e)
		return nil, &unical.Error{Code: unical.Code(res.Code), Message: e.Message, Field: e.Field}
	}
	v := new(R)
	if err := json.Unmarshal(res.Body, v); err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return v, nil
}

// RecoverGrace is how long after a writer's lease recovery waits, for
// clocks of replicas that disagree a little.
const RecoverGrace = 30 * time.Second

// RecoverEvery is how often unicald runs Recover.
const RecoverEvery = 30 * time.Second

// Recover undoes the bookings and reschedules whose writer died (a
// replica killed mid-booking): every pending record of every application
// whose lease ended RecoverGrace ago. A booking whose record was written
// only loses its pending record; any other loses the events carrying its
// marker and its ledger claims; a reschedule moves its events back. It
// returns how many it undid. unicald runs it every RecoverEvery, so what
// a dead writer left goes within lease + RecoverGrace + RecoverEvery (3
// minutes) of its start.
func Recover(ctx context.Context, c *unical.Client) (int, error) {
	apps, err := c.Store().ListApplications(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, a := range apps {
		app, err := c.App(ctx, a.ID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		k, err := New(c, app).recover(ctx)
		n += k
		errs = append(errs, err)
	}
	return n, errors.Join(errs...)
}

// RunRecovery runs Recover now and every RecoverEvery until ctx ends,
// logging what it undid and what failed (to be tried again).
func RunRecovery(ctx context.Context, c *unical.Client) {
	t := time.NewTicker(RecoverEvery)
	defer t.Stop()
	for {
		n, err := Recover(ctx, c)
		if err != nil && ctx.Err() == nil {
			c.Config().Logger.ErrorContext(ctx, "booking recovery", "err", err)
		}
		if n > 0 {
			c.Config().Logger.InfoContext(ctx, "booking recovery undid the writes of dead writers", "bookings", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Service) recover(ctx context.Context) (int, error) {
	recs, err := s.store.ListRecords(ctx, s.app.ID(), appRecords, pendingCollection, "", "", 0)
	if err != nil {
		return 0, err
	}
	n := 0
	errs := []error{s.dropExpiredHolds(ctx)}
	for _, raw := range recs {
		var p pendingRecord
		if err := json.Unmarshal(raw.Data, &p); err != nil {
			errs = append(errs, err)
			continue
		}
		if s.c.Config().Now().Before(p.Lease.Add(RecoverGrace)) {
			continue
		}
		if err := s.recoverOne(ctx, &p, raw.Version); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// dropExpiredHolds removes the records of holds that expired without a
// booking (their ledger claims lapse by themselves), so that they do not
// pile up.
func (s *Service) dropExpiredHolds(ctx context.Context) error {
	recs, err := s.store.ListRecords(ctx, s.app.ID(), appRecords, holdsCollection, "", "", 0)
	if err != nil {
		return err
	}
	var errs []error
	for _, raw := range recs {
		var h Hold
		if err := json.Unmarshal(raw.Data, &h); err != nil {
			errs = append(errs, err)
			continue
		}
		if s.c.Config().Now().After(h.ExpiresAt.Add(RecoverGrace)) {
			err := s.store.DeleteRecord(ctx, s.app.ID(), appRecords, holdsCollection, h.ID, raw.Version)
			if c := unical.ErrorCode(err); err != nil && c != unical.CodeNotFound && c != unical.CodeConflict {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (s *Service) recoverOne(ctx context.Context, p *pendingRecord, version uint64) error {
	done, _, err := s.getBooking(ctx, p.Booking.ID)
	if err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
		return err
	}
	finished := done != nil && (p.Reschedule == nil || done.ClaimID == p.ClaimID)
	if finished {
		// The writer got as far as the booking record: only its
		// clean-up is left.
		if p.Reschedule != nil {
			if err := s.releaseAll(ctx, p.Claimed, p.Reschedule.ClaimID); err != nil {
				return err
			}
		}
		err := s.store.DeleteRecord(ctx, s.app.ID(), appRecords, pendingCollection, p.Booking.ID, version)
		if unical.ErrorCode(err) == unical.CodeNotFound {
			return nil
		}
		return err
	}
	return s.undoPending(ctx, p, version, nil)
}
