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

// keyCheckText is the known value of the key check, a reserved blob
// (internal/reserved) sealed with the master key.
const keyCheckText = "unical master key check v1"

// checkMasterKey opens the key check in the Store with key, or writes one
// when there is none. A Store from before the check existed is judged by
// the first sealed application secret found in it instead, so that a
// wrong key is caught there too before the check is written with it.
func (c *Client) checkMasterKey(ctx context.Context, key seal.Key) error {
	s := seal.New(key.Derive("key-check"))
	ad := []byte(reserved.KeyCheck)
	sealed, err := c.store.GetBlob(ctx, reserved.App, reserved.KeyCheck, c.now())
	switch {
	case err == nil:
		if b, err := s.Open(sealed, ad); err != nil || string(b) != keyCheckText {
			return ErrWrongMasterKey
		}
		return nil
	case ErrorCode(err) != CodeNotFound:
		return fmt.Errorf("unical: read the master key check: %w", err)
	}
	apps, err := c.store.ListApplications(ctx)
	if err != nil {
		return fmt.Errorf("unical: read the master key check: %w", err)
	}
	for _, app := range apps {
		opened, err := c.openAppSecrets(app)
		if err != nil {
			return ErrWrongMasterKey
		}
		if opened {
			break
		}
	}
	if err := c.store.PutBlob(ctx, reserved.App, reserved.KeyCheck, s.Seal([]byte(keyCheckText), ad), reserved.Never); err != nil {
		return fmt.Errorf("unical: write the master key check: %w", err)
	}
	return nil
}

// openAppSecrets opens an application's sealed secrets, and reports
// whether it had any.
func (c *Client) openAppSecrets(app *Application) (bool, error) {
	opened := false
	if app.SealedWebhookSecret != nil {
		if _, err := c.credentials.Open(app.SealedWebhookSecret, []byte("webhook-secret/"+app.ID)); err != nil {
			return false, err
		}
		opened = true
	}
	for t := range app.SealedSecrets {
		if _, err := c.providerSettings(app, t); err != nil {
			return false, err
		}
		opened = true
	}
	return opened, nil
}
