package httpapi_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

// documentedIDs reads docs/api.md's "Ids" section: the pattern after the
// id-pattern marker and the prefix of each kind in its table.
func documentedIDs(t *testing.T) (*regexp.Regexp, map[string]string) {
	t.Helper()
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- id-pattern -->\n")
	if !ok {
		t.Fatal("docs/api.md has no <!-- id-pattern --> marker")
	}
	line, rest, _ := strings.Cut(rest, "\n")
	pattern := regexp.MustCompile(strings.TrimSpace(line))
	prefixes := map[string]string{}
	row := regexp.MustCompile("^\\| ([^|]+?) \\| `([a-z]+)` \\|$")
	for l := range strings.Lines(rest) {
		if strings.HasPrefix(l, "#") {
			break
		}
		if m := row.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			prefixes[m[1]] = m[2]
		}
	}
	return pattern, prefixes
}

// TestMintedIDs makes one record of every kind docs/api.md lists, through
// the API, and checks each id against the documented pattern and prefix.
func TestMintedIDs(t *testing.T) {
	t.Parallel()
	pattern, prefixes := documentedIDs(t)
	rcv := apitest.NewReceiver(t)
	st := apitest.Start(t, nil, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = -1
	})
	appID, _ := st.CreateApp(t, &admin.ApplicationParams{})
	_, secret, err := st.Admin.UpdateApplication(t.Context(), appID, &admin.ApplicationParams{WebhookURL: unical.Some(rcv.URL + "/app")})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(secret)
	go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()
	keys, err := st.Admin.ListAPIKeys(t.Context(), appID)
	if err != nil || len(keys) == 0 {
		t.Fatalf("ListAPIKeys() = %v, %v", keys, err)
	}
	minted := map[string]string{"application": appID, "API key (its id, not the key)": keys[0].ID}

	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "room-9@rooms.example.com", "providerType": "VIRTUAL"}).Into(t, &acct)
	minted["end-user account"] = acct.ID
	var cal unical.Calendar
	st.Must(t, "POST", "/v1/calendars/"+acct.ID, map[string]any{"name": "Ids"}).Into(t, &cal)
	minted["VIRTUAL calendar"] = cal.ID
	var ev unical.Event
	st.Must(t, "POST", "/v1/events/"+acct.ID+"/primary", map[string]any{
		"title": "Ids", "start": map[string]any{"dateTime": "2030-03-25T09:00:00Z"}, "end": map[string]any{"dateTime": "2030-03-25T10:00:00Z"},
	}).Into(t, &ev)
	minted["VIRTUAL event"] = ev.ID
	if want := ev.ID + "@127.0.0.1"; ev.ICalUID != want {
		t.Errorf("iCalUid = %q, want %q (the id at the public URL's host)", ev.ICalUID, want)
	}
	var sub subscriptions.Created
	st.Must(t, "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": "primary", "webhookUrl": rcv.URL + "/sub"}).Into(t, &sub)
	minted["webhook subscription"] = sub.WebhookSubscriptionID

	c := bookingClient(t, st)
	ctx := t.Context()
	sch, err := c.CreateSchedule(ctx, &booking.ScheduleParams{Name: unical.Some("Mornings"), TimeZone: unical.Some("UTC"),
		Intervals: unical.Some([]availability.WorkingInterval{{Day: "monday", Start: "09:00", End: "12:00"}})})
	if err != nil {
		t.Fatal(err)
	}
	minted["schedule"] = sch.ID
	parts := hostParticipant(acct.ID)
	parts[0].ScheduleID = sch.ID
	bt, err := c.CreateBookingType(ctx, &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(60),
		IntervalMinutes: unical.Some(60), Participants: unical.Some(parts)})
	if err != nil {
		t.Fatal(err)
	}
	minted["booking type"] = bt.ID
	at := bookingMonday().Format(time.RFC3339)
	hold, err := c.CreateHold(ctx, &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at})
	if err != nil {
		t.Fatal(err)
	}
	minted["hold"] = hold.ID
	b, err := c.CreateBooking(ctx, &booking.BookingParams{BookingTypeID: bt.ID, HoldID: hold.ID, Guest: booking.Guest{Email: "guest@example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	minted["booking"] = b.ID

	// enduseraccount.created went to the application's endpoint.
	got := rcv.WaitFor(t, 1)
	minted["webhook message (`webhook-id`)"] = got[0].Header.Get("webhook-id")
	var log struct {
		Data []outbox.Attempt `json:"data"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(log.Data) == 0 && time.Now().Before(deadline) {
		st.Must(t, "GET", "/v1/applicationWebhook/deliveries", nil).Into(t, &log)
		time.Sleep(20 * time.Millisecond)
	}
	if len(log.Data) == 0 {
		t.Fatal("no delivery attempt in the application's log")
	}
	minted["delivery attempt"] = log.Data[0].ID

	for kind, prefix := range prefixes {
		id, ok := minted[kind]
		switch {
		case !ok:
			t.Errorf("docs/api.md lists %q, which the test does not make", kind)
		case !pattern.MatchString(id) || !strings.HasPrefix(id, prefix+"_"):
			t.Errorf("%s id %q: want %s with prefix %s_", kind, id, pattern, prefix)
		}
	}
	for kind := range minted {
		if _, ok := prefixes[kind]; !ok {
			t.Errorf("the test makes %q, which docs/api.md does not list", kind)
		}
	}
}
