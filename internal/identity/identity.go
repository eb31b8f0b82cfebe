// Package identity decides who an OAuth account belongs to. An account
// is bound to its provider's immutable subject (Google's sub, Microsoft's
// object id with its tenant), never to an email address: a provider's
// email may be unverified (Google's email_verified false) or set by
// whoever administers a directory (Microsoft's mail, which any Entra
// tenant administrator can set to any address). The email only finds the
// one account a sign-in could be; Bind decides whether it is that
// account's owner.
//
// Sources: OpenID Connect Core 1.0 §2 and §5.7 (sub is the locally unique,
// never reassigned identifier; "the sub (subject) and iss (issuer) Claims,
// used together, are the only Claims that an RP can rely upon as a stable
// identifier"), Google's "OpenID Connect" guide (developers.google.com/
// identity/openid-connect/openid-connect: use sub as the user's key;
// email "may not be unique and is not suitable for use as a primary key"
// and email_verified says whether it was verified), and Microsoft's "ID
// token claims reference" (learn.microsoft.com/entra/identity-platform/
// id-token-claims-reference: oid is the immutable id of the user in a
// tenant, tid the tenant; "use oid and tid together" as the key;
// preferred_username and email are mutable and must not be used for
// authorization decisions).
package identity

import (
	"errors"
	"slices"
	"strings"
)

// Subject is who an account belongs to at its provider.
type Subject struct {
	// ID is Google's sub or Microsoft's user object id; "" when unknown.
	ID string
	// Tenant is Microsoft's directory tenant id (tid); "" for Google, and
	// for a Microsoft account whose tenant was never seen.
	Tenant string
}

// Stored is the subject of a stored account: its provider account id
// (nil when none was stored) and tenant.
func Stored(id *string, tenant string) Subject {
	s := Subject{Tenant: tenant}
	if id != nil {
		s.ID = *id
	}
	return s
}

// ErrOtherSubject means a sign-in is another identity than the account
// with its email belongs to: nothing of the account may change.
var ErrOtherSubject = errors.New("identity: the sign-in is another identity than the account's")

// ErrEmailUnverified means the provider does not vouch for the email of
// the identity that signed in (Google's email_verified is false or
// missing).
var ErrEmailUnverified = errors.New("identity: the provider has not verified the account's email address")

// Bind decides whether the identity got, which signed in and whose
// verified sign-in names are names, owns the stored account (its subject
// stored and its email storedEmail), and returns the subject to keep:
//
//   - a connection without a subject (delegated connections, which the
//     application's own credential vouches for) changes no binding;
//   - an account stored without a subject (connected by an earlier
//     version, or through delegation) is bound to got only when its email
//     is one of the names the provider verified: Google's email when
//     email_verified, Microsoft's userPrincipalName or preferred_username;
//   - otherwise the ids must be equal, and the tenants too where both are
//     known; an account stored with an id but no tenant takes got's
//     tenant (accounts of versions that did not read it).
//
// Anything else is ErrOtherSubject.
func Bind(stored Subject, storedEmail string, got Subject, names []string) (Subject, error) {
	switch {
	case got.ID == "":
		return stored, nil
	case stored.ID == "" && !HasName(names, storedEmail):
		return stored, ErrOtherSubject
	case stored.ID != "" && stored.ID != got.ID:
		return stored, ErrOtherSubject
	case stored.Tenant != "" && got.Tenant != "" && !strings.EqualFold(stored.Tenant, got.Tenant):
		return stored, ErrOtherSubject
	}
	if got.Tenant == "" {
		got.Tenant = stored.Tenant
	}
	return got, nil
}

// HasName reports whether name is one of names, without regard to case
// (email addresses and user principal names are compared so).
func HasName(names []string, name string) bool {
	return name != "" && slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
}
