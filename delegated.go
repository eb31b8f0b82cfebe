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
	secret, err := c.keys.OpenDelegation(app.ID, string(t), d.Sealed)
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
		err = a.ProviderFailed(ctx, rec.ID, &Error{Code: CodeAccountExpired, Reason: StatusReasonDelegationRevoked,
			Message: "The application's delegation credential no longer acts for this account; set it again, then reconnect the account."})
	}
	if err != nil {
		return err
	}
	s.Settings, s.Token, s.Delegation = g.settings(), Token{}, g
	s.OnTokenRefresh = func(context.Context, Token) error { return nil } // nothing of the user's is stored
	return nil
}

// ExpireAccount makes the application's account EXPIRED, with the
// statusReason of err (a CodeAccountExpired *Error), and queues
// enduseraccount.updated, as a provider's refusal of its credentials
// does: for package admin, whose removal of a delegation credential ends
// the accounts connected through it. An account already EXPIRED is left
// alone; a failed write is logged, and the account expires at its next
// use.
func (a *App) ExpireAccount(ctx context.Context, accountID string, err *Error) {
	_ = a.ProviderFailed(ctx, accountID, err) // returns err itself
}
