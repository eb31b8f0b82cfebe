package invite_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/imip"
	"github.com/unical/unical/invite"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/subscriptions"
)

const inboundSecret = "inbound-secret-0123456789"

// mail encodes an iTIP message as a guest's or organizer's mail program
// would send it.
func mail(t *testing.T, inv *imip.Invitation) []byte {
	t.Helper()
	m, err := imip.Encode(inv, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return m.Data
}

// receive posts raw to the application's inbound endpoint in Go.
func (e *env) receive(t *testing.T, secret string, raw []byte) (*invite.Received, error) {
	t.Helper()
	return invite.Receive(t.Context(), e.client, e.app.ID(), secret, bytes.NewReader(raw))
}

// guestReply is a REPLY of guest to the event ev organized by organizer.
func guestReply(t *testing.T, ev *unical.Event, organizer, guest string, status unical.ResponseStatus, seq int) []byte {
	reply := *ev
	reply.Attendees = []unical.Attendee{{Email: guest, ResponseStatus: status}}
	return mail(t, &imip.Invitation{Method: imip.MethodReply, Event: &reply, Sequence: seq, Organizer: organizer, From: guest, To: organizer})
}

func TestReceive_Reply(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	acct := e.mustVirtual(t, "alice@people.example")
	cal := virtual.PrimaryCalendarID
	ev := e.mustPlanning(t, acct, cal)
	sub, err := subscriptions.Create(ctx, e.app, acct, &subscriptions.CreateParams{CalendarID: cal, WebhookURL: e.rcv.URL + "/cal"})
	if err != nil {
		t.Fatal(err)
	}
	e.rcv.SetSecret(sub.EndpointSecret)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- engine.Run(runCtx, e.client, engine.Settings{Sender: e.rcv.Sender(), OutboxPollInterval: 50 * time.Millisecond, ChangePollInterval: -1})
	}()
	t.Cleanup(func() { stop(); <-done })

	got, err := e.receive(t, inboundSecret, guestReply(t, ev, "alice@people.example", "ann@example.org", unical.ResponseAccepted, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := &invite.Received{Method: "REPLY", UID: ev.ICalUID, EndUserAccountID: acct, CalendarID: cal, EventID: ev.ID, Applied: true, ResponseStatus: unical.ResponseAccepted}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Receive(REPLY) mismatch (-want +got):\n%s", d)
	}
	statuses := func() map[string]unical.ResponseStatus {
		t.Helper()
		cur, err := e.app.GetEvent(ctx, acct, cal, ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]unical.ResponseStatus{}
		for _, a := range cur.Attendees {
			m[a.Email] = a.ResponseStatus
			if a.ResponseStatus == "" {
				m[a.Email] = unical.ResponseNeedsAction
			}
		}
		return m
	}
	if d := cmp.Diff(map[string]unical.ResponseStatus{"ann@example.org": unical.ResponseAccepted, "bob@example.net": unical.ResponseNeedsAction}, statuses()); d != "" {
		t.Errorf("attendees after Ann's REPLY (-want +got):\n%s", d)
	}
	msgs := e.rcv.WaitFor(t, 1)
	if p := msgs[0].Payload(t); !msgs[0].Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != sub.WebhookSubscriptionID {
		t.Errorf("webhook = %s verified=%v; want a signed calendar.event.changed", msgs[0].Body, msgs[0].Verified)
	}

	// A time change raises SEQUENCE; Bob's answer to the old one is
	// recorded, not applied.
	if _, err := e.app.UpdateEvent(ctx, acct, cal, ev.ID, &unical.EventParams{
		Start: unical.Some(unical.EventDateTime{DateTime: "2027-03-16T12:00:00", TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2027-03-16T13:00:00", TimeZone: "Europe/Berlin"}),
	}, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	got, err = e.receive(t, inboundSecret, guestReply(t, ev, "alice@people.example", "bob@example.net", unical.ResponseDeclined, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got.Applied {
		t.Error("a REPLY to SEQUENCE 0 after SEQUENCE 1 was applied")
	}
	if st := statuses()["bob@example.net"]; st != unical.ResponseNeedsAction {
		t.Errorf("Bob's status after an outdated REPLY = %q, want needsAction", st)
	}
	log, err := invite.ListInvitations(ctx, e.app, acct, cal, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := []*invite.Delivery{
		{Email: "ann@example.org", Method: "REQUEST", Status: "sent", Sequence: 1, ResponseStatus: unical.ResponseAccepted, Attempts: 1},
		{Email: "bob@example.net", Method: "REQUEST", Status: "sent", Sequence: 1, ResponseStatus: unical.ResponseDeclined, Attempts: 1},
	}
	if d := cmp.Diff(wantLog, log.Data, cmpopts.IgnoreFields(invite.Delivery{}, "UpdatedAt")); d != "" {
		t.Errorf("delivery log mismatch (-want +got):\n%s", d)
	}
}

// googleRequest is a REQUEST from an outside organizer inviting the room.
func googleRequest(t *testing.T, uid, room, start, end string, seq int) []byte {
	ev := &unical.Event{ICalUID: uid, Title: "Offsite prep",
		Start: &unical.EventDateTime{DateTime: start, TimeZone: "UTC"}, End: &unical.EventDateTime{DateTime: end, TimeZone: "UTC"},
		Attendees: []unical.Attendee{{Email: "boss@google.example", ResponseStatus: unical.ResponseAccepted}, {Email: room}}}
	return mail(t, &imip.Invitation{Method: imip.MethodRequest, Event: ev, Sequence: seq, Organizer: "boss@google.example", From: "boss@google.example", To: room})
}

func TestReceive_RequestToRoom(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	const roomAddr = "room4@rooms.example.com"
	room, err := e.app.CreateAccount(ctx, &unical.AccountCreateParams{Email: roomAddr, ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	first, err := e.receive(t, inboundSecret, googleRequest(t, "g-1@google.example", roomAddr, "2027-04-01T09:00:00", "2027-04-01T10:00:00", 0))
	if err != nil {
		t.Fatal(err)
	}
	if first.ResponseStatus != unical.ResponseAccepted || first.EndUserAccountID != room.ID {
		t.Fatalf("first REQUEST = %+v, want accepted for the room", first)
	}
	booked, err := e.app.GetEvent(ctx, room.ID, first.CalendarID, first.EventID)
	if err != nil || booked.Title != "Offsite prep" || booked.MyResponseStatus != unical.ResponseAccepted {
		t.Fatalf("booked event = %+v, %v", booked, err)
	}
	// An overlapping invitation is declined.
	second, err := e.receive(t, inboundSecret, googleRequest(t, "g-2@google.example", roomAddr, "2027-04-01T09:30:00", "2027-04-01T10:30:00", 0))
	if err != nil {
		t.Fatal(err)
	}
	if second.ResponseStatus != unical.ResponseDeclined {
		t.Errorf("overlapping REQUEST = %+v, want declined", second)
	}
	e.sendDue(t)
	replies := readInvitations(t, e.mta.Wait(t, 2))
	var got []string
	for _, r := range replies {
		got = append(got, r.Method+" "+r.To+" "+strings.Join(r.Attendees, ",")+" "+r.Organizer)
	}
	slices := []string{
		"REPLY boss@google.example room4@rooms.example.com ACCEPTED  mailto:boss@google.example",
		"REPLY boss@google.example room4@rooms.example.com DECLINED  mailto:boss@google.example",
	}
	if d := cmp.Diff(slices, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("REPLYs at the SMTP server mismatch (-want +got):\n%s", d)
	}

	// The organizer cancels the first: the booking goes.
	ev := &unical.Event{ICalUID: "g-1@google.example", Title: "Offsite prep",
		Start: &unical.EventDateTime{DateTime: "2027-04-01T09:00:00", TimeZone: "UTC"}, End: &unical.EventDateTime{DateTime: "2027-04-01T10:00:00", TimeZone: "UTC"},
		Attendees: []unical.Attendee{{Email: roomAddr}}}
	if _, err := e.receive(t, inboundSecret, mail(t, &imip.Invitation{Method: imip.MethodCancel, Event: ev, Sequence: 1,
		Organizer: "boss@google.example", From: "boss@google.example", To: roomAddr})); err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.GetEvent(ctx, room.ID, first.CalendarID, first.EventID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetEvent after CANCEL = %v, want CodeNotFound", err)
	}
	// With the slot free again a new invitation is accepted.
	third, err := e.receive(t, inboundSecret, googleRequest(t, "g-3@google.example", roomAddr, "2027-04-01T09:00:00", "2027-04-01T09:30:00", 0))
	if err != nil || third.ResponseStatus != unical.ResponseAccepted {
		t.Errorf("REQUEST after the CANCEL = %+v, %v; want accepted", third, err)
	}
}

func TestReceive_ErrRefused(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	acct := e.mustVirtual(t, "alice@people.example")
	cal := virtual.PrimaryCalendarID
	ev := e.mustPlanning(t, acct, cal)
	unknown := *ev
	unknown.ICalUID = "nobody-knows@example.org"
	notInvited := guestReply(t, ev, "alice@people.example", "eve@example.org", unical.ResponseAccepted, 0)
	forged := *ev
	forged.Attendees = []unical.Attendee{{Email: "ann@example.org", ResponseStatus: unical.ResponseDeclined}}
	tests := []struct {
		name      string
		secret    string
		raw       []byte
		wantCode  unical.Code
		wantField string
	}{
		{"ErrBadSecret", "wrong-secret-0123456789", guestReply(t, ev, "alice@people.example", "ann@example.org", unical.ResponseAccepted, 0), unical.CodeUnauthorized, ""},
		{"ErrNoSecret", "", guestReply(t, ev, "alice@people.example", "ann@example.org", unical.ResponseAccepted, 0), unical.CodeUnauthorized, ""},
		{"ErrTooLarge", inboundSecret, append([]byte("From: ann@example.org\r\nContent-Type: text/plain\r\n\r\n"), bytes.Repeat([]byte("x"), imip.MaxMessageSize)...), unical.CodeTooLarge, "message"},
		{"ErrMalformedMIME", inboundSecret, []byte("From: ann@example.org\r\nContent-Type: multipart/mixed\r\n\r\nno boundary"), unical.CodeInvalid, "message"},
		{"ErrMalformedICalendar", inboundSecret, []byte("From: ann@example.org\r\nContent-Type: text/calendar\r\n\r\nBEGIN:VCALENDAR\r\ngarbage"), unical.CodeInvalid, "text/calendar"},
		{"ErrUnknownUID", inboundSecret, guestReply(t, &unknown, "alice@people.example", "ann@example.org", unical.ResponseAccepted, 0), unical.CodeNotFound, "UID"},
		{"ErrNotInvited", inboundSecret, notInvited, unical.CodeInvalid, "ATTENDEE"},
		{"ErrSenderNotAttendee", inboundSecret, mail(t, &imip.Invitation{Method: imip.MethodReply, Event: &forged, Organizer: "alice@people.example", From: "mallory@example.org", To: "alice@people.example"}), unical.CodeInvalid, "From"},
		{"ErrMethod", inboundSecret, bytes.Replace(guestReply(t, ev, "alice@people.example", "ann@example.org", unical.ResponseAccepted, 0), []byte("method=REPLY"), []byte("method=COUNTER"), 1), unical.CodeInvalid, "METHOD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.receive(t, tc.secret, tc.raw)
			if unical.ErrorCode(err) != tc.wantCode {
				t.Fatalf("Receive() = %v, want %s", err, tc.wantCode)
			}
			var ue *unical.Error
			if asError(err, &ue) && ue.Field != tc.wantField {
				t.Errorf("Receive() field = %q (%s), want %q", ue.Field, ue.Message, tc.wantField)
			}
		})
	}
	cur, err := e.app.GetEvent(ctx, acct, cal, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cur.Attendees {
		if a.ResponseStatus != "" && a.ResponseStatus != unical.ResponseNeedsAction {
			t.Errorf("after refused messages %s is %q, want needsAction", a.Email, a.ResponseStatus)
		}
	}
}
