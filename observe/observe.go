// Package observe measures the calls of a [unical.Provider]: [Provider]
// wraps one so that each call of its methods, and each retry the provider
// notes ([NoteRetry]), is reported to an [Observer], with the
// method's name, the outcome and the duration. Package metrics uses it
// for its Prometheus counters: a *metrics.Metrics given as
// unical.Config.Observer wraps every provider of the Client
// ([unical.ProviderWrapper]).
//
// The wrapper has every optional interface of a provider (OAuthProvider,
// Watcher, FreeBusyQuerier, TokenRefresher, GrantRevoker, SeriesSplitter,
// RoomLister)
// and answers Unwrap; the Client uses one of them only when the wrapped
// provider has it, so wrapping never gives a provider a power it lacks.
package observe

import (
	"context"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/retrynote"
)

// Observer receives the measurements of provider calls. Every argument is
// from a small fixed set or a number, never an id, an email or a secret,
// so an implementation may use them as label values. Methods are called
// from many goroutines: they must be cheap and safe for concurrent use.
type Observer interface {
	// ProviderCall reports one call of a Provider method: op is the
	// method's name ("ListEvents"), outcome one of the Outcome constants,
	// took the call's duration including the provider's own retries.
	ProviderCall(provider unical.ProviderType, op, outcome string, took time.Duration)
	// ProviderRetry reports that a provider call is about to send a
	// request again after a throttled or failed one (see
	// [NoteRetry]).
	ProviderRetry(provider unical.ProviderType, op string)
}

// Provider call outcomes, as [Observer.ProviderCall] reports them.
const (
	OutcomeOK          = "ok"
	OutcomeRateLimited = "rate_limited"
	OutcomeUnavailable = "unavailable"
	OutcomeExpired     = "expired"
	OutcomeError       = "error"
)

// outcome sorts a provider call's error into an outcome.
func outcome(err error) string {
	switch unical.ErrorCode(err) {
	case "":
		return OutcomeOK
	case unical.CodeRateLimited:
		return OutcomeRateLimited
	case unical.CodeUnavailable:
		return OutcomeUnavailable
	case unical.CodeAccountExpired:
		return OutcomeExpired
	}
	return OutcomeError
}

// Provider returns p wrapped so that its calls are reported to obs; p
// itself when obs is nil.
func Provider(p unical.Provider, obs Observer) unical.Provider {
	if obs == nil {
		return p
	}
	return &provider{p: p, t: p.Type(), obs: obs}
}

// provider reports every call of p to obs.
type provider struct {
	p   unical.Provider
	t   unical.ProviderType
	obs Observer
}

// Unwrap returns the wrapped provider.
func (o *provider) Unwrap() unical.Provider { return o.p }

// NoteRetry tells the measuring wrapper (see [Provider]) that the
// provider call running in ctx sends a request again (after a 429, a 503,
// a timeout), so that retries can be counted. The bundled providers' retry
// loop reports each retry itself; a provider with a loop of its own calls
// NoteRetry before it waits. It does nothing for a context no wrapper made.
func NoteRetry(ctx context.Context) { retrynote.Note(ctx) }

// call runs one provider call with op's retry hook in its context and
// reports it.
func (o *provider) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	ctx = retrynote.With(ctx, func() { o.obs.ProviderRetry(o.t, op) })
	start := time.Now()
	err := fn(ctx)
	o.obs.ProviderCall(o.t, op, outcome(err), time.Since(start))
	return err
}

// call1 is call for methods with a result.
func call1[T any](o *provider, ctx context.Context, op string, fn func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := o.call(ctx, op, func(ctx context.Context) error {
		var err error
		out, err = fn(ctx)
		return err
	})
	return out, err
}

func (o *provider) Type() unical.ProviderType { return o.t }

func (o *provider) Connect(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	return call1(o, ctx, "Connect", func(ctx context.Context) (*unical.Connection, error) { return o.p.Connect(ctx, settings, params) })
}

func (o *provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	return call1(o, ctx, "ListCalendars", func(ctx context.Context) ([]*unical.Calendar, error) { return o.p.ListCalendars(ctx, s) })
}

func (o *provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	return call1(o, ctx, "GetCalendar", func(ctx context.Context) (*unical.Calendar, error) { return o.p.GetCalendar(ctx, s, calendarID) })
}

func (o *provider) CreateCalendar(ctx context.Context, s *unical.Session, params *unical.CalendarParams) (*unical.Calendar, error) {
	return call1(o, ctx, "CreateCalendar", func(ctx context.Context) (*unical.Calendar, error) { return o.p.CreateCalendar(ctx, s, params) })
}

func (o *provider) UpdateCalendar(ctx context.Context, s *unical.Session, calendarID string, params *unical.CalendarParams) (*unical.Calendar, error) {
	return call1(o, ctx, "UpdateCalendar", func(ctx context.Context) (*unical.Calendar, error) {
		return o.p.UpdateCalendar(ctx, s, calendarID, params)
	})
}

func (o *provider) DeleteCalendar(ctx context.Context, s *unical.Session, calendarID string) error {
	return o.call(ctx, "DeleteCalendar", func(ctx context.Context) error { return o.p.DeleteCalendar(ctx, s, calendarID) })
}

func (o *provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	return call1(o, ctx, "ListEvents", func(ctx context.Context) (*unical.EventBatch, error) { return o.p.ListEvents(ctx, s, calendarID, q) })
}

