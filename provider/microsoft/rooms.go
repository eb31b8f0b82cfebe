package microsoft

import (
	"context"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
)

var _ unical.RoomLister = (*Provider)(nil)

// ListRooms lists the tenant's rooms with Graph's places API and the
// credential's app-only token (application permission Place.Read.All).
func (p *Provider) ListRooms(ctx context.Context, g *unical.DelegationGrant) ([]unical.Room, error) {
	return delegation.GraphRooms(ctx, p.minter, g)
}
