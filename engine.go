package unical

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/unical/unical/internal/webhook"
)

// WebhookSender posts one webhook request and returns the receiver's
// answer. A failure to get one (refused address, timeout, TLS error) is an
// error. It must not follow redirects: a 3xx is the receiver's answer.
// Implementations must be safe for concurrent use.
type WebhookSender interface {
	Send(ctx context.Context, url string, header map[string][]string, body []byte) (WebhookResponse, error)
}

// WebhookResponse is the part of a receiver's answer the engine acts on.
type WebhookResponse struct {
	// StatusCode is the HTTP status code.
	StatusCode int
	// RetryAfter is the wait the receiver asked for in a Retry-After
	// header (seconds or an HTTP date), 0 without one. The engine honours
	// it on 429, 502, 503 and 504, the answers Standard Webhooks reads as
	// "slow down".
	RetryAfter time.Duration
}

// engineConfig is the webhook engine's part of Config, with defaults
// applied.
type engineConfig struct {
	sender       WebhookSender
	allowPrivate bool
	workers      int
	backoff      webhook.Backoff
	timeout      time.Duration
	lease        time.Duration
	outboxPoll   time.Duration
	changePoll   time.Duration
	logTTL       time.Duration
	// disableAfter is Config.EndpointDisableAfter; 0 never disables.
	disableAfter time.Duration
	// watchRenewBefore is how long before its end a watch is renewed.
	watchRenewBefore time.Duration
	coalesce         *coalescer
}

func newEngineConfig(cfg *Config) (engineConfig, error) {
	e := engineConfig{
		sender:       cfg.WebhookSender,
		allowPrivate: cfg.AllowPrivateTargets,
		workers:      cfg.DeliveryWorkers,
		backoff:      webhook.Backoff{Schedule: cfg.RetrySchedule, Jitter: cfg.RetryJitter},
		timeout:      cfg.DeliveryTimeout,
		lease:        cfg.DeliveryLease,
		outboxPoll:   cfg.OutboxPollInterval,
		changePoll:   cfg.ChangePollInterval,
		logTTL:       cfg.DeliveryLogTTL,
		disableAfter: cfg.EndpointDisableAfter,

		watchRenewBefore: cfg.WatchRenewBefore,
		coalesce:         &coalescer{last: map[string]string{}},
	}
	if e.watchRenewBefore <= 0 {
		e.watchRenewBefore = 12 * time.Hour
	}
	if e.workers <= 0 {
		e.workers = 16
	}
	switch {
	case e.backoff.Jitter == 0:
		e.backoff.Jitter = webhook.DefaultJitter
	case e.backoff.Jitter < 0:
		e.backoff.Jitter = 0
	}
	if e.timeout <= 0 {
		e.timeout = 15 * time.Second
	}
	if e.lease <= 0 {
		e.lease = 2 * time.Minute
	}
	if e.lease <= e.timeout {
		return e, errors.New("unical: Config.DeliveryLease must exceed Config.DeliveryTimeout")
	}
	if e.outboxPoll <= 0 {
		e.outboxPoll = time.Second
	}
	if e.changePoll == 0 {
		e.changePoll = time.Minute
	}
	if e.logTTL <= 0 {
		e.logTTL = 7 * 24 * time.Hour
	}
	switch {
	case e.disableAfter == 0:
		e.disableAfter = 5 * 24 * time.Hour
	case e.disableAfter < 0:
		e.disableAfter = 0
	}
	return e, nil
}

// slowDown is the wait a receiver asked for with Retry-After on an answer
// that means "slow down", capped at the longest delay of the retry
// schedule: a receiver may stretch one retry, but not hold a message past
// what the schedule would ever wait (a typo'd or hostile Retry-After of a
// year would otherwise park it for good). The attempt still counts, so
// the message keeps its limited number of attempts.
func (e *engineConfig) slowDown(resp WebhookResponse) time.Duration {
	switch resp.StatusCode {
	case 429, 502, 503, 504:
		return min(resp.RetryAfter, e.backoff.Longest())
	}
	return 0
}

