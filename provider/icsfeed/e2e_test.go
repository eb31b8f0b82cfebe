package icsfeed_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/icsfeed"
)

// TestEndToEnd subscribes an account to a feed served on loopback through
// /v1 and uses it as an application would: the calendar and its events,
// a series expanded, free/busy and availability, a write refused by the
// capability table, and a change to the feed reaching a webhook through
// the engine's polling, while an unchanged feed (a 304) is never parsed
// again.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	f := newFeedServer(t)
	standup := published("standup@example.com", "Standup", "2030-03-04T09:00:00", "2030-03-04T09:30:00", "Europe/Berlin")
	standup.Recurrence = []string{"RRULE:FREQ=DAILY;COUNT=5"}
	f.publish(t, "Team", []*unical.Event{standup, published("review@example.com", "Review", "2030-03-05T14:00:00Z", "2030-03-05T15:00:00Z", "")})
	feeds := newProvider(t, f)
	rcv := apitest.NewReceiver(t)
	st := apitest.Start(t, []unical.Provider{feeds}, func(cfg *apitest.Config) {
		cfg.Sender, cfg.AllowPrivateTargets = rcv.Sender(), true
		cfg.ChangePollInterval, cfg.OutboxPollInterval = 100*time.Millisecond, 50*time.Millisecond
	})
	st.CreateApp(t, &admin.ApplicationParams{})

	// A feed address that is no feed is a 400 naming serverUrl.
	r := st.Do(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "ada@example.com", "providerType": "ICS_FEED", "serverUrl": "webcal://" + f.Listener.Addr().String() + "/missing.ics"})
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != "serverUrl" {
		t.Fatalf("connect to a missing feed = %d %+v, want 400 naming serverUrl", r.Status, e)
	}
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "ada@example.com", "providerType": "ICS_FEED", "serverUrl": f.address()}).Into(t, &acct)
	if acct.ProviderType != icsfeed.ProviderType || acct.Status != unical.AccountStatusActive {
		t.Fatalf("account = %+v", acct)
	}
	var cals struct{ Data []*unical.Calendar }
	st.Must(t, "GET", "/v1/calendars/"+acct.ID, nil).Into(t, &cals)
	if len(cals.Data) != 1 || cals.Data[0].ID != icsfeed.CalendarID || cals.Data[0].Name != "Team" || !cals.Data[0].ReadOnly {
		t.Fatalf("calendars = %+v", cals.Data)
	}
	base := "/v1/events/" + acct.ID + "/" + icsfeed.CalendarID
	window := url.Values{"startDateTime": {"2030-03-04T00:00:00Z"}, "endDateTime": {"2030-03-06T00:00:00Z"}, "expandRecurrences": {"true"}}
	var page struct{ Data []*unical.Event }
	st.Must(t, "GET", base+"?"+window.Encode(), nil).Into(t, &page)
	var titles []string
	for _, e := range page.Data {
		titles = append(titles, e.Title+" "+e.Start.DateTime)
	}
	if len(page.Data) != 3 {
		t.Errorf("expanded window = %v, want two standups and the review", titles)
	}
	var busy []struct {
		BusySlots []json.RawMessage `json:"busySlots"`
	}
	st.Must(t, "POST", "/v1/freeBusy/"+acct.ID, map[string]any{"startDateTime": "2030-03-05T00:00:00Z", "endDateTime": "2030-03-06T00:00:00Z", "timeZone": "UTC", "calendarIds": []string{icsfeed.CalendarID}}).Into(t, &busy)
	if len(busy) != 1 || len(busy[0].BusySlots) != 2 {
		t.Errorf("free/busy = %+v, want the standup and the review busy", busy)
	}
	// 09:00 in Berlin is 08:00 UTC in March: the standup takes the first
	// half hour, the second is free.
	var slots struct {
		Data []struct{ Start unical.EventDateTime }
	}
	st.Must(t, "POST", "/v1/availability", map[string]any{"participants": []map[string]any{{"endUserAccountId": acct.ID, "calendarIds": []string{icsfeed.CalendarID}}},
		"startDateTime": "2030-03-05T08:00:00Z", "endDateTime": "2030-03-05T09:00:00Z", "durationMinutes": 30}).Into(t, &slots)
	if len(slots.Data) != 1 {
		t.Errorf("availability = %+v, want the one free half hour", slots.Data)
	} else if start, err := slots.Data[0].Start.Time("start"); err != nil || !start.Equal(time.Date(2030, 3, 5, 8, 30, 0, 0, time.UTC)) {
		t.Errorf("free slot starts %+v, want 08:30Z", slots.Data[0].Start)
	}
	r = st.Do(t, "POST", base, map[string]any{"title": "Mine", "start": map[string]string{"dateTime": "2030-03-06T10:00:00Z"}, "end": map[string]string{"dateTime": "2030-03-06T11:00:00Z"}})
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field == "" {
		t.Errorf("event create = %d %+v, want 400 naming a field", r.Status, e)
	}

	var sub struct {
		ID     string `json:"webhookSubscriptionId"`
		Secret string `json:"endpointSecret"`
	}
	st.Must(t, "POST", "/v1/calendarSubscriptions/"+acct.ID, map[string]any{"calendarId": icsfeed.CalendarID, "webhookUrl": rcv.URL + "/ics"}).Into(t, &sub)
	rcv.SetSecret(sub.Secret)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, st.Client, st.Engine) }()
	t.Cleanup(func() { cancel(); <-done })

	// Polls of an unchanged feed are 304s: nothing is parsed, nothing sent.
	before := feeds.Stats()
	deadline := time.Now().Add(20 * time.Second)
	for feeds.Stats().NotModified < before.NotModified+3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if after := feeds.Stats(); after.NotModified < before.NotModified+3 || after.Parses != before.Parses || len(rcv.Deliveries()) != 0 {
		t.Fatalf("unchanged feed: stats %+v then %+v, %d deliveries; want 304s, no parse, no message", before, after, len(rcv.Deliveries()))
	}
	moved := published("review@example.com", "Review, moved", "2030-03-05T16:00:00Z", "2030-03-05T17:00:00Z", "")
	f.publish(t, "Team", []*unical.Event{standup, moved})
	got := rcv.WaitFor(t, 1)
	var p unical.MessagePayload
	if err := json.Unmarshal(got[0].Body, &p); err != nil {
		t.Fatal(err)
	}
	if !got[0].Verified || p.EventType != unical.EventTypeCalendarEventChanged || p.SubscriptionID != sub.ID || p.CalendarID != icsfeed.CalendarID {
		t.Errorf("webhook = %s (verified %v), want a verified calendar.event.changed", got[0].Body, got[0].Verified)
	}
	if feeds.Stats().Parses != before.Parses+1 {
		t.Errorf("parses = %d, want %d: the changed feed once", feeds.Stats().Parses, before.Parses+1)
	}
}
