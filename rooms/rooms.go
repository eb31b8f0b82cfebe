// Package rooms is the room directory of an application (GET /v1/rooms,
// our extension of the API): the rooms of each organisation the
// application holds a delegation credential for, from the provider's
// directory ([unical.RoomLister]: Google's Admin Directory, Graph's
// places), merged with the VIRTUAL accounts marked as rooms. It is a team
// feature built on the Client, not calendar semantics, so it lives beside
// the root like package availability; httpapi serves it and package
// httpclient lists it over HTTP with the same [Lister] method.
package rooms

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"strings"

	"github.com/unical/unical"
)

// ListParams page GET /v1/rooms.
type ListParams struct {
	// PageToken continues a previous listing.
	PageToken string
	// Limit is the page size: default unical.DefaultPageSize, at most
	// unical.MaxPageSize.
	Limit int
}

// Lister lists an application's room directory one page at a time: the
// in-process [Directory] and the HTTP client of package httpclient.
type Lister interface {
	ListRooms(ctx context.Context, params *ListParams) (*unical.Page[*unical.Room], error)
}

// All walks the room directory of l.
func All(ctx context.Context, l Lister, params *ListParams) iter.Seq2[*unical.Room, error] {
	p := ListParams{}
	if params != nil {
		p = *params
	}
	return unical.All(ctx, func(ctx context.Context, token string) (*unical.Page[*unical.Room], error) {
		if token != "" {
			p.PageToken = token
		}
		return l.ListRooms(ctx, &p)
	})
}

// Directory is the room directory of one application, read in process
// through the Client that serves it.
type Directory struct {
	c   *unical.Client
	app *unical.App
}

var _ Lister = (*Directory)(nil)

// New returns the room directory of app, whose Client is c.
func New(c *unical.Client, app *unical.App) *Directory { return &Directory{c: c, app: app} }

// ListRooms lists the application's room directory, ordered by email:
// the rooms of each delegation credential's organisation whose provider
// has a directory ([unical.RoomLister]), and the VIRTUAL accounts marked
// as rooms. Every page reads the directories again; the page token
// resumes after the last room's email, so a walk never repeats a room.
//
// HTTP: GET /v1/rooms
//
// Returns CodeInvalid for a bad limit or pageToken, and the directory's
// CodeUpstream or CodeUnavailable when one fails: a partial directory
// is never answered.
func (d *Directory) ListRooms(ctx context.Context, params *ListParams) (*unical.Page[*unical.Room], error) {
	if params == nil {
		params = &ListParams{}
	}
	return unical.ListStorePage(ctx, d.app, "rooms", "", params.PageToken, params.Limit, func(after string, limit int) ([]unical.Room, error) {
		rooms, err := d.read(ctx)
		if err != nil {
			return nil, err
		}
		i, found := slices.BinarySearchFunc(rooms, after, func(r unical.Room, key string) int { return strings.Compare(roomKey(r), key) })
		if found {
			i++
		}
		return rooms[i:min(i+limit, len(rooms))], nil
	}, roomKey, func(r unical.Room) *unical.Room { return &r })
}

// roomKey orders the directory: by email, then by provider type for an
// address two directories share.
func roomKey(r unical.Room) string {
	return strings.ToLower(r.Email) + "\x00" + string(r.ProviderType)
}

// virtualPage is how many VIRTUAL accounts one Store read returns.
const virtualPage = 500

// read reads every room of the application, in roomKey order.
func (d *Directory) read(ctx context.Context) ([]unical.Room, error) {
	app, err := d.c.Application(ctx, d.app.ID())
	if err != nil {
		return nil, err
	}
	rooms := []unical.Room{}
	for _, t := range unical.ProviderTypes {
		cred, ok := app.Delegations[t]
		if !ok {
			continue
		}
		lister, configured := d.c.RoomLister(t)
		if !configured {
			return nil, unical.Errorf(unical.CodeNotImplemented, "This server has no %s provider, so the rooms of the application's %s delegation credential cannot be listed.", t, t.PathName())
		}
		if lister == nil {
			continue
		}
		secret, err := d.c.Keys().OpenDelegation(app.ID, string(t), cred.Sealed)
		if err != nil {
			return nil, err
		}
		found, err := lister.ListRooms(ctx, &unical.DelegationGrant{Credential: cred, Secret: secret})
		if err != nil {
			return nil, err
		}
		for _, r := range found[:min(len(found), unical.MaxRooms)] {
			r.ProviderType = t
			rooms = append(rooms, r)
		}
	}
	for after, n := "", 0; n < unical.MaxRooms; {
		recs, err := d.c.Store().ListAccounts(ctx, app.ID, unical.AccountFilter{ProviderType: unical.ProviderVirtual, After: after, Limit: virtualPage})
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			if r := rec.Room; r != nil && n < unical.MaxRooms {
				rooms = append(rooms, unical.Room{Email: rec.Email, Name: r.Name, Capacity: r.Capacity, Building: r.Building, Floor: r.Floor, ProviderType: unical.ProviderVirtual})
				n++
			}
		}
		if len(recs) < virtualPage {
			break
		}
		after = recs[len(recs)-1].ID
	}
	slices.SortFunc(rooms, func(x, y unical.Room) int { return cmp.Compare(roomKey(x), roomKey(y)) })
	return slices.CompactFunc(rooms, func(x, y unical.Room) bool { return roomKey(x) == roomKey(y) }), nil
}