// notifyOutbox wakes a running engine after this Client queued messages,
// so that they go out without waiting for the next poll.
func (c *Client) notifyOutbox() {
	select {
	case c.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Run runs the webhook engine until ctx ends or [Client.Close] is called:
// delivery workers that claim due outbox messages with a lease, sign them
// and POST them, the change poller (see Config.ChangePollInterval) and the
// store sweep (see [Client.Sweep]). It returns nil when stopped that way. Several Clients may run engines over
// one Store: the leases keep them from sending a message twice at once,
// and a crashed engine's claims pass to the others when they expire.
//
// Run is separate from [New] so that a Client that only serves requests or
// runs admin commands starts nothing in the background.
func (c *Client) Run(ctx context.Context) error {
	e := &c.engine
	if e.sender == nil {
		return errors.New("unical: Run needs Config.WebhookSender")
	}
	c.runMu.Lock()
	select {
	case <-c.done:
		c.runMu.Unlock()
		return errors.New("unical: Run after Close")
	default:
	}
	c.running.Add(1)
	c.runMu.Unlock()
	defer c.running.Done()
	c.engineRunning.Store(true)
	defer c.engineRunning.Store(false)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	w := &worker{c: c, owner: newID("wrk"), limiter: webhook.NewLimiter(), results: make(chan DeliveryResult, 4*e.workers)}
	jobs := make(chan *OutboxMessage)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		w.recordLoop(context.WithoutCancel(ctx))
	}()
	var wg sync.WaitGroup
	for range e.workers {
		wg.Go(func() {
			for msg := range jobs {
				w.deliver(ctx, msg)
			}
		})
	}
	var poller sync.WaitGroup
	if e.changePoll > 0 {
		poller.Go(func() { c.pollChanges(ctx) })
	}
	if c.sweep.interval > 0 {
		poller.Go(func() { c.sweepLoop(ctx) })
	}
	w.claimLoop(ctx, jobs)
	close(jobs)
	wg.Wait()
	// Every worker is done: write what they left, then stop.
	close(w.results)
	<-recorded
	poller.Wait()
	return nil
}

// maxRecordBatch bounds the results one RecordDeliveries call writes.
const maxRecordBatch = 256

// recordLoop writes the workers' results. It takes whatever has piled up
// while the previous write was committing, so under load many deliveries
// share one commit (group commit) and when idle each is written at once.
func (w *worker) recordLoop(ctx context.Context) {
	batch := make([]DeliveryResult, 0, maxRecordBatch)
	for first := range w.results {
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxRecordBatch {
			select {
			case r, ok := <-w.results:
				if !ok {
					break fill
				}
				batch = append(batch, r)
			default:
				break fill
			}
		}
		errs, err := w.c.store.RecordDeliveries(ctx, batch)
		if err != nil {
			// The leases expire and the messages are sent again: at least
			// once, never lost.
			w.c.log.ErrorContext(ctx, "write webhook deliveries", "count", len(batch), "err", err)
			continue
		}
		for i, err := range errs {
			w.finish(ctx, batch[i].Message, err)
		}
	}
}

// worker is one engine's delivery state.
type worker struct {
	c       *Client
	owner   string // the lease owner of this engine's claims
	limiter *webhook.Limiter
	// results carries written-back messages to recordLoop, the one writer.
	results chan DeliveryResult
}

// claimLoop claims due messages and hands them to the workers until ctx
// ends. It claims at most as many as there are workers at a time, so that
// claimed messages do not wait long under their lease.
func (w *worker) claimLoop(ctx context.Context, jobs chan<- *OutboxMessage) {
	e := &w.c.engine
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		msgs, err := w.c.store.ClaimMessages(ctx, w.owner, w.c.now(), e.lease, e.workers)
		if err != nil && ctx.Err() == nil {
			w.c.log.ErrorContext(ctx, "claim webhook messages", "err", err)
		}
		for i, msg := range msgs {
			select {
			case jobs <- msg:
			case <-ctx.Done():
				// Give the rest back now rather than leave them to their
				// lease, so that a restarted engine (or another replica)
				// sends them at once. They are written unchanged: still
				// due, no attempt counted.
				for _, msg := range msgs[i:] {
					w.update(msg)
				}
				return
			}
		}
		if len(msgs) == e.workers {
			continue // there may be more due right now
		}
		timer.Reset(e.outboxPoll)
		select {
		case <-ctx.Done():
			return
		case <-w.c.wake:
		case <-timer.C:
		}
	}
}

