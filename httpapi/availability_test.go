package httpapi_test

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/memory"
)

// availabilityAnswer is the answer of POST /v1/availability.
type availabilityAnswer struct {
	Data []availabilitySlot `json:"data"`
}

type availabilitySlot struct {
	Start        unical.EventDateTime `json:"start"`
	End          unical.EventDateTime `json:"end"`
	Participants []string             `json:"participants"`
}

// berlinSlot is a slot of an hour in Europe/Berlin on 3 March 2031 (UTC+1).
func berlinSlot(hour string, ids ...string) availabilitySlot {
	next := map[string]string{"10": "11", "11": "12", "12": "13", "13": "14", "14": "15", "15": "16", "16": "17"}[hour]
	return availabilitySlot{
		Start:        unical.EventDateTime{DateTime: "2031-03-03T" + hour + ":00:00+01:00", TimeZone: "Europe/Berlin"},
		End:          unical.EventDateTime{DateTime: "2031-03-03T" + next + ":00:00+01:00", TimeZone: "Europe/Berlin"},
		Participants: ids,
	}
}

func weekdayHours(zone string) map[string]any {
	var ivs []map[string]string
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday"} {
		ivs = append(ivs, map[string]string{"day": d, "start": "09:00", "end": "17:00"})
	}
	return map[string]any{"timeZone": zone, "intervals": ivs}
}

