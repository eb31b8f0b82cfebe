package admin

import (
	"context"
	"time"

	"github.com/unical/unical"
)

// AdminListAccounts lists an application's accounts, oldest first, with
// their status and statusReason; params filter by search text and status
// as GET /v1/endUserAccounts does.
func (s *Service) AdminListAccounts(ctx context.Context, appID string, params *unical.AccountListParams) (*unical.Page[*unical.Account], error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.ListAccounts(ctx, params)
}

// AdminGetAccount returns one account of an application, with its status
// and statusReason.
func (s *Service) AdminGetAccount(ctx context.Context, appID, accountID string) (*unical.Account, error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.GetAccount(ctx, accountID)
}

// AdminDeleteAccount deletes an account of an application as DELETE
// /v1/endUserAccounts/{id} does: its subscriptions go, their watches are
// stopped, and enduseraccount.deleted is sent.
func (s *Service) AdminDeleteAccount(ctx context.Context, appID, accountID string) (*unical.AccountDeleted, error) {
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

// AdminListSubscriptions lists the webhook subscriptions of every account
// of an application, in id order.
func (s *Service) AdminListSubscriptions(ctx context.Context, appID string, params *unical.SubscriptionListParams) (*unical.Page[*unical.Subscription], error) {
	a, err := s.app(ctx, appID)
	if err != nil {
		return nil, err
	}
	return a.ListApplicationSubscriptions(ctx, params)
}

// AdminListDeliveries lists the delivery log of one subscription of an
// application, or with subscriptionID "" of the application's own
// webhook endpoint, oldest first.
func (s *Service) AdminListDeliveries(ctx context.Context, appID, subscriptionID string, params *unical.DeliveryListParams) (*unical.Page[*unical.DeliveryAttempt], error) {
	a, accountID, err := s.subscriptionAccount(ctx, appID, subscriptionID)
	if err != nil {
		return nil, err
	}
	return a.ListDeliveries(ctx, accountID, subscriptionID, params)
}

// AdminResendMessage queues a failed message of an application for
// delivery again, as [unical.App.ResendMessage] does; the message names
// its subscription. Returns CodeNotFound for an unknown message,
// CodeConflict when it has not failed.
func (s *Service) AdminResendMessage(ctx context.Context, appID, messageID string) (*unical.Success, error) {
	msg, err := s.store.GetMessage(ctx, appID, messageID)
	if err != nil {
		return nil, err
	}
	a, accountID, err := s.subscriptionAccount(ctx, appID, msg.SubscriptionID)
	if err != nil {
		return nil, err
	}
	done, err := a.ResendMessage(ctx, accountID, msg.SubscriptionID, messageID)
	if err != nil {
		return nil, err
	}
	s.record(ctx, "message.resend", appID, messageID)
	return done, nil
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
	st, err := s.client.StoreStats(ctx)
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
