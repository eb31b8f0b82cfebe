package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/revocation"
	"github.com/unical/unical/internal/webhook"
	"github.com/unical/unical/outbox"
)

// This file is one delivery attempt: a claimed message is signed and sent
// to its endpoint within the rate limit, and the outcome decides its
// retry, its failure and the endpoint's state.

// deliver makes one attempt at a claimed message and writes the outcome.
func (w *worker) deliver(ctx context.Context, msg *outbox.Message) {
	e := w.e
	if revocation.IsInternal(msg.EventType) {
		w.revoke(ctx, msg)
		return
	}
	tgt, err := e.target(ctx, msg)
	switch {
	case unical.ErrorCode(err) == unical.CodeNotFound && msg.SubscriptionID == "":
		// The application was deleted; its own messages stay in the
		// Store, so this one fails for good rather than coming back.
		msg.Status, msg.LastError = outbox.Failed, "The application no longer exists."
		w.record(msg, &outbox.Attempt{At: e.now().UTC(), Error: msg.LastError})
		e.obs.DeliveryAttempt(DeliverySkipped, 0)
		return
	case unical.ErrorCode(err) == unical.CodeNotFound:
		// The subscription is gone; the Store deleted its pending
		// messages with it, this one included.
		return
	case errors.Is(err, errNoWebhookTarget):
		msg.Status, msg.LastError = outbox.Failed, "The application has no webhook URL."
		w.record(msg, &outbox.Attempt{At: e.now().UTC(), Error: msg.LastError})
		e.obs.DeliveryAttempt(DeliverySkipped, 0)
		return
	case errors.Is(err, errSealedSecret):
		e.log.ErrorContext(ctx, "webhook signing secret cannot be unsealed", "message", msg.ID, "err", err)
		msg.Status = outbox.Failed
		msg.LastError = "Not sent: the endpoint's signing secret cannot be unsealed with the server's master key (it was sealed with another key, or damaged). Recreate the subscription (for the application's own endpoint: remove its webhook URL and set it again) to get a new secret."
		w.record(msg, &outbox.Attempt{At: e.now().UTC(), Error: msg.LastError})
		return
	case err != nil && ctx.Err() != nil:
		// Stopping: give the message back for the next engine.
		w.update(msg)
		return
	case err != nil:
		e.log.ErrorContext(ctx, "resolve webhook target", "message", msg.ID, "err", err)
		return // the lease expires and another attempt resolves it again
	case tgt.state.DisabledAt != nil:
		// Logged as an attempt without a request, so that the delivery
		// log shows why nothing arrives.
		msg.Status, msg.LastError = outbox.Failed, "Not sent: the endpoint is disabled. "+tgt.state.DisabledReason
		w.record(msg, &outbox.Attempt{At: e.now().UTC(), Error: msg.LastError})
		e.obs.DeliveryAttempt(DeliverySkipped, 0)
		return
	}
	if tgt.rate > 0 {
		at, booked, err := w.bookSend(ctx, msg, tgt.rate)
		switch {
		case unical.ErrorCode(err) == unical.CodeNotFound:
			return // deleted meanwhile, with its messages
		case err != nil:
			// The slot cannot be booked, so the send cannot be paced:
			// put the message back for a later try rather than exceed
			// the limit.
			e.log.ErrorContext(ctx, "book webhook send slot", "message", msg.ID, "err", err)
			msg.NextAttemptAt = e.now().Add(time.Second)
			w.update(msg)
			return
		case !booked:
			// Too long to hold the lease: put the message back, due
			// when the subscription's next slot comes.
			msg.NextAttemptAt = at
			w.update(msg)
			return
		}
		if wait := at.Sub(e.now()); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				msg.NextAttemptAt = e.now()
				w.update(msg)
				return
			case <-t.C:
			}
		}
	}
	start := e.now()
	header := tgt.signer.Headers(msg.ID, start, msg.Payload)
	sctx, cancel := context.WithTimeout(ctx, e.timeout)
	resp, err := e.sender.Send(sctx, tgt.url, header, msg.Payload)
	cancel()
	status := resp.StatusCode
	latency := e.now().Sub(start)
	if err != nil && ctx.Err() != nil {
		// Stopping mid-send says nothing about the receiver: give the
		// message back without counting the attempt.
		msg.NextAttemptAt = e.now()
		w.update(msg)
		return
	}
	attempt := &outbox.Attempt{At: start.UTC(), StatusCode: status, Latency: latency}
	msg.Attempts++
	delivered := err == nil && status >= 200 && status < 300
	switch {
	case delivered:
		msg.Status, msg.LastError = outbox.Delivered, ""
		w.noteOutcome(ctx, msg, tgt, attempt)
	default:
		if err != nil {
			attempt.Error = err.Error()
		} else {
			attempt.Error = fmt.Sprintf("HTTP %d", status)
		}
		msg.LastError = attempt.Error
		if wait := e.slowDown(resp); wait > 0 && tgt.rate > 0 {
			// The receiver asked to slow down, not only for this message:
			// every engine holds the subscription's other sends too.
			w.holdSends(ctx, msg, e.now().Add(wait))
		}
		if reason := w.noteOutcome(ctx, msg, tgt, attempt); reason != "" {
			// The endpoint is disabled (410 Gone is the receiver opting
			// out): the message ends here, as the endpoint's others will,
			// and the log shows when and why it happened.
			attempt.Error += ". " + reason
			msg.Status, msg.LastError = outbox.Failed, attempt.Error
		} else if status == 410 {
			// Opting out even if its endpoint could not be disabled:
			// retrying would only be refused again.
			msg.Status = outbox.Failed
		} else if d, ok := e.backoff.Next(msg.Attempts); ok {
			msg.NextAttemptAt = e.now().Add(max(d, e.slowDown(resp)))
		} else {
			msg.Status = outbox.Failed
		}
	}
	outcome := DeliveryDelivered
	switch {
	case delivered:
	case msg.Status == outbox.Failed:
		outcome = DeliveryFailed
	default:
		outcome = DeliveryRetrying
	}
	e.obs.DeliveryAttempt(outcome, latency)
	w.record(msg, attempt)
}

