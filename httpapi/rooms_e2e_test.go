package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/provider/microsoft"
)

// roomStack is the whole server with the Google and Graph fakes, each
// holding rooms, and the application's delegation credentials for both.
type roomStack struct {
	*apitest.Stack
	google *googletest.Server
	graph  *graphtest.Server
	// googleDelegation is the Google credential as set; tests change and
	// set it again.
	googleDelegation admin.DelegationParams
}

const (
	roomDomainAdmin = "it@corp.example.com"
	roomDaemon      = "rooms-daemon"
	roomDaemonKey   = "rooms-d43mon-secret"
)

// newServiceAccount returns a Google JSON key file of a new service
// account and the fake's record of it, granted the delegation scopes.
func newServiceAccount(t *testing.T) (json.RawMessage, googletest.ServiceAccount) {
	t.Helper()
	sa := googletest.ServiceAccount{Email: "rooms@corp-calendars.iam.gserviceaccount.com", ClientID: "104857600000000000042", Scopes: admin.GoogleDelegationScopes}
	file, err := json.Marshal(googletest.NewServiceAccount(t, &sa))
	if err != nil {
		t.Fatal(err)
	}
	return file, sa
}

func mustNewRoomStack(t *testing.T) *roomStack {
	t.Helper()
	g := googletest.NewServer(t, googletest.Options{})
	g.AddUser(googletest.User{Email: roomDomainAdmin, Name: "IT"})
	g.SetAdmin(roomDomainAdmin)
	key, sa := newServiceAccount(t)
	g.AddServiceAccount(sa)
	graph := graphtest.NewServer(t, graphtest.Options{})
	graph.AddClient(graphtest.Client{ID: roomDaemon, Secret: roomDaemonKey, ApplicationPermissions: []string{"Calendars.ReadWrite", "User.Read.All", "Place.Read.All"}})

	gp, err := google.New(google.Config{})
	if err != nil {
		t.Fatal(err)
	}
	mp, err := microsoft.New(microsoft.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st := &roomStack{Stack: apitest.Start(t, []unical.Provider{gp, mp}, nil), google: g, graph: graph}
	graph.AddClient(graphtest.Client{ID: roomDaemon + "-calendars", Secret: roomDaemonKey, ApplicationPermissions: []string{"Calendars.ReadWrite", "User.Read.All"}})
	st.CreateApp(t, &admin.ApplicationParams{Name: unical.Some("rooms")})
	st.googleDelegation = admin.DelegationParams{
		ServiceAccountKey: key, Domains: []string{"corp.example.com"}, AdminEmail: roomDomainAdmin,
		TokenURL: g.TokenURL(), APIBaseURL: g.APIBaseURL(), DirectoryURL: g.DirectoryBaseURL(),
	}
	st.setGoogleDelegation(t)
	st.setGraphDelegation(t, roomDaemon)
	return st
}

// setGraphDelegation sets the application's Microsoft credential to the
// tenant's application clientID.
func (st *roomStack) setGraphDelegation(t *testing.T, clientID string) {
	t.Helper()
	if _, err := st.Admin.SetDelegation(t.Context(), st.AppID, unical.ProviderMicrosoft, &admin.DelegationParams{
		TenantID: graphtest.DefaultTenant, ClientID: clientID, ClientSecret: roomDaemonKey, Domains: []string{"corp.example.org"},
		TokenURL: st.graph.TokenURL(), APIBaseURL: st.graph.GraphBaseURL(),
	}); err != nil {
		t.Fatal(err)
	}
}

func (st *roomStack) setGoogleDelegation(t *testing.T) *admin.DelegationView {
	t.Helper()
	v, err := st.Admin.SetDelegation(t.Context(), st.AppID, unical.ProviderGoogle, &st.googleDelegation)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mustCreateRoom creates a VIRTUAL account marked as a room and returns
// its id.
func mustCreateRoom(t *testing.T, st *apitest.Stack, email string, room map[string]any) string {
	t.Helper()
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": email, "providerType": "VIRTUAL", "room": room}).Into(t, &acct)
	return acct.ID
}

// walkRooms pages through GET /v1/rooms with limit and returns the rooms
// and the number of pages, failing on a page over the limit or a walk
// longer than the rooms.
func walkRooms(t *testing.T, st *apitest.Stack, limit int) ([]unical.Room, int) {
	t.Helper()
	var rooms []unical.Room
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for pages := 1; pages <= 50; pages++ {
		var page struct {
			Data          []unical.Room `json:"data"`
			NextPageToken *string       `json:"nextPageToken"`
		}
		st.Must(t, "GET", "/v1/rooms?"+q.Encode(), nil).Into(t, &page)
		if len(page.Data) > limit {
			t.Fatalf("limit %d: a page of %d rooms", limit, len(page.Data))
		}
		rooms = append(rooms, page.Data...)
		if page.NextPageToken == nil {
			return rooms, pages
		}
		q.Set("pageToken", *page.NextPageToken)
	}
	t.Fatalf("limit %d: more than 50 pages", limit)
	return nil, 0
}

// TestRoomsE2E lists the room directory over HTTP: Google's calendar
// resources (as the credential's administrator), Graph's rooms and the
// VIRTUAL accounts marked as rooms, in email order, on pages of every
// size without a room twice; a failing directory is a 502 naming the
// provider, never a partial list; bad parameters are 400 naming them.
func TestRoomsE2E(t *testing.T) {
	t.Parallel()
	st := mustNewRoomStack(t)
	st.google.AddRoom(googletest.Room{Email: "c_188a1@resource.calendar.google.com", Name: "Hopper", Capacity: 10, BuildingID: "paris-hq", FloorName: "2"})
	st.google.AddRoom(googletest.Room{Email: "c_188a2@resource.calendar.google.com", Name: "Projector 1", Category: "OTHER"})
	st.google.AddRoom(googletest.Room{Email: "c_188a0@resource.calendar.google.com", Name: "Lovelace", Capacity: 6, BuildingID: "paris-hq", FloorName: "3"})
	st.graph.AddRoom(graphtest.Room{Email: "turing@corp.example.org", Name: "Turing", Capacity: 4, Building: "Redmond 1", FloorNumber: 3})
	st.graph.AddRoom(graphtest.Room{Email: "babbage@corp.example.org", Name: "Babbage", Capacity: 20, Building: "Redmond 1", FloorNumber: 1, FloorLabel: "Ground"})
	mustCreateRoom(t, st.Stack, "orion@rooms.example", map[string]any{"name": "Orion", "capacity": 12, "building": "Annex", "floor": "1"})
	mustCreateRoom(t, st.Stack, "andromeda@rooms.example", map[string]any{"name": "Andromeda"})
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "someone@rooms.example", "providerType": "VIRTUAL"})

	want := []unical.Room{
		{Email: "andromeda@rooms.example", Name: "Andromeda", ProviderType: unical.ProviderVirtual},
		{Email: "babbage@corp.example.org", Name: "Babbage", Capacity: 20, Building: "Redmond 1", Floor: "Ground", ProviderType: unical.ProviderMicrosoft},
		{Email: "c_188a0@resource.calendar.google.com", Name: "Lovelace", Capacity: 6, Building: "paris-hq", Floor: "3", ProviderType: unical.ProviderGoogle},
		{Email: "c_188a1@resource.calendar.google.com", Name: "Hopper", Capacity: 10, Building: "paris-hq", Floor: "2", ProviderType: unical.ProviderGoogle},
		{Email: "orion@rooms.example", Name: "Orion", Capacity: 12, Building: "Annex", Floor: "1", ProviderType: unical.ProviderVirtual},
		{Email: "turing@corp.example.org", Name: "Turing", Capacity: 4, Building: "Redmond 1", Floor: "3", ProviderType: unical.ProviderMicrosoft},
	}
	for limit := 1; limit <= len(want)+1; limit++ {
		got, pages := walkRooms(t, st.Stack, limit)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("limit %d: rooms (-want +got):\n%s", limit, d)
		}
		if wantPages := (len(want) + limit - 1) / limit; pages != wantPages {
			t.Errorf("limit %d: %d pages, want %d", limit, pages, wantPages)
		}
	}

	t.Run("GoogleWithoutAdmin", func(t *testing.T) {
		// Without an administrator Google's rooms are not listed, and the
		// credential says why.
		st.googleDelegation.AdminEmail = ""
		v := st.setGoogleDelegation(t)
		if !strings.Contains(v.RoomDirectory, "set adminEmail") {
			t.Errorf("roomDirectory = %q, want it to ask for adminEmail", v.RoomDirectory)
		}
		got, _ := walkRooms(t, st.Stack, 50)
		if d := cmp.Diff(slices.Concat(want[:2], want[4:]), got); d != "" {
			t.Errorf("rooms without adminEmail (-want +got):\n%s", d)
		}
		// A user who is not an administrator is refused by Google: the
		// listing fails rather than leave Google's rooms out.
		st.google.AddUser(googletest.User{Email: "ada@corp.example.com"})
		st.googleDelegation.AdminEmail = "ada@corp.example.com"
		st.setGoogleDelegation(t)
		r := st.Do(t, "GET", "/v1/rooms", nil)
		if e := r.Error(t); r.Status != http.StatusBadGateway || e.Code != "provider_error" || !strings.Contains(e.Message, "Google's room directory") {
			t.Errorf("non-administrator: %d %+v, want 502 provider_error naming Google's room directory", r.Status, e)
		}
		st.googleDelegation.AdminEmail = roomDomainAdmin
		st.setGoogleDelegation(t)
	})

	t.Run("GraphFails", func(t *testing.T) {
		// An application without Place.Read.All: 502 naming Graph's places.
		st.setGraphDelegation(t, roomDaemon+"-calendars")
		r := st.Do(t, "GET", "/v1/rooms?limit=1", nil)
		if e := r.Error(t); r.Status != http.StatusBadGateway || e.Code != "provider_error" || !strings.Contains(e.Message, "Microsoft Graph") {
			t.Errorf("without Place.Read.All: %d %+v, want 502 provider_error naming Microsoft Graph", r.Status, e)
		}
		if strings.Contains(string(r.Body), roomDaemonKey) {
			t.Errorf("the error holds the client secret: %s", r.Body)
		}
		st.setGraphDelegation(t, roomDaemon)
		if got, _ := walkRooms(t, st.Stack, 4); len(got) != len(want) {
			t.Errorf("with Place.Read.All again: %d rooms, want %d", len(got), len(want))
		}
	})

	t.Run("BadParameters", func(t *testing.T) {
		for _, tc := range []struct{ query, field string }{
			{"limit=0", "limit"},
			{"limit=251", "limit"},
			{"limit=ten", "limit"},
			{"pageToken=forged", "pageToken"},
			{"lmit=2", "lmit"},
			{"limit=2&limit=3", "limit"},
		} {
			r := st.Do(t, "GET", "/v1/rooms?"+tc.query, nil)
			if e := r.Error(t); r.Status != http.StatusBadRequest || e.Code != "invalid_request" || e.Field != tc.field {
				t.Errorf("?%s: %d %+v, want 400 invalid_request naming %s", tc.query, r.Status, e, tc.field)
			}
		}
	})

	t.Run("BadRoomDetails", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"no name", map[string]any{"email": "r@rooms.example", "providerType": "VIRTUAL", "room": map[string]any{"capacity": 3}}, "room.name"},
			{"blank name", map[string]any{"email": "r@rooms.example", "providerType": "VIRTUAL", "room": map[string]any{"name": "  "}}, "room.name"},
			{"negative capacity", map[string]any{"email": "r@rooms.example", "providerType": "VIRTUAL", "room": map[string]any{"name": "R", "capacity": -2}}, "room.capacity"},
			{"fractional capacity", map[string]any{"email": "r@rooms.example", "providerType": "VIRTUAL", "room": map[string]any{"name": "R", "capacity": 2.5}}, "room.capacity"},
			{"long building", map[string]any{"email": "r@rooms.example", "providerType": "VIRTUAL", "room": map[string]any{"name": "R", "building": strings.Repeat("b", 256)}}, "room.building"},
			{"unknown detail", map[string]any{"email": "r@rooms.example", "providerType": "VIRTUAL", "room": map[string]any{"name": "R", "seats": 3}}, "room.seats"},
			{"not an object", map[string]any{"email": "r@rooms.example", "providerType": "VIRTUAL", "room": "R"}, "room"},
			{"provider account", map[string]any{"email": davUser, "providerType": "PROVIDER_C", "password": "x", "room": map[string]any{"name": "R"}}, "room"},
		} {
			r := st.Do(t, "POST", "/v1/endUserAccounts", tc.body)
			if e := r.Error(t); r.Status != http.StatusBadRequest || e.Code != "invalid_request" || e.Field != tc.field {
				t.Errorf("%s: %d %+v, want 400 invalid_request naming %s", tc.name, r.Status, e, tc.field)
			}
		}
		var accts unical.Page[*unical.Account]
		st.Must(t, "GET", "/v1/endUserAccounts?search=r%40rooms.example", nil).Into(t, &accts)
		if len(accts.Data) != 0 {
			t.Errorf("a refused room was stored: %+v", accts.Data[0])
		}
	})
}

