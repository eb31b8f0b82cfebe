package scopedtoken

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/audit"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/internal/ttlcache"
	"github.com/unical/unical/storeversion"
)

// The audit log's record of tokens: who (the application's API key) and
// what.
const (
	ActorAPIKey    = "api-key"
	OperationIssue = "token.issue"
	// OperationRevoke is a revocation by DELETE /v1/tokens/{id}.
	OperationRevoke = "token.revoke"
)

// auditRetention is how long the entries of tokens stay in the audit
// log: the operator's default (admin.DefaultAuditRetention).
const auditRetention = 90 * 24 * time.Hour

// cacheTTL bounds how long a grant read from the Store is reused by a
// Store that cannot tell of changes (not a [storeversion.Store]); the
// bundled Stores move their version at a revocation, which ends the reuse
// at once.
const cacheTTL = 5 * time.Second

// Service issues, revokes and checks scoped tokens over a Client whose
// Store keeps grants ([GrantStore]). It is safe for concurrent use; make
// one per Client, since it keeps the grants it reads.
type Service struct {
	c      *unical.Client
	store  GrantStore // nil when the Client's Store keeps no grants
	grants *ttlcache.Cache[*Grant]
}

// NewService returns the Service of c; a nil c (a handler built only to
// list its routes) makes a Service that refuses every token.
func NewService(c *unical.Client) *Service {
	if c == nil {
		return &Service{}
	}
	s := &Service{c: c, grants: ttlcache.New[*Grant](cacheTTL, c.Config().Now, func() (uint64, bool) { return storeversion.Of(c.Store()) })}
	s.store, _ = c.Store().(GrantStore)
	return s
}

// errNoStore is the answer of a Service whose Store keeps no grants.
func errNoStore() error {
	return unical.Errorf(unical.CodeNotImplemented, "This server's store does not keep scoped tokens.")
}

// Issue issues a token of app for p: the answer is the only time the
// token is shown.
//
// HTTP: POST /v1/tokens
//
// Every account must be app's (else 403 naming endUserAccountIds[i]),
// every calendar of calendarIds one of its account's (403 naming
// calendarIds.<account>), every booking type app's and hosted by the
// named accounts only (403 naming bookingTypeIds[i]). With a booking
// scope (slots.read, holds.write, bookings.read, bookings.write) and no
// bookingTypeIds, the token covers app's booking types hosted by the
// named accounts only, as they are now; when there is none, the booking
// scope is one app cannot grant for those accounts (403 naming scopes).
// Resources of another application and missing ones are refused alike.
// Returns CodeInvalid naming the field for a malformed request.
func (s *Service) Issue(ctx context.Context, app *unical.App, p *Params) (*Issued, error) {
	if s.store == nil {
		return nil, errNoStore()
	}
	if p == nil {
		p = &Params{}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for i, id := range p.EndUserAccountIDs {
		if _, err := app.GetAccount(ctx, id); err != nil {
			return nil, outside(err, fmt.Sprintf("endUserAccountIds[%d]", i), "The application has no account %s.", id)
		}
	}
	for account, calendars := range p.CalendarIDs {
		for _, id := range calendars {
			if _, err := app.GetCalendar(ctx, account, id); err != nil {
				return nil, outside(err, "calendarIds."+account, "The account %s has no calendar %s.", account, id)
			}
		}
	}
	types, err := s.bookingTypes(ctx, app, p)
	if err != nil {
		return nil, err
	}
	q := *p
	q.BookingTypeIDs = types
	g, issued := Issue(app.ID(), &q, s.c.Config().Now())
	data, err := json.Marshal(g)
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	if err := s.store.CreateTokenGrant(ctx, g.ApplicationID, g.ID, data, g.ExpiresAt); err != nil {
		return nil, err
	}
	s.audit(ctx, OperationIssue, g.ApplicationID, g.ID)
	return issued, nil
}

// bookingTypes returns the booking types a token of p covers (see
// Issue): none without a booking scope.
func (s *Service) bookingTypes(ctx context.Context, app *unical.App, p *Params) ([]string, error) {
	if !slices.ContainsFunc(p.Scopes, isBookingScope) {
		if len(p.BookingTypeIDs) > 0 {
			return nil, unical.FieldError("bookingTypeIds", "bookingTypeIds needs a booking scope (slots.read, holds.write, bookings.read or bookings.write).")
		}
		return nil, nil
	}
	svc := booking.New(s.c, app)
	if len(p.BookingTypeIDs) > 0 {
		for i, id := range p.BookingTypeIDs {
			field := fmt.Sprintf("bookingTypeIds[%d]", i)
			t, err := svc.GetBookingType(ctx, id)
			if err != nil {
				return nil, outside(err, field, "The application has no booking type %s.", id)
			}
			if !hostedBy(t, p.EndUserAccountIDs) {
				return nil, forbidden(field, "The booking type %s has a participant that is not in endUserAccountIds.", id)
			}
		}
		return slices.Clone(p.BookingTypeIDs), nil
	}
	var covered []string
	for t, err := range unical.All(ctx, func(ctx context.Context, token string) (*unical.Page[*booking.BookingType], error) {
		return svc.ListBookingTypes(ctx, &booking.ListParams{PageToken: token, Limit: unical.MaxPageSize})
	}) {
		if err != nil {
			return nil, err
		}
		if hostedBy(t, p.EndUserAccountIDs) && len(covered) < maxBookingTypes {
			covered = append(covered, t.ID)
		}
	}
	if len(covered) == 0 {
		return nil, forbidden("scopes", "The accounts named host no booking type of the application, so it cannot grant booking scopes for them.")
	}
	return covered, nil
}

func isBookingScope(s Scope) bool {
	return s == SlotsRead || s == HoldsWrite || s == BookingsRead || s == BookingsWrite
}

// hostedBy reports whether every participant of t is one of accounts.
func hostedBy(t *booking.BookingType, accounts []string) bool {
	for _, p := range t.Participants {
		if !slices.Contains(accounts, p.EndUserAccountID) {
			return false
		}
	}
	return true
}

// outside turns the not-found answer of a lookup into the 403 of a
// request for something outside the application, the same whether it
// is missing or another application's; other errors pass.
func outside(err error, field, format string, args ...any) error {
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return forbidden(field, format, args...)
	}
	return err
}

