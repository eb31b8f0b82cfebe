// Package subscriptions is the webhook subscriptions of an application
// (/v1/calendarSubscriptions) and the provider watches behind them: it
// creates, lists and deletes subscriptions over an App, starts, renews
// and replaces the watches, and takes the push notifications providers
// send (POST /v1/notifications/...). Webhooks are a feature built on the
// calendar domain, not calendar semantics, so they live beside the root
// as the delivery log (package engine) and the slot search (package
// availability) do. Change detection is here too: a subscription's check
// with its sync cursor ([Check]), which the engine schedules, and the
// [Hooks] through which the Client reports a VIRTUAL write at once and
// stops a deleted account's watches. What stays with the Client is the
// outbox the messages go to and the account's provider session.
//
// httpapi serves these operations; the HTTP client of package httpclient
// has the same [API] methods.
package subscriptions

import (
	"context"
	"iter"
	"math/rand/v2"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/internal/addrpolicy"
	"github.com/unical/unical/internal/webhook"
)

// CreateParams is the body of
// POST /v1/calendarSubscriptions/{endUserAccountId}.
type CreateParams struct {
	CalendarID string `json:"calendarId"`
	WebhookURL string `json:"webhookUrl"`
	// RateLimit is the most messages per second; absent means
	// DefaultRateLimit.
	RateLimit unical.Optional[int] `json:"rateLimit,omitzero"`
	// IncludeEvents (our extension) asks for the changed events in each
	// calendar.event.changed message, under data.events.
	IncludeEvents bool `json:"includeEvents,omitempty"`
}

// DefaultRateLimit is the rateLimit of a subscription created without one.
const DefaultRateLimit = 10

// Created is the answer to a subscription create. The EndpointSecret is
// shown once; it verifies webhook signatures.
type Created struct {
	WebhookSubscriptionID string `json:"webhookSubscriptionId"`
	EndpointSecret        string `json:"endpointSecret"`
}

// DeleteParams is the body of
// DELETE /v1/calendarSubscriptions/{endUserAccountId}.
type DeleteParams struct {
	SubscriptionID string `json:"subscriptionId"`
}

// ListParams pages GET /v1/calendarSubscriptions/{endUserAccountId}.
type ListParams struct {
	PageToken string
	Limit     int
}

// API is an application's webhook subscriptions: [Of] an in-process App,
// and the HTTP client of package httpclient, implement it with the same
// types, as both implement unical.API.
type API interface {
	ListSubscriptions(ctx context.Context, accountID string, params *ListParams) (*unical.Page[*unical.Subscription], error)
	CreateSubscription(ctx context.Context, accountID string, params *CreateParams, opts ...unical.WriteOptions) (*Created, error)
	DeleteSubscription(ctx context.Context, accountID string, params *DeleteParams, opts ...unical.WriteOptions) (*unical.Success, error)
}

// Of returns the subscriptions of app, whose methods are [List], [Create]
// and [Delete].
func Of(app *unical.App) API { return appSubscriptions{app} }

type appSubscriptions struct{ app *unical.App }

func (s appSubscriptions) ListSubscriptions(ctx context.Context, accountID string, params *ListParams) (*unical.Page[*unical.Subscription], error) {
	return List(ctx, s.app, accountID, params)
}

func (s appSubscriptions) CreateSubscription(ctx context.Context, accountID string, params *CreateParams, opts ...unical.WriteOptions) (*Created, error) {
	return Create(ctx, s.app, accountID, params, opts...)
}

func (s appSubscriptions) DeleteSubscription(ctx context.Context, accountID string, params *DeleteParams, opts ...unical.WriteOptions) (*unical.Success, error) {
	return Delete(ctx, s.app, accountID, params, opts...)
}

// All walks an account's webhook subscriptions.
func All(ctx context.Context, api API, accountID string, params *ListParams) iter.Seq2[*unical.Subscription, error] {
	p := ListParams{}
	if params != nil {
		p = *params
	}
	return unical.All(ctx, func(ctx context.Context, token string) (*unical.Page[*unical.Subscription], error) {
		if token != "" {
			p.PageToken = token
		}
		return api.ListSubscriptions(ctx, accountID, &p)
	})
}

