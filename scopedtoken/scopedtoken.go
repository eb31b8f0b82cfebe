// Package scopedtoken holds the scoped tokens of /v1/tokens (our
// extension of the specification): short-lived bearer tokens an
// application issues with its API key for a browser or an agent, each
// good for a few accounts, calendars and booking types and a few scopes.
//
// The package decides what a token grants; it stores nothing and serves
// nothing. Only the SHA-256 hash of a token's secret is ever kept, as for
// API keys.
package scopedtoken

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/wirecode"
	"github.com/unical/unical/internal/ids"
	"github.com/unical/unical/internal/seal"
)

// Scope is one kind of call a token may make.
type Scope string

// The scopes a token can be given.
const (
	FreeBusyRead  Scope = "freebusy.read"
	EventsRead    Scope = "events.read"
	EventsWrite   Scope = "events.write"
	SlotsRead     Scope = "slots.read"
	HoldsWrite    Scope = "holds.write"
	BookingsWrite Scope = "bookings.write"
	BookingsRead  Scope = "bookings.read"
)

// Scopes lists every scope, in the order the documentation gives them.
var Scopes = []Scope{FreeBusyRead, EventsRead, EventsWrite, SlotsRead, HoldsWrite, BookingsWrite, BookingsRead}

// MaxTTL is the longest a token lives: a token is for one visit of a
// page or one task of an agent, not a standing credential.
const MaxTTL = 24 * time.Hour

// Prefix starts every token, "ust_<id>_<secret>", so that a token is told
// from an API key ("uk_...") at a glance and by a secret scanner.
const Prefix = "ust_"

// Limits on a request, so that one token's grant stays small enough to
// check on every request.
const (
	maxAccounts     = 50
	maxCalendars    = 50 // per account
	maxBookingTypes = 50
	maxOrigins      = 20
)

// Params is the body of POST /v1/tokens.
type Params struct {
	// EndUserAccountIDs are the accounts the token may use; at least one.
	EndUserAccountIDs []string `json:"endUserAccountIds"`
	// CalendarIDs narrows an account to some of its calendars; an
	// account not named here keeps all of its calendars.
	CalendarIDs map[string][]string `json:"calendarIds,omitempty"`
	// BookingTypeIDs narrows the booking scopes to these booking types;
	// empty leaves every booking type of the accounts.
	BookingTypeIDs []string `json:"bookingTypeIds,omitempty"`
	// Scopes are what the token may do; at least one.
	Scopes []Scope `json:"scopes"`
	// TTLSeconds is how long the token lives, 1 to 86,400.
	TTLSeconds int `json:"ttlSeconds"`
	// AllowedOrigins are the browser origins ("https://shop.example")
	// answered with CORS headers; empty allows no browser origin.
	AllowedOrigins []string `json:"allowedOrigins,omitempty"`
}

