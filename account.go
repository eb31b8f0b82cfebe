package unical

import (
	"context"
	"encoding/json"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical/internal/identity"
	"github.com/unical/unical/keys"
	"github.com/unical/unical/outbox"
)

// ProviderType names a calendar provider: a name the provider declares
// ([Provider.Type]), upper case letters, digits and underscores. The spec
// uses neutral names: PROVIDER_A is Google Calendar, PROVIDER_B Microsoft
// Outlook (Graph), PROVIDER_C CalDAV (iCloud by default). A Client knows
// the types of its Config.Providers ([Client.ProviderTypes]).
type ProviderType string

// The provider types unical ships.
const (
	ProviderGoogle    ProviderType = "PROVIDER_A"
	ProviderMicrosoft ProviderType = "PROVIDER_B"
	ProviderCalDAV    ProviderType = "PROVIDER_C"
	// ProviderVirtual is our extension of the spec: calendars that live
	// only in the Store (provider/virtual), for rooms, resources and
	// people without a provider account. Its accounts need no credentials.
	ProviderVirtual ProviderType = "VIRTUAL"
)

// ProviderTypes lists the provider types unical ships: the spec's in its
// order, then ours. A Client may have others.
var ProviderTypes = []ProviderType{ProviderGoogle, ProviderMicrosoft, ProviderCalDAV, ProviderVirtual}

// PathName is the lower-case form used in URL paths ("provider_a").
func (t ProviderType) PathName() string { return strings.ToLower(string(t)) }

