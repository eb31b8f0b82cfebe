package engine

import (
	"context"

	"github.com/unical/unical"
	"github.com/unical/unical/grants"
	"github.com/unical/unical/outbox"
)

// revoke makes one try at a revocation queued in the outbox when its
// account was deleted (internal/revocation). It is the server's own work,
// not a webhook: nothing is sent to an endpoint and no attempt enters the
// delivery log; the message is only written back, done, due again on the
// retry schedule, or failed once the schedule is spent or a retry cannot
// help. The log names the message, never a token.
func (w *worker) revoke(ctx context.Context, msg *outbox.Message) {
	e := w.e
	err := e.c.RevokeGrant(ctx, msg)
	if err != nil && ctx.Err() != nil {
		// Stopping: give the message back for the next engine, no try counted.
		msg.NextAttemptAt = e.now()
		w.update(msg)
		return
	}
	msg.Attempts++
	switch {
	case err == nil:
		msg.Status, msg.LastError = outbox.Delivered, ""
	case grants.Retryable(err):
		msg.LastError = unical.ErrorMessage(err)
		if d, ok := e.backoff.Next(msg.Attempts); ok {
			msg.NextAttemptAt = e.now().Add(d)
			e.log.WarnContext(ctx, "revoke the grant of a deleted account; will retry", "message", msg.ID, "attempts", msg.Attempts, "err", err)
			break
		}
		msg.Status = outbox.Failed
		e.log.ErrorContext(ctx, "revoke the grant of a deleted account: retries spent, giving up", "message", msg.ID, "attempts", msg.Attempts, "err", err)
	default:
		msg.Status, msg.LastError = outbox.Failed, unical.ErrorMessage(err)
		e.log.ErrorContext(ctx, "revoke the grant of a deleted account: giving up", "message", msg.ID, "attempts", msg.Attempts, "err", err)
	}
	w.update(msg)
}