// TestAvailability finds the slots of two required and two optional
// participants on the three in-memory providers, whose busy time comes
// from the free/busy policy: a recurring series blocks its instances, an
// all-day event its whole day in the participant's zone, a transparent
// event nothing.
func TestAvailability(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	ids := ts.mustConnect(t)
	ts.Providers[unical.ProviderGoogle].AddUser("bob@example.com", "refresh-bob", "")
	var bobAcct unical.Account
	ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "bob@example.com", "providerType": "PROVIDER_A", "refreshToken": "refresh-bob"}).Into(t, &bobAcct)
	ada, grace, alan, bob := ids[unical.ProviderGoogle], ids[unical.ProviderMicrosoft], ids[unical.ProviderCalDAV], bobAcct.ID

	event := func(account, email string, body map[string]any) {
		t.Helper()
		ts.must(t, "POST", "/v1/events/"+account+"/"+url.PathEscape("primary/"+email), body)
	}
	at := func(local string) map[string]string {
		return map[string]string{"dateTime": "2031-" + local + ":00", "timeZone": "Europe/Berlin"}
	}
	// Ada: Mondays 10-11 since February, and a transparent hour that
	// blocks nothing.
	event(ada, googleUser, map[string]any{"title": "Weekly", "start": at("02-24T10:00"), "end": at("02-24T11:00"), "recurrence": []string{"RRULE:FREQ=WEEKLY"}})
	event(ada, googleUser, map[string]any{"title": "Focus", "start": at("03-03T14:00"), "end": at("03-03T15:00"), "transparency": "transparent"})
	// Grace (London hours, Berlin 10-18): away all Tuesday.
	event(grace, outlookUser, map[string]any{"title": "Away", "isAllDay": true, "start": map[string]string{"date": "2031-03-04"}, "end": map[string]string{"date": "2031-03-05"}})
	// The optional two: Alan 11-13, Bob 13-17.
	event(alan, davUser, map[string]any{"title": "Lunch", "start": at("03-03T11:00"), "end": at("03-03T13:00")})
	event(bob, "bob@example.com", map[string]any{"title": "Workshop", "start": at("03-03T13:00"), "end": at("03-03T17:00")})

	var got availabilityAnswer
	ts.must(t, "POST", "/v1/availability", map[string]any{
		"participants": []map[string]any{
			{"endUserAccountId": ada, "workingHours": weekdayHours("Europe/Berlin")},
			{"endUserAccountId": grace, "workingHours": weekdayHours("Europe/London"), "required": true},
			{"endUserAccountId": alan, "required": false},
			{"endUserAccountId": bob, "required": false},
		},
		"startDateTime":   "2031-03-03T00:00:00",
		"endDateTime":     "2031-03-05T00:00:00",
		"timeZone":        "Europe/Berlin",
		"durationMinutes": 60,
		"intervalMinutes": 60,
	}).Into(t, &got)
	want := availabilityAnswer{Data: []availabilitySlot{
		// 10:00 is Ada's weekly meeting; Tuesday is Grace's day away.
		berlinSlot("11", ada, grace, bob),
		berlinSlot("12", ada, grace, bob),
		berlinSlot("13", ada, grace, alan),
		berlinSlot("14", ada, grace, alan),
		berlinSlot("15", ada, grace, alan),
		berlinSlot("16", ada, grace, alan),
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("availability (-want +got):\n%s", d)
	}

	// Package availability over the Go API gives the same answer.
	app, err := ts.Client.App(t.Context(), ts.AppID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := availability.Find(t.Context(), app, ts.Client.Config().Now(), &availability.Params{
		Participants: []availability.Participant{
			{EndUserAccountID: ada, WorkingHours: &availability.WorkingHours{TimeZone: "Europe/Berlin", Intervals: []availability.WorkingInterval{{Day: "monday", Start: "09:00", End: "17:00"}}}},
			{EndUserAccountID: alan, Required: unical.Some(false)},
			{EndUserAccountID: bob, Required: unical.Some(false)},
		},
		StartDateTime: "2031-03-03T15:00:00+01:00", EndDateTime: "2031-03-03T17:00:00+01:00",
		TimeZone: "Europe/Berlin", DurationMinutes: 60, MaxResults: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantGo := &availability.Result{Data: []*availability.Slot{{
		Start:        unical.EventDateTime{DateTime: "2031-03-03T15:00:00+01:00", TimeZone: "Europe/Berlin"},
		End:          unical.EventDateTime{DateTime: "2031-03-03T16:00:00+01:00", TimeZone: "Europe/Berlin"},
		Participants: []string{ada, alan},
	}}}
	if d := cmp.Diff(wantGo, res); d != "" {
		t.Errorf("availability.Find (-want +got):\n%s", d)
	}
}

// TestAvailabilityGroups: three rooms of which one is needed beside a
// person, and the person's working hours with a date closed and a date
// shortened; the slots name the free room.
func TestAvailabilityGroups(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	ids := ts.mustConnect(t)
	ts.Providers[unical.ProviderGoogle].AddUser("room3@example.com", "refresh-room3", "")
	var room3Acct unical.Account
	ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "room3@example.com", "providerType": "PROVIDER_A", "refreshToken": "refresh-room3"}).Into(t, &room3Acct)
	ada, room1, room2, room3 := ids[unical.ProviderGoogle], ids[unical.ProviderMicrosoft], ids[unical.ProviderCalDAV], room3Acct.ID

	busy := func(account, email, from, to string) {
		t.Helper()
		ts.must(t, "POST", "/v1/events/"+account+"/"+url.PathEscape("primary/"+email), map[string]any{
			"title": "Booked",
			"start": map[string]string{"dateTime": "2031-03-" + from + ":00", "timeZone": "Europe/Berlin"},
			"end":   map[string]string{"dateTime": "2031-03-" + to + ":00", "timeZone": "Europe/Berlin"},
		})
	}
	// Monday 3 March: room1 busy 10-12, room2 10-11 and 12-13, room3 all
	// day, so 10:00 has no room, 11:00 room2 and 12:00 room1.
	busy(room1, outlookUser, "03T10:00", "03T12:00")
	busy(room2, davUser, "03T10:00", "03T11:00")
	busy(room2, davUser, "03T12:00", "03T13:00")
	busy(room3, "room3@example.com", "03T00:00", "06T00:00")

	var got availabilityAnswer
	hours := weekdayHours("Europe/Berlin")
	hours["intervals"] = []map[string]string{
		{"day": "monday", "start": "10:00", "end": "13:00"},
		{"day": "tuesday", "start": "10:00", "end": "13:00"},
		{"day": "wednesday", "start": "10:00", "end": "13:00"},
	}
	hours["overrides"] = []map[string]any{
		{"date": "2031-03-04", "intervals": []map[string]string{}},
		{"date": "2031-03-05", "intervals": []map[string]string{{"start": "12:00", "end": "13:00"}}},
	}
	ts.must(t, "POST", "/v1/availability", map[string]any{
		"participants": []map[string]any{
			{"endUserAccountId": ada, "workingHours": hours},
			{"endUserAccountId": room1, "group": "rooms"},
			{"endUserAccountId": room2, "group": "rooms"},
			{"endUserAccountId": room3, "group": "rooms"},
		},
		"groups":          []map[string]any{{"name": "rooms", "required": 1}},
		"startDateTime":   "2031-03-03T00:00:00",
		"endDateTime":     "2031-03-06T00:00:00",
		"timeZone":        "Europe/Berlin",
		"durationMinutes": 60,
		"intervalMinutes": 60,
	}).Into(t, &got)
	slot := func(day, hour, next string, ids ...string) availabilitySlot {
		return availabilitySlot{
			Start:        unical.EventDateTime{DateTime: "2031-03-" + day + "T" + hour + ":00:00+01:00", TimeZone: "Europe/Berlin"},
			End:          unical.EventDateTime{DateTime: "2031-03-" + day + "T" + next + ":00:00+01:00", TimeZone: "Europe/Berlin"},
			Participants: ids,
		}
	}
	want := availabilityAnswer{Data: []availabilitySlot{
		slot("03", "11", "12", ada, room2),
		slot("03", "12", "13", ada, room1),
		// Tuesday is closed; Wednesday has only its last hour.
		slot("05", "12", "13", ada, room1, room2),
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("availability (-want +got):\n%s", d)
	}
}

// TestAvailabilityNotice: minimumNoticeMinutes counts from the Client's
// clock (Config.Now), and slots start on the next step after it.
func TestAvailabilityNotice(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 3, 3, 8, 50, 0, 0, time.UTC)
	p := memory.New(memory.Config{Type: unical.ProviderGoogle})
	p.AddUser(googleUser, googleToken, "")
	st := apitest.Start(t, []unical.Provider{p}, func(cfg *apitest.Config) { cfg.Now = func() time.Time { return now } })
	st.CreateApp(t, &admin.ApplicationParams{Providers: map[unical.ProviderType]unical.ProviderSettings{
		unical.ProviderGoogle: {ClientID: "client-1", ClientSecret: "client-secret-1"},
	}})
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": googleUser, "providerType": "PROVIDER_A", "refreshToken": googleToken}).Into(t, &acct)
	starts := func(notice int) []string {
		t.Helper()
		var got availabilityAnswer
		st.Must(t, "POST", "/v1/availability", map[string]any{
			"participants":  []map[string]any{{"endUserAccountId": acct.ID}},
			"startDateTime": "2031-03-03T08:00:00Z", "endDateTime": "2031-03-03T12:00:00Z",
			"durationMinutes": 30, "intervalMinutes": 30, "minimumNoticeMinutes": notice,
		}).Into(t, &got)
		var out []string
		for _, s := range got.Data {
			out = append(out, s.Start.DateTime)
		}
		return out
	}
	for _, tt := range []struct {
		notice int
		want   []string
	}{
		// Now is 08:50: no slot in the past even without notice.
		{0, []string{"2031-03-03T09:00:00Z", "2031-03-03T09:30:00Z", "2031-03-03T10:00:00Z", "2031-03-03T10:30:00Z", "2031-03-03T11:00:00Z", "2031-03-03T11:30:00Z"}},
		// An hour's notice: not before 09:50, so from 10:00.
		{60, []string{"2031-03-03T10:00:00Z", "2031-03-03T10:30:00Z", "2031-03-03T11:00:00Z", "2031-03-03T11:30:00Z"}},
		{24 * 60, nil},
	} {
		if d := cmp.Diff(tt.want, starts(tt.notice)); d != "" {
			t.Errorf("slot starts with %d minutes of notice (-want +got):\n%s", tt.notice, d)
		}
	}
}

// TestAvailabilityRefusals: each bad request is a 400 naming the field,
// an unknown account a 404 and an EXPIRED one a 409, each naming the
// participant.
func TestAvailabilityRefusals(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	ids := ts.mustConnect(t)
	ada, grace := ids[unical.ProviderGoogle], ids[unical.ProviderMicrosoft]
	if _, err := ts.Store.UpdateAccount(t.Context(), ts.AppID, grace, func(rec *unical.AccountRecord) error {
		rec.Status = unical.AccountStatusExpired
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	valid := func() map[string]any {
		return map[string]any{
			"participants":  []map[string]any{{"endUserAccountId": ada}},
			"startDateTime": "2027-03-01T00:00:00Z", "endDateTime": "2027-03-08T00:00:00Z",
			"durationMinutes": 30,
		}
	}
	with := func(k string, v any) map[string]any {
		b := valid()
		b[k] = v
		return b
	}
	participant := func(p map[string]any) map[string]any {
		p["endUserAccountId"] = ada
		return with("participants", []map[string]any{p})
	}
	many := make([]map[string]any, 21)
	for i := range many {
		many[i] = map[string]any{"endUserAccountId": strings.Repeat("x", i+1)}
	}
	hours := func(ivs ...map[string]string) map[string]any {
		return participant(map[string]any{"workingHours": map[string]any{"timeZone": "Europe/Berlin", "intervals": ivs}})
	}
	tests := []struct {
		name   string
		body   map[string]any
		status int
		code   string
		field  string
	}{
		{"window over 62 days", with("endDateTime", "2027-05-03T00:00:00Z"), 400, "invalid_request", "endDateTime"},
		{"end before start", with("endDateTime", "2027-02-28T00:00:00Z"), 400, "invalid_request", "endDateTime"},
		{"missing start", with("startDateTime", ""), 400, "invalid_request", "startDateTime"},
		{"year 9999", func() map[string]any {
			b := with("startDateTime", "9999-01-01T00:00:00Z")
			b["endDateTime"] = "9999-01-02T00:00:00Z"
			return b
		}(), 400, "invalid_request", "endDateTime"},
		{"more than 20 participants", with("participants", many), 400, "invalid_request", "participants"},
		{"no participants", with("participants", []map[string]any{}), 400, "invalid_request", "participants"},
		{"duration under 5", with("durationMinutes", 4), 400, "invalid_request", "durationMinutes"},
		{"duration longer than the window", with("endDateTime", "2027-03-01T00:20:00Z"), 400, "invalid_request", "durationMinutes"},
		// Minutes past what a time.Duration holds once wrapped round to a
		// negative duration, which is no longer than any window.
		{"duration past a Duration", with("durationMinutes", 153722868), 400, "invalid_request", "durationMinutes"},
		{"duration of the largest int", with("durationMinutes", math.MaxInt), 400, "invalid_request", "durationMinutes"},
		{"interval", with("intervalMinutes", 2), 400, "invalid_request", "intervalMinutes"},
		{"negative buffer", with("bufferAfterMinutes", -1), 400, "invalid_request", "bufferAfterMinutes"},
		{"maxResults", with("maxResults", 1001), 400, "invalid_request", "maxResults"},
		{"unknown time zone", with("timeZone", "Mars/Olympus"), 400, "invalid_request", "timeZone"},
		{"unknown working hours zone", participant(map[string]any{"workingHours": map[string]any{"timeZone": "Europe/Atlantis", "intervals": []map[string]string{{"day": "monday", "start": "09:00", "end": "17:00"}}}}),
			400, "invalid_request", "participants[0].workingHours.timeZone"},
		{"working hours end before start", hours(map[string]string{"day": "monday", "start": "17:00", "end": "09:00"}), 400, "invalid_request", "participants[0].workingHours.intervals[0].end"},
		{"working hours overlap", hours(map[string]string{"day": "monday", "start": "09:00", "end": "13:00"}, map[string]string{"day": "tuesday", "start": "09:00", "end": "13:00"}, map[string]string{"day": "monday", "start": "12:00", "end": "17:00"}),
			400, "invalid_request", "participants[0].workingHours.intervals[2]"},
		{"bad day", hours(map[string]string{"day": "Monday", "start": "09:00", "end": "17:00"}), 400, "invalid_request", "participants[0].workingHours.intervals[0].day"},
		{"bad clock", hours(map[string]string{"day": "monday", "start": "9:00", "end": "17:00"}), 400, "invalid_request", "participants[0].workingHours.intervals[0].start"},
		{"override date", participant(map[string]any{"workingHours": map[string]any{"timeZone": "Europe/Berlin", "intervals": []map[string]string{{"day": "monday", "start": "09:00", "end": "17:00"}},
			"overrides": []map[string]any{{"date": "2027-03-32", "intervals": []map[string]string{}}}}}), 400, "invalid_request", "participants[0].workingHours.overrides[0].date"},
		{"override interval with a day", participant(map[string]any{"workingHours": map[string]any{"timeZone": "Europe/Berlin", "intervals": []map[string]string{{"day": "monday", "start": "09:00", "end": "17:00"}},
			"overrides": []map[string]any{{"date": "2027-03-02", "intervals": []map[string]string{{"day": "tuesday", "start": "09:00", "end": "12:00"}}}}}}), 400, "invalid_request", "participants[0].workingHours.overrides[0].intervals[0].day"},
		{"override without intervals", participant(map[string]any{"workingHours": map[string]any{"timeZone": "Europe/Berlin", "intervals": []map[string]string{{"day": "monday", "start": "09:00", "end": "17:00"}},
			"overrides": []map[string]any{{"date": "2027-03-02"}}}}), 400, "invalid_request", "participants[0].workingHours.overrides[0].intervals"},
		{"group not listed", participant(map[string]any{"group": "rooms"}), 400, "invalid_request", "participants[0].group"},
		{"group required over its size", func() map[string]any {
			b := participant(map[string]any{"group": "rooms"})
			b["groups"] = []map[string]any{{"name": "rooms", "required": 2}}
			return b
		}(), 400, "invalid_request", "groups[0].required"},
		{"group without members", with("groups", []map[string]any{{"name": "rooms", "required": 1}}), 400, "invalid_request", "groups[0].name"},
		{"required on a group member", func() map[string]any {
			b := participant(map[string]any{"group": "rooms", "required": true})
			b["groups"] = []map[string]any{{"name": "rooms", "required": 1}}
			return b
		}(), 400, "invalid_request", "participants[0].required"},
		{"empty calendarIds", participant(map[string]any{"calendarIds": []string{}}), 400, "invalid_request", "participants[0].calendarIds"},
		{"a participant twice", with("participants", []map[string]any{{"endUserAccountId": ada}, {"endUserAccountId": ada}}), 400, "invalid_request", "participants[1].endUserAccountId"},
		{"unknown field", with("duration", 30), 400, "invalid_request", "duration"},
		{"unknown account", with("participants", []map[string]any{{"endUserAccountId": ada}, {"endUserAccountId": "acc_nobody"}}), 404, "not_found", "participants[1].endUserAccountId"},
		{"unknown calendar", participant(map[string]any{"calendarIds": []string{"no-such-calendar"}}), 404, "not_found", "participants[0].calendarIds"},
		{"expired account", with("participants", []map[string]any{{"endUserAccountId": ada}, {"endUserAccountId": grace}}), 409, "account_expired", "participants[1].endUserAccountId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do(t, "POST", "/v1/availability", tt.body)
			wantError(t, tt.name, r, tt.status, tt.code, tt.field)
		})
	}
	// The error names the participant's account in its message too.
	r := ts.do(t, "POST", "/v1/availability", with("participants", []map[string]any{{"endUserAccountId": grace}}))
	if msg := r.Error(t).Message; !strings.Contains(msg, grace) {
		t.Errorf("message %q does not name %s", msg, grace)
	}
	// Another application's account is unknown here.
	_, otherKey := ts.mustCreateApp(t, "other", "https://auth.example.com")
	r = ts.doKey(t, otherKey, "POST", "/v1/availability", valid())
	wantError(t, "foreign account", r, 404, "not_found", "participants[0].endUserAccountId")
}

// failingListProvider fails the event listing of one user, as a provider
// that is down does.
type failingListProvider struct {
	*memory.Provider
}

func (p failingListProvider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	if s.Email == "bob@example.com" {
		return nil, &unical.Error{Code: unical.CodeUnavailable, Message: "The provider is down."}
	}
	return p.Provider.ListEvents(ctx, s, calendarID, q)
}

// TestAvailabilityProviderFailure: one participant's provider failing
// fails the whole request with its status, naming the participant; no
// partial answer.
func TestAvailabilityProviderFailure(t *testing.T) {
	t.Parallel()
	ts := MustNewServerWith(t, func(p *memory.Provider) unical.Provider { return failingListProvider{p} })
	ids := ts.mustConnect(t)
	ts.Providers[unical.ProviderGoogle].AddUser("bob@example.com", "refresh-bob", "")
	var bob unical.Account
	ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "bob@example.com", "providerType": "PROVIDER_A", "refreshToken": "refresh-bob"}).Into(t, &bob)
	r := ts.do(t, "POST", "/v1/availability", map[string]any{
		"participants": []map[string]any{
			{"endUserAccountId": ids[unical.ProviderGoogle]}, {"endUserAccountId": ids[unical.ProviderCalDAV]},
			{"endUserAccountId": bob.ID, "required": false},
		},
		"startDateTime": "2027-03-01T00:00:00Z", "endDateTime": "2027-03-02T00:00:00Z", "durationMinutes": 30,
	})
	wantError(t, "provider failure", r, 503, "provider_unavailable", "participants[2].endUserAccountId")
	if msg := r.Error(t).Message; !strings.Contains(msg, bob.ID) {
		t.Errorf("message %q does not name %s", msg, bob.ID)
	}
}