// ParseProviderPath turns "provider_a" (a path segment) into a
// ProviderType; ok is false when no provider type is written so. Whether
// a Client has the type is [Client.Credential]'s answer.
func ParseProviderPath(s string) (ProviderType, bool) {
	t := ProviderType(strings.ToUpper(s))
	return t, s != "" && s == t.PathName() && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

// AccountStatus is the state of an end user account.
type AccountStatus string

// Account states. An EXPIRED account's calendars answer CodeAccountExpired
// until the account is reconnected.
const (
	AccountStatusActive  AccountStatus = "ACTIVE"
	AccountStatusExpired AccountStatus = "EXPIRED"
)

// StatusReason says why an account is EXPIRED (our extension to the spec),
// so that the application can tell its user what to do. The table of
// statusReason in docs/api.md says what each one means for the user.
type StatusReason string

// Status reasons of an EXPIRED account.
const (
	// StatusReasonRefreshTokenRevoked: the user (or an administrator)
	// removed the application's access, or the grant was otherwise
	// invalidated at the provider. The user reconnects.
	StatusReasonRefreshTokenRevoked StatusReason = "refresh_token_revoked"
	// StatusReasonRefreshTokenExpired: the refresh token outlived its
	// lifetime (Microsoft's inactivity limit, Google's seven days for apps
	// in "Testing" mode). The user reconnects; a recurring weekly expiry
	// at Google means the OAuth app should be published.
	StatusReasonRefreshTokenExpired StatusReason = "refresh_token_expired"
	// StatusReasonConsentRevoked: consent to the application was withdrawn
	// or is missing (Microsoft AADSTS65001). The user, or their
	// administrator, grants consent again by reconnecting.
	StatusReasonConsentRevoked StatusReason = "consent_revoked"
	// StatusReasonPasswordInvalid: the CalDAV server no longer accepts the
	// app-specific password (changed or revoked). The user creates a new
	// one and reconnects.
	StatusReasonPasswordInvalid StatusReason = "password_invalid"
	// StatusReasonPolicy: an administrator's policy (multi-factor
	// authentication, conditional access) demands a new interactive
	// sign-in. The user signs in again, possibly after contacting their
	// administrator.
	StatusReasonPolicy StatusReason = "policy"
	// StatusReasonUnknown: the provider refused the credentials without
	// saying why. The user reconnects.
	StatusReasonUnknown StatusReason = "unknown"
	// StatusReasonDelegationRevoked: the account was connected through
	// the application's delegation credential, which was removed or which
	// the provider no longer accepts for the user. The operator sets the
	// credential again, then the application reconnects the account.
	StatusReasonDelegationRevoked StatusReason = "delegation_revoked"
)

// StatusReasons lists every status reason, in the order of docs/api.md.
var StatusReasons = []StatusReason{
	StatusReasonRefreshTokenRevoked, StatusReasonRefreshTokenExpired, StatusReasonConsentRevoked,
	StatusReasonPasswordInvalid, StatusReasonPolicy, StatusReasonUnknown, StatusReasonDelegationRevoked,
}

// Account is an End User Account: one user's calendar account at one
// provider, connected to one application.
type Account struct {
	ID                string        `json:"id"`
	CreatedAt         time.Time     `json:"createdAt"`
	UpdatedAt         time.Time     `json:"updatedAt"`
	Email             string        `json:"email"`
	ExternalID        string        `json:"externalId"`
	AuthorizedScopes  []string      `json:"authorizedScopes"`
	ProviderAccountID *string       `json:"providerAccountId"`
	ProviderID        string        `json:"providerId"`
	ApplicationID     string        `json:"applicationId"`
	Status            AccountStatus `json:"status"`
	// StatusReason says why an EXPIRED account expired; empty (and left
	// out of the JSON) while the account is ACTIVE. Our extension.
	StatusReason StatusReason `json:"statusReason,omitempty"`
	ProviderType ProviderType `json:"providerType"`
	// ServerURL is the CalDAV server the account connected at (our
	// extension; PROVIDER_C only). Every later call goes there.
	ServerURL string `json:"serverUrl,omitempty"`
	// Delegated is set for an account connected through the application's
	// delegation credential rather than the user's own grant (our
	// extension; PROVIDER_A and PROVIDER_B).
	Delegated bool `json:"delegated,omitempty"`
	// Room marks a VIRTUAL account as a meeting room of GET /v1/rooms
	// (our extension); nil for every other account.
	Room *RoomDetails `json:"room,omitempty"`
}

// MarshalJSON writes the times as every timestamp of the API is written
// (FormatTimestamp: UTC, milliseconds), in the fields' order.
func (a Account) MarshalJSON() ([]byte, error) {
	type plain Account // without this method
	return json.Marshal(struct {
		ID        string `json:"id"`
		CreatedAt string `json:"createdAt"`
		UpdatedAt string `json:"updatedAt"`
		plain
	}{a.ID, FormatTimestamp(a.CreatedAt), FormatTimestamp(a.UpdatedAt), plain(a)})
}

// Credentials are an account's stored provider credentials, as returned by
// the credentials endpoint so that the application can call the provider
// itself. CalDAV accounts have no tokens: their app-specific password is
// never returned (the application supplied it and can keep it).
type Credentials struct {
	ID               string    `json:"id"`
	EndUserAccountID string    `json:"endUserAccountId"`
	AccessToken      string    `json:"accessToken"`
	RefreshToken     string    `json:"refreshToken"`
	ExpiresAt        time.Time `json:"expiresAt"`
	Status           string    `json:"status"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// MarshalJSON writes the times as Account.MarshalJSON does, and expiresAt
// as null where there is no expiring token (CalDAV, VIRTUAL).
func (c Credentials) MarshalJSON() ([]byte, error) {
	var expires *string
	if !c.ExpiresAt.IsZero() {
		s := FormatTimestamp(c.ExpiresAt)
		expires = &s
	}
	return json.Marshal(struct {
		ID               string  `json:"id"`
		EndUserAccountID string  `json:"endUserAccountId"`
		AccessToken      string  `json:"accessToken"`
		RefreshToken     string  `json:"refreshToken"`
		ExpiresAt        *string `json:"expiresAt"`
		Status           string  `json:"status"`
		CreatedAt        string  `json:"createdAt"`
		UpdatedAt        string  `json:"updatedAt"`
	}{c.ID, c.EndUserAccountID, c.AccessToken, c.RefreshToken, expires, c.Status, FormatTimestamp(c.CreatedAt), FormatTimestamp(c.UpdatedAt)})
}

// AccountCreateParams is the body of POST /v1/endUserAccounts: it creates an
// account or updates the credentials of the one with the same email and
// provider type.
type AccountCreateParams struct {
	Email        string           `json:"email"`
	ExternalID   Optional[string] `json:"externalId,omitzero"`
	ProviderType ProviderType     `json:"providerType"`
	RefreshToken Optional[string] `json:"refreshToken,omitzero"`
	Password     Optional[string] `json:"password,omitzero"`
	// ServerURL and Username are our PROVIDER_C extensions: the CalDAV
	// server (default: the application's setting, then discovery from
	// the email's domain, then iCloud) and the login (default: the
	// email).
	ServerURL Optional[string] `json:"serverUrl,omitzero"`
	Username  Optional[string] `json:"username,omitzero"`
	// Room marks a VIRTUAL account as a meeting room (our extension);
	// null unmarks it, absent leaves an existing account as it is.
	Room Optional[RoomDetails] `json:"room,omitzero"`
}

// BasicAuthConnectParams is the body of
// POST /v1/basicAuth/connect/{app_id}/provider_c.
type BasicAuthConnectParams struct {
	Email      string           `json:"email"`
	Password   string           `json:"password"`
	ExternalID Optional[string] `json:"externalId,omitzero"`
	// ServerURL and Username are as in [AccountCreateParams].
	ServerURL Optional[string] `json:"serverUrl,omitzero"`
	Username  Optional[string] `json:"username,omitzero"`
}

// AccountListParams filters GET /v1/endUserAccounts.
type AccountListParams struct {
	// Search keeps accounts whose email or external id contains it
	// (case-insensitive).
	Search string
	// StatusFilter is "active", "expired" or "" for any status.
	StatusFilter string
	// PageToken continues a previous listing. It carries the listing's
	// Search and StatusFilter: leave them out or repeat them unchanged;
	// other ones are CodeInvalid naming pageToken.
	PageToken string
	// Limit is the page size: default DefaultPageSize, at most MaxPageSize.
	Limit int
}

// AccountDeleted is the answer of DELETE /v1/endUserAccounts/{id}.
type AccountDeleted struct {
	Message string `json:"message"`
	OK      bool   `json:"ok"`
}

// Page sizes of every list with pageToken and limit.
const (
	DefaultPageSize = 50
	MaxPageSize     = 250
)

// ListAccounts lists the application's accounts, oldest first.
//
// HTTP: GET /v1/endUserAccounts
//
// Returns CodeInvalid for a bad statusFilter, limit or pageToken.
func (a *App) ListAccounts(ctx context.Context, params *AccountListParams) (*Page[*Account], error) {
	if params == nil {
		params = &AccountListParams{}
	}
	// The page token carries the filters (see storeListing).
	var filters struct {
		Search string        `json:"q,omitempty"`
		Status AccountStatus `json:"f,omitempty"`
	}
	filters.Search = params.Search
	switch params.StatusFilter {
	case "":
	case "active":
		filters.Status = AccountStatusActive
	case "expired":
		filters.Status = AccountStatusExpired
	default:
		return nil, &Error{Code: CodeInvalid, Field: "statusFilter", Allowed: []string{"active", "expired"}, Message: "statusFilter must be one of active, expired."}
	}
	l := storeListing{kind: "accounts", pageToken: params.PageToken, limit: params.Limit,
		filters: &filters, filtered: params.Search != "" || params.StatusFilter != ""}
	return listPage(ctx, a, l,
		func(after string, limit int) ([]*AccountRecord, error) {
			return a.c.store.ListAccounts(ctx, a.id, AccountFilter{Search: filters.Search, Status: filters.Status, After: after, Limit: limit})
		},
		func(rec *AccountRecord) string { return rec.ID }, accountView)
}

// accountView returns the API view of a stored account.
func accountView(rec *AccountRecord) *Account {
	acct := rec.Account
	if acct.AuthorizedScopes == nil {
		acct.AuthorizedScopes = []string{}
	}
	return &acct
}

// GetAccount returns one of the application's accounts.
//
// HTTP: GET /v1/endUserAccounts/{id}
//
// Returns CodeNotFound if the account is not the application's.
func (a *App) GetAccount(ctx context.Context, id string) (*Account, error) {
	rec, err := a.c.store.GetAccount(ctx, a.id, id)
	if err != nil {
		return nil, err
	}
	return accountView(rec), nil
}

// CreateAccount creates an account, or updates the credentials of the one
// with the same email and provider type, which makes an EXPIRED account
// ACTIVE again. The credentials are checked with the provider first (a
// refresh for OAuth providers, a login for CalDAV); nothing is stored when
// they fail.
//
// HTTP: POST /v1/endUserAccounts
//
// Returns CodeInvalid for missing or bad fields and CodeUnauthorized when
// the provider refuses the credentials; CodeConflict naming email when
// they are another provider identity's than the account's with that email.
func (a *App) CreateAccount(ctx context.Context, params *AccountCreateParams, opts ...WriteOptions) (*Account, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "CreateAccount", func(ctx context.Context) (*Account, error) { return a.createAccount(ctx, params) }, params)
}

func (a *App) createAccount(ctx context.Context, params *AccountCreateParams) (*Account, error) {
	if err := params.validate(a.c); err != nil {
		return nil, err
	}
	p, err := a.c.Provider(params.ProviderType)
	if err != nil {
		return nil, err
	}
	app, err := a.c.Application(ctx, a.id)
	if err != nil {
		return nil, err
	}
	settings, err := a.c.ProviderSettings(app, params.ProviderType)
	if err != nil {
		return nil, err
	}
	cp := ConnectParams{Email: params.Email, RefreshToken: params.RefreshToken.Value(), Password: params.Password.Value(),
		Username: params.Username.Value(), ServerURL: params.ServerURL.Value()}
	if a.c.Credential(params.ProviderType) == CredentialOAuth && cp.RefreshToken == "" {
		if cp.Delegation, err = a.c.delegationFor(app, params.ProviderType, params.Email); err != nil {
			return nil, err
		}
		settings = cp.Delegation.settings()
	}
	connect := p.Connect
	if cp.Delegation != nil {
		dc, ok := faceOf[DelegatedConnector](p)
		if !ok {
			return nil, invalidf("providerType", "%s accounts cannot connect through a delegation credential.", params.ProviderType)
		}
		connect = dc.ConnectDelegated
	}
	conn, err := connect(ctx, settings, cp)
	if ErrorCode(err) == CodeUnauthorized && cp.Delegation == nil {
		// The API key was fine; the credentials in the body were not. A 400
		// naming the field keeps 401 for our own authentication.
		field := map[Credential]string{CredentialOAuth: "refreshToken", CredentialURL: "serverUrl"}[a.c.Credential(params.ProviderType)]
		if field == "" {
			field = "password"
		}
		return nil, &Error{Code: CodeInvalid, Field: field, Message: ErrorMessage(err), Err: err}
	}
	if err != nil {
		return nil, err
	}
	if cp.Delegation != nil {
		// Nothing of the user's is kept: each session mints its tokens.
		conn.Token, conn.Delegated = Token{}, true
	}
	if conn.Email != "" && !strings.EqualFold(conn.Email, params.Email) {
		// The credentials work, but for someone else: storing them under
		// this email would mix two users' calendars.
		return nil, invalidf("email", "The credentials belong to another account than %s.", params.Email)
	}
	secret := params.Password.Value() // sealed; a feed's URL may hold a key
	if a.c.Credential(params.ProviderType) == CredentialURL {
		secret = params.ServerURL.Value()
	}
	return a.saveConnection(ctx, params.ProviderType, params.Email, params.ExternalID, conn, secret, params.Room)
}

// ConnectBasicAuth connects a CalDAV account with its email and
// app-specific password, exactly as CreateAccount with PROVIDER_C does.
//
// HTTP: POST /v1/basicAuth/connect/{app_id}/provider_c
func (a *App) ConnectBasicAuth(ctx context.Context, params *BasicAuthConnectParams, opts ...WriteOptions) (*Account, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "ConnectBasicAuth", func(ctx context.Context) (*Account, error) { return a.connectBasicAuth(ctx, params) }, params)
}

func (a *App) connectBasicAuth(ctx context.Context, params *BasicAuthConnectParams) (*Account, error) {
	return a.createAccount(ctx, &AccountCreateParams{
		Email:        params.Email,
		ExternalID:   params.ExternalID,
		ProviderType: ProviderCalDAV,
		Password:     Some(params.Password),
		ServerURL:    params.ServerURL,
		Username:     params.Username,
	})
}

func (p *AccountCreateParams) validate(c *Client) error {
	if p.Email == "" {
		return invalidf("email", "email is required.")
	}
	if addr, err := mail.ParseAddress(p.Email); err != nil || addr.Address != p.Email {
		return invalidf("email", "%q is not an email address.", p.Email)
	}
	if p.ProviderType == "" {
		return invalidf("providerType", "providerType is required.")
	}
	// A type unical ships that this server lacks is CodeNotImplemented,
	// after the checks of the other fields (createAccount).
	kind := c.Credential(p.ProviderType)
	if allowed := c.typesWith(""); kind == "" && !slices.Contains(ProviderTypes, p.ProviderType) {
		return &Error{Code: CodeInvalid, Field: "providerType", Allowed: allowed,
			Message: "providerType must be one of " + strings.Join(allowed, ", ") + "."}
	}
	// Each field is for the provider types whose credential takes it; an
	// OAuth account without a refresh token connects through the
	// application's delegation credential (createAccount).
	for _, f := range []struct {
		name  string
		value Optional[string]
		kinds []Credential
	}{
		{"refreshToken", p.RefreshToken, []Credential{CredentialOAuth}},
		{"password", p.Password, []Credential{CredentialPassword}},
		{"serverUrl", p.ServerURL, []Credential{CredentialPassword, CredentialURL}},
		{"username", p.Username, []Credential{CredentialPassword}},
	} {
		v, set := f.value.Get()
		if kind == "" {
			break
		}
		required := kind == CredentialPassword && f.name == "password" || kind == CredentialURL && f.name == "serverUrl"
		switch taken := slices.Contains(f.kinds, kind); {
		case set && !taken:
			var types []string
			for _, k := range f.kinds {
				types = append(types, c.typesWith(k)...)
			}
			return invalidf(f.name, "%s is only for %s accounts.", f.name, strings.Join(types, ", "))
		case required && v == "":
			return invalidf(f.name, "%s is required for %s accounts.", f.name, p.ProviderType)
		case set && v == "" && f.name == "refreshToken":
			return invalidf(f.name, "%s must not be empty.", f.name)
		}
	}
	if v, ok := p.Username.Get(); ok && (len(v) > 255 || strings.ContainsAny(v, ":\r\n")) {
		// HTTP Basic ends the user name at the first colon (RFC 7617 §2).
		return invalidf("username", "username may be at most 255 characters long and hold no colon or line break.")
	}
	if r, ok := p.Room.Get(); ok && p.ProviderType != ProviderVirtual {
		return invalidf("room", "room is only for VIRTUAL accounts: provider rooms come from the provider's directory.")
	} else if ok {
		if err := r.validate(); err != nil {
			return err
		}
	}
	if v, ok := p.ExternalID.Get(); ok && len(v) > 255 {
		return invalidf("externalId", "externalId may be at most 255 characters long.")
	}
	return nil
}

// saveConnection creates or updates the account behind a successful
// connect or OAuth exchange and emits the matching webhook messages.
func (a *App) saveConnection(ctx context.Context, t ProviderType, email string, externalID Optional[string], conn *Connection, password string, room Optional[RoomDetails]) (*Account, error) {
	if conn.Email != "" && a.c.Credential(t) == CredentialOAuth {
		email = conn.Email
	}
	now := a.c.now().UTC()
	sec := keys.AccountSecrets{AccessToken: conn.Token.AccessToken, RefreshToken: conn.Token.RefreshToken, Password: password}
	if sec.RefreshToken != "" {
		sec.RefreshIssued = now
	}
	scopes := conn.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	var providerAccountID *string
	if conn.ProviderAccountID != "" {
		providerAccountID = &conn.ProviderAccountID
	}
	events, err := a.accountEvents(ctx)
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 3; attempt++ {
		existing, err := a.c.store.FindAccount(ctx, a.id, t, email)
		switch {
		case ErrorCode(err) == CodeNotFound:
			rec := &AccountRecord{
				Account: Account{
					ID: NewID("acc"), CreatedAt: now, UpdatedAt: now, Email: email,
					ExternalID: externalID.Value(), AuthorizedScopes: scopes, ProviderAccountID: providerAccountID,
					ProviderID: t.PathName(), ApplicationID: a.id, Status: AccountStatusActive, ProviderType: t,
					ServerURL: conn.ServerURL, Delegated: conn.Delegated, Room: room.Ptr(),
				},
				TokenExpiry:          conn.Token.Expiry,
				CredentialsID:        NewID("cred"),
				CredentialsCreatedAt: now,
				CredentialsUpdatedAt: now,
				ProviderState:        conn.State, ProviderTenantID: conn.TenantID,
			}
			rec.SealedSecrets = a.c.keys.SealAccount(rec.ID, sec)
			msgs := events.messages(&rec.Account, EventTypeAccountCreated)
			err := a.c.store.CreateAccount(ctx, rec, msgs...)
			if ErrorCode(err) == CodeConflict {
				continue // created concurrently: update it instead
			}
			if err != nil {
				return nil, err
			}
			a.c.queued(msgs)
			return accountView(rec), nil
		case err != nil:
			return nil, err
		}
		var msgs []*outbox.Message
		rec, err := a.c.store.UpdateAccountAndEnqueue(ctx, a.id, existing.ID, func(rec *AccountRecord) ([]*outbox.Message, error) {
			if a.c.Credential(t) == CredentialOAuth { // the email only found the account; its subject says whose it is
				stored := identity.Stored(rec.ProviderAccountID, rec.ProviderTenantID)
				bound, err := identity.Bind(stored, rec.Email, identity.Subject{ID: conn.ProviderAccountID, Tenant: conn.TenantID}, conn.VerifiedNames)
				if err != nil {
					return nil, &Error{Code: CodeConflict, Field: "email", Err: err, Message: "The account with this email address belongs to another identity at the provider; nothing was changed."}
				}
				rec.ProviderTenantID = bound.Tenant
			}
			if sec.RefreshToken == "" && a.c.Credential(rec.ProviderType) == CredentialOAuth && !conn.Delegated {
				old, err := a.c.openSecrets(rec)
				if err != nil {
					return nil, err
				}
				sec.RefreshToken = old.RefreshToken // the provider kept the old one
				sec.RefreshIssued = old.RefreshIssued
			}
			rec.SealedSecrets = a.c.keys.SealAccount(rec.ID, sec)
			rec.TokenExpiry = conn.Token.Expiry
			rec.CredentialsUpdatedAt = now
			rec.UpdatedAt = now
			rec.Status = AccountStatusActive
			rec.StatusReason = ""
			rec.Delegated = conn.Delegated
			rec.AuthorizedScopes = scopes
			if providerAccountID != nil {
				rec.ProviderAccountID = providerAccountID
			}
			if conn.State != nil {
				rec.ProviderState = conn.State
			}
			if conn.ServerURL != "" {
				rec.ServerURL = conn.ServerURL // reconnecting may move the account
			}
			externalID.Apply(&rec.ExternalID)
			if room.IsSet() {
				rec.Room = room.Ptr()
			}
			msgs = events.messages(&rec.Account, EventTypeAccountUpdated, EventTypeAccountCredentialUpdated)
			return msgs, nil
		})
		if err != nil {
			return nil, err
		}
		a.c.queued(msgs)
		return accountView(rec), nil
	}
	return nil, Errorf(CodeConflict, "The account was changed concurrently; try again.")
}

// DeleteAccount deletes an account, its stored credentials and its webhook
// subscriptions, and stops their provider watches. Calendars and events at
// the provider are left alone. The account's grant at the provider is
// revoked unless WriteOptions.KeepGrant is set.
//
// HTTP: DELETE /v1/endUserAccounts/{id}
//
// Returns CodeNotFound if the account is not the application's.
func (a *App) DeleteAccount(ctx context.Context, id string, opts ...WriteOptions) (*AccountDeleted, error) {
	o, err := OptionsOf(opts, OptionRevokeGrant)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "DeleteAccount", func(ctx context.Context) (*AccountDeleted, error) { return a.deleteAccount(ctx, id, o.KeepGrant) }, id)
}

func (a *App) deleteAccount(ctx context.Context, id string, keepGrant bool) (*AccountDeleted, error) {
	rec, err := a.c.store.GetAccount(ctx, a.id, id)
	if err != nil {
		return nil, err
	}
	// Stop the provider watches first, while the credentials are still
	// here to do it; a watch left behind would push until it expires.
	subs, err := a.c.store.ListSubscriptions(ctx, a.id, id, "", 0)
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		a.c.subs.StopWatch(ctx, a, sub)
	}
	events, err := a.accountEvents(ctx)
	if err != nil {
		return nil, err
	}
	revoke := a.grantRevocation(ctx, rec, keepGrant)
	msgs := events.messages(&rec.Account, EventTypeAccountDeleted)
	if err := a.c.store.DeleteAccount(ctx, a.id, id, msgs...); err != nil {
		return nil, err
	}
	a.c.queued(msgs)
	revoke()
	return &AccountDeleted{Message: "Account " + id + " deleted.", OK: true}, nil
}

// grantRevocation returns what revokes rec's grant once the account is
// deleted: its credentials are read now, while they are still stored.
// The account is deleted whatever the provider answers: Config.Revoker
// makes the try (unicald's, package grants', queues a failure worth
// retrying for the engine), or else the provider's RevokeGrant, once.
func (a *App) grantRevocation(ctx context.Context, rec *AccountRecord, keepGrant bool) func() {
	none := func() {}
	if keepGrant || rec.Delegated {
		// A delegated account's grant is the application's credential.
		return none
	}
	p, err := a.c.Provider(rec.ProviderType)
	if err != nil {
		return none
	}
	r, ok := RevokerOf(p)
	if !ok {
		return none
	}
	_, _, s, err := a.Session(ctx, rec.ID)
	if err != nil {
		// An EXPIRED account's grant is already gone.
		if ErrorCode(err) != CodeAccountExpired {
			a.c.log.WarnContext(ctx, "read credentials to revoke the grant", "account", rec.ID, "err", err)
		}
		return none
	}
	return func() {
		if revoke := a.c.cfg.Revoker; revoke != nil {
			revoke(ctx, a.c, rec.ProviderType, r, s)
		} else if err := r.RevokeGrant(ctx, s); err != nil {
			a.c.log.WarnContext(ctx, "revoke grant of deleted account", "account", rec.ID, "provider", rec.ProviderType, "err", err)
		}
	}
}
