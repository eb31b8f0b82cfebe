package booking_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
)

// env is one application on a test stack with its booking layer.
type env struct {
	st  *apitest.Stack
	app *unical.App
	svc *booking.Service
	rcv *apitest.Receiver
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, nil)
}

// newEnvWith is newEnv whose Client's Store is wrap of the stack's, when
// wrap is set.
func newEnvWith(t *testing.T, wrap func(unical.Store) unical.Store) *env {
	t.Helper()
	rcv := apitest.NewReceiver(t)
	st := apitest.Start(t, nil, func(cfg *apitest.Config) {
		if wrap != nil {
			cfg.Store = wrap(cfg.Store)
		}
		cfg.Sender = rcv.Sender()
		cfg.AllowPrivateTargets = true
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = -1
		cfg.RetryJitter = -1
	})
	created, err := st.Admin.CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("bookings"), WebhookURL: unical.Some(rcv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(created.WebhookSecret)
	app, err := st.Client.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	return &env{st: st, app: app, svc: booking.New(st.Client, app), rcv: rcv}
}

// host makes a VIRTUAL account.
func (e *env) host(t *testing.T, name string) string {
	t.Helper()
	a, err := e.app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: name + "@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// events lists the events of an account's primary calendar.
func (e *env) events(t *testing.T, acc string) []*unical.Event {
	t.Helper()
	var out []*unical.Event
	for ev, err := range unical.AllEvents(t.Context(), e.app, acc, "primary", nil, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func (e *env) bookingType(t *testing.T, p *booking.BookingTypeParams) *booking.BookingType {
	t.Helper()
	bt, err := e.svc.CreateBookingType(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	return bt
}

func required(accs ...string) []booking.Participant {
	var out []booking.Participant
	for _, a := range accs {
		out = append(out, booking.Participant{Participant: availability.Participant{EndUserAccountID: a}})
	}
	return out
}

// monday is 10:00 UTC on a Monday one to two weeks ahead.
func monday() time.Time {
	d := time.Now().UTC().AddDate(0, 0, 7)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, time.UTC)
}

func at(t time.Time) string { return t.Format(time.RFC3339) }

func guest() booking.Guest { return booking.Guest{Email: "guest@example.org", Name: "Ada Guest"} }

func wantCode(t *testing.T, what string, err error, code unical.Code, field string) {
	t.Helper()
	if unical.ErrorCode(err) != code {
		t.Fatalf("%s: error %v, want %s", what, err, code)
	}
	var e *unical.Error
	if field != "" && (!errorAs(err, &e) || e.Field != field) {
		t.Fatalf("%s: error %v, want field %s", what, err, field)
	}
}

func errorAs(err error, e **unical.Error) bool { return errors.As(err, e) }

func slotStarts(res *availability.Result) []string {
	var out []string
	for _, s := range res.Data {
		out = append(out, s.Start.DateTime)
	}
	return out
}

func TestBooking_CreateWritesEventAndFreesOnCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host, room := e.host(t, "host"), e.host(t, "room")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(30),
		IntervalMinutes: unical.Some(30), Participants: unical.Some(required(host, room)),
		Event: unical.Some(booking.EventTemplate{Title: "Intro call", Location: "Room 4B"})})
	start := monday()
	b, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest(), Metadata: map[string]string{"crm": "42"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != booking.StatusConfirmed || len(b.Events) != 2 || b.Events[0].EndUserAccountID != host || b.Events[1].EndUserAccountID != room {
		t.Fatalf("booking = %+v, want confirmed with the host's event and the VIRTUAL room's own", b)
	}
	evs := e.events(t, host)
	if len(evs) != 1 || evs[0].Title != "Intro call" || evs[0].Location != "Room 4B" {
		t.Fatalf("host events = %+v, want the one booked event", evs)
	}
	var emails []string
	for _, a := range evs[0].Attendees {
		emails = append(emails, a.Email)
	}
	if d := cmp.Diff([]string{"guest@example.org", "room@example.com"}, emails); d != "" {
		t.Errorf("attendees mismatch (-want +got):\n%s", d)
	}
	if n := len(e.events(t, room)); n != 1 {
		t.Errorf("room has %d events, want its own copy", n)
	}
	got, err := e.svc.GetBooking(t.Context(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(b, got); d != "" {
		t.Errorf("GetBooking mismatch (-want +got):\n%s", d)
	}
	// The slot is taken for the next guest.
	_, err = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()})
	wantCode(t, "second booking of the slot", err, unical.CodeSlotUnavailable, "startDateTime")
	slots, err := e.svc.ListSlots(t.Context(), bt.ID, &booking.SlotParams{StartDateTime: at(start.Add(-time.Hour)), EndDateTime: at(start.Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	wantSlots := []string{at(start.Add(-time.Hour)), at(start.Add(-30 * time.Minute)), at(start.Add(30 * time.Minute))}
	if d := cmp.Diff(wantSlots, slotStarts(slots)); d != "" {
		t.Errorf("slots around the booking mismatch (-want +got):\n%s", d)
	}
	// Cancel frees it: events gone, slot offered, booking again.
	c, err := e.svc.CancelBooking(t.Context(), b.ID)
	if err != nil || c.Status != booking.StatusCancelled {
		t.Fatalf("CancelBooking = %+v, %v", c, err)
	}
	if n := len(e.events(t, host)) + len(e.events(t, room)); n != 0 {
		t.Errorf("%d events after the cancel, want none", n)
	}
	if _, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()}); err != nil {
		t.Errorf("booking the cancelled slot again: %v", err)
	}
}

func TestBooking_WebhookMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = engine.Run(ctx, e.st.Client, e.st.Engine) }()
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host))})
	b, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RescheduleBooking(t.Context(), b.ID, &booking.RescheduleParams{StartDateTime: at(monday().Add(2 * time.Hour))}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CancelBooking(t.Context(), b.ID); err != nil {
		t.Fatal(err)
	}
	var got []string
	// The host's enduseraccount.created comes first.
	for _, d := range e.rcv.WaitFor(t, 4) {
		var m booking.Message
		if err := json.Unmarshal(d.Body, &m); err != nil {
			t.Fatal(err)
		}
		if m.EventType == unical.EventTypeAccountCreated {
			continue
		}
		var data booking.Booking
		if err := json.Unmarshal(m.Data, &data); err != nil {
			t.Fatal(err)
		}
		if !d.Verified || data.ID != b.ID {
			t.Errorf("%s: verified %v, booking %s; want a verified message about %s", m.EventType, d.Verified, data.ID, b.ID)
		}
		got = append(got, m.EventType+" "+data.Status+" "+data.Start.DateTime)
	}
	want := []string{
		"booking.created confirmed " + at(monday()),
		"booking.rescheduled confirmed " + at(monday().Add(2*time.Hour)),
		"booking.cancelled cancelled " + at(monday().Add(2*time.Hour)),
	}
	// The engine delivers an endpoint's due messages concurrently, so
	// they may arrive out of order (docs/webhooks.md: a receiver orders
	// them by timestamp): compare the messages, not their arrival order.
	if d := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("webhook messages mismatch (-want +got):\n%s", d)
	}
}

