package unical

import (
	"context"
	"errors"
	"fmt"

	"github.com/unical/unical/keys"
)

// ErrWrongMasterKey is returned by [New] when Config.MasterKey does not open
// the data already in the Store: it is not the key the data was sealed
// with. Starting anyway would fail every account, token and webhook
// signature one by one, and seal new data under a second key.
var ErrWrongMasterKey = errors.New("unical: Config.MasterKey does not open the data in the Store; it is not the key the data was sealed with")

// checkMasterKey runs the master key check (keys.Check) over the Store;
// a Store from before the check is judged by its applications' secrets.
func (c *Client) checkMasterKey(ctx context.Context) error {
	notFound := func(err error) bool { return ErrorCode(err) == CodeNotFound }
	err := c.keys.Check(ctx, c.store, c.now(), notFound, func() ([]keys.SealedApp, error) {
		apps, err := c.store.ListApplications(ctx)
		if err != nil {
			return nil, fmt.Errorf("read the master key check: %w", err)
		}
		sealed := make([]keys.SealedApp, len(apps))
		for i, app := range apps {
			sealed[i] = keys.SealedApp{ID: app.ID, WebhookSecret: app.SealedWebhookSecret, ClientSecrets: map[string][]byte{}}
			for t, secret := range app.SealedSecrets {
				sealed[i].ClientSecrets[string(t)] = secret
			}
		}
		return sealed, nil
	})
	switch {
	case errors.Is(err, keys.ErrWrongKey):
		return ErrWrongMasterKey
	case err != nil:
		return fmt.Errorf("unical: %w", err)
	}
	return nil
}