// target is where and how one message goes.
type target struct {
	url    string
	signer *webhook.Signer
	// rate is the subscription's rate limit; 0 means none.
	rate int
	// state is the endpoint's delivery state as read with the target.
	state outbox.EndpointState
}

// errNoWebhookTarget marks a message that can never be delivered (the
// application removed its webhook URL); it fails at once.
var errNoWebhookTarget = errors.New("engine: message has no webhook target")

// errSealedSecret marks a message whose endpoint's signing secret does
// not open with the Client's master key (sealed under another key, or
// damaged). Retrying cannot help, so the message fails at once with the
// reason in the delivery log.
var errSealedSecret = errors.New("engine: the endpoint's signing secret cannot be unsealed with the master key")

// target resolves msg's endpoint: its subscription's URL, rate limit and
// state, or, for enduseraccount.* messages, the application's own
// webhook endpoint (read through the Client's cache); the Client opens
// the signing secret, and target makes its signer.
func (e *Engine) target(ctx context.Context, msg *outbox.Message) (*target, error) {
	t := &target{}
	var secret string
	if msg.SubscriptionID != "" {
		sub, err := e.store.GetSubscription(ctx, msg.ApplicationID, msg.SubscriptionID)
		if err != nil {
			return nil, err
		}
		if secret, err = e.c.SubscriptionSecret(sub); err != nil {
			return nil, fmt.Errorf("%w: subscription %s: %w", errSealedSecret, sub.ID, err)
		}
		t.url, t.rate, t.state = sub.URL, sub.RateLimit, sub.EndpointState
	} else {
		app, err := e.c.Application(ctx, msg.ApplicationID)
		if err != nil {
			return nil, err
		}
		if app.WebhookURL == "" || app.SealedWebhookSecret == nil {
			return nil, errNoWebhookTarget
		}
		if secret, err = e.c.WebhookSecret(app); err != nil {
			return nil, fmt.Errorf("%w: application %s: %w", errSealedSecret, app.ID, err)
		}
		t.url, t.state = app.WebhookURL, app.CurrentWebhookState()
	}
	signer, err := webhook.NewSigner(secret)
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	t.signer = signer
	return t, nil
}

// errUnchanged leaves a record as it is in an update function.
var errUnchanged = errors.New("engine: unchanged")

