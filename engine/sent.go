package engine

import (
	"context"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// SentHeaders returns the headers the engine sent with an attempt of msg
// made at at (whole seconds count): webhook-id, webhook-timestamp,
// webhook-signature and Content-Type; the Sender adds its
// User-Agent. The signature is computed again over msg's kept body with
// the endpoint's current secret, so it is the one sent unless the secret
// was rotated since. It is for showing a delivery to the operator (the
// dashboard's payload viewer) and never returns the secret.
//
// Returns CodeNotFound when msg's subscription or application is gone;
// another error when the endpoint has no secret now or it cannot be
// opened.
func SentHeaders(ctx context.Context, c *unical.Client, msg *outbox.Message, at time.Time) (map[string][]string, error) {
	e, err := New(Config{Client: ClientOf(c), Store: c.Store(), Outbox: c.Config().Outbox})
	if err != nil {
		return nil, err
	}
	tgt, err := e.target(ctx, msg)
	if err != nil {
		return nil, err
	}
	return tgt.signer.Headers(msg.ID, at, msg.Payload), nil
}
