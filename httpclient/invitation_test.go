package httpclient_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/imip"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/smtptest"
	"github.com/unical/unical/invite"
	"github.com/unical/unical/provider/virtual"
)

// TestListInvitations checks that the client's delivery log is the
// App's, for an event whose invitations were mailed, and that a guest's
// REPLY posted to /v1/imip shows in it; every exchange is held to the
// OpenAPI document.
func TestListInvitations(t *testing.T) {
	t.Parallel()
	mta := smtptest.MustStart(t)
	st := apitest.Start(t, nil, func(cfg *apitest.Config) {
		cfg.AllowPrivateTargets = true
		for i, p := range cfg.Providers {
			if p.Type() == unical.ProviderVirtual {
				cfg.Providers[i] = invite.Wrap(p, invite.Config{Store: cfg.Store})
			}
		}
	})
	appID, key := st.CreateApp(t, &admin.ApplicationParams{})
	ctx := t.Context()
	if _, err := st.Admin.SetApplicationMail(ctx, appID, &admin.MailParams{SMTPURL: mta.URL, Username: mta.Username, Password: mta.Password,
		From: "rooms@example.com", InboundSecret: "inbound-secret-0123456789"}); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, st.URL, key, httpclient.Config{})
	acct, err := c.CreateAccount(ctx, &unical.AccountCreateParams{Email: "alice@people.example", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	ev, err := c.CreateEvent(ctx, acct.ID, virtual.PrimaryCalendarID, &unical.EventParams{
		Title: unical.Some("Planning"),
		Start: unical.Some(unical.EventDateTime{DateTime: "2027-03-16T10:00:00Z"}), End: unical.Some(unical.EventDateTime{DateTime: "2027-03-16T11:00:00Z"}),
		Attendees: unical.Some([]unical.Attendee{{Email: "ann@example.org"}}),
	}, unical.WriteOptions{NotifyAttendees: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if err := invite.NewSender(invite.SenderConfig{Client: st.Client}).SendDue(ctx); err != nil {
		t.Fatal(err)
	}
	reply := *ev
	reply.Attendees = []unical.Attendee{{Email: "ann@example.org", ResponseStatus: unical.ResponseTentative}}
	m, err := imip.Encode(&imip.Invitation{Method: imip.MethodReply, Event: &reply, Organizer: "alice@people.example", From: "ann@example.org", To: "alice@people.example"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, "POST", st.URL+"/v1/imip/"+appID, strings.NewReader(string(m.Data)))
	req.Header.Set("Content-Type", "message/rfc822")
	req.Header.Set("Authorization", "Bearer inbound-secret-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/imip = %d, want 200", resp.StatusCode)
	}

	got, err := c.ListInvitations(ctx, acct.ID, virtual.PrimaryCalendarID, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	app, err := st.Client.App(ctx, appID)
	if err != nil {
		t.Fatal(err)
	}
	want, err := invite.ListInvitations(ctx, app, acct.ID, virtual.PrimaryCalendarID, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ListInvitations() mismatch (-app +client):\n%s", d)
	}
	if len(got.Data) != 1 || got.Data[0].Status != invite.StatusReplied || got.Data[0].ResponseStatus != unical.ResponseTentative {
		t.Errorf("delivery log = %+v, want ann replied tentative", got.Data)
	}
	if _, err := c.ListInvitations(ctx, acct.ID, virtual.PrimaryCalendarID, "evt_missing"); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("ListInvitations(unknown event) = %v, want CodeNotFound", err)
	}
}
