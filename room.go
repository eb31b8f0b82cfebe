package unical

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// Room is a meeting room of the application's room directory
// (GET /v1/rooms, our extension). Its email is a calendar that can be
// connected as an account and invited as a participant.
type Room struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	// Capacity is how many people the room seats; 0 when the directory
	// does not say.
	Capacity int    `json:"capacity"`
	Building string `json:"building"`
	Floor    string `json:"floor"`
	// ProviderType is the directory the room comes from: PROVIDER_A
	// (Google's Admin Directory), PROVIDER_B (Graph places) or VIRTUAL (an
	// account marked as a room).
	ProviderType ProviderType `json:"providerType"`
}

// RoomDetails mark a VIRTUAL account as a room of the directory
// ([Account.Room]); Name is required.
type RoomDetails struct {
	Name     string `json:"name"`
	Capacity int    `json:"capacity"`
	Building string `json:"building"`
	Floor    string `json:"floor"`
}

// RoomListParams page GET /v1/rooms.
type RoomListParams struct {
	// PageToken continues a previous listing.
	PageToken string
	// Limit is the page size: default DefaultPageSize, at most MaxPageSize.
	Limit int
}

// MaxRooms bounds the rooms read from one directory for one listing.
const MaxRooms = 5000

// RoomLister is a Provider that lists the rooms of an organisation with
// an application's delegation credential. It is safe for concurrent use
// and has no side effects. It returns at most MaxRooms rooms, any order,
// and CodeUpstream, CodeRateLimited or CodeUnavailable, with a message
// naming the provider, when the directory fails.
type RoomLister interface {
	ListRooms(ctx context.Context, g *DelegationGrant) ([]Room, error)
}

// ListRooms lists the application's room directory, ordered by email:
// the rooms of each delegation credential's organisation whose provider
// has a directory ([RoomLister]), and the VIRTUAL accounts marked as
// rooms. Every page reads the directories again; the page token resumes
// after the last room's email, so a walk never repeats a room.
//
// HTTP: GET /v1/rooms
//
// Returns CodeInvalid for a bad limit or pageToken, and the directory's
// CodeUpstream or CodeUnavailable when one fails: a partial directory
// is never answered.
func (a *App) ListRooms(ctx context.Context, params *RoomListParams) (*Page[*Room], error) {
	if params == nil {
		params = &RoomListParams{}
	}
	l := storeListing{kind: "rooms", pageToken: params.PageToken, limit: params.Limit}
	return listPage(ctx, a, l, func(after string, limit int) ([]Room, error) {
		rooms, err := a.directory(ctx)
		if err != nil {
			return nil, err
		}
		i, found := slices.BinarySearchFunc(rooms, after, func(r Room, key string) int { return strings.Compare(roomKey(r), key) })
		if found {
			i++
		}
		return rooms[i:min(i+limit, len(rooms))], nil
	}, roomKey, func(r Room) *Room { return &r })
}

// roomKey orders the directory: by email, then by provider type for an
// address two directories share.
func roomKey(r Room) string { return strings.ToLower(r.Email) + "\x00" + string(r.ProviderType) }

// directory reads every room of the application, in roomKey order.
func (a *App) directory(ctx context.Context) ([]Room, error) {
	app, err := a.c.application(ctx, a.id)
	if err != nil {
		return nil, err
	}
	rooms := []Room{}
	for _, t := range ProviderTypes {
		d, ok := app.Delegations[t]
		if !ok {
			continue
		}
		p, ok := a.c.providers[t]
		if !ok {
			return nil, Errorf(CodeNotImplemented, "This server has no %s provider, so the rooms of the application's %s delegation credential cannot be listed.", t, t.PathName())
		}
		lister, ok := faceOf[RoomLister](p)
		if !ok {
			continue
		}
		secret, err := a.c.OpenDelegation(app, t, d.Sealed)
		if err != nil {
			return nil, err
		}
		found, err := lister.ListRooms(ctx, &DelegationGrant{Credential: d, Secret: secret})
		if err != nil {
			return nil, err
		}
		for _, r := range found[:min(len(found), MaxRooms)] {
			r.ProviderType = t
			rooms = append(rooms, r)
		}
	}
	for after, n := "", 0; n < MaxRooms; {
		recs, err := a.c.store.ListAccounts(ctx, a.id, AccountFilter{ProviderType: ProviderVirtual, After: after, Limit: 500})
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			if r := rec.Room; r != nil && n < MaxRooms {
				rooms = append(rooms, Room{Email: rec.Email, Name: r.Name, Capacity: r.Capacity, Building: r.Building, Floor: r.Floor, ProviderType: ProviderVirtual})
				n++
			}
		}
		if len(recs) < 500 {
			break
		}
		after = recs[len(recs)-1].ID
	}
	slices.SortFunc(rooms, func(x, y Room) int { return cmp.Compare(roomKey(x), roomKey(y)) })
	return slices.CompactFunc(rooms, func(x, y Room) bool { return roomKey(x) == roomKey(y) }), nil
}

// validate checks the room details of a VIRTUAL account.
func (r *RoomDetails) validate() error {
	switch {
	case strings.TrimSpace(r.Name) == "" || len(r.Name) > 255:
		return invalidf("room.name", "room.name is required and may be at most 255 characters long.")
	case r.Capacity < 0 || r.Capacity > 100000:
		return invalidf("room.capacity", "room.capacity must be between 0 (not known) and 100000.")
	case len(r.Building) > 255:
		return invalidf("room.building", "room.building may be at most 255 characters long.")
	case len(r.Floor) > 255:
		return invalidf("room.floor", "room.floor may be at most 255 characters long.")
	}
	return nil
}

// optionalPtr returns o's value, or nil when o is absent or null.
func optionalPtr[T any](o Optional[T]) *T {
	if v, ok := o.Get(); ok {
		return &v
	}
	return nil
}
