package unical

import (
	"context"
	"strings"
)

// Room is a meeting room of the application's room directory
// (GET /v1/rooms, our extension, which package rooms lists). Its email is
// a calendar that can be connected as an account and invited as a
// participant.
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

// RoomLister returns the provider of type t as a [RoomLister], for the
// room directory (package rooms), found through the provider's wrappers;
// lister is nil when the provider has no directory, and configured is
// false when this Client has no provider of type t at all.
func (c *Client) RoomLister(t ProviderType) (lister RoomLister, configured bool) {
	p, ok := c.providers[t]
	if !ok {
		return nil, false
	}
	lister, _ = faceOf[RoomLister](p)
	return lister, true
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