// slowDown is the wait a receiver asked for with Retry-After on an answer
// that means "slow down", capped at the longest delay of the retry
// schedule: a receiver may stretch one retry, but not hold a message past
// what the schedule would ever wait (a typo'd or hostile Retry-After of a
// year would otherwise park it for good). The attempt still counts, so
// the message keeps its limited number of attempts.
func (e *engineConfig) slowDown(resp Response) time.Duration {
	switch resp.StatusCode {
	case 429, 502, 503, 504:
		return min(resp.RetryAfter, e.backoff.Longest())
	}
	return 0
}

// noteOutcome keeps an endpoint's state in step with an attempt (Error
// "" when delivered), and reports whether the endpoint is now disabled. It
// writes only when the state changes (the first failure after a delivery,
// the first delivery after failures, disabling), so a healthy endpoint
// costs no writes. Like Svix, it disables an endpoint that has failed for
// Config.EndpointDisableAfter without one delivery in between; and, as
// Standard Webhooks asks, one that answers 410 Gone. When the endpoint is
// disabled it returns the reason, else "".
func (w *worker) noteOutcome(ctx context.Context, msg *outbox.Message, tgt *target, attempt *outbox.Attempt) (disabled string) {
	e := w.e
	st, at := tgt.state, attempt.At.UTC()
	how := "Resend a failed message to enable it again."
	if msg.SubscriptionID == "" {
		how = "Resend a failed message or set a new webhook URL to enable it again."
	}
	// disable disables the endpoint with reason; needFailing makes it
	// give way to a delivery that another worker recorded meanwhile.
	didDisable := false // by this attempt, not another worker
	disable := func(reason string, needFailing bool) func(*outbox.EndpointState) bool {
		return func(s *outbox.EndpointState) bool {
			if s.DisabledAt != nil { // by another worker since tgt was read
				disabled = s.DisabledReason
				return false
			}
			if needFailing && s.FailingSince == nil {
				return false
			}
			if s.FailingSince == nil {
				s.FailingSince = &at
			}
			s.DisabledAt, s.DisabledReason, disabled = &at, reason, reason
			didDisable = true
			return true
		}
	}
	var fn func(*outbox.EndpointState) bool
	switch {
	case attempt.Error == "" && st.FailingSince == nil:
		return ""
	case attempt.Error == "":
		fn = func(s *outbox.EndpointState) bool {
			changed := s.FailingSince != nil
			s.FailingSince = nil
			return changed
		}
	case attempt.StatusCode == 410:
		fn = disable("Disabled because the receiver answered 410 Gone, which asks for no more messages. "+how, false)
	case st.FailingSince == nil:
		fn = func(s *outbox.EndpointState) bool {
			if s.FailingSince != nil {
				return false // another worker saw the first failure
			}
			s.FailingSince = &at
			return true
		}
	case e.disableAfter > 0 && at.Sub(*st.FailingSince) >= e.disableAfter:
		fn = disable(fmt.Sprintf("Disabled after failing without a delivery since %s (%s); the last attempt: %s. %s",
			unical.FormatTimestamp(st.FailingSince.UTC()), formatSpan(e.disableAfter), attempt.Error, how), true)
	default:
		return ""
	}
	// The attempt has happened, so its outcome is written even while the
	// engine stops.
	if err := updateEndpointState(context.WithoutCancel(ctx), e.store, e.c.Invalidate, msg.ApplicationID, msg.SubscriptionID, fn); err != nil {
		e.log.ErrorContext(ctx, "write webhook endpoint state", "message", msg.ID, "err", err)
		return ""
	}
	if didDisable {
		e.obs.EndpointDisabled()
	}
	return disabled
}