// Issued is the answer to POST /v1/tokens: the only time the token is
// shown.
type Issued struct {
	ID        string    `json:"id"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Grant is a token as stored: what it allows, and the hash of its secret.
type Grant struct {
	ID             string              `json:"id"`
	ApplicationID  string              `json:"applicationId"`
	Hash           []byte              `json:"hash"`
	Accounts       []string            `json:"endUserAccountIds"`
	Calendars      map[string][]string `json:"calendarIds,omitempty"`
	BookingTypes   []string            `json:"bookingTypeIds,omitempty"`
	Scopes         []Scope             `json:"scopes"`
	AllowedOrigins []string            `json:"allowedOrigins,omitempty"`
	CreatedAt      time.Time           `json:"createdAt"`
	ExpiresAt      time.Time           `json:"expiresAt"`
}

// Validate checks p as a request, naming the field at fault; it does not
// check that the accounts exist (the caller does, within its
// application).
func (p *Params) Validate() error {
	if len(p.EndUserAccountIDs) == 0 {
		return unical.FieldError("endUserAccountIds", "Name at least one account the token may use.")
	}
	if len(p.EndUserAccountIDs) > maxAccounts {
		return unical.FieldError("endUserAccountIds", "A token may name at most %d accounts.", maxAccounts)
	}
	for i, id := range p.EndUserAccountIDs {
		if id == "" {
			return unical.FieldError(fmt.Sprintf("endUserAccountIds[%d]", i), "An account id must not be empty.")
		}
	}
	for account, calendars := range p.CalendarIDs {
		field := "calendarIds." + account
		if !slices.Contains(p.EndUserAccountIDs, account) {
			return unical.FieldError(field, "calendarIds names an account that is not in endUserAccountIds.")
		}
		if len(calendars) == 0 || len(calendars) > maxCalendars {
			return unical.FieldError(field, "Name 1 to %d calendars, or leave the account out of calendarIds to allow all of its calendars.", maxCalendars)
		}
		if slices.Contains(calendars, "") {
			return unical.FieldError(field, "A calendar id must not be empty.")
		}
	}
	if len(p.BookingTypeIDs) > maxBookingTypes {
		return unical.FieldError("bookingTypeIds", "A token may name at most %d booking types.", maxBookingTypes)
	}
	if slices.Contains(p.BookingTypeIDs, "") {
		return unical.FieldError("bookingTypeIds", "A booking type id must not be empty.")
	}
	if len(p.Scopes) == 0 {
		return unical.FieldError("scopes", "Name at least one scope.")
	}
	for i, s := range p.Scopes {
		if !slices.Contains(Scopes, s) {
			return &unical.Error{Code: unical.CodeInvalid, Field: fmt.Sprintf("scopes[%d]", i), Allowed: scopeNames(),
				Message: fmt.Sprintf("Unknown scope %q.", s)}
		}
	}
	if p.TTLSeconds < 1 || time.Duration(p.TTLSeconds)*time.Second > MaxTTL {
		return unical.FieldError("ttlSeconds", "ttlSeconds must be between 1 and %d (24 hours).", int(MaxTTL/time.Second))
	}
	if len(p.AllowedOrigins) > maxOrigins {
		return unical.FieldError("allowedOrigins", "A token may allow at most %d origins.", maxOrigins)
	}
	for i, o := range p.AllowedOrigins {
		if !isOrigin(o) {
			return unical.FieldError(fmt.Sprintf("allowedOrigins[%d]", i), "An origin is a scheme and host, with a port if not the default, and nothing else: https://shop.example.")
		}
	}
	return nil
}

// isOrigin reports whether o is a serialized web origin as a browser
// sends it in the Origin header: http or https, a host, no path.
func isOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return false
	}
	return u.User == nil && u.Path == "" && u.RawQuery == "" && u.Fragment == "" && !u.ForceQuery &&
		u.Scheme+"://"+u.Host == o && strings.ToLower(o) == o
}

func scopeNames() []string {
	names := make([]string, len(Scopes))
	for i, s := range Scopes {
		names[i] = string(s)
	}
	return names
}

// Issue makes the grant of a validated request of application appID at
// now, and the token to hand out once.
func Issue(appID string, p *Params, now time.Time) (*Grant, *Issued) {
	id, secret := ids.New("tok"), ids.Random(32)
	g := &Grant{
		ID: id, ApplicationID: appID, Hash: seal.HashSecret(secret),
		Accounts: slices.Clone(p.EndUserAccountIDs), BookingTypes: slices.Clone(p.BookingTypeIDs),
		Scopes: slices.Clone(p.Scopes), AllowedOrigins: slices.Clone(p.AllowedOrigins),
		CreatedAt: now.UTC(), ExpiresAt: now.UTC().Add(time.Duration(p.TTLSeconds) * time.Second),
	}
	if len(p.CalendarIDs) > 0 {
		g.Calendars = make(map[string][]string, len(p.CalendarIDs))
		for a, cals := range p.CalendarIDs {
			g.Calendars[a] = slices.Clone(cals)
		}
	}
	return g, &Issued{ID: id, Token: Prefix + id + "_" + secret, ExpiresAt: g.ExpiresAt}
}

// Split returns the id and secret of a presented token; ok is false for
// anything not shaped like one.
func Split(token string) (id, secret string, ok bool) {
	rest, prefixed := strings.CutPrefix(token, Prefix)
	if !prefixed {
		return "", "", false
	}
	// The id is "tok_<random>": the secret follows its second "_".
	i := strings.IndexByte(rest, '_')
	if i < 0 {
		return "", "", false
	}
	j := strings.IndexByte(rest[i+1:], '_')
	if j < 0 {
		return "", "", false
	}
	id, secret = rest[:i+1+j], rest[i+2+j:]
	return id, secret, id != "" && secret != "" && !strings.Contains(secret, "_")
}

// Matches reports whether secret is the grant's and the grant is still
// live at now.
func (g *Grant) Matches(secret string, now time.Time) bool {
	return seal.SecretMatches(g.Hash, secret) && now.Before(g.ExpiresAt)
}

// Use is what one request does with a token: the scope it needs and the
// resources it names ("" for none).
type Use struct {
	Scope       Scope
	AccountID   string
	CalendarID  string
	BookingType string
}

// Allow returns nil when the grant covers u, else a 403 forbidden error
// naming the scope or the resource it lacks. It is decided from the grant
// alone, before anything is read, so the answer is the same whether or
// not the resource exists: a token never learns what lies outside it.
func (g *Grant) Allow(u Use) error {
	if !slices.Contains(g.Scopes, u.Scope) {
		return forbidden("scope", "This token does not have the scope %s.", u.Scope)
	}
	if u.AccountID != "" && !slices.Contains(g.Accounts, u.AccountID) {
		return forbidden("endUserAccountId", "This token does not cover the account %s.", u.AccountID)
	}
	if u.CalendarID != "" {
		if cals, narrowed := g.Calendars[u.AccountID]; narrowed && !slices.Contains(cals, u.CalendarID) {
			return forbidden("calendarId", "This token does not cover the calendar %s.", u.CalendarID)
		}
	}
	if u.BookingType != "" && len(g.BookingTypes) > 0 && !slices.Contains(g.BookingTypes, u.BookingType) {
		return forbidden("bookingTypeId", "This token does not cover the booking type %s.", u.BookingType)
	}
	return nil
}

// AllowsOrigin reports whether a browser at origin may use the token.
func (g *Grant) AllowsOrigin(origin string) bool {
	return origin != "" && slices.Contains(g.AllowedOrigins, origin)
}

// CodeForbidden is the code of Allow's refusals: 403 forbidden.
const CodeForbidden = wirecode.Forbidden

func forbidden(field, format string, args ...any) error {
	return &unical.Error{Code: CodeForbidden, Field: field, Message: fmt.Sprintf(format, args...)}
}
