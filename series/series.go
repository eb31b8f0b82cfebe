// Package series writes the "this and following" edits of a recurring
// series (the scope query parameter of PUT and DELETE on an event): the
// series ends before an occurrence and, for an update, a new series starts
// there. It is built on the App's exported operations (sessions, event
// writes, occurrences listings, the Idempotency-Key runner) and on the
// providers' optional [unical.SeriesSplitter]; httpapi's event update and
// delete call it, and httpclient has the same two methods over HTTP.
package series

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
)

// EditScope says which occurrences of a recurring series a write on one
// occurrence changes (the scope query parameter of PUT and DELETE on an
// event).
type EditScope string

// The edit scopes.
const (
	// ScopeThis changes the one event or occurrence the id names (the
	// default).
	ScopeThis EditScope = "this"
	// ScopeThisAndFollowing changes an occurrence and every later one: the
	// series ends before it and, for an update, a new series starts there.
	ScopeThisAndFollowing EditScope = "thisAndFollowing"
)

// EditScopes lists the accepted scope values.
var EditScopes = []string{string(ScopeThis), string(ScopeThisAndFollowing)}

// API is the two scoped writes, which the in-process App has through [Of]
// and httpclient.Client has as methods of its own, so that a program (and
// the shared API test suite) calls both alike.
type API interface {
	UpdateEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, params *unical.EventParams, opts ...unical.WriteOptions) (*unical.Event, error)
	DeleteEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, opts ...unical.WriteOptions) (*unical.Success, error)
}

// Of returns the scoped writes of app as an [API].
func Of(app *unical.App) API { return appSeries{app} }

type appSeries struct{ app *unical.App }

func (s appSeries) UpdateEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, params *unical.EventParams, opts ...unical.WriteOptions) (*unical.Event, error) {
	return Update(ctx, s.app, accountID, calendarID, eventID, scope, params, opts...)
}

func (s appSeries) DeleteEventWithScope(ctx context.Context, accountID, calendarID, eventID string, scope EditScope, opts ...unical.WriteOptions) (*unical.Success, error) {
	return Delete(ctx, s.app, accountID, calendarID, eventID, scope, opts...)
}

// Update is [unical.App.UpdateEvent] with an edit scope. With
// ScopeThisAndFollowing, eventID must name an occurrence: the series ends
// before it (see [unical.SplitRecurrence]) and a new series starts at it,
// made of the series' fields with params applied; the answer is the new
// series. Overridden and cancelled occurrences from the split on (within
// 364 days of it) move to the new series: an override keeps what it
// changed, and its own times when it had moved; cancelled occurrences stay
// cancelled. Splitting at the first occurrence updates the whole series.
//
// HTTP: PUT /v1/events/{endUserAccountId}/{calendarId}/{eventId}?scope=thisAndFollowing
//
// Returns CodeInvalid naming scope for an unknown scope, or for
// thisAndFollowing on an id that is not an occurrence, and naming the
// field for bad values; nothing is written then.
func Update(ctx context.Context, app *unical.App, accountID, calendarID, eventID string, scope EditScope, params *unical.EventParams, opts ...unical.WriteOptions) (*unical.Event, error) {
	o, err := unical.OptionsOf(opts, unical.OptionNotifyAttendees, unical.OptionIfMatch)
	if err != nil {
		return nil, err
	}
	// A split makes several writes: the key covers the whole call, and
	// the writes inside run without it.
	return once(ctx, app, o, "UpdateEventWithScope", func(ctx context.Context) (*unical.Event, error) {
		return update(ctx, app, accountID, calendarID, eventID, scope, params, withoutKey(o))
	}, accountID, calendarID, eventID, scope, params)
}

func update(ctx context.Context, app *unical.App, accountID, calendarID, eventID string, scope EditScope, params *unical.EventParams, o unical.WriteOptions) (*unical.Event, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if scope != ScopeThisAndFollowing {
		return app.UpdateEvent(ctx, accountID, calendarID, eventID, params, o)
	}
	if err := params.Validate(false, nil); err != nil {
		return nil, err
	}
	sp, err := planSplit(ctx, app, accountID, calendarID, eventID, o)
	if err != nil {
		return nil, err
	}
	if err := checkEvent(ctx, app, sp.p.Type(), params); err != nil {
		return nil, err
	}
	if sp.first {
		return app.UpdateEvent(ctx, accountID, calendarID, sp.master.ID, params, o)
	}
	create, shift, err := sp.newSeriesParams(params)
	if err != nil {
		return nil, err
	}
	splitter, native := unical.SplitterOf(sp.p)
	// A SeriesSplitter keeps the old series' exceptions itself.
	if err := sp.read(ctx, !native); err != nil {
		return nil, err
	}
	if native {
		e, err := splitter.SplitSeries(ctx, sp.s, calendarID, sp.request(create, shift))
		if err != nil {
			return nil, app.ProviderFailed(ctx, accountID, err)
		}
		return e, nil
	}
	// Without a SeriesSplitter the split is written as Google's guide
	// describes it ("Recurring events", "Modifying all following
	// instances": trim the original's recurrence, insert a new recurring
	// event), which is also how Outlook splits a Graph series. The new
	// series comes first, so a failure leaves the old one whole.
	created, err := sp.p.CreateEvent(ctx, sp.s, calendarID, create)
	if err != nil {
		return nil, app.ProviderFailed(ctx, accountID, err)
	}
	if err := sp.moveExceptions(ctx, created, shift); err != nil {
		// Best effort: without the new series the calendar shows what it
		// showed before.
		_ = sp.p.DeleteEvent(ctx, sp.s, calendarID, created.ID)
		return nil, app.ProviderFailed(ctx, accountID, err)
	}
	if err := sp.endSeries(ctx); err != nil {
		if !sp.oldChanged {
			_ = sp.p.DeleteEvent(ctx, sp.s, calendarID, created.ID)
		}
		return nil, app.ProviderFailed(ctx, accountID, err)
	}
	if e, err := sp.p.GetEvent(ctx, sp.s, calendarID, created.ID); err == nil {
		return e, nil
	}
	return created, nil
}