// TestRoomsE2E_Availability books rooms found in the directory: a group
// of three VIRTUAL rooms with required 1 offers the slot in which two are
// booked and names the free one, next to a required person.
func TestRoomsE2E_Availability(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	for _, name := range []string{"Andromeda", "Lyra", "Orion"} {
		mustCreateRoom(t, st, strings.ToLower(name)+"@rooms.example", map[string]any{"name": name, "capacity": 6})
	}
	var person unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "ada@people.example", "providerType": "VIRTUAL"}).Into(t, &person)

	// The rooms come from the directory; their accounts by their email.
	rooms, _ := walkRooms(t, st, 50)
	ids := map[string]string{}
	var participants []map[string]any
	participants = append(participants, map[string]any{"endUserAccountId": person.ID})
	for _, room := range rooms {
		var accts unical.Page[*unical.Account]
		st.Must(t, "GET", "/v1/endUserAccounts?"+url.Values{"search": {room.Email}}.Encode(), nil).Into(t, &accts)
		if len(accts.Data) != 1 {
			t.Fatalf("room %s: %d accounts", room.Email, len(accts.Data))
		}
		ids[room.Name] = accts.Data[0].ID
		participants = append(participants, map[string]any{"endUserAccountId": accts.Data[0].ID, "group": "rooms"})
	}
	if len(ids) != 3 {
		t.Fatalf("the directory lists %d rooms, want 3", len(ids))
	}
	for _, name := range []string{"Andromeda", "Orion"} {
		st.Must(t, "POST", "/v1/events/"+ids[name]+"/primary", map[string]any{
			"title": "Booked", "start": map[string]any{"dateTime": "2027-03-16T10:00:00Z"}, "end": map[string]any{"dateTime": "2027-03-16T11:00:00Z"},
		})
	}
	var got availability.Result
	st.Must(t, "POST", "/v1/availability", map[string]any{
		"participants": participants, "groups": []map[string]any{{"name": "rooms", "required": 1}},
		"startDateTime": "2027-03-16T10:00:00Z", "endDateTime": "2027-03-16T12:00:00Z", "durationMinutes": 60, "intervalMinutes": 60, "timeZone": "UTC",
	}).Into(t, &got)
	slots := offeredSlots(got)
	wantSlots := []offeredSlot{
		{"2027-03-16T10:00:00Z", []string{person.ID, ids["Lyra"]}},
		{"2027-03-16T11:00:00Z", []string{person.ID, ids["Andromeda"], ids["Lyra"], ids["Orion"]}},
	}
	if d := cmp.Diff(wantSlots, slots); d != "" {
		t.Errorf("slots (-want +got):\n%s", d)
	}
}

// offeredSlot is what the availability tests compare of a slot: its start
// and the participants it names.
type offeredSlot struct {
	Start        string
	Participants []string
}

// offeredSlots reads the slots of an availability answer.
func offeredSlots(got availability.Result) []offeredSlot {
	var slots []offeredSlot
	for _, s := range got.Data {
		slots = append(slots, offeredSlot{s.Start.DateTime, s.Participants})
	}
	return slots
}