// List lists an account's webhook subscriptions.
//
// HTTP: GET /v1/calendarSubscriptions/{endUserAccountId}
//
// Returns CodeNotFound if the account is not the application's.
func List(ctx context.Context, app *unical.App, accountID string, params *ListParams) (*unical.Page[*unical.Subscription], error) {
	if params == nil {
		params = &ListParams{}
	}
	st := app.Client().Store()
	if _, err := st.GetAccount(ctx, app.ID(), accountID); err != nil {
		return nil, err
	}
	return unical.ListStorePage(ctx, app, "subscriptions", accountID, params.PageToken, params.Limit,
		func(after string, limit int) ([]*unical.SubscriptionRecord, error) {
			return st.ListSubscriptions(ctx, app.ID(), accountID, after, limit)
		},
		func(rec *unical.SubscriptionRecord) string { return rec.ID },
		func(rec *unical.SubscriptionRecord) *unical.Subscription { sub := rec.Subscription; return &sub })
}

// Create subscribes a webhook URL to changes of one calendar of an
// account. The answer carries the endpoint secret that verifies the
// signatures; it is shown only here. Where Config.PublicURL is set and
// the provider has push ([unical.Watcher]), a provider watch reports
// changes (see [HandleNotification]); otherwise, and when creating the
// watch fails, changes are detected by polling with the provider's sync
// cursor (see engine.PollChanges). Polling makes subscriptions available
// for PROVIDER_C accounts too, an extension of the spec.
//
// HTTP: POST /v1/calendarSubscriptions/{endUserAccountId}
//
// Returns CodeInvalid naming calendarId (unknown calendar), webhookUrl
// (not an absolute https URL) or rateLimit (below 1); CodeNotFound if the
// account is not the application's.
func Create(ctx context.Context, app *unical.App, accountID string, params *CreateParams, opts ...unical.WriteOptions) (*Created, error) {
	o, err := unical.OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, app.Idempotency(), idempotency.Options{Key: o.IdempotencyKey}, func(ctx context.Context) (*Created, error) {
		return create(ctx, app, accountID, params)
	}, "CreateSubscription", accountID, params)
}

func create(ctx context.Context, app *unical.App, accountID string, params *CreateParams) (*Created, error) {
	c := app.Client()
	if params.CalendarID == "" {
		return nil, unical.FieldError("calendarId", "calendarId is required.")
	}
	if params.WebhookURL == "" {
		return nil, unical.FieldError("webhookUrl", "webhookUrl is required.")
	}
	if err := CheckWebhookURL("webhookUrl", params.WebhookURL, c.Config().AllowPrivateTargets); err != nil {
		return nil, err
	}
	rate := DefaultRateLimit
	if params.RateLimit.IsNull() {
		return nil, unical.FieldError("rateLimit", "rateLimit cannot be null; leave it out for the default.")
	}
	if v, ok := params.RateLimit.Get(); ok {
		if v < 1 {
			return nil, unical.FieldError("rateLimit", "rateLimit must be a whole number of at least 1.")
		}
		rate = v
	}
	rec, p, s, err := app.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if _, err := p.GetCalendar(ctx, s, params.CalendarID); err != nil {
		if unical.ErrorCode(err) == unical.CodeNotFound {
			return nil, unical.FieldError("calendarId", "The account has no calendar %q.", params.CalendarID)
		}
		return nil, app.ProviderFailed(ctx, accountID, err)
	}
	now := c.Config().Now().UTC()
	secret := webhook.NewSecret()
	sub := &unical.SubscriptionRecord{
		Subscription: unical.Subscription{
			ID: unical.NewID("sub"), Provider: rec.ProviderType, URL: params.WebhookURL, CalendarID: params.CalendarID,
			EndUserAccountID: accountID, CreatedAt: now, UpdatedAt: now, IncludeEvents: params.IncludeEvents,
		},
		ApplicationID: app.ID(),
		RateLimit:     rate,
		// The first check comes at a random point of the first interval,
		// so that subscriptions made together are not checked together.
		NextCheckAt: firstCheck(now, changePoll(c)),
	}
	sub.SealedSecret = c.Keys().SealSubscriptionSecret(sub.ID, secret)
	// The baseline cursor, so that the first poll reports changes made
	// from now on. Without one the poller takes its baseline later.
	if cursor, err := baselineCursor(ctx, p, s, params.CalendarID); err == nil {
		sub.Cursor, sub.CursorAt = cursor, now
	} else {
		c.Config().Logger.WarnContext(ctx, "baseline sync cursor", "account", accountID, "err", err)
	}
	startWatch(ctx, c, p, s, sub)
	if err := c.Store().CreateSubscription(ctx, sub); err != nil {
		StopWatch(ctx, app, sub)
		return nil, err
	}
	return &Created{WebhookSubscriptionID: sub.ID, EndpointSecret: secret}, nil
}