func TestBooking_Limits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Limited"), DurationMinutes: unical.Some(30), IntervalMinutes: unical.Some(60),
		Participants: unical.Some(required(host)), Limits: unical.Some(booking.Limits{PerDay: 2})})
	day := monday()
	for i := range 2 {
		if _, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(day.Add(time.Duration(i) * time.Hour)), Guest: guest()}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(day.Add(3 * time.Hour)), Guest: guest()})
	wantCode(t, "third booking of the day", err, unical.CodeLimitReached, "startDateTime")
	// The full day leaves the slots; the next day is offered.
	midnight := day.Add(-10 * time.Hour)
	slots, err := e.svc.ListSlots(t.Context(), bt.ID, &booking.SlotParams{StartDateTime: at(midnight), EndDateTime: at(midnight.Add(26 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{at(midnight.Add(24 * time.Hour)), at(midnight.Add(25 * time.Hour))}, slotStarts(slots)); d != "" {
		t.Errorf("slots mismatch (-want +got):\n%s", d)
	}
}

func TestBooking_HorizonNoticeGrid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Rules"), DurationMinutes: unical.Some(30), IntervalMinutes: unical.Some(30),
		Participants: unical.Some(required(host)), HorizonDays: unical.Some(14), MinimumNoticeMinutes: unical.Some(24 * 60)})
	realNow := time.Now()
	now := realNow.UTC().Truncate(time.Hour)
	for _, tc := range []struct {
		name  string
		start time.Time
	}{
		{"inside the notice", now.Add(2 * time.Hour)},
		{"beyond the horizon", now.AddDate(0, 0, 15)},
		{"off the grid", now.AddDate(0, 0, 3).Add(10 * time.Minute)},
	} {
		_, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(tc.start), Guest: guest()})
		wantCode(t, tc.name, err, unical.CodeInvalid, "startDateTime")
		_, err = e.svc.CreateHold(t.Context(), &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(tc.start)})
		wantCode(t, tc.name+" (hold)", err, unical.CodeInvalid, "startDateTime")
	}
	slots, err := e.svc.ListSlots(t.Context(), bt.ID, &booking.SlotParams{StartDateTime: at(now), EndDateTime: at(now.AddDate(0, 0, 20))})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := time.Parse(time.RFC3339, slots.Data[0].Start.DateTime)
	last, _ := time.Parse(time.RFC3339, slots.Data[len(slots.Data)-1].Start.DateTime)
	if first.Before(realNow.Add(24*time.Hour)) || !last.Before(time.Now().AddDate(0, 0, 14)) {
		t.Errorf("slots from %s to %s, want none inside a day's notice or beyond 14 days from %s", first, last, now)
	}
}

