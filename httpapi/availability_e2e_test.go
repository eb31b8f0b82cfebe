package httpapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/microsoft"
)

// TestAvailabilityE2E finds the slots of a CalDAV account on Radicale, a
// Google account on the fake Google, a Microsoft account on the fake Graph,
// each with its busy time set up directly at the provider, and a VIRTUAL
// meeting room, in one request over HTTP: each provider's own free/busy
// path (Google's freeBusy, Graph's getSchedule, the events of CalDAV and
// of the room expanded in our core) answers for its participant.
func TestAvailabilityE2E(t *testing.T) {
	t.Parallel()
	dav := davtest.StartUser(t, davtest.Radicale, "alan@example.com")
	if dav == nil {
		return
	}
	g := googletest.NewServer(t, googletest.Options{})
	g.AddUser(googletest.User{Email: e2eUser, Name: "Dana", TimeZone: "Europe/Paris"})
	graph := graphtest.NewServer(t, graphtest.Options{})
	graphUser := graph.AddUser(graphtest.User{UserPrincipalName: adaEmail, DisplayName: "Ada Lovelace", TimeZone: "W. Europe Standard Time"})

	gp, err := google.New(google.Config{})
	if err != nil {
		t.Fatal(err)
	}
	mp, err := microsoft.New(microsoft.Config{HTTPClient: graph.Client()})
	if err != nil {
		t.Fatal(err)
	}
	st := apitest.Start(t, []unical.Provider{gp, mp, newDAVProvider(t, caldav.Config{AllowPrivateTargets: true})}, nil)
	g.AddClient(googletest.Client{ID: e2eClientID, Secret: e2eSecret, RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}})
	graph.AddClient(graphtest.Client{ID: "unical-app", Secret: "s3cret", RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}})
	st.CreateApp(t, &admin.ApplicationParams{
		Name: unical.Some("scheduling"),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			google.ProviderType: {
				ClientID: e2eClientID, ClientSecret: e2eSecret,
				AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), UserInfoURL: g.UserinfoURL(), APIBaseURL: g.APIBaseURL(),
			},
			unical.ProviderMicrosoft: {
				ClientID: "unical-app", ClientSecret: "s3cret",
				AuthURL: graph.AuthURL(), TokenURL: graph.TokenURL(), APIBaseURL: graph.GraphBaseURL(),
			},
			caldav.ProviderType: {ServerURL: dav.URL},
		},
	})
	connect := func(body map[string]any) string {
		t.Helper()
		var acct unical.Account
		st.Must(t, "POST", "/v1/endUserAccounts", body).Into(t, &acct)
		return acct.ID
	}
	dana := connect(map[string]any{"email": e2eUser, "providerType": "PROVIDER_A", "refreshToken": g.IssueRefreshToken(e2eClientID, e2eUser)})
	ada := connect(map[string]any{"email": adaEmail, "providerType": "PROVIDER_B", "refreshToken": graph.IssueRefreshToken("unical-app", graphUser)})
	alan := connect(map[string]any{"email": dav.Username, "providerType": "PROVIDER_C", "password": dav.Password})
	// A meeting room with no provider account: a VIRTUAL account, whose
	// calendar lives in unicald's store (its "provider").
	room := connect(map[string]any{"email": "room-2@rooms.example.com", "providerType": "VIRTUAL"})

	// Dana (Google): 09:00-10:00, and a weekly series on Mondays 12:00-12:30
	// that started a week earlier.
	g.AddEvent(e2eUser, googletest.Event{Summary: "Review",
		Start: &googletest.EventDateTime{DateTime: "2031-03-03T09:00:00Z"}, End: &googletest.EventDateTime{DateTime: "2031-03-03T10:00:00Z"}})
	g.AddEvent(e2eUser, googletest.Event{Summary: "Weekly", Recurrence: []string{"RRULE:FREQ=WEEKLY"},
		Start: &googletest.EventDateTime{DateTime: "2031-02-24T12:00:00Z", TimeZone: "UTC"}, End: &googletest.EventDateTime{DateTime: "2031-02-24T12:30:00Z", TimeZone: "UTC"}})
	// Ada (Graph): 10:30-11:00, and a free (transparent) hour at 13:00.
	for _, body := range []string{
		`{"subject":"Call","start":{"dateTime":"2031-03-03T10:30:00","timeZone":"UTC"},"end":{"dateTime":"2031-03-03T11:00:00","timeZone":"UTC"}}`,
		`{"subject":"Reading","showAs":"free","start":{"dateTime":"2031-03-03T13:00:00","timeZone":"UTC"},"end":{"dateTime":"2031-03-03T14:00:00","timeZone":"UTC"}}`,
	} {
		if _, err := graph.AddEvent(graphUser, "", body); err != nil {
			t.Fatal(err)
		}
	}
	// Alan (Radicale, no primary calendar: all his own calendars count):
	// 09:30-10:30 in one calendar, an all-day event the next day in another.
	work, home := dav.NewCalendar(t, "Work"), dav.NewCalendar(t, "Home")
	dav.PutObject(t, work+"standup.ics", icsEvent("standup", "DTSTART:20310303T093000Z\r\nDTEND:20310303T103000Z"))
	dav.PutObject(t, home+"trip.ics", icsEvent("trip", "DTSTART;VALUE=DATE:20310304\r\nDTEND;VALUE=DATE:20310305"))

	// Dana works 10:00-19:00 in Paris, 09:00-18:00 UTC.
	paris := map[string]any{"timeZone": "Europe/Paris", "intervals": []map[string]string{
		{"day": "monday", "start": "10:00", "end": "19:00"}, {"day": "tuesday", "start": "10:00", "end": "19:00"},
	}}
	// The room is booked 13:00-14:00 and 15:00-15:30 (a weekly booking
	// since the week before), and cancelled 16:00-17:00.
	st.Must(t, "POST", "/v1/events/"+room+"/primary", map[string]any{"title": "Board",
		"start": map[string]string{"dateTime": "2031-03-03T13:00:00Z"}, "end": map[string]string{"dateTime": "2031-03-03T14:00:00Z"}})
	st.Must(t, "POST", "/v1/events/"+room+"/primary", map[string]any{"title": "Cleaning", "recurrence": []string{"RRULE:FREQ=WEEKLY"},
		"start": map[string]string{"dateTime": "2031-02-24T15:00:00Z", "timeZone": "UTC"}, "end": map[string]string{"dateTime": "2031-02-24T15:30:00Z", "timeZone": "UTC"}})
	st.Must(t, "POST", "/v1/events/"+room+"/primary", map[string]any{"title": "Off", "isCancelled": true,
		"start": map[string]string{"dateTime": "2031-03-03T16:00:00Z"}, "end": map[string]string{"dateTime": "2031-03-03T17:00:00Z"}})

	var got availabilityAnswer
	st.Must(t, "POST", "/v1/availability", map[string]any{
		"participants": []map[string]any{
			{"endUserAccountId": dana, "workingHours": paris}, {"endUserAccountId": ada}, {"endUserAccountId": alan}, {"endUserAccountId": room},
		},
		"startDateTime": "2031-03-03T00:00:00Z", "endDateTime": "2031-03-05T00:00:00Z",
		"durationMinutes": 60, "intervalMinutes": 30, "timeZone": "UTC",
	}).Into(t, &got)
	var starts []string
	for _, s := range got.Data {
		if s.Start.TimeZone != "UTC" || !cmp.Equal(s.Participants, []string{dana, ada, alan, room}) {
			t.Errorf("slot %+v: want UTC and all four participants", s)
		}
		starts = append(starts, s.Start.DateTime)
	}
	// Busy on Monday: 09:00-10:30 (Dana, Alan), 10:30-11:00 (Ada),
	// 12:00-12:30 (Dana's series), 13:00-14:00 and 15:00-15:30 (the
	// room); Ada's free hour and the room's cancelled booking block
	// nothing. Tuesday is Alan's all-day trip.
	var want []string
	for _, hm := range []string{"11:00", "14:00", "15:30", "16:00", "16:30", "17:00"} {
		want = append(want, "2031-03-03T"+hm+":00Z")
	}
	if d := cmp.Diff(want, starts); d != "" {
		t.Errorf("slot starts (-want +got):\n%s", d)
	}
}

// icsEvent is a one-event iCalendar object with the given UID and time
// lines.
func icsEvent(uid, times string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//unical//test//EN\r\nBEGIN:VEVENT\r\nUID:" + uid +
		"\r\nDTSTAMP:20310101T000000Z\r\n" + times + "\r\nSUMMARY:" + uid + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
}
