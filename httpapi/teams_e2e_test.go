package httpapi_test

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// TestTeamsE2E is issue 25's end to end: a Google Workspace domain and a
// Microsoft 365 tenant, each connected by a delegation credential; one
// user of each connected without a browser, an event written in each,
// and availability finding a slot across both users and one room of a
// group of rooms taken from GET /v1/rooms.
func TestTeamsE2E(t *testing.T) {
	t.Parallel()
	st := mustNewRoomStack(t)
	st.google.AddUser(googletest.User{Email: "ada@corp.example.com", Name: "Ada"})
	st.graph.AddUser(graphtest.User{DisplayName: "Grace", UserPrincipalName: "grace@corp.example.org"})
	// Two rooms of the tenant, each a room mailbox, and one VIRTUAL room.
	for _, r := range []graphtest.Room{
		{Email: "babbage@corp.example.org", Name: "Babbage", Capacity: 8, Building: "B1", FloorLabel: "1"},
		{Email: "turing@corp.example.org", Name: "Turing", Capacity: 4, Building: "B1", FloorLabel: "2"},
	} {
		st.graph.AddRoom(r)
		st.graph.AddUser(graphtest.User{DisplayName: r.Name, UserPrincipalName: r.Email})
	}
	mustCreateRoom(t, st.Stack, "orion@rooms.example", map[string]any{"name": "Orion", "capacity": 12})

	connect := func(providerType, email string) string {
		t.Helper()
		var acct unical.Account
		st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"providerType": providerType, "email": email}).Into(t, &acct)
		if !acct.Delegated || acct.Status != unical.AccountStatusActive {
			t.Errorf("%s: delegated %v, status %s; want a delegated ACTIVE account", email, acct.Delegated, acct.Status)
		}
		return acct.ID
	}
	ada := connect("PROVIDER_A", "ada@corp.example.com")
	grace := connect("PROVIDER_B", "grace@corp.example.org")
	// A user outside the domains is refused, naming email.
	r := st.Do(t, "POST", "/v1/endUserAccounts", map[string]any{"providerType": "PROVIDER_A", "email": "eve@elsewhere.example"})
	if e := r.Error(t); r.Status != 400 || e.Field != "email" {
		t.Errorf("outside the domain: %d %+v, want 400 naming email", r.Status, e)
	}

	// The rooms from the directory: the tenant's are connected through
	// the credential, the VIRTUAL one is its account.
	rooms, _ := walkRooms(t, st.Stack, 2)
	ids := map[string]string{}
	for _, room := range rooms {
		switch room.ProviderType {
		case unical.ProviderMicrosoft:
			ids[room.Name] = connect("PROVIDER_B", room.Email)
		case unical.ProviderVirtual:
			ids[room.Name] = mustCreateRoom(t, st.Stack, room.Email, map[string]any{"name": room.Name, "capacity": room.Capacity})
		}
	}
	if len(ids) != 3 {
		t.Fatalf("rooms from the directory: %v", ids)
	}
	event := func(accountID, start, end string) {
		t.Helper()
		var cals unical.SyncPage[*unical.Calendar]
		st.Must(t, "GET", "/v1/calendars/"+accountID, nil).Into(t, &cals)
		primary := ""
		for _, c := range cals.Data {
			if c.IsPrimary {
				primary = c.ID
			}
		}
		st.Must(t, "POST", "/v1/events/"+accountID+"/"+url.PathEscape(primary), map[string]any{
			"title": "Busy", "start": map[string]any{"dateTime": start}, "end": map[string]any{"dateTime": end},
		})
	}
	// Ada is busy 9-10, Grace 10-11; Babbage and Orion are booked 11-12.
	event(ada, "2027-03-16T09:00:00Z", "2027-03-16T10:00:00Z")
	event(grace, "2027-03-16T10:00:00Z", "2027-03-16T11:00:00Z")
	event(ids["Babbage"], "2027-03-16T11:00:00Z", "2027-03-16T12:00:00Z")
	event(ids["Orion"], "2027-03-16T11:00:00Z", "2027-03-16T12:00:00Z")

	participants := []map[string]any{{"endUserAccountId": ada}, {"endUserAccountId": grace}}
	for _, name := range []string{"Babbage", "Orion", "Turing"} {
		participants = append(participants, map[string]any{"endUserAccountId": ids[name], "group": "rooms"})
	}
	var got availability.Result
	st.Must(t, "POST", "/v1/availability", map[string]any{
		"participants": participants, "groups": []map[string]any{{"name": "rooms", "required": 1}},
		"startDateTime": "2027-03-16T09:00:00Z", "endDateTime": "2027-03-16T12:00:00Z", "durationMinutes": 60, "intervalMinutes": 60, "timeZone": "UTC",
	}).Into(t, &got)
	slots := offeredSlots(got)
	want := []offeredSlot{{"2027-03-16T11:00:00Z", []string{ada, grace, ids["Turing"]}}}
	if d := cmp.Diff(want, slots); d != "" {
		t.Errorf("slots (-want +got):\n%s", d)
	}
}