// Delete is [unical.App.DeleteEvent] with an edit scope. With
// ScopeThisAndFollowing, eventID must name an occurrence: the series ends
// before it, and its overrides from there on are deleted. Splitting at the
// first occurrence deletes the whole series.
//
// HTTP: DELETE /v1/events/{endUserAccountId}/{calendarId}/{eventId}?scope=thisAndFollowing
//
// Returns CodeInvalid naming scope for an unknown scope, or for
// thisAndFollowing on an id that is not an occurrence; nothing is written
// then.
func Delete(ctx context.Context, app *unical.App, accountID, calendarID, eventID string, scope EditScope, opts ...unical.WriteOptions) (*unical.Success, error) {
	o, err := unical.OptionsOf(opts, unical.OptionNotifyAttendees, unical.OptionIfMatch)
	if err != nil {
		return nil, err
	}
	return once(ctx, app, o, "DeleteEventWithScope", func(ctx context.Context) (*unical.Success, error) {
		return deleteEvents(ctx, app, accountID, calendarID, eventID, scope, withoutKey(o))
	}, accountID, calendarID, eventID, scope)
}

func deleteEvents(ctx context.Context, app *unical.App, accountID, calendarID, eventID string, scope EditScope, o unical.WriteOptions) (*unical.Success, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if scope != ScopeThisAndFollowing {
		return app.DeleteEvent(ctx, accountID, calendarID, eventID, o)
	}
	sp, err := planSplit(ctx, app, accountID, calendarID, eventID, o)
	if err != nil {
		return nil, err
	}
	if sp.first {
		return app.DeleteEvent(ctx, accountID, calendarID, sp.master.ID, o)
	}
	if splitter, ok := unical.SplitterOf(sp.p); ok {
		if _, err := splitter.SplitSeries(ctx, sp.s, calendarID, sp.request(nil, 0)); err != nil {
			return nil, app.ProviderFailed(ctx, accountID, err)
		}
		return &unical.Success{Success: true}, nil
	}
	if err := sp.read(ctx, true); err != nil {
		return nil, err
	}
	if err := sp.endSeries(ctx); err != nil {
		return nil, app.ProviderFailed(ctx, accountID, err)
	}
	return &unical.Success{Success: true}, nil
}

// once runs call, the scoped write op with its arguments args, once per
// o's Idempotency-Key through the App's idempotency runner, with the
// fingerprint the App's own writes make: the options that change what the
// write does (notifyAttendees, If-Match) join op and the arguments, so
// that a retry with other options is refused as a reused key.
func once[T any](ctx context.Context, app *unical.App, o unical.WriteOptions, op string, call func(context.Context) (T, error), args ...any) (T, error) {
	return idempotency.Do(ctx, app.Idempotency(), idempotency.Options{Key: o.IdempotencyKey, Query: o.Query(), IfMatch: o.IfMatch}, call, op, args...)
}

// withoutKey returns o for the writes inside a scoped write, whose
// Idempotency-Key the scoped write has claimed once for all of them.
func withoutKey(o unical.WriteOptions) unical.WriteOptions {
	o.IdempotencyKey = ""
	return o
}

// checkScope refuses a scope other than the two (none is ScopeThis), as
// the App refuses any other unknown value.
func checkScope(scope EditScope) error {
	if scope == "" || slices.Contains(EditScopes, string(scope)) {
		return nil
	}
	return &unical.Error{Code: unical.CodeInvalid, Field: "scope", Allowed: EditScopes,
		Message: fmt.Sprintf("scope must be one of %s.", strings.Join(EditScopes, ", "))}
}

// checkEvent refuses params when the provider type t cannot keep a field
// it sets, by the capabilities table the App serves (GET /v1/capabilities).
func checkEvent(ctx context.Context, app *unical.App, t unical.ProviderType, params *unical.EventParams) error {
	list, err := app.Capabilities(ctx)
	if err != nil {
		return err
	}
	for _, caps := range list.Data {
		if caps.ProviderType == t {
			return caps.CheckEvent(params)
		}
	}
	return nil
}
