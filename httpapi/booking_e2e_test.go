package httpapi_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/davtest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/provider/caldav"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/microsoft"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/postgres"
)

// bookingMonday is 10:00 UTC on a Monday one to two weeks ahead.
func bookingMonday() time.Time {
	d := time.Now().UTC().AddDate(0, 0, 7)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, time.UTC)
}

func bookingClient(t *testing.T, st *apitest.Stack) *httpclient.Client {
	t.Helper()
	c, err := httpclient.New(httpclient.Config{BaseURL: st.URL, APIKey: st.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func hostParticipant(acc string) []booking.Participant {
	return []booking.Participant{{Participant: availability.Participant{EndUserAccountID: acc}}}
}

// TestBookingE2E drives the booking layer over /v1 with the Go client of
// the API: a schedule, a booking type naming it, its slots, a hold and a
// booking by the hold, a retried booking with one Idempotency-Key, a
// reschedule and a cancel, each answer checked against the OpenAPI
// document.
func TestBookingE2E(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	c := bookingClient(t, st)
	ctx := t.Context()
	var host unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "host@example.com", "providerType": "VIRTUAL"}).Into(t, &host)

	sch, err := c.CreateSchedule(ctx, &booking.ScheduleParams{Name: unical.Some("Mornings"), TimeZone: unical.Some("UTC"),
		Intervals: unical.Some([]availability.WorkingInterval{{Day: "monday", Start: "09:00", End: "12:00"}})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateSchedule(ctx, &booking.ScheduleParams{Name: unical.Some("Bad"), TimeZone: unical.Some("UTC"),
		Intervals: unical.Some([]availability.WorkingInterval{{Day: "monday", Start: "12:00", End: "09:00"}})})
	if e := (*unical.Error)(nil); !errors.As(err, &e) || e.Code != unical.CodeInvalid || e.Field != "intervals[0].end" {
		t.Errorf("a schedule ending before it starts: %v, want 400 naming intervals[0].end", err)
	}
	parts := hostParticipant(host.ID)
	parts[0].ScheduleID = sch.ID
	bt, err := c.CreateBookingType(ctx, &booking.BookingTypeParams{Name: unical.Some("Intro"), DurationMinutes: unical.Some(60),
		IntervalMinutes: unical.Some(60), Participants: unical.Some(parts)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteSchedule(ctx, sch.ID); unical.ErrorCode(err) != unical.CodeConflict {
		t.Errorf("deleting a schedule in use: %v, want conflict", err)
	}
	day := bookingMonday().Add(-10 * time.Hour)
	slots, err := c.ListSlots(ctx, bt.ID, &booking.SlotParams{StartDateTime: day.Format(time.RFC3339), EndDateTime: day.Add(24 * time.Hour).Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, s := range slots.Data {
		starts = append(starts, s.Start.DateTime)
	}
	at := func(h int) string { return day.Add(time.Duration(h) * time.Hour).Format(time.RFC3339) }
	if d := cmp.Diff([]string{at(9), at(10), at(11)}, starts); d != "" {
		t.Errorf("slots of the schedule's morning mismatch (-want +got):\n%s", d)
	}

	hold, err := c.CreateHold(ctx, &booking.HoldParams{BookingTypeID: bt.ID, StartDateTime: at(9)})
	if err != nil {
		t.Fatal(err)
	}
	guest := booking.Guest{Email: "guest@example.org", Name: "Grace"}
	b, err := c.CreateBooking(ctx, &booking.BookingParams{BookingTypeID: bt.ID, HoldID: hold.ID, Guest: guest})
	if err != nil {
		t.Fatal(err)
	}
	keyed := unical.WriteOptions{IdempotencyKey: "booking-retry-1"}
	second, err := c.CreateBooking(ctx, &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(10), Guest: guest}, keyed)
	if err != nil {
		t.Fatal(err)
	}
	retry, err := c.CreateBooking(ctx, &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: at(10), Guest: guest}, keyed)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(second, retry); d != "" {
		t.Errorf("the retry's answer mismatch (-want +got):\n%s", d)
	}
	// A third booking of a taken slot is 409 slot_unavailable.
	r := st.Do(t, "POST", "/v1/bookings", map[string]any{"bookingTypeId": bt.ID, "startDateTime": at(10), "guest": map[string]any{"email": "late@example.org"}})
	if e := r.Error(t); r.Status != http.StatusConflict || e.Code != "slot_unavailable" || e.Field != "startDateTime" {
		t.Errorf("booking a taken slot = %d %+v, want 409 slot_unavailable naming startDateTime", r.Status, e)
	}
	r = st.Do(t, "POST", "/v1/bookings", map[string]any{"bookingTypeId": bt.ID, "startDateTime": day.Add(9*time.Hour + 30*time.Minute).Format(time.RFC3339), "guest": map[string]any{"email": "late@example.org"}})
	if e := r.Error(t); r.Status != http.StatusBadRequest || e.Field != "startDateTime" {
		t.Errorf("booking off the grid = %d %+v, want 400 naming startDateTime", r.Status, e)
	}

	moved, err := c.RescheduleBooking(ctx, b.ID, &booking.RescheduleParams{StartDateTime: at(11)})
	if err != nil {
		t.Fatal(err)
	}
	cancelled, err := c.CancelBooking(ctx, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.ListBookings(ctx, &booking.BookingListParams{BookingTypeID: bt.ID, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 1 || list.NextPageToken == nil {
		t.Fatalf("first page of bookings = %+v, want one and a next page", list)
	}
	rest, err := c.ListBookings(ctx, &booking.BookingListParams{BookingTypeID: bt.ID, PageToken: *list.NextPageToken})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range append(list.Data, rest.Data...) {
		got[x.ID] = x.Status + " " + x.Start.DateTime
	}
	want := map[string]string{moved.ID: "confirmed " + at(11), cancelled.ID: "cancelled " + at(10)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("bookings mismatch (-want +got):\n%s", d)
	}
	var evs unical.Page[unical.Event]
	st.Must(t, "GET", "/v1/events/"+host.ID+"/primary", nil).Into(t, &evs)
	if len(evs.Data) != 1 || evs.Data[0].ID != moved.Events[0].EventID {
		t.Errorf("host events = %d, want the moved booking's alone", len(evs.Data))
	}
	types, err := c.ListBookingTypes(ctx, nil)
	if err != nil || len(types.Data) != 1 || types.Data[0].ID != bt.ID {
		t.Errorf("ListBookingTypes = %+v, %v; want %s", types, err, bt.ID)
	}
	renamed, err := c.UpdateBookingType(ctx, bt.ID, &booking.BookingTypeParams{Name: unical.Some("Intro call")})
	if err != nil || renamed.Name != "Intro call" || renamed.DurationMinutes != 60 {
		t.Errorf("UpdateBookingType = %+v, %v; want the name changed and the rest kept", renamed, err)
	}
}

// TestBookingE2E_Concurrent50 sends 50 bookings of one slot of one host at
// once over HTTP, on each provider: one is 201, 49 are 409
// slot_unavailable, and the host's calendar holds one event.
func TestBookingE2E_Concurrent50(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"VIRTUAL", "PROVIDER_A", "PROVIDER_C"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var providers []unical.Provider
			settings := map[unical.ProviderType]unical.ProviderSettings{}
			var connect map[string]any
			calendar := "primary"
			g := googletest.NewServer(t, googletest.Options{})
			switch kind {
			case "VIRTUAL":
				connect = map[string]any{"email": "host@example.com", "providerType": "VIRTUAL"}
			case "PROVIDER_A":
				g.AddUser(googletest.User{Email: e2eUser, Name: "Dana", TimeZone: "UTC"})
				g.AddClient(googletest.Client{ID: e2eClientID, Secret: e2eSecret, RedirectURIs: []string{"https://app.example.com/callback"}})
				gp, err := google.New(google.Config{})
				if err != nil {
					t.Fatal(err)
				}
				providers = append(providers, gp)
				settings[google.ProviderType] = unical.ProviderSettings{ClientID: e2eClientID, ClientSecret: e2eSecret,
					AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), UserInfoURL: g.UserinfoURL(), APIBaseURL: g.APIBaseURL()}
				connect = map[string]any{"email": e2eUser, "providerType": "PROVIDER_A", "refreshToken": g.IssueRefreshToken(e2eClientID, e2eUser)}
			case "PROVIDER_C":
				dav := davtest.StartUser(t, davtest.Radicale, "alan@example.com")
				if dav == nil {
					return
				}
				calendar = ""
				providers = append(providers, newDAVProvider(t, caldav.Config{AllowPrivateTargets: true}))
				settings[caldav.ProviderType] = unical.ProviderSettings{ServerURL: dav.URL}
				connect = map[string]any{"email": dav.Username, "providerType": "PROVIDER_C", "password": dav.Password}
				dav.NewCalendar(t, "Work")
			}
			st := apitest.Start(t, providers, nil)
			st.CreateApp(t, &admin.ApplicationParams{Providers: settings})
			var host unical.Account
			st.Must(t, "POST", "/v1/endUserAccounts", connect).Into(t, &host)
			c := bookingClient(t, st)
			bt, err := c.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Race"), DurationMinutes: unical.Some(30), Participants: unical.Some(hostParticipant(host.ID))})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			statuses := make([]string, 50)
			for i := range statuses {
				wg.Go(func() {
					r := st.Do(t, "POST", "/v1/bookings", map[string]any{"bookingTypeId": bt.ID, "startDateTime": bookingMonday().Format(time.RFC3339),
						"guest": map[string]any{"email": fmt.Sprintf("guest%d@example.org", i)}})
					statuses[i] = fmt.Sprint(r.Status)
					if r.Status != http.StatusCreated {
						statuses[i] += " " + r.Error(t).Code
					}
				})
			}
			wg.Wait()
			count := map[string]int{}
			for _, s := range statuses {
				count[s]++
			}
			if d := cmp.Diff(map[string]int{"201": 1, "409 slot_unavailable": 49}, count); d != "" {
				t.Errorf("answers mismatch (-want +got):\n%s", d)
			}
			list, err := c.ListBookings(t.Context(), nil)
			if err != nil || len(list.Data) != 1 {
				t.Fatalf("bookings = %v, %v; want one", list, err)
			}
			if calendar == "" {
				calendar = list.Data[0].Events[0].CalendarID
			}
			var evs unical.Page[unical.Event]
			st.Must(t, "GET", "/v1/events/"+host.ID+"/"+calendar, nil).Into(t, &evs)
			if len(evs.Data) != 1 {
				t.Errorf("the host's calendar holds %d events, want 1", len(evs.Data))
			}
		})
	}
}

// TestBookingE2E_FailingProvider books a Graph host with a VIRTUAL room
// while Graph answers 503 to event writes: the answer is 503 naming the
// host, and nothing stays: no booking, no event in the room's calendar,
// and the slot is free again once Graph is back.
func TestBookingE2E_FailingProvider(t *testing.T) {
	t.Parallel()
	graph := graphtest.NewServer(t, graphtest.Options{})
	graphUser := graph.AddUser(graphtest.User{UserPrincipalName: adaEmail, DisplayName: "Ada Lovelace", TimeZone: "UTC"})
	mp, err := microsoft.New(microsoft.Config{HTTPClient: graph.Client()})
	if err != nil {
		t.Fatal(err)
	}
	st := apitest.Start(t, []unical.Provider{mp}, nil)
	graph.AddClient(graphtest.Client{ID: "unical-app", Secret: "s3cret", RedirectURIs: []string{st.URL + unical.OAuthCallbackPath}})
	st.CreateApp(t, &admin.ApplicationParams{Providers: map[unical.ProviderType]unical.ProviderSettings{
		unical.ProviderMicrosoft: {ClientID: "unical-app", ClientSecret: "s3cret", AuthURL: graph.AuthURL(), TokenURL: graph.TokenURL(), APIBaseURL: graph.GraphBaseURL()},
	}})
	var ada, room unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": adaEmail, "providerType": "PROVIDER_B", "refreshToken": graph.IssueRefreshToken("unical-app", graphUser)}).Into(t, &ada)
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "room@rooms.example.com", "providerType": "VIRTUAL"}).Into(t, &room)
	c := bookingClient(t, st)
	parts := append(hostParticipant(ada.ID), hostParticipant(room.ID)...)
	bt, err := c.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Visit"), DurationMinutes: unical.Some(30), Participants: unical.Some(parts)})
	if err != nil {
		t.Fatal(err)
	}
	graph.InjectFault(graphtest.Fault{PathPrefix: "/v1.0/me/calendars/", Method: "POST", Status: http.StatusServiceUnavailable, Count: 1000})
	body := map[string]any{"bookingTypeId": bt.ID, "startDateTime": bookingMonday().Format(time.RFC3339), "guest": map[string]any{"email": "guest@example.org"}}
	r := st.Do(t, "POST", "/v1/bookings", body)
	if e := r.Error(t); r.Status != http.StatusServiceUnavailable || e.Code != "provider_unavailable" || !strings.Contains(e.Message, ada.ID) {
		t.Fatalf("booking while Graph fails = %d %+v, want 503 naming %s", r.Status, e, ada.ID)
	}
	list, err := c.ListBookings(t.Context(), nil)
	if err != nil || len(list.Data) != 0 {
		t.Errorf("bookings after the failure = %v, %v; want none", list, err)
	}
	var evs unical.Page[unical.Event]
	st.Must(t, "GET", "/v1/events/"+room.ID+"/primary", nil).Into(t, &evs)
	if len(evs.Data) != 0 {
		t.Errorf("the room holds %d events after the failure, want none", len(evs.Data))
	}
	graph.ClearFaults()
	if r := st.Do(t, "POST", "/v1/bookings", body); r.Status != http.StatusCreated {
		t.Errorf("booking once Graph is back = %d %+v, want 201: the failed booking released the slot", r.Status, r.Error(t))
	}
}

// TestBookingE2E_ReplicasPostgres spreads 50 concurrent bookings of one
// slot of a VIRTUAL host over three replicas (each a Client, handler and
// Store of its own) on one PostgreSQL database: one is 201, 49 are 409
// slot_unavailable, and the host's calendar holds one event.
func TestBookingE2E_ReplicasPostgres(t *testing.T) {
	t.Parallel()
	url := pgtest.Start(t, pgtest.Options{}).NewDatabase(t)
	key := seal.NewKey()
	var servers []*httptest.Server
	var first *unical.Client
	for range 3 {
		s, err := postgres.Open(t.Context(), postgres.Config{URL: url, MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		client, err := unical.New(unical.Config{Store: s, Providers: virtual.Add(nil, virtual.Config{Store: s}), MasterKey: key})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Close() })
		srv := httptest.NewServer(httpapi.NewHandler(httpapi.Config{Client: client}))
		t.Cleanup(srv.Close)
		servers = append(servers, srv)
		if first == nil {
			first = client
		}
	}
	created, err := admin.Of(first).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("replicated")})
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]*httpclient.Client, len(servers))
	for i, srv := range servers {
		if clients[i], err = httpclient.New(httpclient.Config{BaseURL: srv.URL, APIKey: created.APIKey}); err != nil {
			t.Fatal(err)
		}
	}
	host, err := clients[0].CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "host@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	bt, err := clients[1].CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Race"), DurationMinutes: unical.Some(30), Participants: unical.Some(hostParticipant(host.ID))})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make([]unical.Code, 50)
	for i := range codes {
		wg.Go(func() {
			_, err := clients[i%3].CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: bookingMonday().Format(time.RFC3339),
				Guest: booking.Guest{Email: fmt.Sprintf("guest%d@example.org", i)}})
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
	if d := cmp.Diff(map[unical.Code]int{"created": 1, unical.CodeSlotUnavailable: 49}, count); d != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", d)
	}
	evs, err := clients[2].ListEvents(t.Context(), host.ID, "primary", nil)
	if err != nil || len(evs.Data) != 1 {
		t.Errorf("the host's calendar = %v, %v; want one event", evs, err)
	}
}

