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
// schedule while [Retryable] says so. A grant that
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

// Retryable reports whether a RevokeGrant failure is worth another try
// later, through the outbox.
func Retryable(err error) bool {
	code := unical.ErrorCode(err)
	return code == unical.CodeUnavailable || code == unical.CodeRateLimited
}

// RevokeOrQueue is a unical.Config.Revoker, the one unicald sets: it
// tries r's revocation of a deleted account's grant once and, when the
// failure is [Retryable], queues the grant in the outbox, sealed and
// bound to its message, for the engine to retry at once and then on the
// webhook retry schedule ([Revoke]).
func RevokeOrQueue(ctx context.Context, c *unical.Client, t unical.ProviderType, r unical.GrantRevoker, s *unical.Session) {
	err := r.RevokeGrant(ctx, s)
	if err == nil {
		return
	}
	cfg := c.Config()
	cfg.Logger.WarnContext(ctx, "revoke grant of deleted account", "account", s.AccountID, "provider", t, "err", err)
	if !Retryable(err) {
		return
	}
	ctx = context.WithoutCancel(ctx)
	now := cfg.Now()
	msg := &outbox.Message{ID: unical.NewID("msg"), ApplicationID: s.ApplicationID, EventType: revocation.EventType, CreatedAt: now, Status: outbox.Pending, NextAttemptAt: now}
	msg.Payload = revocation.Seal(c.Keys().RevocationSealer(), msg.ApplicationID, msg.ID, revocation.Grant{
		ProviderType: string(t), AccountID: s.AccountID, AccessToken: s.Token.AccessToken, RefreshToken: s.Token.RefreshToken,
	})
	if err := c.Store().EnqueueMessages(ctx, []*outbox.Message{msg}); err != nil {
		cfg.Logger.ErrorContext(ctx, "queue the revocation of a deleted account's grant", "account", s.AccountID, "err", err)
		return
	}
	cfg.Outbox.Notify()
}