// Revoke ends app's token id at once, on every replica sharing the
// Store.
//
// HTTP: DELETE /v1/tokens/{id}
//
// Returns CodeNotFound when app has no such token (expired tokens may
// already be gone).
func (s *Service) Revoke(ctx context.Context, app *unical.App, id string) error {
	if s.store == nil {
		return errNoStore()
	}
	if err := s.store.DeleteTokenGrant(ctx, app.ID(), id); err != nil {
		if unical.ErrorCode(err) == unical.CodeNotFound {
			return unical.Errorf(unical.CodeNotFound, "Token %s not found.", id)
		}
		return err
	}
	s.grants.Drop(id)
	s.audit(ctx, OperationRevoke, app.ID(), id)
	return nil
}

// audit appends a change to the audit log the dashboard shows. It runs
// after the change, so a failed write is not returned: the change stands.
func (s *Service) audit(ctx context.Context, operation, appID, tokenID string) {
	now := s.c.Config().Now().UTC()
	e := &audit.Entry{ID: ids.New("aud"), At: now, Actor: ActorAPIKey, Operation: operation, ApplicationID: appID, TargetID: tokenID}
	if err := s.c.Store().AppendAudit(context.WithoutCancel(ctx), e, now.Add(-auditRetention)); err != nil {
		s.c.Config().Logger.ErrorContext(ctx, "write audit log", "operation", operation, "app", appID, "err", err)
	}
}

// Authenticate returns the grant of a presented token and its
// application, or 401 unauthorized naming Authorization for anything
// else: a malformed, unknown, revoked or expired token, or one whose
// application is gone.
func (s *Service) Authenticate(ctx context.Context, token string) (*Grant, *unical.App, error) {
	unauthorized := &unical.Error{Code: unical.CodeUnauthorized, Field: "Authorization",
		Message: "The bearer token is not valid: it is unknown, revoked or expired."}
	id, secret, ok := Split(token)
	if !ok || s.store == nil {
		return nil, nil, unauthorized
	}
	now := s.c.Config().Now()
	g, err := s.grants.LoadAt(id, now, func() (*Grant, error) {
		data, err := s.store.GetTokenGrant(ctx, id, now)
		if err != nil {
			return nil, err
		}
		var g Grant
		if err := json.Unmarshal(data, &g); err != nil {
			return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
		}
		return &g, nil
	})
	if err != nil {
		if unical.ErrorCode(err) == unical.CodeNotFound {
			return nil, nil, unauthorized
		}
		return nil, nil, err
	}
	if !g.Matches(secret, now) {
		return nil, nil, unauthorized
	}
	app, err := s.c.App(ctx, g.ApplicationID)
	if err != nil {
		if unical.ErrorCode(err) == unical.CodeNotFound {
			return nil, nil, unauthorized
		}
		return nil, nil, err
	}
	return g, app, nil
}

// Current is a grant as GET /v1/tokens/current shows it to its own
// token: what it allows, without its secret's hash.
type Current struct {
	ID             string              `json:"id"`
	Scopes         []Scope             `json:"scopes"`
	Accounts       []string            `json:"endUserAccountIds"`
	Calendars      map[string][]string `json:"calendarIds"`
	BookingTypes   []string            `json:"bookingTypeIds"`
	AllowedOrigins []string            `json:"allowedOrigins"`
	ExpiresAt      time.Time           `json:"expiresAt"`
}

// Current returns what g shows of itself; lists and maps are empty, never
// null.
func (g *Grant) Current() *Current {
	c := &Current{ID: g.ID, Scopes: slices.Clone(g.Scopes), Accounts: slices.Clone(g.Accounts),
		Calendars: map[string][]string{}, BookingTypes: append([]string{}, g.BookingTypes...),
		AllowedOrigins: append([]string{}, g.AllowedOrigins...), ExpiresAt: g.ExpiresAt}
	for a, cals := range g.Calendars {
		c.Calendars[a] = slices.Clone(cals)
	}
	return c
}
