package google

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
)

var _ unical.Watcher = (*Provider)(nil)

// Watch implements [unical.Watcher] with events.watch: a web_hook channel
// with a new id, our token (echoed in X-Goog-Channel-Token) and a ttl up
// to req.Expiration (default 7 days, push guide). Google may shorten the
// lifetime, so the expiration is read back from its answer.
func (p *Provider) Watch(ctx context.Context, s *unical.Session, req *unical.WatchRequest) (*unical.Watch, error) {
	if req.CalendarID == "" {
		return nil, unical.Errorf(unical.CodeNotFound, "Google has no such calendar.")
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	body := map[string]any{
		"id":      hex.EncodeToString(id),
		"type":    "web_hook",
		"address": req.Address,
		"token":   req.Token,
	}
	if !req.Expiration.IsZero() {
		ttl := int64(req.Expiration.Sub(p.now()) / time.Second)
		if ttl < 1 {
			return nil, unical.FieldError("expiration", "The watch would expire before it starts.")
		}
		body["params"] = map[string]string{"ttl": strconv.FormatInt(ttl, 10)}
	}
	c := p.conn(s)
	var ch channel
	// A channel id is ours, so a repeated request cannot create two
	// channels (Google refuses a channel id that is not unique).
	if err := c.doWith(ctx, http.MethodPost, c.api(eventsPath(req.CalendarID)+"/watch", nil), callOpts{safe: true}, body, &ch); err != nil {
		return nil, err
	}
	w := &unical.Watch{ID: ch.ID, ResourceID: ch.ResourceID, Token: req.Token}
	if ms, err := strconv.ParseInt(ch.Expiration, 10, 64); err == nil {
		w.Expiration = time.UnixMilli(ms).UTC()
	}
	return w, nil
}

// RenewWatch implements [unical.Watcher]. Google channels cannot be
// extended (push guide: "there is no automatic way to renew"), so it
// creates a new channel and then stops the old one; the two overlap
// briefly, which the Client's deduplication by token tolerates. A failure
// to stop the old channel is not reported: it ends at its expiration.
func (p *Provider) RenewWatch(ctx context.Context, s *unical.Session, w *unical.Watch, req *unical.WatchRequest) (*unical.Watch, error) {
	nw, err := p.Watch(ctx, s, req)
	if err != nil {
		return nil, err
	}
	_ = p.StopWatch(ctx, s, w)
	return nw, nil
}

// StopWatch implements [unical.Watcher] with channels.stop. A channel
// Google no longer knows (stopped or expired) counts as stopped.
func (p *Provider) StopWatch(ctx context.Context, s *unical.Session, w *unical.Watch) error {
	c := p.conn(s)
	body := map[string]string{"id": w.ID, "resourceId": w.ResourceID}
	err := c.doWith(ctx, http.MethodPost, c.api("/channels/stop", nil), callOpts{safe: true}, body, nil)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil
	}
	return err
}

// ParseNotification implements [unical.Watcher] for Google's push
// requests: a POST with an empty body whose X-Goog-* headers name the
// channel (X-Goog-Channel-ID), echo our token (X-Goog-Channel-Token) and
// say what happened (X-Goog-Resource-State: "sync" when the channel is
// created, "exists" or "not_exists" after a change). The notification
// carries no event data; a change means "sync again". The answer is 200
// with no body (push guide: any 2xx acknowledges).
func (p *Provider) ParseNotification(n *unical.Notification) (*unical.NotificationResult, error) {
	if n.Method != "" && n.Method != http.MethodPost {
		return nil, unical.Errorf(unical.CodeInvalid, "Google push notifications are POST requests.")
	}
	id := header(n.Header, "X-Goog-Channel-ID")
	state := header(n.Header, "X-Goog-Resource-State")
	if id == "" || state == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "The request is not a Google push notification (X-Goog-Channel-ID or X-Goog-Resource-State missing).")
	}
	kind := unical.WatchChanged
	if state == "sync" {
		kind = unical.WatchSync
	}
	return &unical.NotificationResult{
		Status:  http.StatusOK,
		Changes: []unical.WatchChange{{WatchID: id, Token: header(n.Header, "X-Goog-Channel-Token"), Kind: kind}},
	}, nil
}

// header returns the first value of a header, whatever the case of the
// map's keys.
func header(h map[string][]string, name string) string {
	if v := http.Header(h).Get(name); v != "" {
		return v
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}
