package admin

import (
	"context"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/storestats"
	"github.com/unical/unical/subscriptions"
)

// ListAccounts lists an application's accounts, oldest first, with
// their status and statusReason; params filter by search text and status
// as GET /v1/endUserAccounts does.
func (s *Service) ListAccounts(ctx context.Context, appID string, params *unical.AccountListParams) (*unical.Page[*unical.Account], error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.ListAccounts(ctx, params)
}

// GetAccount returns one account of an application, with its status
// and statusReason.
func (s *Service) GetAccount(ctx context.Context, appID, accountID string) (*unical.Account, error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.GetAccount(ctx, accountID)
}

// DeleteAccount deletes an account of an application as DELETE
// /v1/endUserAccounts/{id} does: its subscriptions go, their watches are
// stopped, and enduseraccount.deleted is sent.
func (s *Service) DeleteAccount(ctx context.Context, appID, accountID string) (*unical.AccountDeleted, error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	deleted, err := a.DeleteAccount(ctx, accountID)
	if err != nil {
		return nil, err
	}
	s.record(ctx, "account.delete", appID, accountID)
	return deleted, nil
}

// ListSubscriptions lists the webhook subscriptions of every account
// of an application, in id order.
func (s *Service) ListSubscriptions(ctx context.Context, appID string, params *subscriptions.ListParams) (*unical.Page[*unical.Subscription], error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = &subscriptions.ListParams{}
	}
	return unical.ListStorePage(ctx, a, "adminSubscriptions", "", params.PageToken, params.Limit,
		func(after string, limit int) ([]*unical.SubscriptionRecord, error) {
			return s.client.Store().ListSubscriptions(ctx, appID, "", after, limit)
		},
		func(rec *unical.SubscriptionRecord) string { return rec.ID },
		func(rec *unical.SubscriptionRecord) *unical.Subscription { return &rec.Subscription })
}

// ListDeliveries lists the delivery log of one subscription of an
// application, or with subscriptionID "" of the application's own
// webhook endpoint, oldest first.
func (s *Service) ListDeliveries(ctx context.Context, appID, subscriptionID string, params *outbox.ListParams) (*unical.Page[*outbox.Attempt], error) {
	a, accountID, err := s.subscriptionAccount(ctx, appID, subscriptionID)
	if err != nil {
		return nil, err
	}
	return engine.ListDeliveries(ctx, a, accountID, subscriptionID, params)
}

// ResendMessage queues a failed message of an application for
// delivery again, or brings a pending one's next attempt forward, as
// [engine.ResendMessage] does; the message names its subscription.
// Returns CodeNotFound for an unknown message, CodeConflict when it was
// delivered.
func (s *Service) ResendMessage(ctx context.Context, appID, messageID string) (*unical.Success, error) {
	msg, err := s.store.GetMessage(ctx, appID, messageID)
	if err != nil {
		return nil, err
	}
	a, accountID, err := s.subscriptionAccount(ctx, appID, msg.SubscriptionID)
	if err != nil {
		return nil, err
	}
	done, err := engine.ResendMessage(ctx, a, accountID, msg.SubscriptionID, messageID)
	if err != nil {
		return nil, err
	}
	s.record(ctx, "message.resend", appID, messageID)
	return done, nil
}

// SendTestMessage queues a webhook.test message for one subscription of
// an application, or with subscriptionID "" for the application's own
// webhook endpoint, as [engine.SendTestMessage] does, and returns its id.
// Returns CodeNotFound for an unknown subscription, CodeInvalid naming
// webhookUrl when the application has no webhook URL.
func (s *Service) SendTestMessage(ctx context.Context, appID, subscriptionID string) (string, error) {
	a, accountID, err := s.subscriptionAccount(ctx, appID, subscriptionID)
	if err != nil {
		return "", err
	}
	id, err := engine.SendTestMessage(ctx, a, accountID, subscriptionID)
	if err != nil {
		return "", err
	}
	s.record(ctx, "message.test", appID, id)
	return id, nil
}

// subscriptionAccount returns the App and the account id of one of its
// subscriptions ("" for "").
func (s *Service) subscriptionAccount(ctx context.Context, appID, subscriptionID string) (*unical.App, string, error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, "", err
	}
	if subscriptionID == "" {
		return a, "", nil
	}
	sub, err := s.store.GetSubscription(ctx, appID, subscriptionID)
	if err != nil {
		return nil, "", err
	}
	return a, sub.EndUserAccountID, nil
}

// OutboxStatus counts the webhook messages waiting for delivery, across
// every application.
type OutboxStatus struct {
	Pending int `json:"pending"`
	// OldestPendingAt is when the oldest pending message was made; null
	// when none is pending.
	OldestPendingAt *time.Time `json:"oldestPendingAt"`
}