func TestBooking_Buffers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Buffered"), DurationMinutes: unical.Some(30), IntervalMinutes: unical.Some(15),
		Participants: unical.Some(required(host)), BufferBeforeMinutes: unical.Some(15), BufferAfterMinutes: unical.Some(15)})
	start := monday()
	if _, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()}); err != nil {
		t.Fatal(err)
	}
	// The booking holds 09:45-10:45 with its buffers; a new one's own
	// buffered span may touch that but not overlap it.
	for _, tc := range []struct {
		start time.Time
		ok    bool
	}{
		{start.Add(-45 * time.Minute), false}, {start.Add(-time.Hour), true},
		{start.Add(45 * time.Minute), false}, {start.Add(time.Hour), true},
	} {
		_, err := e.svc.CreateHold(t.Context(), &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(tc.start), TTLSeconds: 1})
		if tc.ok && err != nil {
			t.Errorf("hold at %s: %v, want it held", tc.start, err)
		}
		if !tc.ok && unical.ErrorCode(err) != unical.CodeSlotUnavailable {
			t.Errorf("hold at %s: %v, want slot_unavailable", tc.start, err)
		}
	}
}

func TestBooking_HoldBlocksUntilExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Held"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host))})
	start := monday()
	h, err := e.svc.CreateHold(t.Context(), &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(start), TTLSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{host}, h.Participants); d != "" {
		t.Errorf("hold participants mismatch (-want +got):\n%s", d)
	}
	_, err = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()})
	wantCode(t, "booking a held slot", err, unical.CodeSlotUnavailable, "startDateTime")
	for time.Now().Before(h.ExpiresAt.Add(50 * time.Millisecond)) {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()}); err != nil {
		t.Errorf("booking after the hold expired: %v", err)
	}
	_, err = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, HoldID: h.ID, Guest: guest()})
	wantCode(t, "booking by an expired hold", err, unical.CodeConflict, "holdId")
}

func TestBooking_ByHoldID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Held"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host))})
	h, err := e.svc.CreateHold(t.Context(), &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(monday())})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, HoldID: h.ID, Guest: guest()})
	if err != nil {
		t.Fatal(err)
	}
	if b.Start != h.Start || len(e.events(t, host)) != 1 {
		t.Errorf("booking by hold starts %v with %d events, want the hold's %v and one event", b.Start, len(e.events(t, host)), h.Start)
	}
	_, err = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, HoldID: h.ID, Guest: guest()})
	wantCode(t, "booking by a used hold", err, unical.CodeNotFound, "holdId")
}

func TestBooking_RoundRobin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var hosts []booking.Participant
	var ids []string
	for i := range 3 {
		id := e.host(t, fmt.Sprintf("host%d", i))
		ids = append(ids, id)
		hosts = append(hosts, booking.Participant{Participant: availability.Participant{EndUserAccountID: id, Required: unical.Some(false)}})
	}
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Sales"), DurationMinutes: unical.Some(30), IntervalMinutes: unical.Some(60), Participants: unical.Some(hosts)})
	count := map[string]int{}
	for i := range 9 {
		b, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday().Add(time.Duration(i) * time.Hour)), Guest: guest()})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Participants) != 1 {
			t.Fatalf("booking %d participants %v, want one host", i, b.Participants)
		}
		count[b.Participants[0]]++
	}
	if d := cmp.Diff(map[string]int{ids[0]: 3, ids[1]: 3, ids[2]: 3}, count); d != "" {
		t.Errorf("bookings per host mismatch (-want +got):\n%s", d)
	}
}

