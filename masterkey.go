package unical

import (
	"context"
	"errors"
	"fmt"

	"github.com/unical/unical/internal/reserved"
	"github.com/unical/unical/internal/seal"
)

// ErrWrongMasterKey is returned by [New] when Config.MasterKey does not open
// the data already in the Store: it is not the key the data was sealed
// with. Starting anyway would fail every account, token and webhook
// signature one by one, and seal new data under a second key.
var ErrWrongMasterKey = errors.New("unical: Config.MasterKey does not open the data in the Store; it is not the key the data was sealed with")

// checkMasterKey runs the master key check of internal/reserved over the
// Store; a Store from before the check is judged by the first sealed
// application secret found in it.
func (c *Client) checkMasterKey(ctx context.Context, key seal.Key) error {
	notFound := func(err error) bool { return ErrorCode(err) == CodeNotFound }
	err := reserved.CheckMasterKey(ctx, c.store, key, c.now(), notFound, func() error {
		apps, err := c.store.ListApplications(ctx)
		if err != nil {
			return fmt.Errorf("read the master key check: %w", err)
		}
		for _, app := range apps {
			opened, err := c.openAppSecrets(app)
			if err != nil {
				return reserved.ErrWrongKey
			}
			if opened {
				break
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, reserved.ErrWrongKey):
		return ErrWrongMasterKey
	case err != nil:
		return fmt.Errorf("unical: %w", err)
	}
	return nil
}

// openAppSecrets opens an application's sealed secrets, and reports
// whether it had any.
func (c *Client) openAppSecrets(app *Application) (bool, error) {
	opened := false
	if app.SealedWebhookSecret != nil {
		if _, err := c.credentials.Open(app.SealedWebhookSecret, seal.WebhookSecretBinding(app.ID)); err != nil {
			return false, err
		}
		opened = true
	}
	for t := range app.SealedSecrets {
		if _, err := c.ProviderSettings(app, t); err != nil {
			return false, err
		}
		opened = true
	}
	return opened, nil
}
