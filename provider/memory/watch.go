package memory

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/unical/unical"
)

// Notification headers of the in-memory provider, shaped like Google's
// channel headers: the channel id, the token the subscriber chose and the
// resource state ("sync" for the hello, "exists" for a change, and Graph's
// lifecycle events "missed", "reauthorizationRequired" and
// "subscriptionRemoved").
const (
	HeaderChannelID = "X-Mem-Channel-Id"
	HeaderToken     = "X-Mem-Channel-Token"
	HeaderState     = "X-Mem-Resource-State"
)

// WatchProvider is a Provider with push: it implements [unical.Watcher].
// It is a separate type so that tests choose whether the Client sees push.
type WatchProvider struct {
	*Provider

	// MaxWatch caps a watch's lifetime as providers do; zero means 24
	// hours.
	MaxWatch time.Duration

	wmu     sync.Mutex
	watches map[string]*ActiveWatch // by id
	nextW   int
	stopped []string
	renewed int
	failErr error // returned by Watch and RenewWatch while set
}

// FailWatches makes Watch and RenewWatch return err (nil: work again), as
// a provider that refuses new watches does.
func (p *WatchProvider) FailWatches(err error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.failErr = err
}

// Renewals returns how many times RenewWatch succeeded.
func (p *WatchProvider) Renewals() int {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.renewed
}

// Remove drops a watch without the subscriber asking, as Graph removes a
// subscription (it then sends subscriptionRemoved).
func (p *WatchProvider) Remove(id string) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	delete(p.watches, id)
}

// ActiveWatch is a watch the provider holds.
type ActiveWatch struct {
	unical.Watch
	CalendarID string
	Address    string
	Email      string
}

var _ unical.Watcher = (*WatchProvider)(nil)

// NewWatcher returns a provider of type cfg.Type with push.
func NewWatcher(cfg Config) *WatchProvider {
	return &WatchProvider{Provider: New(cfg), watches: map[string]*ActiveWatch{}}
}

// Watch implements unical.Watcher.
func (p *WatchProvider) Watch(ctx context.Context, s *unical.Session, req *unical.WatchRequest) (*unical.Watch, error) {
	p.mu.Lock()
	_, _, err := p.calendar(s, req.CalendarID)
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	maxLife := p.MaxWatch
	if maxLife <= 0 {
		maxLife = 24 * time.Hour
	}
	exp := req.Expiration
	if limit := time.Now().Add(maxLife); exp.IsZero() || exp.After(limit) {
		exp = limit
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.failErr != nil {
		return nil, p.failErr
	}
	p.nextW++
	w := &ActiveWatch{
		Watch:      unical.Watch{ID: "channel-" + strconv.Itoa(p.nextW), ResourceID: "resource/" + req.CalendarID, Expiration: exp.UTC().Truncate(time.Second), Token: req.Token},
		CalendarID: req.CalendarID, Address: req.Address, Email: s.Email,
	}
	p.watches[w.ID] = w
	out := w.Watch
	return &out, nil
}

// RenewWatch implements unical.Watcher as Google does: a new channel
// replaces the old one, which is stopped.
func (p *WatchProvider) RenewWatch(ctx context.Context, s *unical.Session, w *unical.Watch, req *unical.WatchRequest) (*unical.Watch, error) {
	nw, err := p.Watch(ctx, s, req)
	if err != nil {
		return nil, err
	}
	p.wmu.Lock()
	p.renewed++
	p.wmu.Unlock()
	return nw, p.StopWatch(ctx, s, w)
}

// StopWatch implements unical.Watcher.
func (p *WatchProvider) StopWatch(ctx context.Context, s *unical.Session, w *unical.Watch) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, ok := p.watches[w.ID]; ok {
		delete(p.watches, w.ID)
		p.stopped = append(p.stopped, w.ID)
	}
	return nil
}

// ParseNotification implements unical.Watcher. It does not check the
// token: that is the Client's job, which the tests check.
func (p *WatchProvider) ParseNotification(n *unical.Notification) (*unical.NotificationResult, error) {
	h := http.Header(n.Header)
	id := h.Get(HeaderChannelID)
	if id == "" {
		return nil, unical.Errorf(unical.CodeInvalid, "Not a notification: no %s header.", HeaderChannelID)
	}
	kind := unical.WatchChanged
	switch h.Get(HeaderState) {
	case "sync":
		kind = unical.WatchSync
	case "missed":
		kind = unical.WatchMissed
	case "reauthorizationRequired":
		kind = unical.WatchReauthorize
	case "subscriptionRemoved":
		kind = unical.WatchRemoved
	}
	return &unical.NotificationResult{Status: http.StatusOK, Changes: []unical.WatchChange{{WatchID: id, Token: h.Get(HeaderToken), Kind: kind}}}, nil
}

// Watches returns the active watches.
func (p *WatchProvider) Watches() []ActiveWatch {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	var out []ActiveWatch
	for _, w := range p.watches {
		out = append(out, *w)
	}
	return out
}

// Stopped returns the ids of the watches stopped so far.
func (p *WatchProvider) Stopped() []string {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return append([]string(nil), p.stopped...)
}

// NotificationHeader returns the headers the provider would send for a
// change (state "exists") or the hello (state "sync") of a watch.
func NotificationHeader(w *ActiveWatch, state string) http.Header {
	return http.Header{HeaderChannelID: {w.ID}, HeaderToken: {w.Token}, HeaderState: {state}, "X-Mem-Message-Number": {fmt.Sprint(time.Now().UnixNano())}}
}