// target is where and how one message goes.
type target struct {
	url    string
	signer *webhook.Signer
	// limitKey and rate select the rate limit; rate 0 means none.
	limitKey string
	rate     int
	// state is the endpoint's delivery state as read with the target.
	state EndpointState
}

// errNoTarget marks a message that can never be delivered (the
// application removed its webhook URL); it fails at once.
var errNoTarget = errors.New("unical: message has no webhook target")

// errSealedSecret marks a message whose endpoint's signing secret does not
// open with this Client's master key (sealed under another key, or
// damaged). Retrying cannot help, so the message fails at once with the
// reason in the delivery log.
var errSealedSecret = errors.New("unical: the endpoint's signing secret cannot be unsealed with the master key")

// target resolves the URL and secret of a message: a subscription's, or
// the application's own endpoint for enduseraccount.* messages.
func (c *Client) target(ctx context.Context, msg *OutboxMessage) (*target, error) {
	if msg.SubscriptionID != "" {
		sub, err := c.store.GetSubscription(ctx, msg.ApplicationID, msg.SubscriptionID)
		if err != nil {
			return nil, err
		}
		secret, err := c.credentials.Open(sub.SealedSecret, []byte("subscription/"+sub.ID))
		if err != nil {
			return nil, fmt.Errorf("%w: subscription %s: %w", errSealedSecret, sub.ID, err)
		}
		signer, err := webhook.NewSigner(string(secret))
		if err != nil {
			return nil, WrapError(CodeInternal, err, "Internal error.")
		}
		return &target{url: sub.URL, signer: signer, limitKey: sub.ID, rate: sub.RateLimit, state: sub.EndpointState}, nil
	}
	app, err := c.application(ctx, msg.ApplicationID)
	if err != nil {
		return nil, err
	}
	if app.WebhookURL == "" || app.SealedWebhookSecret == nil {
		return nil, errNoTarget
	}
	secret, err := c.credentials.Open(app.SealedWebhookSecret, []byte("webhook-secret/"+app.ID))
	if err != nil {
		return nil, fmt.Errorf("%w: application %s: %w", errSealedSecret, app.ID, err)
	}
	signer, err := webhook.NewSigner(string(secret))
	if err != nil {
		return nil, WrapError(CodeInternal, err, "Internal error.")
	}
	return &target{url: app.WebhookURL, signer: signer, state: app.webhookState()}, nil
}

// webhookState is the state of the application's current webhook URL.
func (app *Application) webhookState() EndpointState {
	if app.WebhookStateURL != app.WebhookURL {
		return EndpointState{} // a new URL starts afresh
	}
	return app.WebhookState
}

// updateEndpoint changes the state of an endpoint (subscriptionID "" for
// the application's own) with fn, which reports whether it changed
// anything. A subscription changes atomically. The application is read,
// changed and replaced, so an application update racing with it may undo
// the change; at worst that restarts the failure clock or enables the
// endpoint again, both of which the next attempts put right.
func (c *Client) updateEndpoint(ctx context.Context, appID, subscriptionID string, fn func(*EndpointState) bool) error {
	if subscriptionID != "" {
		_, err := c.store.UpdateSubscription(ctx, appID, subscriptionID, func(r *SubscriptionRecord) error {
			if !fn(&r.EndpointState) {
				return errUnchanged
			}
			return nil
		})
		if errors.Is(err, errUnchanged) || ErrorCode(err) == CodeNotFound {
			return nil
		}
		return err
	}
	app, err := c.store.GetApplication(ctx, appID)
	if err != nil {
		return err
	}
	st := app.webhookState()
	if !fn(&st) {
		return nil
	}
	app.WebhookState, app.WebhookStateURL = st, app.WebhookURL
	if err := c.store.UpdateApplication(ctx, app); err != nil {
		return err
	}
	c.apps.drop(appID)
	return nil
}

// enableEndpoint clears an endpoint's state: no longer disabled, and
// failing only from its next failure on.
func enableEndpoint(st *EndpointState) bool {
	if *st == (EndpointState{}) {
		return false
	}
	*st = EndpointState{}
	return true
}