func TestBooking_OneRoomOfThree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	parts := required(host)
	var rooms []string
	for i := range 3 {
		r := e.host(t, fmt.Sprintf("room%d", i))
		rooms = append(rooms, r)
		parts = append(parts, booking.Participant{Participant: availability.Participant{EndUserAccountID: r, Group: "rooms"}})
	}
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Onsite"), DurationMinutes: unical.Some(30),
		Participants: unical.Some(parts), Groups: unical.Some([]availability.Group{{Name: "rooms", Required: 1}})})
	// The first room is busy then: the second is chosen.
	if _, err := e.app.CreateEvent(t.Context(), rooms[0], "primary", &unical.EventParams{Title: unical.Some("Cleaning"),
		Start: unical.Some(unical.EventDateTime{DateTime: at(monday())}), End: unical.Some(unical.EventDateTime{DateTime: at(monday().Add(time.Hour))})}); err != nil {
		t.Fatal(err)
	}
	b, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{host, rooms[1]}, b.Participants); d != "" {
		t.Errorf("participants mismatch (-want +got):\n%s", d)
	}
}

func TestBooking_Reschedule(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host))})
	start, later := monday(), monday().Add(3*time.Hour)
	b, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()})
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(later.Add(time.Hour)), Guest: guest()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.RescheduleBooking(t.Context(), b.ID, &booking.RescheduleParams{StartDateTime: at(later.Add(time.Hour))})
	wantCode(t, "rescheduling onto another booking", err, unical.CodeSlotUnavailable, "startDateTime")
	moved, err := e.svc.RescheduleBooking(t.Context(), b.ID, &booking.RescheduleParams{StartDateTime: at(later)})
	if err != nil {
		t.Fatal(err)
	}
	if moved.Start.DateTime != at(later) {
		t.Errorf("rescheduled start %s, want %s", moved.Start.DateTime, at(later))
	}
	ev, err := e.app.GetEvent(t.Context(), host, "primary", b.Events[0].EventID)
	if err != nil {
		t.Fatal(err)
	}
	if evStart, _ := time.Parse(time.RFC3339, ev.Start.DateTime); !evStart.Equal(later) {
		t.Errorf("event starts %s, want it moved to %s", ev.Start.DateTime, later)
	}
	// The old slot is free again.
	if _, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(start), Guest: guest()}); err != nil {
		t.Errorf("booking the old slot: %v", err)
	}
	list, err := e.svc.ListBookings(t.Context(), &booking.BookingListParams{BookingTypeID: bt.ID, StartDateTime: at(later), EndDateTime: at(later.Add(30 * time.Minute))})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 1 || list.Data[0].ID != b.ID {
		t.Errorf("bookings in the new slot = %v, want %s alone (not %s)", list.Data, b.ID, other.ID)
	}
}

func TestBooking_IdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host))})
	ctx, key := t.Context(), unical.WriteOptions{IdempotencyKey: "book-1"}
	p := &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()}
	first, err := e.svc.CreateBooking(ctx, p, key)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.svc.CreateBooking(ctx, p, key)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(first, again); d != "" {
		t.Errorf("retry answer mismatch (-want +got):\n%s", d)
	}
	list, err := e.svc.ListBookings(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 1 || len(e.events(t, host)) != 1 {
		t.Errorf("%d bookings and %d events after a retry, want one of each", len(list.Data), len(e.events(t, host)))
	}
}

// TestBooking_Concurrent50 races 50 bookings for one slot of one VIRTUAL
// host: exactly one wins, the others are slot_unavailable, and the host's
// calendar holds one event.
func TestBooking_Concurrent50(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.host(t, "host")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Race"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host))})
	count := e.race(t, 50, &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()})
	if d := cmp.Diff(map[unical.Code]int{"created": 1, unical.CodeSlotUnavailable: 49}, count); d != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", d)
	}
	if n := len(e.events(t, host)); n != 1 {
		t.Errorf("host has %d events, want 1", n)
	}
}

