package engine

import (
	"context"
	"iter"

	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/internal/revocation"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/subscriptions"
)

// This file is the delivery log as the API shows it: the attempts the
// engine wrote (RecordDeliveries), listed per endpoint, and a failed
// message queued again. They are App operations built on the engine's
// records, so they live beside the engine; the App gives them its Store,
// its page tokens and its Idempotency-Key path (unical.ListStorePage,
// App.Idempotency with idempotency.Do).

// DeliveryLog is an application's webhook delivery log: [DeliveryLogOf]
// an in-process App, and the HTTP client of package httpclient, implement
// it with the same types, as both implement unical.API.
type DeliveryLog interface {
	ListDeliveries(ctx context.Context, accountID, subscriptionID string, params *outbox.ListParams) (*unical.Page[*outbox.Attempt], error)
	ResendMessage(ctx context.Context, accountID, subscriptionID, messageID string, opts ...unical.WriteOptions) (*unical.Success, error)
}

// DeliveryLogOf returns the delivery log of app, whose methods are
// [ListDeliveries] and [ResendMessage].
func DeliveryLogOf(app *unical.App) DeliveryLog { return appLog{app} }

type appLog struct{ app *unical.App }

func (l appLog) ListDeliveries(ctx context.Context, accountID, subscriptionID string, params *outbox.ListParams) (*unical.Page[*outbox.Attempt], error) {
	return ListDeliveries(ctx, l.app, accountID, subscriptionID, params)
}

func (l appLog) ResendMessage(ctx context.Context, accountID, subscriptionID, messageID string, opts ...unical.WriteOptions) (*unical.Success, error) {
	return ResendMessage(ctx, l.app, accountID, subscriptionID, messageID, opts...)
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
func ListDeliveries(ctx context.Context, app *unical.App, accountID, subscriptionID string, params *outbox.ListParams) (*unical.Page[*outbox.Attempt], error) {
	if params == nil {
		params = &outbox.ListParams{}
	}
	if accountID != "" || subscriptionID != "" {
		if _, err := subscriptions.Get(ctx, app, accountID, subscriptionID); err != nil {
			return nil, err
		}
	}
	c := app.Client()
	return unical.ListStorePage(ctx, app, "deliveries", subscriptionID, params.PageToken, params.Limit,
		func(after string, limit int) ([]*outbox.Attempt, error) {
			return c.Store().ListAttempts(ctx, app.ID(), subscriptionID, c.Config().Now(), after, limit)
		},
		func(rec *outbox.Attempt) string { return rec.ID },
		func(rec *outbox.Attempt) *outbox.Attempt { return rec })
}

// ResendMessage queues a failed message for delivery again, with a fresh
// set of attempts and the same webhook-id, so a receiver that deduplicates
// still sees it once. A pending message waiting for a later attempt has
// that attempt brought forward to now ("retry now"); one being sent at
// that moment is left to that attempt, so no message is sent twice. It enables the endpoint again if it was disabled
// (see [outbox.EndpointState]). With accountID and subscriptionID both
// empty it resends a message of the application's own endpoint. An
// extension of the spec. Like the App's writes, it runs once per
// Idempotency-Key (see [idempotency.Do]).
//
// HTTP: POST /v1/calendarSubscriptions/{endUserAccountId}/{subscriptionId}/messages/{messageId}/resend
//
// Returns CodeNotFound if the message is not the subscription's (or the
// subscription not the account's), CodeConflict if it was delivered.
func ResendMessage(ctx context.Context, app *unical.App, accountID, subscriptionID, messageID string, opts ...unical.WriteOptions) (*unical.Success, error) {
	o, err := unical.OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, app.Idempotency(), idempotency.Options{Key: o.IdempotencyKey}, func(ctx context.Context) (*unical.Success, error) {
		return resendMessage(ctx, app, accountID, subscriptionID, messageID)
	}, "ResendMessage", accountID, subscriptionID, messageID)
}

func resendMessage(ctx context.Context, app *unical.App, accountID, subscriptionID, messageID string) (*unical.Success, error) {
	if accountID != "" || subscriptionID != "" {
		if _, err := subscriptions.Get(ctx, app, accountID, subscriptionID); err != nil {
			return nil, err
		}
	}
	c := app.Client()
	msg, err := c.Store().GetMessage(ctx, app.ID(), messageID)
	if err != nil {
		return nil, err
	}
	if msg.SubscriptionID != subscriptionID || revocation.IsInternal(msg.EventType) {
		// The server's own work (a queued revocation) is no webhook
		// message, and its id is not one to know of.
		return nil, unical.Errorf(unical.CodeNotFound, "No message %q for this subscription.", messageID)
	}
	if msg.Status == outbox.Failed {
		// Resending is how a developer says the endpoint works again, so
		// it is enabled before the message is queued; otherwise the
		// engine could fail it again as disabled.
		if err := updateEndpointState(ctx, c.Store(), c.Invalidate, app.ID(), subscriptionID, enableEndpoint); err != nil {
			return nil, err
		}
	}
	if _, err := c.Store().RetryMessage(ctx, app.ID(), messageID, c.Config().Now()); err != nil {
		return nil, err
	}
	c.Config().Outbox.Notify()
	return &unical.Success{Success: true}, nil
}

// AllDeliveries walks the delivery log of a subscription, or of the
// application's own webhook endpoint when both ids are empty.
func AllDeliveries(ctx context.Context, log DeliveryLog, accountID, subscriptionID string, params *outbox.ListParams) iter.Seq2[*outbox.Attempt, error] {
	p := outbox.ListParams{}
	if params != nil {
		p = *params
	}
	return unical.All(ctx, func(ctx context.Context, token string) (*unical.Page[*outbox.Attempt], error) {
		if token != "" {
			p.PageToken = token
		}
		return log.ListDeliveries(ctx, accountID, subscriptionID, &p)
	})
}
