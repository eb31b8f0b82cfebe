package grants

import (
	"context"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/revocation"
	"github.com/unical/unical/outbox"
)

// Revoke makes one more try at a revocation that failed when its account
// was deleted and was queued in the outbox (see [unical.App.DeleteAccount]):
// it opens the sealed grant, reads the application's settings for the
// provider type now (so that a revocation URL corrected meanwhile
// applies) and calls the provider's revocation. The engine calls it for
// each due message of that kind, and retries it on the webhook retry
// schedule while [unical.RevocationRetryable] says so. A grant that
// cannot be opened, an application or provider type that is gone, or a
// provider without revocation is an error that retrying cannot help.
func Revoke(ctx context.Context, c *unical.Client, msg *outbox.Message) error {
	g, err := revocation.Open(c.Keys().RevocationSealer(), msg.ApplicationID, msg.ID, msg.Payload)
	if err != nil {
		return unical.WrapError(unical.CodeInternal, err, "The queued revocation cannot be opened with the server's master key.")
	}
	app, err := c.Application(ctx, msg.ApplicationID)
	if err != nil {
		return err
	}
	t := unical.ProviderType(g.ProviderType)
	settings, err := c.ProviderSettings(app, t)
	if err != nil {
		return err
	}
	p, err := c.Provider(t)
	if err != nil {
		return err
	}
	r, ok := unical.RevokerOf(p)
	if !ok {
		return unical.Errorf(unical.CodeNotImplemented, "Provider type %s revokes no grants.", t)
	}
	return r.RevokeGrant(ctx, &unical.Session{
		AccountID: g.AccountID, ApplicationID: msg.ApplicationID, Settings: settings,
		Token: unical.Token{AccessToken: g.AccessToken, RefreshToken: g.RefreshToken},
	})
}
