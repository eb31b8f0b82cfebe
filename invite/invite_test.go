package invite_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/imip"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/smtptest"
	"github.com/unical/unical/invite"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/subscriptions"
)

// env is a Client with a VIRTUAL provider wrapped for invitations, an
// application whose mail goes to Exim, and a sender.
type env struct {
	mta    *smtptest.Server
	dbPath string
	key    seal.Key
	store  unical.Store
	client *unical.Client
	app    *unical.App
	sender *invite.Sender
	// rcv receives the webhook messages.
	rcv *apitest.Receiver
}

// retryNow makes every retry due at once, so that a test's next SendDue
// tries again.
var retryNow = []time.Duration{time.Nanosecond, time.Nanosecond, time.Nanosecond}

func mustNewEnv(t *testing.T, extra ...func(*unical.Config, unical.Store) unical.Provider) *env {
	t.Helper()
	e := &env{mta: smtptest.MustStart(t), dbPath: filepath.Join(t.TempDir(), "unical.db"), key: seal.NewKey(), rcv: apitest.NewReceiver(t)}
	e.open(t, extra...)
	created, err := admin.Of(e.client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("Rooms")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Of(e.client).SetApplicationMail(t.Context(), created.ApplicationID, &admin.MailParams{
		SMTPURL: e.mta.URL, Username: e.mta.Username, Password: e.mta.Password, From: "rooms@example.com", InboundSecret: "inbound-secret-0123456789",
	}); err != nil {
		t.Fatal(err)
	}
	if e.app, err = e.client.App(t.Context(), created.ApplicationID); err != nil {
		t.Fatal(err)
	}
	return e
}

// open opens the store and a Client on it, as a (re)started server does.
func (e *env) open(t *testing.T, extra ...func(*unical.Config, unical.Store) unical.Provider) {
	t.Helper()
	store, err := bolt.Open(bolt.Config{Path: e.dbPath})
	if err != nil {
		t.Fatal(err)
	}
	cfg := unical.Config{Store: store, MasterKey: e.key, AllowPrivateTargets: true, Subscriptions: &subscriptions.Hooks{ChangePollInterval: -1}}
	cfg.Providers = []unical.Provider{invite.Wrap(virtual.New(virtual.Config{Store: store}), invite.Config{Store: store})}
	for _, f := range extra {
		cfg.Providers = append(cfg.Providers, f(&cfg, store))
	}
	client, err := unical.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.store, e.client = store, client
	e.sender = invite.NewSender(invite.SenderConfig{Client: client, RetrySchedule: retryNow})
	t.Cleanup(func() { client.Close(); store.Close() })
	if e.app != nil {
		if e.app, err = client.App(t.Context(), e.app.ID()); err != nil {
			t.Fatal(err)
		}
	}
}

// restart closes the Client and store and opens them again.
func (e *env) restart(t *testing.T) {
	t.Helper()
	e.client.Close()
	e.store.Close()
	e.open(t)
}

func (e *env) sendDue(t *testing.T) {
	t.Helper()
	if err := e.sender.SendDue(t.Context()); err != nil {
		t.Fatalf("SendDue: %v", err)
	}
}

// received is what a test checks of one delivered invitation.
type received struct {
	To, Method, UID, Sequence, Status, RecurrenceID string
	Attendees                                       []string // "address PARTSTAT RSVP"
	Organizer, SentBy                               string
	Summary, Start                                  string
}

// readInvitations reads the delivered copies, from index from on.
func readInvitations(t *testing.T, msgs []smtptest.Received) []received {
	t.Helper()
	var out []received
	for _, m := range msgs {
		data := bytes.ReplaceAll(m.Data, []byte("\n"), []byte("\r\n"))
		in, err := imip.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("delivered message does not parse: %v", err)
		}
		ev := in.Events[0]
		r := received{To: m.To, Method: in.Method, UID: in.UID}
		text := func(name string) string {
			if p := ev.Props.Get(name); p != nil {
				return p.Value
			}
			return ""
		}
		r.Sequence, r.Status, r.RecurrenceID, r.Summary, r.Start = text(ical.PropSequence), text(ical.PropStatus), text(ical.PropRecurrenceID), text(ical.PropSummary), text(ical.PropDateTimeStart)
		org := ev.Props.Get(ical.PropOrganizer)
		r.Organizer, r.SentBy = org.Value, org.Params.Get(ical.ParamSentBy)
		for _, a := range ev.Props.Values(ical.PropAttendee) {
			r.Attendees = append(r.Attendees, imip.Address(a.Value)+" "+a.Params.Get(ical.ParamParticipationStatus)+" "+a.Params.Get(ical.ParamRSVP))
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b received) int { return strings.Compare(a.Method+a.To, b.Method+b.To) })
	return out
}