// race sends n bookings with params at once and counts the answers by
// code, "created" for a booking made.
func (e *env) race(t *testing.T, n int, params *booking.BookingParams) map[unical.Code]int {
	t.Helper()
	var wg sync.WaitGroup
	codes := make([]unical.Code, n)
	for i := range codes {
		wg.Go(func() {
			_, err := e.svc.CreateBooking(t.Context(), params)
			codes[i] = unical.ErrorCode(err)
			if err == nil {
				codes[i] = "created"
			}
		})
	}
	wg.Wait()
	count := map[unical.Code]int{}
	for _, c := range codes {
		count[c]++
	}
	return count
}

// TestBooking_RecoverDeadWriter stops a booking's writer after its events
// are written, as if its replica were killed: until the lease ends the
// slot stays taken; then recovery removes the events and the claim, so
// no event is left without its booking and the slot can be booked.
func TestBooking_RecoverDeadWriter(t *testing.T) {
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	st := apitest.Start(t, nil, func(cfg *apitest.Config) { cfg.Now = clock })
	id, _ := st.CreateApp(t, &admin.ApplicationParams{})
	app, err := st.Client.App(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{st: st, app: app, svc: booking.New(st.Client, app)}
	host, room := e.host(t, "host"), e.host(t, "room")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Crash"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host, room))})
	type killed struct{}
	booking.SetAfterEvents(func() { panic(killed{}) })
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("the writer was not stopped")
			}
		}()
		_, _ = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()})
	}()
	booking.SetAfterEvents(nil)
	if n := len(e.events(t, host)) + len(e.events(t, room)); n != 2 {
		t.Fatalf("%d events after the writer died, want the 2 it wrote", n)
	}
	// Within its lease the dead writer's claim holds the slot, and
	// recovery leaves it alone.
	if n, err := booking.Recover(t.Context(), st.Client); n != 0 || err != nil {
		t.Errorf("Recover within the lease = %d, %v; want nothing undone", n, err)
	}
	_, err = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()})
	wantCode(t, "booking the dead writer's slot", err, unical.CodeSlotUnavailable, "startDateTime")
	// A hold that expires unused: recovery drops its record too.
	h, err := e.svc.CreateHold(t.Context(), &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(monday().Add(time.Hour)), TTLSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	offset.Store(int64(3 * time.Minute))
	if n, err := booking.Recover(t.Context(), st.Client); n != 1 || err != nil {
		t.Fatalf("Recover after the lease = %d, %v; want the one booking undone", n, err)
	}
	_, err = e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, HoldID: h.ID, Guest: guest()})
	wantCode(t, "booking by a hold recovery dropped", err, unical.CodeNotFound, "holdId")
	if n := len(e.events(t, host)) + len(e.events(t, room)); n != 0 {
		t.Errorf("%d events after recovery, want none", n)
	}
	if list, err := e.svc.ListBookings(t.Context(), nil); err != nil || len(list.Data) != 0 {
		t.Errorf("bookings after recovery = %v, %v; want none", list, err)
	}
	if _, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()}); err != nil {
		t.Errorf("booking the recovered slot: %v", err)
	}
}

// TestBooking_NotifyAttendees passes notifyAttendees to the booking's
// event writes as event writes take it: a VIRTUAL organizer, which has no
// mail service, refuses true naming notifyAttendees and nothing is
// written; false books the host and the room's copy.
func TestBooking_NotifyAttendees(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host, room := e.host(t, "host"), e.host(t, "room")
	bt := e.bookingType(t, &booking.BookingTypeParams{Name: unical.Some("Desk"), DurationMinutes: unical.Some(30), Participants: unical.Some(required(host, room))})
	_, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()}, notifyAttendees(true))
	var ue *unical.Error
	if !errorAs(err, &ue) || ue.Field != unical.NotifyAttendeesParameter {
		t.Fatalf("notifyAttendees=true for a VIRTUAL organizer: %v, want it refused naming notifyAttendees", err)
	}
	if n := len(e.events(t, host)) + len(e.events(t, room)); n != 0 {
		t.Errorf("%d events after the refusal, want none", n)
	}
	b, err := e.svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(monday()), Guest: guest()}, notifyAttendees(false))
	if err != nil {
		t.Fatalf("notifyAttendees=false after the refusal: %v", err)
	}
	if len(b.Events) != 2 {
		t.Errorf("booking events %+v, want the host's and the room's", b.Events)
	}
}

// notifyAttendees is the options of a write that asks to email the
// attendees (notify) or not.
func notifyAttendees(notify bool) unical.WriteOptions {
	return unical.WriteOptions{NotifyAttendees: &notify}
}