// TestBookingE2E_GoogleOrganizer books a Google organizer with a VIRTUAL
// room with notifyAttendees=true: the organizer's event at Google
// invites the guest and the room, the room gets its own copy (written
// without notification, which VIRTUAL cannot send), and the cancel
// removes both.
func TestBookingE2E_GoogleOrganizer(t *testing.T) {
	t.Parallel()
	g := googletest.NewServer(t, googletest.Options{})
	g.AddUser(googletest.User{Email: e2eUser, Name: "Dana", TimeZone: "UTC"})
	g.AddClient(googletest.Client{ID: e2eClientID, Secret: e2eSecret, RedirectURIs: []string{"https://app.example.com/callback"}})
	gp, err := google.New(google.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st := apitest.Start(t, []unical.Provider{gp}, nil)
	st.CreateApp(t, &admin.ApplicationParams{Providers: map[unical.ProviderType]unical.ProviderSettings{
		google.ProviderType: {ClientID: e2eClientID, ClientSecret: e2eSecret, AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), UserInfoURL: g.UserinfoURL(), APIBaseURL: g.APIBaseURL()},
	}})
	var dana, room unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": e2eUser, "providerType": "PROVIDER_A", "refreshToken": g.IssueRefreshToken(e2eClientID, e2eUser)}).Into(t, &dana)
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "room@rooms.example.com", "providerType": "VIRTUAL"}).Into(t, &room)
	var bt booking.BookingType
	st.Must(t, "POST", "/v1/bookingTypes", map[string]any{"name": "Visit", "durationMinutes": 30,
		"participants": []map[string]any{{"endUserAccountId": dana.ID}, {"endUserAccountId": room.ID}}}).Into(t, &bt)
	r := st.Do(t, "POST", "/v1/bookings?notifyAttendees=true", map[string]any{"bookingTypeId": bt.ID, "startDateTime": bookingMonday().Format(time.RFC3339),
		"guest": map[string]any{"email": "guest@example.org", "name": "Grace"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /v1/bookings?notifyAttendees=true = %d %+v", r.Status, r.Error(t))
	}
	var b booking.Booking
	r.Into(t, &b)
	if len(b.Events) != 2 || b.Events[0].EndUserAccountID != dana.ID || b.Events[1].EndUserAccountID != room.ID {
		t.Fatalf("booking events %+v, want Dana's then the room's", b.Events)
	}
	var ev unical.Event
	st.Must(t, "GET", "/v1/events/"+dana.ID+"/"+url.PathEscape(b.Events[0].CalendarID)+"/"+url.PathEscape(b.Events[0].EventID), nil).Into(t, &ev)
	var emails []string
	for _, a := range ev.Attendees {
		emails = append(emails, a.Email)
	}
	if d := cmp.Diff([]string{"guest@example.org", "room@rooms.example.com"}, emails); d != "" {
		t.Errorf("the organizer's attendees mismatch (-want +got):\n%s", d)
	}
	st.Must(t, "DELETE", "/v1/bookings/"+b.ID+"?notifyAttendees=true", nil)
	for _, e := range b.Events {
		r := st.Do(t, "GET", "/v1/events/"+e.EndUserAccountID+"/"+url.PathEscape(e.CalendarID)+"/"+url.PathEscape(e.EventID), nil)
		var got unical.Event
		if r.Status == http.StatusOK {
			r.Into(t, &got)
		}
		if r.Status != http.StatusNotFound && !got.IsCancelled {
			t.Errorf("event %s of %s after the cancel = %d (cancelled %v), want it gone", e.EventID, e.EndUserAccountID, r.Status, got.IsCancelled)
		}
	}
}
