package unical

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/unical/unical/keys"
	"github.com/unical/unical/outbox"
)

// openSecrets opens rec's sealed tokens or password.
func (c *Client) openSecrets(rec *AccountRecord) (keys.AccountSecrets, error) {
	s, err := c.keys.OpenAccount(rec.ID, rec.SealedSecrets)
	if err != nil {
		return s, WrapError(CodeInternal, err, "Internal error.")
	}
	return s, nil
}

// Session loads an account of the application and prepares a provider
// call for it, for the App's operations and those built beside the root
// (package subscriptions). An EXPIRED account is CodeAccountExpired; a
// provider's refusal of the session's credentials goes through
// [App.ProviderFailed].
func (a *App) Session(ctx context.Context, accountID string) (*AccountRecord, Provider, *Session, error) {
	rec, err := a.readAccount(ctx, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	if rec.Status == AccountStatusExpired {
		return nil, nil, nil, &Error{Code: CodeAccountExpired, Message: "The account's credentials no longer work; reconnect it with POST /v1/endUserAccounts or the OAuth flow."}
	}
	p, err := a.c.Provider(rec.ProviderType)
	if err != nil {
		return nil, nil, nil, err
	}
	app, err := a.c.Application(ctx, a.id)
	if err != nil {
		return nil, nil, nil, err
	}
	settings, err := a.c.ProviderSettings(app, rec.ProviderType)
	if err != nil {
		return nil, nil, nil, err
	}
	sec, err := a.c.openSecrets(rec)
	if err != nil {
		return nil, nil, nil, err
	}
	providerAccountID := ""
	if rec.ProviderAccountID != nil {
		providerAccountID = *rec.ProviderAccountID
	}
	s := &Session{
		AccountID:         rec.ID,
		ApplicationID:     a.id,
		Email:             rec.Email,
		ProviderAccountID: providerAccountID,
		Settings:          settings,
		Token:             Token{AccessToken: sec.AccessToken, RefreshToken: sec.RefreshToken, Expiry: rec.TokenExpiry, Scopes: rec.AuthorizedScopes},
		Password:          sec.Password,
		State:             rec.ProviderState,
		RefreshIssued:     sec.RefreshIssued,
	}
	s.OnTokenRefresh = func(ctx context.Context, tok Token) error {
		return a.storeRefreshedToken(ctx, rec.ID, tok)
	}
	if rec.Delegated {
		if err := a.delegatedSession(ctx, app, rec, s); err != nil {
			return nil, nil, nil, err
		}
	}
	return rec, p, s, nil
}

// ReadingAccountsOnce returns a's handle for one request that makes
// several calls (package booking: a slot's free/busy, the calendar
// listing, the event writes), whose Session reads each account from the
// Store once: each read is a round trip on PostgreSQL. A token refresh or
// an expiry of the account through the handle reads it again. Session's
// callers only read the record it keeps.
func (a *App) ReadingAccountsOnce() *App {
	return &App{c: a.c, id: a.id, accounts: new(sync.Map)}
}

// readAccount reads an account of the application, once per
// ReadingAccountsOnce handle.
func (a *App) readAccount(ctx context.Context, id string) (*AccountRecord, error) {
	if a.accounts == nil {
		return a.c.store.GetAccount(ctx, a.id, id)
	}
	if rec, ok := a.accounts.Load(id); ok {
		return rec.(*AccountRecord), nil
	}
	rec, err := a.c.store.GetAccount(ctx, a.id, id)
	if err == nil {
		a.accounts.Store(id, rec)
	}
	return rec, err
}

// forgetAccount drops the ReadingAccountsOnce record of an account just
// written.
func (a *App) forgetAccount(id string) {
	if a.accounts != nil {
		a.accounts.Delete(id)
	}
}

// storeRefreshedToken persists tokens a provider refreshed.
func (a *App) storeRefreshedToken(ctx context.Context, accountID string, tok Token) error {
	defer a.forgetAccount(accountID)
	now := a.c.now().UTC()
	events, err := a.accountEvents(ctx)
	if err != nil {
		return err
	}
	var msgs []*outbox.Message
	_, err = a.c.store.UpdateAccountAndEnqueue(ctx, a.id, accountID, func(rec *AccountRecord) ([]*outbox.Message, error) {
		sec, err := a.c.openSecrets(rec)
		if err != nil {
			return nil, err
		}
		sec.AccessToken = tok.AccessToken
		if tok.RefreshToken != "" {
			if tok.RefreshToken != sec.RefreshToken {
				sec.RefreshIssued = now
			}
			sec.RefreshToken = tok.RefreshToken
		}
		rec.SealedSecrets = a.c.keys.SealAccount(rec.ID, sec)
		rec.TokenExpiry = tok.Expiry
		rec.CredentialsUpdatedAt = now
		msgs = events.messages(&rec.Account, EventTypeAccountCredentialUpdated)
		return msgs, nil
	})
	if err != nil {
		return err
	}
	a.c.queued(msgs)
	return nil
}

// ProviderFailed looks at an error from a provider call and moves the
// account to EXPIRED when the provider said the credentials stopped
// working; it returns err.
func (a *App) ProviderFailed(ctx context.Context, accountID string, err error) error {
	if ErrorCode(err) != CodeAccountExpired {
		return err
	}
	defer a.forgetAccount(accountID)
	events, uerr := a.accountEvents(ctx)
	var msgs []*outbox.Message
	if uerr == nil {
		_, uerr = a.c.store.UpdateAccountAndEnqueue(ctx, a.id, accountID, func(rec *AccountRecord) ([]*outbox.Message, error) {
			if rec.Status == AccountStatusExpired {
				return nil, errUnchanged
			}
			rec.Status = AccountStatusExpired
			rec.StatusReason = ErrorReason(err)
			rec.UpdatedAt = a.c.now().UTC()
			msgs = events.messages(&rec.Account, EventTypeAccountUpdated)
			return msgs, nil
		})
	}
	switch {
	case uerr == nil:
		a.c.log.InfoContext(ctx, "account expired", "app", a.id, "account", accountID)
		a.c.queued(msgs)
	case !errors.Is(uerr, errUnchanged):
		a.c.log.ErrorContext(ctx, "mark account expired", "app", a.id, "account", accountID, "err", uerr)
	}
	return err
}

// errUnchanged aborts an UpdateAccount whose change is already in place.
// It is recognised with errors.Is, which is all store/storetest promises
// of how a Store hands back the error of fn: a Store may wrap it.
var errUnchanged = Errorf(CodeConflict, "unchanged")

// Provider returns the Client's provider of type t (wrapped for its
// Observer), or CodeNotImplemented naming providerType.
func (c *Client) Provider(t ProviderType) (Provider, error) {
	p, ok := c.providers[t]
	if !ok {
		return nil, &Error{Code: CodeNotImplemented, Field: "providerType", Message: "This server has no provider configured for " + string(t) + "." + addProviderHint(t)}
	}
	return p, nil
}

// addProviderHint says which constructor adds a bundled provider, for a
// program embedding the library without it (unicald has them all).
func addProviderHint(t ProviderType) string {
	if pkg := map[ProviderType]string{ProviderGoogle: "google", ProviderMicrosoft: "microsoft", ProviderCalDAV: "caldav", ProviderVirtual: "virtual"}[t]; pkg != "" {
		return " Add " + pkg + ".New(" + pkg + ".Config{...}) from package provider/" + pkg + " to unical.Config.Providers."
	}
	return ""
}

// GetCredentials returns an account's stored credentials: a valid access
// token (refreshed through the provider when it has expired) and the refresh
// token. CalDAV accounts return empty tokens: their password is never
// handed out.
//
// HTTP: GET /v1/endUserAccounts/{id}/credentials
//
// Returns CodeNotFound if the account is not the application's, and
// CodeAccountExpired if a refresh shows the credentials stopped working.
func (a *App) GetCredentials(ctx context.Context, accountID string) (*Credentials, error) {
	rec, err := a.c.store.GetAccount(ctx, a.id, accountID)
	if err != nil {
		return nil, err
	}
	if a.c.Credential(rec.ProviderType) == CredentialOAuth && rec.Status == AccountStatusActive && !rec.TokenExpiry.IsZero() && a.c.now().Add(time.Minute).After(rec.TokenExpiry) {
		if refresher, ok := RefresherOf(a.c.providers[rec.ProviderType]); ok {
			_, _, s, err := a.Session(ctx, accountID)
			if err != nil {
				return nil, err
			}
			if _, err := refresher.RefreshToken(ctx, s); err != nil {
				return nil, a.ProviderFailed(ctx, accountID, err)
			}
			if rec, err = a.c.store.GetAccount(ctx, a.id, accountID); err != nil {
				return nil, err
			}
		}
	}
	sec, err := a.c.openSecrets(rec)
	if err != nil {
		return nil, err
	}
	return &Credentials{
		ID:               rec.CredentialsID,
		EndUserAccountID: rec.ID,
		AccessToken:      sec.AccessToken,
		RefreshToken:     sec.RefreshToken,
		ExpiresAt:        rec.TokenExpiry,
		Status:           string(rec.Status),
		CreatedAt:        rec.CredentialsCreatedAt,
		UpdatedAt:        rec.CredentialsUpdatedAt,
	}, nil
}
