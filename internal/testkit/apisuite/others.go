package apisuite

import (
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/subscriptions"
)

func testFreeBusy(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	e.seedEvents(acct.ID, cal)
	got := must(e.api.QueryFreeBusy(e.ctx, acct.ID, &unical.FreeBusyParams{
		StartDateTime: "2026-03-02T00:00:00", EndDateTime: "2026-03-04T00:00:00", TimeZone: "Europe/Berlin", CalendarIDs: []string{cal},
	}))
	berlin := func(s string) unical.EventDateTime {
		return unical.EventDateTime{DateTime: s, TimeZone: "Europe/Berlin"}
	}
	want := []*unical.FreeBusyResult{{CalendarID: cal, BusySlots: []unical.BusySlot{
		{Start: berlin("2026-03-02T10:00:00+01:00"), End: berlin("2026-03-02T10:30:00+01:00")},
		{Start: berlin("2026-03-03T11:00:00+01:00"), End: berlin("2026-03-03T12:00:00+01:00")},
	}}}
	if diff := cmp.Diff(want, got, equate); diff != "" {
		t.Errorf("free/busy (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name   string
		params *unical.FreeBusyParams
		want   *unical.Error
	}{
		{"no time zone", &unical.FreeBusyParams{StartDateTime: "2026-03-02T00:00:00Z", EndDateTime: "2026-03-03T00:00:00Z", CalendarIDs: []string{cal}},
			&unical.Error{Code: unical.CodeInvalid, Field: "timeZone"}},
		{"no calendars", &unical.FreeBusyParams{StartDateTime: "2026-03-02T00:00:00Z", EndDateTime: "2026-03-03T00:00:00Z", TimeZone: "UTC", CalendarIDs: []string{}},
			&unical.Error{Code: unical.CodeInvalid, Field: "calendarIds"}},
		{"window over a year", &unical.FreeBusyParams{StartDateTime: "2026-03-02T00:00:00Z", EndDateTime: "2027-04-03T00:00:00Z", TimeZone: "UTC", CalendarIDs: []string{cal}},
			&unical.Error{Code: unical.CodeInvalid, Field: "endDateTime"}},
		{"unknown calendar", &unical.FreeBusyParams{StartDateTime: "2026-03-02T00:00:00Z", EndDateTime: "2026-03-03T00:00:00Z", TimeZone: "UTC", CalendarIDs: []string{"no-such-calendar"}},
			&unical.Error{Code: unical.CodeNotFound}},
	} {
		_, err := e.api.QueryFreeBusy(e.ctx, acct.ID, tc.params)
		wantError(t, "free/busy "+tc.name, err, tc.want)
	}
}

func testAvailability(e *env) {
	t := e.t
	accts := e.connect()
	google, outlook := accts[unical.ProviderGoogle].ID, accts[unical.ProviderMicrosoft].ID
	// Far ahead, so that the slots are not in the past.
	must(e.api.CreateEvent(e.ctx, google, e.primary[unical.ProviderGoogle], &unical.EventParams{
		Title: unical.Some("Standup"), Start: at("2031-03-03T09:00:00Z"), End: at("2031-03-03T09:30:00Z"),
	}))
	params := func() *availability.Params {
		return &availability.Params{
			Participants: []availability.Participant{
				{EndUserAccountID: google},
				{EndUserAccountID: outlook, WorkingHours: &availability.WorkingHours{TimeZone: "Europe/London", Intervals: []availability.WorkingInterval{{Day: "monday", Start: "09:00", End: "10:30"}}}},
			},
			StartDateTime: "2031-03-03T09:00:00Z", EndDateTime: "2031-03-03T11:00:00Z", TimeZone: "Europe/Berlin",
			DurationMinutes: 30, IntervalMinutes: 30,
		}
	}
	got := must(availability.Find(e.ctx, e.api, time.Now(), params()))
	slot := func(start, end string) *availability.Slot {
		return &availability.Slot{
			Start:        unical.EventDateTime{DateTime: start, TimeZone: "Europe/Berlin"},
			End:          unical.EventDateTime{DateTime: end, TimeZone: "Europe/Berlin"},
			Participants: []string{google, outlook},
		}
	}
	// 09:00Z is the standup; London's working hours end at 10:30Z.
	want := &availability.Result{Data: []*availability.Slot{
		slot("2031-03-03T10:30:00+01:00", "2031-03-03T11:00:00+01:00"),
		slot("2031-03-03T11:00:00+01:00", "2031-03-03T11:30:00+01:00"),
	}}
	if diff := cmp.Diff(want, got, equate); diff != "" {
		t.Errorf("availability (-want +got):\n%s", diff)
	}
	short := params()
	short.DurationMinutes = 4
	_, err := availability.Find(e.ctx, e.api, time.Now(), short)
	wantError(t, "availability of 4 minutes", err, &unical.Error{Code: unical.CodeInvalid, Field: "durationMinutes"})
	unknown := params()
	unknown.Participants[1].EndUserAccountID = "acc_unknown"
	_, err = availability.Find(e.ctx, e.api, time.Now(), unknown)
	wantError(t, "availability of an unknown account", err, &unical.Error{Code: unical.CodeNotFound, Field: "participants[1].endUserAccountId"})
	_, err = availability.Find(e.ctx, e.other, time.Now(), params())
	wantError(t, "availability of another application's account", err, &unical.Error{Code: unical.CodeNotFound, Field: "participants[0].endUserAccountId"})
}

func testSubscriptions(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	created := must(e.api.CreateSubscription(e.ctx, acct.ID, &subscriptions.CreateParams{CalendarID: cal, WebhookURL: webhookTarget}))
	if created.WebhookSubscriptionID == "" || created.EndpointSecret == "" {
		t.Errorf("created subscription = %+v", created)
	}
	second := must(e.api.CreateSubscription(e.ctx, acct.ID, &subscriptions.CreateParams{CalendarID: cal, WebhookURL: webhookTarget + "/2", RateLimit: unical.Some(2)}))
	subs := collect(t, subscriptions.All(e.ctx, e.api, acct.ID, &subscriptions.ListParams{Limit: 1}))
	type view struct{ ID, URL, CalendarID, Account string }
	var got []view
	for _, s := range subs {
		got = append(got, view{s.ID, s.URL, s.CalendarID, s.EndUserAccountID})
	}
	want := []view{{created.WebhookSubscriptionID, webhookTarget, cal, acct.ID}, {second.WebhookSubscriptionID, webhookTarget + "/2", cal, acct.ID}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subscriptions (-want +got):\n%s", diff)
	}
	if log := collect(t, engine.AllDeliveries(e.ctx, e.api, acct.ID, created.WebhookSubscriptionID, nil)); len(log) != 0 {
		t.Errorf("a new subscription has %d delivery attempts", len(log))
	}
	if log := collect(t, engine.AllDeliveries(e.ctx, e.api, "", "", nil)); len(log) != 0 {
		t.Errorf("an application without a webhook URL has %d delivery attempts", len(log))
	}
	_, err := e.api.ResendMessage(e.ctx, acct.ID, created.WebhookSubscriptionID, "msg_unknown")
	wantError(t, "resend an unknown message", err, &unical.Error{Code: unical.CodeNotFound})

	for _, tc := range []struct {
		name   string
		params *subscriptions.CreateParams
		want   *unical.Error
	}{
		{"no webhookUrl", &subscriptions.CreateParams{CalendarID: cal}, &unical.Error{Code: unical.CodeInvalid, Field: "webhookUrl"}},
		{"ftp webhookUrl", &subscriptions.CreateParams{CalendarID: cal, WebhookURL: "ftp://hooks.example.com/x"}, &unical.Error{Code: unical.CodeInvalid, Field: "webhookUrl"}},
		{"loopback webhookUrl", &subscriptions.CreateParams{CalendarID: cal, WebhookURL: "http://127.0.0.1:9/x"}, &unical.Error{Code: unical.CodeInvalid, Field: "webhookUrl"}},
		{"no calendarId", &subscriptions.CreateParams{WebhookURL: webhookTarget}, &unical.Error{Code: unical.CodeInvalid, Field: "calendarId"}},
		{"zero rateLimit", &subscriptions.CreateParams{CalendarID: cal, WebhookURL: webhookTarget, RateLimit: unical.Some(0)}, &unical.Error{Code: unical.CodeInvalid, Field: "rateLimit"}},
	} {
		_, err := e.api.CreateSubscription(e.ctx, acct.ID, tc.params)
		wantError(t, "CreateSubscription "+tc.name, err, tc.want)
	}

	if ok := must(e.api.DeleteSubscription(e.ctx, acct.ID, &subscriptions.DeleteParams{SubscriptionID: created.WebhookSubscriptionID})); !ok.Success {
		t.Errorf("DeleteSubscription = %+v", ok)
	}
	_, err = e.api.DeleteSubscription(e.ctx, acct.ID, &subscriptions.DeleteParams{SubscriptionID: created.WebhookSubscriptionID})
	wantError(t, "DeleteSubscription twice", err, &unical.Error{Code: unical.CodeNotFound})
	_, err = e.api.DeleteSubscription(e.ctx, acct.ID, &subscriptions.DeleteParams{})
	wantError(t, "DeleteSubscription without id", err, &unical.Error{Code: unical.CodeInvalid, Field: "subscriptionId"})
	_, err = e.api.ListDeliveries(e.ctx, acct.ID, created.WebhookSubscriptionID, nil)
	wantError(t, "deliveries of a deleted subscription", err, &unical.Error{Code: unical.CodeNotFound})
	left := collect(t, subscriptions.All(e.ctx, e.api, acct.ID, nil))
	if len(left) != 1 || left[0].ID != second.WebhookSubscriptionID {
		t.Errorf("subscriptions after the delete: %+v", left)
	}
}

// testForeignIDs checks that another application's ids are 404 for every
// kind of call, and that its failed writes change nothing.
func testForeignIDs(e *env) {
	t := e.t
	acct := e.connect()[unical.ProviderGoogle]
	cal := e.primary[unical.ProviderGoogle]
	standup, _, _ := e.seedEvents(acct.ID, cal)
	sub := must(e.api.CreateSubscription(e.ctx, acct.ID, &subscriptions.CreateParams{CalendarID: cal, WebhookURL: webhookTarget}))
	o := e.other
	notFound := &unical.Error{Code: unical.CodeNotFound}
	calls := map[string]func() error{
		"GetAccount":     func() error { _, err := o.GetAccount(e.ctx, acct.ID); return err },
		"DeleteAccount":  func() error { _, err := o.DeleteAccount(e.ctx, acct.ID); return err },
		"GetCredentials": func() error { _, err := o.GetCredentials(e.ctx, acct.ID); return err },
		"ListCalendars":  func() error { _, err := o.ListCalendars(e.ctx, acct.ID, nil); return err },
		"GetCalendar":    func() error { _, err := o.GetCalendar(e.ctx, acct.ID, cal); return err },
		"UpdateCalendar": func() error {
			_, err := o.UpdateCalendar(e.ctx, acct.ID, cal, &unical.CalendarParams{Name: unical.Some("taken")})
			return err
		},
		"DeleteCalendar": func() error { _, err := o.DeleteCalendar(e.ctx, acct.ID, cal); return err },
		"ListEvents":     func() error { _, err := o.ListEvents(e.ctx, acct.ID, cal, nil); return err },
		"GetEvent":       func() error { _, err := o.GetEvent(e.ctx, acct.ID, cal, standup.ID); return err },
		"UpdateEvent": func() error {
			_, err := o.UpdateEvent(e.ctx, acct.ID, cal, standup.ID, &unical.EventParams{Title: unical.Some("taken")})
			return err
		},
		"DeleteEvent": func() error { _, err := o.DeleteEvent(e.ctx, acct.ID, cal, standup.ID); return err },
		"QueryFreeBusy": func() error {
			_, err := o.QueryFreeBusy(e.ctx, acct.ID, &unical.FreeBusyParams{StartDateTime: "2026-03-02T00:00:00Z", EndDateTime: "2026-03-03T00:00:00Z", TimeZone: "UTC", CalendarIDs: []string{cal}})
			return err
		},
		"ListSubscriptions": func() error { _, err := o.ListSubscriptions(e.ctx, acct.ID, nil); return err },
		"DeleteSubscription": func() error {
			_, err := o.DeleteSubscription(e.ctx, acct.ID, &subscriptions.DeleteParams{SubscriptionID: sub.WebhookSubscriptionID})
			return err
		},
		"ListDeliveries": func() error {
			_, err := o.ListDeliveries(e.ctx, acct.ID, sub.WebhookSubscriptionID, nil)
			return err
		},
	}
	for name, call := range calls {
		wantError(t, "foreign "+name, call(), notFound)
	}
	if others := collect(t, unical.AllAccounts(e.ctx, o, nil)); len(others) != 0 {
		t.Errorf("the other application lists %d accounts", len(others))
	}
	// Nothing the other application tried changed anything.
	if got := must(e.api.GetEvent(e.ctx, acct.ID, cal, standup.ID)); got.Title != "Standup" {
		t.Errorf("event after the foreign update: %q", got.Title)
	}
	if got := must(e.api.GetCalendar(e.ctx, acct.ID, cal)); got.Name != googleUser {
		t.Errorf("calendar after the foreign update: %q", got.Name)
	}
	if subs := collect(t, subscriptions.All(e.ctx, e.api, acct.ID, nil)); len(subs) != 1 {
		t.Errorf("%d subscriptions after the foreign delete", len(subs))
	}
}

// testCapabilities: every provider type is listed with a row for every
// writable field, and VIRTUAL (provider/virtual) as it declares itself.
func testCapabilities(e *env) {
	t := e.t
	list := must(e.api.Capabilities(e.ctx))
	type shape struct {
		Type            unical.ProviderType
		Calendar, Event []string
	}
	var want, got []shape
	for _, typ := range unical.ProviderTypes {
		want = append(want, shape{typ, unical.CalendarFields, unical.EventFields})
	}
	for _, c := range list.Data {
		s := shape{Type: c.ProviderType}
		for _, f := range unical.CalendarFields {
			if _, ok := c.Calendar[f]; ok {
				s.Calendar = append(s.Calendar, f)
			}
		}
		for _, f := range unical.EventFields {
			if _, ok := c.Event[f]; ok {
				s.Event = append(s.Event, f)
			}
		}
		got = append(got, s)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Capabilities() mismatch (-want +got):\n%s", diff)
	}
}