// gateProvider holds every event listing until want of them are in
// flight at once, and records the most that ever were.
type gateProvider struct {
	*memory.Provider
	g *gate
}

type gate struct {
	want     int
	mu       sync.Mutex
	inFlight int
	most     int
	open     chan struct{}
	opened   sync.Once
}

func (p gateProvider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	g := p.g
	g.mu.Lock()
	g.inFlight++
	g.most = max(g.most, g.inFlight)
	if g.inFlight == g.want {
		// A moment's wait lets calls past the bound show up, if the
		// fan-out has none.
		g.opened.Do(func() { time.AfterFunc(100*time.Millisecond, func() { close(g.open) }) })
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case <-g.open:
	case <-time.After(5 * time.Second):
		// Never that many at once: the fan-out is not parallel.
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return p.Provider.ListEvents(ctx, s, calendarID, q)
}

// TestAvailabilityFanOut: the busy time of 20 participants is fetched 10
// at a time, no more and no fewer; no timing is measured, the provider
// counts the calls in flight.
func TestAvailabilityFanOut(t *testing.T) {
	t.Parallel()
	g := &gate{want: availability.FanOut, open: make(chan struct{})}
	ts := MustNewServerWith(t, func(p *memory.Provider) unical.Provider { return gateProvider{p, g} })
	var participants []map[string]any
	for i := range availability.MaxParticipants {
		email := fmt.Sprintf("p%d@example.com", i)
		ts.Providers[unical.ProviderGoogle].AddUser(email, "refresh-"+email, "")
		var acct unical.Account
		ts.must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": email, "providerType": "PROVIDER_A", "refreshToken": "refresh-" + email}).Into(t, &acct)
		participants = append(participants, map[string]any{"endUserAccountId": acct.ID})
	}
	var got availabilityAnswer
	ts.must(t, "POST", "/v1/availability", map[string]any{
		"participants":  participants,
		"startDateTime": "2031-03-03T09:00:00Z", "endDateTime": "2031-03-03T10:00:00Z", "durationMinutes": 60,
	}).Into(t, &got)
	if len(got.Data) != 1 || len(got.Data[0].Participants) != availability.MaxParticipants {
		t.Errorf("answer %+v, want one slot with all %d participants", got.Data, availability.MaxParticipants)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.most != availability.FanOut {
		t.Errorf("at most %d listings were in flight at once, want %d", g.most, availability.FanOut)
	}
}