// noteOutcome keeps an endpoint's state in step with an attempt (Error
// "" when delivered), and reports whether the endpoint is now disabled. It
// writes only when the state changes (the first failure after a delivery,
// the first delivery after failures, disabling), so a healthy endpoint
// costs no writes. Like Svix, it disables an endpoint that has failed for
// Config.EndpointDisableAfter without one delivery in between; and, as
// Standard Webhooks asks, one that answers 410 Gone. When the endpoint is
// disabled it returns the reason, else "".
func (w *worker) noteOutcome(ctx context.Context, msg *OutboxMessage, tgt *target, attempt *DeliveryAttempt) (disabled string) {
	c, e := w.c, &w.c.engine
	st, at := tgt.state, attempt.At.UTC()
	how := "Resend a failed message to enable it again."
	if msg.SubscriptionID == "" {
		how = "Resend a failed message or set a new webhook URL to enable it again."
	}
	// disable disables the endpoint with reason; needFailing makes it
	// give way to a delivery that another worker recorded meanwhile.
	didDisable := false // by this attempt, not another worker
	disable := func(reason string, needFailing bool) func(*EndpointState) bool {
		return func(s *EndpointState) bool {
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
	var fn func(*EndpointState) bool
	switch {
	case attempt.Error == "" && st.FailingSince == nil:
		return ""
	case attempt.Error == "":
		fn = func(s *EndpointState) bool {
			changed := s.FailingSince != nil
			s.FailingSince = nil
			return changed
		}
	case attempt.StatusCode == 410:
		fn = disable("Disabled because the receiver answered 410 Gone, which asks for no more messages. "+how, false)
	case st.FailingSince == nil:
		fn = func(s *EndpointState) bool {
			if s.FailingSince != nil {
				return false // another worker saw the first failure
			}
			s.FailingSince = &at
			return true
		}
	case e.disableAfter > 0 && at.Sub(*st.FailingSince) >= e.disableAfter:
		fn = disable(fmt.Sprintf("Disabled after failing without a delivery since %s (%s); the last attempt: %s. %s",
			FormatTimestamp(st.FailingSince.UTC()), formatSpan(e.disableAfter), attempt.Error, how), true)
	default:
		return ""
	}
	// The attempt has happened, so its outcome is written even while the
	// engine stops.
	if err := c.updateEndpoint(context.WithoutCancel(ctx), msg.ApplicationID, msg.SubscriptionID, fn); err != nil {
		c.log.ErrorContext(ctx, "write webhook endpoint state", "message", msg.ID, "err", err)
		return ""
	}
	if didDisable {
		c.obs.EndpointDisabled()
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

// deliver makes one attempt at a claimed message and writes the outcome.
func (w *worker) deliver(ctx context.Context, msg *OutboxMessage) {
	c, e := w.c, &w.c.engine
	tgt, err := c.target(ctx, msg)
	switch {
	case ErrorCode(err) == CodeNotFound:
		// The subscription (or application) is gone; the Store deleted
		// its pending messages with it, this one included.
		return
	case errors.Is(err, errNoTarget):
		msg.Status, msg.LastError = MessageFailed, "The application has no webhook URL."
		w.record(msg, &DeliveryAttempt{At: c.now().UTC(), Error: msg.LastError})
		c.obs.DeliveryAttempt(DeliverySkipped, 0)
		return
	case errors.Is(err, errSealedSecret):
		c.log.ErrorContext(ctx, "webhook signing secret cannot be unsealed", "message", msg.ID, "err", err)
		msg.Status = MessageFailed
		msg.LastError = "Not sent: the endpoint's signing secret cannot be unsealed with the server's master key (it was sealed with another key, or damaged). Recreate the subscription (for the application's own endpoint: remove its webhook URL and set it again) to get a new secret."
		w.record(msg, &DeliveryAttempt{At: c.now().UTC(), Error: msg.LastError})
		return
	case err != nil && ctx.Err() != nil:
		// Stopping: give the message back for the next engine.
		w.update(msg)
		return
	case err != nil:
		c.log.ErrorContext(ctx, "resolve webhook target", "message", msg.ID, "err", err)
		return // the lease expires and another attempt resolves it again
	case tgt.state.DisabledAt != nil:
		// Logged as an attempt without a request, so that the delivery
		// log shows why nothing arrives.
		msg.Status, msg.LastError = MessageFailed, "Not sent: the endpoint is disabled. "+tgt.state.DisabledReason
		w.record(msg, &DeliveryAttempt{At: c.now().UTC(), Error: msg.LastError})
		c.obs.DeliveryAttempt(DeliverySkipped, 0)
		return
	}
	if tgt.rate > 0 {
		now := c.now()
		at := w.limiter.Reserve(tgt.limitKey, tgt.rate, now)
		if wait := at.Sub(now); wait > 0 {
			if wait > e.lease/4 {
				// Too long to hold the lease: put the message back, due at its slot.
				w.limiter.Cancel(tgt.limitKey, tgt.rate, at)
				msg.NextAttemptAt = at
				w.update(msg)
				return
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				msg.NextAttemptAt = c.now()
				w.update(msg)
				return
			case <-t.C:
			}
		}
	}
	start := c.now()
	header := tgt.signer.Headers(msg.ID, start, msg.Payload)
	sctx, cancel := context.WithTimeout(ctx, e.timeout)
	resp, err := e.sender.Send(sctx, tgt.url, header, msg.Payload)
	cancel()
	status := resp.StatusCode
	latency := c.now().Sub(start)
	if err != nil && ctx.Err() != nil {
		// Stopping mid-send says nothing about the receiver: give the
		// message back without counting the attempt.
		msg.NextAttemptAt = c.now()
		w.update(msg)
		return
	}
	attempt := &DeliveryAttempt{At: start.UTC(), StatusCode: status, Latency: latency}
	msg.Attempts++
	delivered := err == nil && status >= 200 && status < 300
	switch {
	case delivered:
		msg.Status, msg.LastError = MessageDelivered, ""
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
			// this engine holds the subscription's other sends too.
			w.limiter.Hold(tgt.limitKey, c.now().Add(wait))
		}
		if reason := w.noteOutcome(ctx, msg, tgt, attempt); reason != "" {
			// The endpoint is disabled (410 Gone is the receiver opting
			// out): the message ends here, as the endpoint's others will,
			// and the log shows when and why it happened.
			attempt.Error += ". " + reason
			msg.Status, msg.LastError = MessageFailed, attempt.Error
		} else if status == 410 {
			// Opting out even if its endpoint could not be disabled:
			// retrying would only be refused again.
			msg.Status = MessageFailed
		} else if d, ok := e.backoff.Next(msg.Attempts); ok {
			msg.NextAttemptAt = c.now().Add(max(d, e.slowDown(resp)))
		} else {
			msg.Status = MessageFailed
		}
	}
	outcome := DeliveryDelivered
	switch {
	case delivered:
	case msg.Status == MessageFailed:
		outcome = DeliveryFailed
	default:
		outcome = DeliveryRetrying
	}
	c.obs.DeliveryAttempt(outcome, latency)
	w.record(msg, attempt)
}

// record hands a claimed message back after an attempt, with the attempt
// for the delivery log, to the writer.
func (w *worker) record(msg *OutboxMessage, attempt *DeliveryAttempt) {
	attempt.ApplicationID, attempt.MessageID, attempt.SubscriptionID = msg.ApplicationID, msg.ID, msg.SubscriptionID
	attempt.EventType, attempt.Attempt = msg.EventType, msg.Attempts
	attempt.ID = newID("att")
	attempt.ExpiresAt = attempt.At.Add(w.c.engine.logTTL)
	w.results <- DeliveryResult{Message: msg, Attempt: attempt}
}

// update hands a claimed message back without an attempt (a lease given
// back) to the writer.
func (w *worker) update(msg *OutboxMessage) {
	w.results <- DeliveryResult{Message: msg}
}

func (w *worker) finish(ctx context.Context, msg *OutboxMessage, err error) {
	switch ErrorCode(err) {
	case "", CodeNotFound:
		// Written, or deleted with its subscription meanwhile.
	case CodeConflict:
		// The lease ran out and another worker has the message; it will
		// be sent again, which at-least-once allows.
		w.c.log.WarnContext(ctx, "webhook message lease lost", "message", msg.ID)
	default:
		w.c.log.ErrorContext(ctx, "write webhook message", "message", msg.ID, "err", err)
	}
}
