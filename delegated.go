package unical

import (
	"context"
	"slices"
	"strings"
)

// delegationFor returns app's opened delegation credential for t when it
// acts for email: CodeInvalid naming refreshToken when app has none,
// naming email when email is outside its domains.
func (c *Client) delegationFor(app *Application, t ProviderType, email string) (*DelegationGrant, error) {
	d, ok := app.Delegations[t]
	if !ok {
		return nil, invalidf("refreshToken", "refreshToken is required for %s: the application has no %s delegation credential, which would connect users of its domains without one.", t, t.PathName())
	}
	if _, domain, _ := strings.Cut(strings.ToLower(email), "@"); !slices.Contains(d.Domains, domain) {
		return nil, invalidf("email", "The application's %s delegation credential acts only for addresses in %s.", t.PathName(), strings.Join(d.Domains, ", "))
	}
	secret, err := c.OpenDelegation(app, t, d.Sealed)
	if err != nil {
		return nil, WrapError(CodeInternal, err, "Internal error.")
	}
	return &DelegationGrant{Credential: d, Secret: secret}, nil
}

// settings are the provider settings of a delegated session: the
// credential's endpoints, not the application's OAuth client.
func (g *DelegationGrant) settings() ProviderSettings {
	return ProviderSettings{TokenURL: g.Credential.TokenURL, APIBaseURL: g.Credential.APIBaseURL}
}

// delegatedSession gives s of a delegated account the credential in
// place of tokens. A credential that is gone, or no longer covers the
// account's domain, expires the account with delegation_revoked.
func (a *App) delegatedSession(ctx context.Context, app *Application, rec *AccountRecord, s *Session) error {
	g, err := a.c.delegationFor(app, rec.ProviderType, rec.Email)
	if ErrorCode(err) == CodeInvalid {
		err = a.providerFailed(ctx, rec.ID, &Error{Code: CodeAccountExpired, Reason: StatusReasonDelegationRevoked,
			Message: "The application's delegation credential no longer acts for this account; set it again, then reconnect the account."})
	}
	if err != nil {
		return err
	}
	s.Settings, s.Token, s.Delegation = g.settings(), Token{}, g
	s.OnTokenRefresh = func(context.Context, Token) error { return nil } // nothing of the user's is stored
	return nil
}

// ExpireDelegatedAccounts makes every ACTIVE account of the application
// that was connected through its delegation credential for t EXPIRED,
// with statusReason delegation_revoked, and queues
// enduseraccount.updated for each. Package admin calls it when the
// credential is removed. An account whose write fails is logged, and
// expires at its next use, as the credential is gone.
func (a *App) ExpireDelegatedAccounts(ctx context.Context, t ProviderType) error {
	revoked := &Error{Code: CodeAccountExpired, Reason: StatusReasonDelegationRevoked, Message: "The application's delegation credential was removed."}
	after := ""
	for {
		recs, err := a.c.store.ListAccounts(ctx, a.id, AccountFilter{Status: AccountStatusActive, After: after, Limit: MaxPageSize})
		if err != nil || len(recs) == 0 {
			return err
		}
		for _, rec := range recs {
			if rec.Delegated && rec.ProviderType == t {
				_ = a.providerFailed(ctx, rec.ID, revoked) // returns revoked itself
			}
		}
		after = recs[len(recs)-1].ID
	}
}
