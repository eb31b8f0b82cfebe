package invite_test

import (
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/invite"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/series"
)

// withCalDAV adds the CalDAV provider, wrapped for invitations.
func withCalDAV(t *testing.T) func(*unical.Config, unical.Store) unical.Provider {
	return func(_ *unical.Config, store unical.Store) unical.Provider {
		p, err := caldav.New(caldav.Config{AllowPrivateTargets: true})
		if err != nil {
			t.Fatal(err)
		}
		return invite.Wrap(p, invite.Config{Store: store})
	}
}

// mustConnectCalDAV starts a server of kind, points the application at
// it and connects its user; it returns the account and a calendar id.
func (e *env) mustConnectCalDAV(t *testing.T, kind string) (accountID, calendarID string) {
	t.Helper()
	const email = "organizer@example.com"
	dav := davtest.Start(t, kind) // user "unical", whose address is email
	calPath := strings.TrimSuffix(dav.NewCalendar(t, "Meetings"), "/")
	if _, _, err := admin.Of(e.client).UpdateApplication(t.Context(), e.app.ID(), &admin.ApplicationParams{
		Providers: map[unical.ProviderType]unical.ProviderSettings{unical.ProviderCalDAV: {ServerURL: dav.URL}},
	}); err != nil {
		t.Fatal(err)
	}
	acct, err := e.app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: email, ProviderType: unical.ProviderCalDAV,
		Username: unical.Some(dav.Username), Password: unical.Some(dav.Password)})
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID, calPath[strings.LastIndexByte(calPath, '/')+1:]
}

// TestCalDAV_Radicale: Radicale does no scheduling, so unical mails the
// invitations, updates and cancellations.
func TestCalDAV_Radicale(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t, withCalDAV(t))
	ctx := t.Context()
	acct, cal := e.mustConnectCalDAV(t, davtest.Radicale)
	ev := e.mustPlanning(t, acct, cal)
	request := planningRequest(ev, "organizer@example.com")
	e.wantMessages(t, "create", 0, []received{
		request("ann@example.org", "0", "20270316T100000"), request("bob@example.net", "0", "20270316T100000"),
	})
	if _, err := e.app.UpdateEvent(ctx, acct, cal, ev.ID, &unical.EventParams{
		Start: unical.Some(unical.EventDateTime{DateTime: "2027-03-16T09:00:00", TimeZone: "Europe/Berlin"}),
		End:   unical.Some(unical.EventDateTime{DateTime: "2027-03-16T10:00:00", TimeZone: "Europe/Berlin"}),
	}, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	e.wantMessages(t, "time change", 2, []received{
		request("ann@example.org", "1", "20270316T090000"), request("bob@example.net", "1", "20270316T090000"),
	})
	if _, err := e.app.DeleteEvent(ctx, acct, cal, ev.ID, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	cancel := func(to string) received {
		return received{To: to, Method: "CANCEL", UID: ev.ICalUID, Sequence: "2", Status: "CANCELLED",
			Attendees: []string{"ann@example.org NEEDS-ACTION ", "bob@example.net NEEDS-ACTION "},
			Organizer: "mailto:organizer@example.com", SentBy: "mailto:rooms@example.com", Summary: "Planning", Start: "20270316T090000"}
	}
	e.wantMessages(t, "delete", 4, []received{cancel("ann@example.org"), cancel("bob@example.net")})
}

// TestCalDAV_CyrusSchedulesItself: Cyrus announces calendar-auto-schedule
// and sends the invitations itself; unical queues and mails nothing.
func TestCalDAV_CyrusSchedulesItself(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t, withCalDAV(t))
	ctx := t.Context()
	acct, cal := e.mustConnectCalDAV(t, davtest.Cyrus)
	ev, err := e.app.CreateEvent(ctx, acct, cal, meetingParams("Planning", "2027-03-16T10:00:00", "2027-03-16T11:00:00"), notify)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.DeleteEvent(ctx, acct, cal, ev.ID, notify); err != nil {
		t.Fatal(err)
	}
	e.sendDue(t)
	msgs, err := e.mta.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 0 {
		t.Errorf("%d messages mailed by unical for a scheduling server, want none", len(msgs))
	}
}

// TestCalDAV_SplitMailsNothing: a thisAndFollowing edit with
// notifyAttendees=true on Radicale is made (not refused as before unical
// mailed invitations) and mails nothing, as documented.
func TestCalDAV_SplitMailsNothing(t *testing.T) {
	t.Parallel()
	e := mustNewEnv(t, withCalDAV(t))
	ctx := t.Context()
	acct, cal := e.mustConnectCalDAV(t, davtest.Radicale)
	params := meetingParams("Weekly", "2027-03-16T10:00:00", "2027-03-16T11:00:00")
	params.IsRecurring = unical.Some(true)
	params.Recurrence = unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=4"})
	ev, err := e.app.CreateEvent(ctx, acct, cal, params)
	if err != nil {
		t.Fatal(err)
	}
	occ, err := e.app.ListOccurrences(ctx, acct, cal, ev.ID, &unical.OccurrenceListParams{
		Start: time.Date(2027, 3, 29, 0, 0, 0, 0, time.UTC), End: time.Date(2027, 4, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(occ.Data) != 1 {
		t.Fatalf("ListOccurrences = %d, %v; want the third occurrence", len(occ.Data), err)
	}
	if _, err := series.Update(ctx, e.app, acct, cal, occ.Data[0].ID, series.ScopeThisAndFollowing,
		&unical.EventParams{Title: unical.Some("Weekly (new room)")}, notify); err != nil {
		t.Fatalf("thisAndFollowing with notifyAttendees=true: %v", err)
	}
	e.sendDue(t)
	if msgs, err := e.mta.Messages(); err != nil || len(msgs) != 0 {
		t.Errorf("%d messages after a split, %v; want none", len(msgs), err)
	}
}
