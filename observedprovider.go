package unical

import (
	"context"
	"time"
)

// observedProvider reports every call of a Provider to an Observer. It
// implements only Provider: what else the wrapped provider can do is found
// with the xxxOf functions below, which see through it, so that wrapping
// never makes a provider claim an optional interface it lacks.
type observedProvider struct {
	p   Provider
	t   ProviderType
	obs Observer
}

// observe wraps p when there is an observer.
func observe(p Provider, obs Observer) Provider {
	if obs == nil {
		return p
	}
	return &observedProvider{p: p, t: p.Type(), obs: obs}
}

// call runs one provider call with op's retry hook in its context and
// reports it.
func (o *observedProvider) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	ctx = context.WithValue(ctx, retryKey{}, func() { o.obs.ProviderRetry(o.t, op) })
	start := time.Now()
	err := fn(ctx)
	o.obs.ProviderCall(o.t, op, providerOutcome(err), time.Since(start))
	return err
}

// observed1 is call for methods with a result.
func observed1[T any](o *observedProvider, ctx context.Context, op string, fn func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := o.call(ctx, op, func(ctx context.Context) error {
		var err error
		out, err = fn(ctx)
		return err
	})
	return out, err
}

func (o *observedProvider) Type() ProviderType { return o.t }

func (o *observedProvider) Connect(ctx context.Context, settings ProviderSettings, params ConnectParams) (*Connection, error) {
	return observed1(o, ctx, "Connect", func(ctx context.Context) (*Connection, error) { return o.p.Connect(ctx, settings, params) })
}

func (o *observedProvider) ListCalendars(ctx context.Context, s *Session) ([]*Calendar, error) {
	return observed1(o, ctx, "ListCalendars", func(ctx context.Context) ([]*Calendar, error) { return o.p.ListCalendars(ctx, s) })
}

func (o *observedProvider) GetCalendar(ctx context.Context, s *Session, calendarID string) (*Calendar, error) {
	return observed1(o, ctx, "GetCalendar", func(ctx context.Context) (*Calendar, error) { return o.p.GetCalendar(ctx, s, calendarID) })
}

func (o *observedProvider) CreateCalendar(ctx context.Context, s *Session, params *CalendarParams) (*Calendar, error) {
	return observed1(o, ctx, "CreateCalendar", func(ctx context.Context) (*Calendar, error) { return o.p.CreateCalendar(ctx, s, params) })
}

func (o *observedProvider) UpdateCalendar(ctx context.Context, s *Session, calendarID string, params *CalendarParams) (*Calendar, error) {
	return observed1(o, ctx, "UpdateCalendar", func(ctx context.Context) (*Calendar, error) {
		return o.p.UpdateCalendar(ctx, s, calendarID, params)
	})
}

func (o *observedProvider) DeleteCalendar(ctx context.Context, s *Session, calendarID string) error {
	return o.call(ctx, "DeleteCalendar", func(ctx context.Context) error { return o.p.DeleteCalendar(ctx, s, calendarID) })
}

func (o *observedProvider) ListEvents(ctx context.Context, s *Session, calendarID string, q *EventQuery) (*EventBatch, error) {
	return observed1(o, ctx, "ListEvents", func(ctx context.Context) (*EventBatch, error) { return o.p.ListEvents(ctx, s, calendarID, q) })
}

func (o *observedProvider) GetEvent(ctx context.Context, s *Session, calendarID, eventID string) (*Event, error) {
	return observed1(o, ctx, "GetEvent", func(ctx context.Context) (*Event, error) { return o.p.GetEvent(ctx, s, calendarID, eventID) })
}

func (o *observedProvider) CreateEvent(ctx context.Context, s *Session, calendarID string, params *EventParams) (*Event, error) {
	return observed1(o, ctx, "CreateEvent", func(ctx context.Context) (*Event, error) { return o.p.CreateEvent(ctx, s, calendarID, params) })
}

func (o *observedProvider) UpdateEvent(ctx context.Context, s *Session, calendarID, eventID string, params *EventParams) (*Event, error) {
	return observed1(o, ctx, "UpdateEvent", func(ctx context.Context) (*Event, error) {
		return o.p.UpdateEvent(ctx, s, calendarID, eventID, params)
	})
}

func (o *observedProvider) DeleteEvent(ctx context.Context, s *Session, calendarID, eventID string) error {
	return o.call(ctx, "DeleteEvent", func(ctx context.Context) error { return o.p.DeleteEvent(ctx, s, calendarID, eventID) })
}

func (o *observedProvider) RespondToEvent(ctx context.Context, s *Session, calendarID, eventID string, status ResponseStatus) error {
	return o.call(ctx, "RespondToEvent", func(ctx context.Context) error {
		return o.p.RespondToEvent(ctx, s, calendarID, eventID, status)
	})
}

// observedOAuth is the OAuthProvider face of an observedProvider.
type observedOAuth struct {
	*observedProvider
	op OAuthProvider
}

func (o observedOAuth) AuthCodeURL(settings ProviderSettings, req *AuthCodeRequest) (string, error) {
	return o.op.AuthCodeURL(settings, req) // builds a URL; no call to report
}

