package unical

import (
	"context"
	"encoding/json"
)

// MarshalJSON adds latencyMs, the attempt's latency in whole milliseconds,
// to the attempt's fields, and writes its timestamp as FormatTimestamp does.
func (d DeliveryAttempt) MarshalJSON() ([]byte, error) {
	type plain DeliveryAttempt // without this method
	return json.Marshal(struct {
		plain
		At        string `json:"timestamp"`
		LatencyMS int64  `json:"latencyMs"`
	}{plain(d), FormatTimestamp(d.At), d.Latency.Milliseconds()})
}

// DeliveryListParams pages the delivery log.
type DeliveryListParams struct {
	PageToken string
	Limit     int
}

// ListDeliveries lists the delivery attempts of a subscription's messages,
// oldest first, each with its time, the receiver's status code, latency and
// error, for as long as Config.DeliveryLogTTL keeps them. With accountID and
// subscriptionID both empty it lists the attempts at the application's own
// webhook endpoint (enduseraccount.* messages). This is an extension of the
// spec, which leaves delivery diagnostics to its delivery service.
//
// HTTP: GET /v1/calendarSubscriptions/{endUserAccountId}/{subscriptionId}/deliveries
//
// Returns CodeNotFound if the subscription is not the account's or the
// account not the application's, CodeInvalid for a bad pageToken or limit.
func (a *App) ListDeliveries(ctx context.Context, accountID, subscriptionID string, params *DeliveryListParams) (*Page[*DeliveryAttempt], error) {
	if params == nil {
		params = &DeliveryListParams{}
	}
	if accountID != "" || subscriptionID != "" {
		if _, err := a.accountSubscription(ctx, accountID, subscriptionID); err != nil {
			return nil, err
		}
	}
	return listPage(ctx, a, storeListing{kind: "deliveries", scope: subscriptionID, pageToken: params.PageToken, limit: params.Limit},
		func(after string, limit int) ([]*DeliveryAttempt, error) {
			return a.c.store.ListAttempts(ctx, a.id, subscriptionID, a.c.now(), after, limit)
		},
		func(rec *DeliveryAttempt) string { return rec.ID },
		func(rec *DeliveryAttempt) *DeliveryAttempt { return rec })
}

// ResendMessage queues a failed message for delivery again, with a fresh
// set of attempts and the same webhook-id, so a receiver that deduplicates
// still sees it once. It enables the endpoint again if it was disabled
// (see [EndpointState]). With accountID and subscriptionID both empty it
// resends a message of the application's own endpoint. An extension of the
// spec.
//
// HTTP: POST /v1/calendarSubscriptions/{endUserAccountId}/{subscriptionId}/messages/{messageId}/resend
//
// Returns CodeNotFound if the message is not the subscription's (or the
// subscription not the account's), CodeConflict if it has not failed.
func (a *App) ResendMessage(ctx context.Context, accountID, subscriptionID, messageID string) (*Success, error) {
	return write3(ctx, a, "ResendMessage", a.resendMessage, accountID, subscriptionID, messageID)
}

func (a *App) resendMessage(ctx context.Context, accountID, subscriptionID, messageID string) (*Success, error) {
	if accountID != "" || subscriptionID != "" {
		if _, err := a.accountSubscription(ctx, accountID, subscriptionID); err != nil {
			return nil, err
		}
	}
	msg, err := a.c.store.GetMessage(ctx, a.id, messageID)
	if err != nil {
		return nil, err
	}
	if msg.SubscriptionID != subscriptionID {
		return nil, Errorf(CodeNotFound, "No message %q for this subscription.", messageID)
	}
	if msg.Status == MessageFailed {
		// Resending is how a developer says the endpoint works again, so
		// it is enabled before the message is queued; otherwise the
		// engine could fail it again as disabled.
		if err := a.c.UpdateEndpointState(ctx, a.id, subscriptionID, enableEndpoint); err != nil {
			return nil, err
		}
	}
	if _, err := a.c.store.RetryMessage(ctx, a.id, messageID, a.c.now()); err != nil {
		return nil, err
	}
	a.c.notifyOutbox()
	return &Success{Success: true}, nil
}

// accountSubscription returns a subscription of an account of the
// application, or CodeNotFound.
func (a *App) accountSubscription(ctx context.Context, accountID, subscriptionID string) (*SubscriptionRecord, error) {
	if _, err := a.c.store.GetAccount(ctx, a.id, accountID); err != nil {
		return nil, err
	}
	sub, err := a.c.store.GetSubscription(ctx, a.id, subscriptionID)
	if err != nil {
		return nil, err
	}
	if sub.EndUserAccountID != accountID {
		return nil, Errorf(CodeNotFound, "No subscription %q for this account.", subscriptionID)
	}
	return sub, nil
}