// firstCheck is a new subscription's first NextCheckAt: a random time in
// the first polling interval after now (zero when polling is disabled).
func firstCheck(now time.Time, interval time.Duration) time.Time {
	if interval <= 0 {
		return time.Time{}
	}
	return now.Add(1 + rand.N(interval))
}

// Delete deletes a subscription; nothing more is sent for it.
//
// HTTP: DELETE /v1/calendarSubscriptions/{endUserAccountId}
//
// Returns CodeInvalid without subscriptionId and CodeNotFound if the
// subscription is not the account's.
func Delete(ctx context.Context, app *unical.App, accountID string, params *DeleteParams, opts ...unical.WriteOptions) (*unical.Success, error) {
	o, err := unical.OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotency.Do(ctx, app.Idempotency(), idempotency.Options{Key: o.IdempotencyKey}, func(ctx context.Context) (*unical.Success, error) {
		return deleteSubscription(ctx, app, accountID, params)
	}, "DeleteSubscription", accountID, params)
}

func deleteSubscription(ctx context.Context, app *unical.App, accountID string, params *DeleteParams) (*unical.Success, error) {
	if params.SubscriptionID == "" {
		return nil, unical.FieldError("subscriptionId", "subscriptionId is required.")
	}
	sub, err := Get(ctx, app, accountID, params.SubscriptionID)
	if err != nil {
		return nil, err
	}
	if err := app.Client().Store().DeleteSubscription(ctx, app.ID(), sub.ID); err != nil {
		return nil, err
	}
	StopWatch(ctx, app, sub)
	return &unical.Success{Success: true}, nil
}

// Get returns the stored subscription subscriptionID of the application's
// account accountID, or CodeNotFound when the account is not the
// application's or the subscription not the account's.
func Get(ctx context.Context, app *unical.App, accountID, subscriptionID string) (*unical.SubscriptionRecord, error) {
	st := app.Client().Store()
	if _, err := st.GetAccount(ctx, app.ID(), accountID); err != nil {
		return nil, err
	}
	sub, err := st.GetSubscription(ctx, app.ID(), subscriptionID)
	if err != nil {
		return nil, err
	}
	if sub.EndUserAccountID != accountID {
		return nil, unical.Errorf(unical.CodeNotFound, "No subscription %q for this account.", subscriptionID)
	}
	return sub, nil
}

// CheckWebhookURL refuses a webhook URL (a subscription's, or an
// application's own, which package admin checks with it) that is not an
// absolute https URL or, unless allowPrivate (Config.AllowPrivateTargets),
// names a loopback, private or link-local host (see
// addrpolicy.TargetURLProblem), as CodeInvalid naming field.
func CheckWebhookURL(field, raw string, allowPrivate bool) error {
	if problem := addrpolicy.TargetURLProblem(field, raw, allowPrivate); problem != "" {
		return unical.FieldError(field, "%s", problem)
	}
	return nil
}