func (o observedOAuth) Exchange(ctx context.Context, settings ProviderSettings, req *CodeExchange) (*Connection, error) {
	return observed1(o.observedProvider, ctx, "Exchange", func(ctx context.Context) (*Connection, error) {
		return o.op.Exchange(ctx, settings, req)
	})
}

// observedFreeBusy is the FreeBusyQuerier face of an observedProvider.
type observedFreeBusy struct {
	*observedProvider
	fb FreeBusyQuerier
}

func (o observedFreeBusy) QueryFreeBusy(ctx context.Context, s *Session, q *FreeBusyQuery) (map[string][]Interval, error) {
	return observed1(o.observedProvider, ctx, "QueryFreeBusy", func(ctx context.Context) (map[string][]Interval, error) {
		return o.fb.QueryFreeBusy(ctx, s, q)
	})
}

// observedWatcher is the Watcher face of an observedProvider.
type observedWatcher struct {
	*observedProvider
	w Watcher
}

func (o observedWatcher) Watch(ctx context.Context, s *Session, req *WatchRequest) (*Watch, error) {
	return observed1(o.observedProvider, ctx, "Watch", func(ctx context.Context) (*Watch, error) { return o.w.Watch(ctx, s, req) })
}

func (o observedWatcher) RenewWatch(ctx context.Context, s *Session, w *Watch, req *WatchRequest) (*Watch, error) {
	return observed1(o.observedProvider, ctx, "RenewWatch", func(ctx context.Context) (*Watch, error) {
		return o.w.RenewWatch(ctx, s, w, req)
	})
}

func (o observedWatcher) StopWatch(ctx context.Context, s *Session, w *Watch) error {
	return o.call(ctx, "StopWatch", func(ctx context.Context) error { return o.w.StopWatch(ctx, s, w) })
}

func (o observedWatcher) ParseNotification(n *Notification) (*NotificationResult, error) {
	return o.w.ParseNotification(n) // reads a request; no call to report
}

// observedRefresher is the TokenRefresher face of an observedProvider.
type observedRefresher struct {
	*observedProvider
	r TokenRefresher
}

func (o observedRefresher) RefreshToken(ctx context.Context, s *Session) (Token, error) {
	return observed1(o.observedProvider, ctx, "RefreshToken", func(ctx context.Context) (Token, error) { return o.r.RefreshToken(ctx, s) })
}

// faceOf returns p as the optional interface T, if the provider has it:
// through the Observer's wrapper, as observed's wrapper of that face.
func faceOf[T any](p Provider, observed func(*observedProvider, T) T) (T, bool) {
	if o, ok := p.(*observedProvider); ok {
		inner, ok := o.p.(T)
		if !ok {
			var zero T
			return zero, false
		}
		return observed(o, inner), true
	}
	t, ok := p.(T)
	return t, ok
}

// revokerOf returns p as a GrantRevoker, if it is one; the call is
// reported as RevokeGrant.
func revokerOf(p Provider) (GrantRevoker, bool) {
	return faceOf(p, func(o *observedProvider, f GrantRevoker) GrantRevoker { return observedRevoker{o, f} })
}

// observedRevoker is the GrantRevoker face of an observedProvider.
type observedRevoker struct {
	*observedProvider
	r GrantRevoker
}

func (o observedRevoker) RevokeGrant(ctx context.Context, s *Session) error {
	return o.call(ctx, "RevokeGrant", func(ctx context.Context) error { return o.r.RevokeGrant(ctx, s) })
}

// oauthOf returns p as an OAuthProvider, if it is one.
func oauthOf(p Provider) (OAuthProvider, bool) {
	return faceOf(p, func(o *observedProvider, f OAuthProvider) OAuthProvider { return observedOAuth{o, f} })
}

// freeBusyOf returns p as a FreeBusyQuerier, if it is one.
func freeBusyOf(p Provider) (FreeBusyQuerier, bool) {
	return faceOf(p, func(o *observedProvider, f FreeBusyQuerier) FreeBusyQuerier { return observedFreeBusy{o, f} })
}

// watcherOf returns p as a Watcher, if it is one.
func watcherOf(p Provider) (Watcher, bool) {
	return faceOf(p, func(o *observedProvider, f Watcher) Watcher { return observedWatcher{o, f} })
}

// refresherOf returns p as a TokenRefresher, if it is one.
func refresherOf(p Provider) (TokenRefresher, bool) {
	return faceOf(p, func(o *observedProvider, f TokenRefresher) TokenRefresher { return observedRefresher{o, f} })
}

// observedSplitter is the SeriesSplitter face of an observedProvider.
type observedSplitter struct {
	*observedProvider
	sp SeriesSplitter
}

func (o observedSplitter) SplitSeries(ctx context.Context, s *Session, calendarID string, req *SeriesSplit) (*Event, error) {
	return observed1(o.observedProvider, ctx, "SplitSeries", func(ctx context.Context) (*Event, error) {
		return o.sp.SplitSeries(ctx, s, calendarID, req)
	})
}

// splitterOf returns p as a SeriesSplitter, if it is one.
func splitterOf(p Provider) (SeriesSplitter, bool) {
	return faceOf(p, func(o *observedProvider, f SeriesSplitter) SeriesSplitter { return observedSplitter{o, f} })
}