func (o *provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	return call1(o, ctx, "GetEvent", func(ctx context.Context) (*unical.Event, error) { return o.p.GetEvent(ctx, s, calendarID, eventID) })
}

func (o *provider) CreateEvent(ctx context.Context, s *unical.Session, calendarID string, params *unical.EventParams) (*unical.Event, error) {
	return call1(o, ctx, "CreateEvent", func(ctx context.Context) (*unical.Event, error) { return o.p.CreateEvent(ctx, s, calendarID, params) })
}

func (o *provider) UpdateEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, params *unical.EventParams) (*unical.Event, error) {
	return call1(o, ctx, "UpdateEvent", func(ctx context.Context) (*unical.Event, error) {
		return o.p.UpdateEvent(ctx, s, calendarID, eventID, params)
	})
}

func (o *provider) DeleteEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) error {
	return o.call(ctx, "DeleteEvent", func(ctx context.Context) error { return o.p.DeleteEvent(ctx, s, calendarID, eventID) })
}

func (o *provider) RespondToEvent(ctx context.Context, s *unical.Session, calendarID, eventID string, status unical.ResponseStatus) error {
	return o.call(ctx, "RespondToEvent", func(ctx context.Context) error {
		return o.p.RespondToEvent(ctx, s, calendarID, eventID, status)
	})
}

// The optional interfaces follow. The Client calls one only when the
// wrapped provider has it (it looks through Unwrap), so the type
// assertions below hold.

func (o *provider) AuthCodeURL(settings unical.ProviderSettings, req *unical.AuthCodeRequest) (string, error) {
	return o.p.(unical.OAuthProvider).AuthCodeURL(settings, req) // builds a URL; no call to report
}

func (o *provider) Exchange(ctx context.Context, settings unical.ProviderSettings, req *unical.CodeExchange) (*unical.Connection, error) {
	return call1(o, ctx, "Exchange", func(ctx context.Context) (*unical.Connection, error) {
		return o.p.(unical.OAuthProvider).Exchange(ctx, settings, req)
	})
}

func (o *provider) QueryFreeBusy(ctx context.Context, s *unical.Session, q *unical.FreeBusyQuery) (map[string][]unical.Interval, error) {
	return call1(o, ctx, "QueryFreeBusy", func(ctx context.Context) (map[string][]unical.Interval, error) {
		return o.p.(unical.FreeBusyQuerier).QueryFreeBusy(ctx, s, q)
	})
}

func (o *provider) Watch(ctx context.Context, s *unical.Session, req *unical.WatchRequest) (*unical.Watch, error) {
	return call1(o, ctx, "Watch", func(ctx context.Context) (*unical.Watch, error) { return o.p.(unical.Watcher).Watch(ctx, s, req) })
}

func (o *provider) RenewWatch(ctx context.Context, s *unical.Session, w *unical.Watch, req *unical.WatchRequest) (*unical.Watch, error) {
	return call1(o, ctx, "RenewWatch", func(ctx context.Context) (*unical.Watch, error) {
		return o.p.(unical.Watcher).RenewWatch(ctx, s, w, req)
	})
}

func (o *provider) StopWatch(ctx context.Context, s *unical.Session, w *unical.Watch) error {
	return o.call(ctx, "StopWatch", func(ctx context.Context) error { return o.p.(unical.Watcher).StopWatch(ctx, s, w) })
}

func (o *provider) ParseNotification(n *unical.Notification) (*unical.NotificationResult, error) {
	return o.p.(unical.Watcher).ParseNotification(n) // reads a request; no call to report
}

func (o *provider) ConnectDelegated(ctx context.Context, settings unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	return call1(o, ctx, "Connect", func(ctx context.Context) (*unical.Connection, error) {
		return o.p.(unical.DelegatedConnector).ConnectDelegated(ctx, settings, params)
	})
}

func (o *provider) RefreshToken(ctx context.Context, s *unical.Session) (unical.Token, error) {
	return call1(o, ctx, "RefreshToken", func(ctx context.Context) (unical.Token, error) {
		return o.p.(unical.TokenRefresher).RefreshToken(ctx, s)
	})
}

func (o *provider) RevokeGrant(ctx context.Context, s *unical.Session) error {
	return o.call(ctx, "RevokeGrant", func(ctx context.Context) error { return o.p.(unical.GrantRevoker).RevokeGrant(ctx, s) })
}

func (o *provider) SplitSeries(ctx context.Context, s *unical.Session, calendarID string, req *unical.SeriesSplit) (*unical.Event, error) {
	return call1(o, ctx, "SplitSeries", func(ctx context.Context) (*unical.Event, error) {
		return o.p.(unical.SeriesSplitter).SplitSeries(ctx, s, calendarID, req)
	})
}

func (o *provider) ListRooms(ctx context.Context, g *unical.DelegationGrant) ([]unical.Room, error) {
	return call1(o, ctx, "ListRooms", func(ctx context.Context) ([]unical.Room, error) { return o.p.(unical.RoomLister).ListRooms(ctx, g) })
}

// The wrapper has every optional interface; the Client checks the wrapped
// provider before it uses one.
var (
	_ unical.OAuthProvider   = (*provider)(nil)
	_ unical.FreeBusyQuerier = (*provider)(nil)
	_ unical.Watcher         = (*provider)(nil)
	_ unical.TokenRefresher  = (*provider)(nil)
	_ unical.GrantRevoker    = (*provider)(nil)
	_ unical.SeriesSplitter  = (*provider)(nil)
	_ unical.RoomLister      = (*provider)(nil)
)