// formatSpan writes a duration of whole days as days, for messages.
func formatSpan(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day && d%day == 0 {
		if d == day {
			return "1 day"
		}
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}

// slotBlockSpan is how much of a subscription's send schedule an engine
// books in the Store at a time: a quarter second's slots (at least one),
// so that a subscription with a high rate limit costs one write per block
// of sends rather than one per send.
const slotBlockSpan = time.Second / 4

// sendSlots are the blocks of send slots an engine has booked, by
// subscription.
type sendSlots struct {
	mu     sync.Mutex
	blocks map[string]*slotBlock
	// booking holds a channel, closed when done, for each subscription
	// whose next block is being booked: the other workers wait for it
	// instead of each booking one (and pushing the schedule out a block
	// each).
	booking map[string]chan struct{}
}

// slotBlock is a booked stretch [next, end) of a subscription's send
// schedule; slots in it are 1/rate apart.
type slotBlock struct{ next, end time.Time }

// take returns the next slot of a block, at or after now, if the gap
// after it still fits in the block.
func (b *slotBlock) take(now time.Time, gap time.Duration) (time.Time, bool) {
	at := b.next
	if now.After(at) {
		at = now
	}
	if at.Add(gap).After(b.end) {
		return time.Time{}, false
	}
	b.next = at.Add(gap)
	return at, true
}

// bookSend books msg's send slot under its subscription's rate limit and
// returns it, at or after now. Slots come from a block this engine booked
// by moving the subscription's NextSendAt past it in the Store, so blocks
// of different engines never overlap and the limit holds across replicas;
// a slot is only used if the gap after it still fits in its block, so
// sends from two blocks are a gap apart too. A slot further off than a
// quarter of the lease is not booked (booked false): the caller puts the
// message back, due then, instead of holding its lease idle.
func (w *worker) bookSend(ctx context.Context, msg *outbox.Message, rate int) (at time.Time, booked bool, err error) {
	gap := time.Second / time.Duration(max(rate, 1))
	sl := &w.slots
	for {
		sl.mu.Lock()
		if b := sl.blocks[msg.SubscriptionID]; b != nil {
			if at, ok := b.take(w.e.now().UTC(), gap); ok {
				sl.mu.Unlock()
				return at, true, nil
			}
		}
		if wait := sl.booking[msg.SubscriptionID]; wait != nil {
			sl.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return time.Time{}, false, ctx.Err()
			}
		}
		if sl.booking == nil {
			sl.booking = map[string]chan struct{}{}
		}
		done := make(chan struct{})
		sl.booking[msg.SubscriptionID] = done
		sl.mu.Unlock()
		block, at, booked, err := w.bookBlock(ctx, msg)
		sl.mu.Lock()
		delete(sl.booking, msg.SubscriptionID)
		close(done)
		if booked {
			sl.keep(msg.SubscriptionID, block, w.e.now())
		}
		sl.mu.Unlock()
		return at, booked, err
	}
}

// bookBlock books the subscription's next block of slots in the Store and
// returns it with its first slot, which is the caller's.
func (w *worker) bookBlock(ctx context.Context, msg *outbox.Message) (block *slotBlock, at time.Time, booked bool, err error) {
	e := w.e
	_, err = e.store.UpdateSubscription(ctx, msg.ApplicationID, msg.SubscriptionID, func(r *unical.SubscriptionRecord) error {
		now := e.now().UTC()
		gap := time.Second / time.Duration(max(r.RateLimit, 1))
		at, booked = now, false
		if r.NextSendAt.After(now) {
			at = r.NextSendAt
		}
		if at.Sub(now) > e.lease/4 {
			return errUnchanged
		}
		n := max(time.Duration(1), slotBlockSpan/gap)
		block = &slotBlock{next: at.Add(gap), end: at.Add(n * gap)}
		r.NextSendAt = block.end
		booked = true
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return block, at, booked && err == nil, err
}

// keep stores a subscription's new block; sl.mu is held. Blocks that have
// run out (deleted subscriptions' among them) are dropped once there are
// many, so that the map does not grow for good.
func (sl *sendSlots) keep(subID string, b *slotBlock, now time.Time) {
	if sl.blocks == nil || len(sl.blocks) >= 1024 {
		kept := map[string]*slotBlock{}
		for id, old := range sl.blocks {
			if old.end.After(now) {
				kept[id] = old
			}
		}
		sl.blocks = kept
	}
	sl.blocks[subID] = b
}

// holdSends keeps the next send of msg's subscription, by any engine,
// from starting before until: the receiver asked (Retry-After) to be left
// alone that long.
func (w *worker) holdSends(ctx context.Context, msg *outbox.Message, until time.Time) {
	w.slots.mu.Lock()
	delete(w.slots.blocks, msg.SubscriptionID) // its slots are before until
	w.slots.mu.Unlock()
	_, err := w.e.store.UpdateSubscription(context.WithoutCancel(ctx), msg.ApplicationID, msg.SubscriptionID, func(r *unical.SubscriptionRecord) error {
		if !r.NextSendAt.Before(until) {
			return errUnchanged
		}
		r.NextSendAt = until.UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) && unical.ErrorCode(err) != unical.CodeNotFound {
		w.e.log.ErrorContext(ctx, "hold webhook sends", "message", msg.ID, "err", err)
	}
}