// Outbox returns the outbox's pending count. Returns CodeNotImplemented
// when the Store keeps no statistics.
func (s *Service) Outbox(ctx context.Context) (*OutboxStatus, error) {
	st, err := storestats.Of(ctx, s.client.Store())
	if err != nil {
		return nil, err
	}
	out := &OutboxStatus{Pending: st.PendingMessages}
	if !st.OldestPending.IsZero() {
		t := st.OldestPending.UTC()
		out.OldestPendingAt = &t
	}
	return out, nil
}

// CreateVirtualAccount creates a VIRTUAL account (calendars kept in the
// Store) for email, as POST /v1/endUserAccounts does. Returns CodeInvalid
// naming email, CodeConflict when the application has that account.
func (s *Service) CreateVirtualAccount(ctx context.Context, appID, email string) (*unical.Account, error) {
	return s.createAccount(ctx, appID, &unical.AccountCreateParams{Email: email, ProviderType: unical.ProviderVirtual})
}

// CalDAVConnection is what the dashboard's form sends to connect a CalDAV
// account: the login (username, the email when empty), its password, and
// the server (empty: the application's setting, then discovery from the
// email's domain, then iCloud), as POST /v1/endUserAccounts takes them.
type CalDAVConnection struct {
	Email, Username, Password, ServerURL string
}

// ConnectCalDAVAccount connects a CalDAV account of an application, as
// POST /v1/endUserAccounts does, and records it in the audit log.
func (s *Service) ConnectCalDAVAccount(ctx context.Context, appID string, c CalDAVConnection) (*unical.Account, error) {
	if c.Password == "" {
		return nil, unical.FieldError("password", "password is required.")
	}
	params := &unical.AccountCreateParams{Email: c.Email, ProviderType: unical.ProviderCalDAV, Password: unical.Some(c.Password)}
	if c.Username != "" {
		params.Username = unical.Some(c.Username)
	}
	if c.ServerURL != "" {
		params.ServerURL = unical.Some(c.ServerURL)
	}
	return s.createAccount(ctx, appID, params)
}

// createAccount creates an account through the App and records it.
func (s *Service) createAccount(ctx context.Context, appID string, params *unical.AccountCreateParams) (*unical.Account, error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	acct, err := a.CreateAccount(ctx, params)
	if err != nil {
		return nil, err
	}
	s.record(ctx, "account.create", appID, acct.ID)
	return acct, nil
}

// pausedReason is the DisabledReason of a subscription the operator
// paused.
const pausedReason = "Paused by the operator; resume it to deliver again. Messages made while paused fail and can be resent."

// Paused reports whether a subscription's endpoint state is a pause by
// the operator, as opposed to a disabling by the engine.
func Paused(st outbox.EndpointState) bool {
	return st.DisabledAt != nil && st.DisabledReason == pausedReason
}

// PauseSubscription stops deliveries to a subscription's webhook URL: it
// is disabled as the engine disables a failing endpoint, so messages made
// meanwhile fail and can be resent. Pausing a paused or disabled
// subscription changes nothing. Returns CodeNotFound for another
// application's subscription.
func (s *Service) PauseSubscription(ctx context.Context, appID, subscriptionID string) (*unical.Subscription, error) {
	at := s.now().UTC()
	return s.updateSubscription(ctx, appID, subscriptionID, "subscription.pause", func(st *outbox.EndpointState) {
		if st.DisabledAt == nil {
			st.DisabledAt, st.DisabledReason = &at, pausedReason
		}
	})
}

// ResumeSubscription delivers to a paused or disabled subscription again,
// with its failure clock reset. Returns CodeNotFound for another
// application's subscription.
func (s *Service) ResumeSubscription(ctx context.Context, appID, subscriptionID string) (*unical.Subscription, error) {
	return s.updateSubscription(ctx, appID, subscriptionID, "subscription.resume", func(st *outbox.EndpointState) {
		*st = outbox.EndpointState{}
	})
}

// updateSubscription changes a subscription's endpoint state with fn and
// records operation.
func (s *Service) updateSubscription(ctx context.Context, appID, subscriptionID, operation string, fn func(*outbox.EndpointState)) (*unical.Subscription, error) {
	rec, err := s.store.UpdateSubscription(ctx, appID, subscriptionID, func(rec *unical.SubscriptionRecord) error {
		fn(&rec.EndpointState)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.record(ctx, operation, appID, subscriptionID)
	return &rec.Subscription, nil
}

// DeleteSubscription deletes a subscription as DELETE
// /v1/calendarSubscriptions does: its provider watch is stopped and its
// undelivered messages go. Returns CodeNotFound for another application's
// subscription.
func (s *Service) DeleteSubscription(ctx context.Context, appID, subscriptionID string) (*unical.Success, error) {
	a, accountID, err := s.subscriptionAccount(ctx, appID, subscriptionID)
	if err != nil {
		return nil, err
	}
	done, err := subscriptions.Delete(ctx, a, accountID, &subscriptions.DeleteParams{SubscriptionID: subscriptionID})
	if err != nil {
		return nil, err
	}
	s.record(ctx, "subscription.delete", appID, subscriptionID)
	return done, nil
}