// wantMessages waits for n delivered copies in all and compares the
// ones from index from on.
func (e *env) wantMessages(t *testing.T, step string, from int, want []received) {
	t.Helper()
	got := e.mta.Wait(t, from+len(want))
	if len(got) != from+len(want) {
		t.Fatalf("%s: %d messages in all, want %d", step, len(got), from+len(want))
	}
	if d := cmp.Diff(want, readInvitations(t, got[from:])); d != "" {
		t.Errorf("%s: invitations mismatch (-want +got):\n%s", step, d)
	}
}

// notify asks an event write to email its attendees.
var notify = func() unical.WriteOptions { yes := true; return unical.WriteOptions{NotifyAttendees: &yes} }()

func meetingParams(title, start, end string) *unical.EventParams {
	return &unical.EventParams{
		Title: unical.Some(title), Location: unical.Some("Room 4"),
		Start: unical.Some(unical.EventDateTime{DateTime: start, TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{DateTime: end, TimeZone: "Europe/Berlin"}),
		Attendees: unical.Some([]unical.Attendee{
			{Email: "ann@example.org", Name: "Ann"}, {Email: "bob@example.net"},
		}),
	}
}

// mustVirtual creates a VIRTUAL account with address email.
func (e *env) mustVirtual(t *testing.T, email string) string {
	t.Helper()
	acct, err := e.app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: email, ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID
}

// mustPlanning creates the Planning meeting with Ann and Bob, asking for
// invitations, and sends them.
func (e *env) mustPlanning(t *testing.T, accountID, calendarID string) *unical.Event {
	t.Helper()
	ev, err := e.app.CreateEvent(t.Context(), accountID, calendarID, meetingParams("Planning", "2027-03-16T10:00:00", "2027-03-16T11:00:00"), notify)
	if err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	return ev
}

// planningRequest returns the REQUEST of the Planning meeting ev,
// organized by organizer, as each guest receives it.
func planningRequest(ev *unical.Event, organizer string) func(to, seq, start string) received {
	return func(to, seq, start string) received {
		return received{To: to, Method: "REQUEST", UID: ev.ICalUID, Sequence: seq,
			Attendees: []string{"ann@example.org NEEDS-ACTION TRUE", "bob@example.net NEEDS-ACTION TRUE"},
			Organizer: "mailto:" + organizer, SentBy: "mailto:rooms@example.com", Summary: "Planning", Start: start}
	}
}

func TestVirtual_RequestUpdateCancel(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	acct := e.mustVirtual(t, "room4@rooms.example.com")
	cal := virtual.PrimaryCalendarID
	ev := e.mustPlanning(t, acct, cal)
	guests := []string{"ann@example.org NEEDS-ACTION TRUE", "bob@example.net NEEDS-ACTION TRUE"}
	request := planningRequest(ev, "room4@rooms.example.com")
	e.wantMessages(t, "create", 0, []received{
		request("ann@example.org", "0", "20270316T100000"), request("bob@example.net", "0", "20270316T100000"),
	})

	// A time change: SEQUENCE + 1.
	if _, err := e.app.UpdateEvent(ctx, acct, cal, ev.ID, &unical.EventParams{
		Start: unical.Some(unical.EventDateTime{DateTime: "2027-03-16T14:00:00", TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2027-03-16T15:00:00", TimeZone: "Europe/Berlin"}),
	}, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	e.wantMessages(t, "time change", 2, []received{
		request("ann@example.org", "1", "20270316T140000"), request("bob@example.net", "1", "20270316T140000"),
	})

	// A description change keeps SEQUENCE; a write without
	// notifyAttendees sends nothing.
	if _, err := e.app.UpdateEvent(ctx, acct, cal, ev.ID, &unical.EventParams{Description: unical.Some("quiet")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.UpdateEvent(ctx, acct, cal, ev.ID, &unical.EventParams{Description: unical.Some("agenda attached")}, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	e.wantMessages(t, "description change", 4, []received{
		request("ann@example.org", "1", "20270316T140000"), request("bob@example.net", "1", "20270316T140000"),
	})

	// Bob taken off: a REQUEST to Ann with SEQUENCE + 1, a CANCEL to Bob.
	if _, err := e.app.UpdateEvent(ctx, acct, cal, ev.ID, &unical.EventParams{
		Attendees: unical.Some([]unical.Attendee{{Email: "ann@example.org", Name: "Ann"}}),
	}, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	annOnly := request("ann@example.org", "2", "20270316T140000")
	annOnly.Attendees = guests[:1]
	e.wantMessages(t, "attendee removed", 6, []received{
		{To: "bob@example.net", Method: "CANCEL", UID: ev.ICalUID, Sequence: "2", Status: "CANCELLED", Attendees: []string{"bob@example.net NEEDS-ACTION "},
			Organizer: "mailto:room4@rooms.example.com", SentBy: "mailto:rooms@example.com", Summary: "Planning", Start: "20270316T140000"},
		annOnly,
	})

	// The delete: a CANCEL to Ann.
	if _, err := e.app.DeleteEvent(ctx, acct, cal, ev.ID, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	e.wantMessages(t, "delete", 8, []received{
		{To: "ann@example.org", Method: "CANCEL", UID: ev.ICalUID, Sequence: "3", Status: "CANCELLED", Attendees: []string{"ann@example.org NEEDS-ACTION "},
			Organizer: "mailto:room4@rooms.example.com", SentBy: "mailto:rooms@example.com", Summary: "Planning", Start: "20270316T140000"},
	})
	e.sendDue(t)
	if got := e.mta.Wait(t, 9); len(got) != 9 {
		t.Errorf("%d messages after a second pass, want 9 (nothing sent twice)", len(got))
	}
}

func TestVirtual_DeliveryLog(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	acct, err := e.app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room5@rooms.example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	cal := virtual.PrimaryCalendarID
	ev, err := e.app.CreateEvent(ctx, acct.ID, cal, meetingParams("Review", "2027-03-17T10:00:00", "2027-03-17T11:00:00"), notify)
	if err != nil {
		t.Fatal(err)
	}
	log := func(step string, want []*invite.Delivery) {
		t.Helper()
		got, err := invite.ListInvitations(ctx, e.app, acct.ID, cal, ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got.Data, cmpopts.IgnoreFields(invite.Delivery{}, "UpdatedAt")); d != "" {
			t.Errorf("%s: delivery log mismatch (-want +got):\n%s", step, d)
		}
	}
	log("queued", []*invite.Delivery{
		{Email: "ann@example.org", Method: "REQUEST", Status: "pending"}, {Email: "bob@example.net", Method: "REQUEST", Status: "pending"},
	})

	// SMTP down: the attempt fails and is kept for a retry.
	e.mta.Stop()
	e.sendDue(t)
	got, err := invite.ListInvitations(ctx, e.app, acct.ID, cal, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range got.Data {
		if d.Status != "pending" || d.Attempts != 1 || !strings.Contains(d.LastError, "retrying") {
			t.Errorf("after a failed attempt: %+v, want pending, 1 attempt, an error saying it is retried", d)
		}
	}

	// A restart in between loses nothing; once the server is back each
	// guest gets the invitation once.
	e.restart(t)
	if err := e.mta.Start(); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	e.sendDue(t)
	if msgs := e.mta.Wait(t, 2); len(msgs) != 2 {
		t.Fatalf("%d messages after the server came back, want 2", len(msgs))
	}
	log("sent", []*invite.Delivery{
		{Email: "ann@example.org", Method: "REQUEST", Status: "sent", Attempts: 2}, {Email: "bob@example.net", Method: "REQUEST", Status: "sent", Attempts: 2},
	})

	if _, err := invite.ListInvitations(ctx, e.app, acct.ID, cal, "evt_missing"); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("ListInvitations(unknown event) = %v, want CodeNotFound", err)
	}
	if _, err := invite.ListInvitations(ctx, e.app, "acc_missing", cal, ev.ID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("ListInvitations(unknown account) = %v, want CodeNotFound", err)
	}
}

func TestVirtual_ErrNoMailSettings(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	if err := admin.Of(e.client).RemoveApplicationMail(ctx, e.app.ID()); err != nil {
		t.Fatal(err)
	}
	acct, err := e.app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room6@rooms.example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.app.CreateEvent(ctx, acct.ID, virtual.PrimaryCalendarID, meetingParams("x", "2027-03-16T10:00:00", "2027-03-16T11:00:00"), notify)
	var ue *unical.Error
	if unical.ErrorCode(err) != unical.CodeInvalid || !asError(err, &ue) || ue.Field != "notifyAttendees" {
		t.Fatalf("CreateEvent(notify) without mail settings = %v, want invalid naming notifyAttendees", err)
	}
	events, err := e.app.ListEvents(ctx, acct.ID, virtual.PrimaryCalendarID, nil)
	if err != nil || len(events.Data) != 0 {
		t.Errorf("after the refusal: %d events, %v; want none written", len(events.Data), err)
	}
}

func asError(err error, target **unical.Error) bool { return errors.As(err, target) }

// TestVirtual_Occurrence: one occurrence moved sends a REQUEST with its
// RECURRENCE-ID and a raised SEQUENCE.
func TestVirtual_Occurrence(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	acct, err := e.app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room7@rooms.example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	cal := virtual.PrimaryCalendarID
	params := meetingParams("Weekly", "2027-03-16T10:00:00", "2027-03-16T11:00:00")
	params.Attendees = unical.Some([]unical.Attendee{{Email: "ann@example.org"}})
	params.IsRecurring = unical.Some(true)
	params.Recurrence = unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=3"})
	ev, err := e.app.CreateEvent(ctx, acct.ID, cal, params, notify)
	if err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	occ, err := e.app.ListOccurrences(ctx, acct.ID, cal, ev.ID, &unical.OccurrenceListParams{
		Start: time.Date(2027, 3, 20, 0, 0, 0, 0, time.UTC), End: time.Date(2027, 3, 25, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(occ.Data) != 1 {
		t.Fatalf("ListOccurrences = %d, %v; want the second occurrence", len(occ.Data), err)
	}
	if _, err := e.app.UpdateEvent(ctx, acct.ID, cal, occ.Data[0].ID, &unical.EventParams{
		Start: unical.Some(unical.EventDateTime{DateTime: "2027-03-23T12:00:00", TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2027-03-23T13:00:00", TimeZone: "Europe/Berlin"}),
	}, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	got := readInvitations(t, e.mta.Wait(t, 2))
	if len(got) != 2 {
		t.Fatalf("%d invitations, want 2", len(got))
	}
	first, moved := got[0], got[1]
	if first.RecurrenceID != "" {
		first, moved = moved, first
	}
	want := []string{first.UID, "0", "", moved.UID, "1", "20270323T100000", "20270323T120000"}
	if d := cmp.Diff(want, []string{ev.ICalUID, first.Sequence, first.RecurrenceID, ev.ICalUID, moved.Sequence, moved.RecurrenceID, moved.Start}); d != "" {
		t.Errorf("series then occurrence mismatch (-want +got):\n%s", d)
	}
	log, err := invite.ListInvitations(ctx, e.app, acct.ID, cal, occ.Data[0].ID)
	if err != nil || len(log.Data) != 1 || log.Data[0].Sequence != 1 || log.Data[0].Status != invite.StatusSent {
		t.Errorf("the occurrence's delivery log = %+v, %v; want the series' with ann at sequence 1, sent", log, err)
	}
}

// TestVirtual_ErrRefusedBySMTP: a 5xx answer fails the invitation at
// once, with the server's reply in the delivery log.
func TestVirtual_ErrRefusedBySMTP(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t)
	ctx := t.Context()
	if _, err := admin.Of(e.client).SetApplicationMail(ctx, e.app.ID(), &admin.MailParams{
		SMTPURL: e.mta.URL, Username: e.mta.Username, Password: "wrong", From: "rooms@example.com",
	}); err != nil {
		t.Fatal(err)
	}
	acct := e.mustVirtual(t, "room8@rooms.example.com")
	ev := e.mustPlanning(t, acct, virtual.PrimaryCalendarID)
	e.sendDue(t) // nothing is left to retry
	log, err := invite.ListInvitations(ctx, e.app, acct, virtual.PrimaryCalendarID, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range log.Data {
		if d.Status != invite.StatusFailed || d.Attempts != 1 || !strings.HasPrefix(d.LastError, "535") {
			t.Errorf("%s: %+v, want failed after 1 attempt with the server's 535", d.Email, d)
		}
	}
	if msgs, err := e.mta.Messages(); err != nil || len(msgs) != 0 {
		t.Errorf("%d messages delivered, %v; want none", len(msgs), err)
	}
}
