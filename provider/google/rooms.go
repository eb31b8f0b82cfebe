package google

import (
	"context"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
)

var _ unical.RoomLister = (*Provider)(nil)

// ListRooms lists the Workspace's rooms (calendar resources) with the
// Admin SDK Directory API, as the credential's administrator
// (AdminEmail): Google answers only administrators, so a credential
// without one lists none, and its view in the admin API says so.
func (p *Provider) ListRooms(ctx context.Context, g *unical.DelegationGrant) ([]unical.Room, error) {
	if g.Credential.AdminEmail == "" {
		return nil, nil
	}
	return delegation.GoogleRooms(ctx, p.minter, g)
}
