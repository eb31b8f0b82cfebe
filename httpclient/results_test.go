package httpclient_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/unical/unical"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/subscriptions"
)

// TestResultsMatchApp reads the same data through the App and through the
// client and compares the whole results, so that every field, not only
// those the API suite checks, survives the wire. Tokens are left out:
// each listing seals new ones.
func TestResultsMatchApp(t *testing.T) {
	t.Parallel()
	st, app := stack(t)
	c := newClient(t, st.URL, st.APIKey, httpclient.Config{})
	ctx := t.Context()
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle,
		RefreshToken: unical.Some("refresh-ada"), ExternalID: unical.Some("user-1")})
	if err != nil {
		t.Fatal(err)
	}
	const cal = "primary/ada@example.com"
	when := func(s string) unical.Optional[unical.EventDateTime] {
		return unical.Some(unical.EventDateTime{DateTime: s, TimeZone: "Europe/Berlin"})
	}
	series, err := app.CreateEvent(ctx, acct.ID, cal, &unical.EventParams{
		Title: unical.Some("Planning"), Description: unical.Some("Quarterly <planning> & more"),
		Start: when("2026-03-03T10:00:00"), End: when("2026-03-03T11:00:00"),
		Recurrence:                unical.Some([]string{"RRULE:FREQ=WEEKLY;COUNT=3"}),
		PublicExtendedProperties:  unical.Some(map[string]string{"room": "4.01"}),
		PrivateExtendedProperties: unical.Some(map[string]string{"crm": "deal-7"}),
		Attendees:                 unical.Some([]unical.Attendee{{Email: "ada@example.com", Name: "Ada"}, {Email: "linus@example.com", Optional: true}}),
		Visibility:                unical.Some(unical.VisibilityPrivate), Location: unical.Some("Room 4.01"),
		Reminders: unical.Some(unical.Reminders{Overrides: []unical.ReminderOverride{{Method: "popup", Minutes: 15}}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := subscriptions.Create(ctx, app, acct.ID, &subscriptions.CreateParams{CalendarID: cal, WebhookURL: "https://hooks.example.com/x"}); err != nil {
		t.Fatal(err)
	}
	window := func() (time.Time, time.Time) {
		return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	}
	from, to := window()
	reads := map[string]func(api unical.API) (any, error){
		"GetAccount":     func(api unical.API) (any, error) { return api.GetAccount(ctx, acct.ID) },
		"ListAccounts":   func(api unical.API) (any, error) { return api.ListAccounts(ctx, nil) },
		"GetCredentials": func(api unical.API) (any, error) { return api.GetCredentials(ctx, acct.ID) },
		"ListCalendars": func(api unical.API) (any, error) {
			p, err := api.ListCalendars(ctx, acct.ID, nil)
			return dataOf(p, err)
		},
		"GetCalendar": func(api unical.API) (any, error) { return api.GetCalendar(ctx, acct.ID, cal) },
		"GetEvent":    func(api unical.API) (any, error) { return api.GetEvent(ctx, acct.ID, cal, series.ID) },
		"ListEvents expanded in Tokyo time": func(api unical.API) (any, error) {
			p, err := api.ListEvents(ctx, acct.ID, cal, &unical.EventListParams{Start: from, End: to, ExpandRecurrences: true,
				OrderBy: unical.OrderByStartTime, TimeZone: "Asia/Tokyo"})
			return dataOf(p, err)
		},
		"ListOccurrences": func(api unical.API) (any, error) {
			p, err := api.ListOccurrences(ctx, acct.ID, cal, series.ID, &unical.OccurrenceListParams{Start: from, End: to})
			return dataOf(p, err)
		},
		"QueryFreeBusy": func(api unical.API) (any, error) {
			return api.QueryFreeBusy(ctx, acct.ID, &unical.FreeBusyParams{StartDateTime: "2026-03-01T00:00:00Z", EndDateTime: "2026-04-01T00:00:00Z",
				TimeZone: "America/New_York", CalendarIDs: []string{cal}})
		},
		"ListSubscriptions": func(api unical.API) (any, error) {
			return subscriptionsOf(api).ListSubscriptions(ctx, acct.ID, nil)
		},
	}
	for name, read := range reads {
		want, err := read(app)
		if err != nil {
			t.Fatalf("%s through the App: %v", name, err)
		}
		got, err := read(c)
		if err != nil {
			t.Fatalf("%s through the client: %v", name, err)
		}
		if v := reflect.ValueOf(want); v.Kind() == reflect.Slice && v.Len() == 0 {
			t.Errorf("%s: the App's result is empty, so nothing is compared", name)
		}
		// Times travel with milliseconds (the API's one timestamp
		// precision), so the client's are the App's cut to the millisecond.
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
			t.Errorf("%s: the client's result differs from the App's (-app +client):\n%s", name, diff)
		}
	}
}

// subscriptionsOf is the subscriptions part of api: package
// subscriptions' beside an App, the client's own methods.
func subscriptionsOf(api unical.API) subscriptions.API {
	if app, ok := api.(*unical.App); ok {
		return subscriptions.Of(app)
	}
	return api.(subscriptions.API)
}

// dataOf keeps the records of a sync page.
func dataOf[T any](p *unical.SyncPage[T], err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return p.Data, nil
}
