package apisuite

import (
	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/rooms"
)

// testRooms: VIRTUAL accounts marked as rooms make the room directory,
// in email order, page by page; a room is unmarked with null; the room
// details are checked and the other application sees none.
func testRooms(e *env) {
	t := e.t
	for _, p := range []*unical.AccountCreateParams{
		{Email: "orion@rooms.example", ProviderType: unical.ProviderVirtual, Room: unical.Some(unical.RoomDetails{Name: "Orion", Capacity: 12, Building: "HQ", Floor: "2"})},
		{Email: "andromeda@rooms.example", ProviderType: unical.ProviderVirtual, Room: unical.Some(unical.RoomDetails{Name: "Andromeda", Capacity: 4})},
		{Email: "lyra@rooms.example", ProviderType: unical.ProviderVirtual, Room: unical.Some(unical.RoomDetails{Name: "Lyra"})},
		{Email: "person@rooms.example", ProviderType: unical.ProviderVirtual},
	} {
		acct := must(e.api.CreateAccount(e.ctx, p))
		if d := cmp.Diff(p.Room.Value(), derefRoom(acct.Room)); d != "" {
			t.Errorf("CreateAccount(%s).Room (-want +got):\n%s", p.Email, d)
		}
	}
	// Connecting lyra again without room leaves it a room; null unmarks it.
	must(e.api.CreateAccount(e.ctx, &unical.AccountCreateParams{Email: "lyra@rooms.example", ProviderType: unical.ProviderVirtual}))
	want := []*unical.Room{
		{Email: "andromeda@rooms.example", Name: "Andromeda", Capacity: 4, ProviderType: unical.ProviderVirtual},
		{Email: "lyra@rooms.example", Name: "Lyra", ProviderType: unical.ProviderVirtual},
		{Email: "orion@rooms.example", Name: "Orion", Capacity: 12, Building: "HQ", Floor: "2", ProviderType: unical.ProviderVirtual},
	}
	for _, limit := range []int{1, 2, 3, 0} {
		if d := cmp.Diff(want, collect(t, rooms.All(e.ctx, e.api, &rooms.ListParams{Limit: limit}))); d != "" {
			t.Errorf("AllRooms(limit %d) (-want +got):\n%s", limit, d)
		}
	}
	first := must(e.api.ListRooms(e.ctx, &rooms.ListParams{Limit: 2}))
	if len(first.Data) != 2 || first.NextPageToken == nil {
		t.Fatalf("ListRooms(limit 2) = %d rooms, next %v; want 2 and a next page", len(first.Data), first.NextPageToken)
	}
	must(e.api.CreateAccount(e.ctx, &unical.AccountCreateParams{Email: "lyra@rooms.example", ProviderType: unical.ProviderVirtual, Room: unical.Null[unical.RoomDetails]()}))
	if d := cmp.Diff([]*unical.Room{want[0], want[2]}, collect(t, rooms.All(e.ctx, e.api, nil))); d != "" {
		t.Errorf("AllRooms after unmarking lyra (-want +got):\n%s", d)
	}

	for _, tc := range []struct {
		name   string
		params *unical.AccountCreateParams
		field  string
	}{
		{"no name", &unical.AccountCreateParams{Email: "r1@rooms.example", ProviderType: unical.ProviderVirtual, Room: unical.Some(unical.RoomDetails{Capacity: 3})}, "room.name"},
		{"negative capacity", &unical.AccountCreateParams{Email: "r1@rooms.example", ProviderType: unical.ProviderVirtual, Room: unical.Some(unical.RoomDetails{Name: "R1", Capacity: -1})}, "room.capacity"},
		{"long floor", &unical.AccountCreateParams{Email: "r1@rooms.example", ProviderType: unical.ProviderVirtual, Room: unical.Some(unical.RoomDetails{Name: "R1", Floor: string(make([]byte, 256))})}, "room.floor"},
		{"not VIRTUAL", &unical.AccountCreateParams{Email: davUser, ProviderType: unical.ProviderCalDAV, Password: unical.Some(davPassword), Room: unical.Some(unical.RoomDetails{Name: "R1"})}, "room"},
	} {
		_, err := e.api.CreateAccount(e.ctx, tc.params)
		wantError(t, "CreateAccount "+tc.name, err, &unical.Error{Code: unical.CodeInvalid, Field: tc.field})
	}
	if accts := collect(t, unical.AllAccounts(e.ctx, e.api, &unical.AccountListParams{Search: "r1@"})); len(accts) != 0 {
		t.Errorf("refused accounts were stored: %d", len(accts))
	}
	_, err := e.api.ListRooms(e.ctx, &rooms.ListParams{Limit: unical.MaxPageSize + 1})
	wantError(t, "ListRooms(limit too large)", err, &unical.Error{Code: unical.CodeInvalid, Field: "limit"})
	_, err = e.api.ListRooms(e.ctx, &rooms.ListParams{PageToken: "not-a-token"})
	wantError(t, "ListRooms(bad token)", err, &unical.Error{Code: unical.CodeInvalid, Field: "pageToken"})
	// A token of another application does not open.
	_, err = e.other.ListRooms(e.ctx, &rooms.ListParams{PageToken: *first.NextPageToken})
	wantError(t, "ListRooms(other application's token)", err, &unical.Error{Code: unical.CodeInvalid, Field: "pageToken"})
	if others := collect(t, rooms.All(e.ctx, e.other, nil)); len(others) != 0 {
		t.Errorf("the other application lists %d rooms", len(others))
	}
}

func derefRoom(r *unical.RoomDetails) unical.RoomDetails {
	if r == nil {
		return unical.RoomDetails{}
	}
	return *r
}
