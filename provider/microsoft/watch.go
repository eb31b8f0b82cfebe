package microsoft

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/unical/unical"
)

var _ unical.Watcher = (*Provider)(nil)

// Change notifications follow "Receive change notifications through
// webhooks" (https://learn.microsoft.com/graph/change-notifications-delivery-webhooks)
// and "Reduce missing subscriptions and change notifications"
// (https://learn.microsoft.com/graph/change-notifications-lifecycle-events).

// DefaultMaxWatchLifetime is the longest lifetime asked for an events
// subscription: 4,230 minutes (under three days), the maximum for Outlook
// message, event and contact subscriptions in the table "Maximum length of
// subscription per resource type" (microsoft-graph-docs-contrib
// concepts/includes/change-notifications-subscription-lifetime.md, as
// stored for the search tool). One revision of that page gives 10,080
// minutes; the page warns that requests "beyond the maximum value will
// fail", so we keep to the shorter value until the two agree. Rich
// notifications would be capped at 1,440 minutes; the provider does not
// ask for resource data. Config.MaxWatchLifetime can lower it.
const DefaultMaxWatchLifetime = 4230 * time.Minute

// watchSkew is taken off the maximum lifetime so that a clock running a
// little ahead of Graph's does not ask for more than Graph allows.
const watchSkew = time.Minute

// maxClientState is Graph's limit on clientState.
const maxClientState = 128

// lifecycleKinds maps Graph's lifecycle events to WatchChange kinds.
var lifecycleKinds = map[string]unical.WatchChangeKind{
	"reauthorizationRequired": unical.WatchReauthorize,
	"subscriptionRemoved":     unical.WatchRemoved,
	"missed":                  unical.WatchMissed,
}

// watchExpiry returns the expiration to ask Graph for: req.Expiration,
// capped at the maximum lifetime from now.
func (p *Provider) watchExpiry(req *unical.WatchRequest) (time.Time, error) {
	now := p.now()
	limit := now.Add(p.maxWatchLifetime - watchSkew)
	exp := req.Expiration
	if exp.IsZero() || exp.After(limit) {
		exp = limit
	}
	if !exp.After(now) {
		return time.Time{}, unical.FieldError("expiration", "The watch would expire before it starts.")
	}
	return exp.UTC(), nil
}

// Watch implements [unical.Watcher] with a Graph subscription (POST
// /subscriptions) to created, updated and deleted events of the calendar.
// Notifications and lifecycle notifications both go to req.Address, with
// req.Token as the clientState. Graph validates the address before it
// answers, so req.Address must already answer the handshake through
// ParseNotification. The expiration is capped at Config.MaxWatchLifetime.
//
// The resource is me/calendars/{id}/events, which only notifies for the
// calendar but is UNVERIFIED: the documentation lists only me/events and
// users/{id}/events for events ("Changes to all events in a user's
// mailbox", concepts/includes/change-notifications-supported-resources-expanded.md),
// while users report the per-calendar path working
// (microsoft-graph-docs-contrib issue 51). When Graph refuses it with a
// 400, Watch checks that the calendar exists and subscribes to me/events
// instead: notifications for other calendars then only cost a sync with
// nothing new.
func (p *Provider) Watch(ctx context.Context, s *unical.Session, req *unical.WatchRequest) (*unical.Watch, error) {
	if req.CalendarID == "" {
		return nil, unical.Errorf(unical.CodeNotFound, "Microsoft Graph has no such calendar.")
	}
	if len(req.Token) > maxClientState {
		return nil, unical.Errorf(unical.CodeInternal, "microsoft: watch token longer than Graph's 128-character clientState")
	}
	exp, err := p.watchExpiry(req)
	if err != nil {
		return nil, err
	}
	w, err := p.subscribe(ctx, s, req, strings.TrimPrefix(calendarPath(req.CalendarID), "/")+"/events", exp)
	if unical.ErrorCode(err) != unical.CodeInvalid {
		return w, err
	}
	if _, cerr := p.GetCalendar(ctx, s, req.CalendarID); cerr != nil {
		return nil, cerr
	}
	return p.subscribe(ctx, s, req, "me/events", exp)
}

// subscribe creates a subscription to resource until exp.
func (p *Provider) subscribe(ctx context.Context, s *unical.Session, req *unical.WatchRequest, resource string, exp time.Time) (*unical.Watch, error) {
	body := map[string]any{
		"changeType":               "created,updated,deleted",
		"notificationUrl":          req.Address,
		"lifecycleNotificationUrl": req.Address,
		"resource":                 p.client(s).userPath(resource),
		"expirationDateTime":       exp.Format(time.RFC3339),
		"clientState":              req.Token,
	}
	var sub subscription
	if err := p.client(s).do(ctx, request{method: http.MethodPost, target: "/subscriptions", body: body}, &sub); err != nil {
		return nil, err
	}
	return watchFromGraph(&sub, req.Token)
}

// watchFromGraph maps a subscription to a Watch; the resource becomes the
// ResourceID.
func watchFromGraph(sub *subscription, token string) (*unical.Watch, error) {
	exp, err := time.Parse(time.RFC3339Nano, sub.ExpirationDateTime)
	if err != nil || sub.ID == "" {
		return nil, unical.Errorf(unical.CodeUpstream, "Microsoft Graph answered with a subscription unical cannot read.")
	}
	return &unical.Watch{ID: sub.ID, ResourceID: sub.Resource, Expiration: exp.UTC(), Token: token}, nil
}

// RenewWatch implements [unical.Watcher] by PATCHing the subscription's
// expirationDateTime, which also answers a reauthorizationRequired
// challenge. A subscription Graph no longer knows (removed or expired) is
// created again with Watch, under a new id. Graph cannot change a
// subscription's clientState, so a request with another token than the
// watch's creates a new subscription and then deletes the old one (best
// effort; the two overlap briefly).
func (p *Provider) RenewWatch(ctx context.Context, s *unical.Session, w *unical.Watch, req *unical.WatchRequest) (*unical.Watch, error) {
	if req.Token != "" && req.Token != w.Token {
		nw, err := p.Watch(ctx, s, req)
		if err != nil {
			return nil, err
		}
		_ = p.StopWatch(ctx, s, w)
		return nw, nil
	}
	exp, err := p.watchExpiry(req)
	if err != nil {
		return nil, err
	}
	var sub subscription
	err = p.client(s).do(ctx, request{
		method: http.MethodPatch, target: "/subscriptions/" + pathID(w.ID),
		body: map[string]any{"expirationDateTime": exp.Format(time.RFC3339)},
	}, &sub)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return p.Watch(ctx, s, req)
	}
	if err != nil {
		return nil, err
	}
	return watchFromGraph(&sub, w.Token)
}

// StopWatch implements [unical.Watcher] with DELETE /subscriptions/{id}.
// A subscription Graph no longer knows counts as stopped.
func (p *Provider) StopWatch(ctx context.Context, s *unical.Session, w *unical.Watch) error {
	err := p.client(s).do(ctx, request{method: http.MethodDelete, target: "/subscriptions/" + pathID(w.ID)}, nil)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil
	}
	return err
}

// ParseNotification implements [unical.Watcher] for Graph's POSTs:
//
//   - The validation handshake (?validationToken=...) is answered 200,
//     text/plain, with the URL-decoded token as the body.
//   - A change notification batch ({"value": [...]}) becomes one
//     "changed" WatchChange per item, with the subscriptionId as WatchID
//     and the clientState as Token; the Client compares the token with the
//     stored one, so nothing else in the body is trusted or used.
//   - Lifecycle notifications become "reauthorize"
//     (reauthorizationRequired), "removed" (subscriptionRemoved) and
//     "missed" (missed); unknown lifecycle events are ignored.
//
// Notifications are answered 202 Accepted with no body, as Graph asks
// for a quick 2xx. A body that is not a notification is CodeInvalid.
func (p *Provider) ParseNotification(n *unical.Notification) (*unical.NotificationResult, error) {
	if n.Method != "" && n.Method != http.MethodPost {
		return nil, unical.Errorf(unical.CodeInvalid, "Microsoft Graph notifications are POST requests.")
	}
	if vs, ok := n.Query["validationToken"]; ok {
		if len(vs) != 1 || vs[0] == "" || len(vs[0]) > 1024 {
			return nil, unical.Errorf(unical.CodeInvalid, "The validation request has no usable validationToken.")
		}
		return &unical.NotificationResult{
			Status:      http.StatusOK,
			ContentType: "text/plain; charset=utf-8",
			Body:        []byte(vs[0]),
		}, nil
	}
	var batch struct {
		Value []changeNotification `json:"value"`
	}
	if err := json.Unmarshal(n.Body, &batch); err != nil || batch.Value == nil {
		return nil, unical.Errorf(unical.CodeInvalid, "The request is not a Microsoft Graph notification.")
	}
	res := &unical.NotificationResult{Status: http.StatusAccepted, Changes: []unical.WatchChange{}}
	for _, it := range batch.Value {
		if it.SubscriptionID == "" {
			continue
		}
		kind := unical.WatchChanged
		if it.LifecycleEvent != "" {
			k, ok := lifecycleKinds[it.LifecycleEvent]
			if !ok {
				continue
			}
			kind = k
		}
		res.Changes = append(res.Changes, unical.WatchChange{WatchID: it.SubscriptionID, Token: it.ClientState, Kind: kind})
	}
	return res, nil
}
