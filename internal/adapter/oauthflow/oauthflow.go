// Package oauthflow is the one OAuth 2.0 token path of the OAuth providers
// (Google, Microsoft): redeeming an authorization code, refreshing an
// access token with the retries the token endpoint deserves, keeping a
// refresh token the server rotated, handing a refreshed token to
// [unical.Session.OnTokenRefresh] before anyone uses it, and turning
// token endpoint failures into [*unical.Error] codes.
//
// The rules every provider shares (RFC 6749 §5.2 and the providers'
// documentation):
//
//   - invalid_grant, and the provider's other "this grant no longer works"
//     codes (revoked consent, interaction required), mean the account must
//     be connected again: the caller's rejected code (CodeAccountExpired
//     for a stored account, CodeUnauthorized while connecting one);
//   - 429, any 5xx, temporarily_unavailable and a network failure say
//     nothing about the grant: a refresh is retried under the flow's
//     [retry.Policy], then CodeUnavailable (503) with a Retry-After — never
//     CodeAccountExpired, which would make the user reconnect an account
//     that works;
//   - the provider's own codes about the application's registration
//     (invalid_client and friends) map to the code the provider chooses.
//
// Each provider keeps only its wire details: the endpoint, how the client
// authenticates, and its table of error codes ([Errors]).
package oauthflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/retry"
)

// Errors is a provider's classification of token endpoint error codes
// (the "error" member of the JSON error answer, RFC 6749 §5.2). Only the
// code is looked at, never the description text.
type Errors struct {
	// Revoked are the codes that mean the grant no longer works, beyond
	// invalid_grant which always does.
	Revoked []string
	// Client maps codes that refuse the application itself (a wrong
	// client secret, an unknown client id) to the code to return.
	Client map[string]unical.Code
	// Reason tells why a refused grant stopped working, from the error
	// code and its error_description (the only place the providers say
	// it); nil, or an empty answer, is unical.StatusReasonUnknown.
	Reason func(code, description string) unical.StatusReason
}

// reason classifies a refused grant with e.Reason.
func (e Errors) reason(code, description string) unical.StatusReason {
	if e.Reason != nil {
		if r := e.Reason(code, description); r != "" {
			return r
		}
	}
	return unical.StatusReasonUnknown
}

// Flow is the token endpoint of one application at one provider.
type Flow struct {
	// Config is the application's OAuth client and endpoint.
	Config *oauth2.Config
	// HTTPClient sends the token requests.
	HTTPClient *http.Client
	// Now is the clock token expiry is computed with; nil is time.Now.
	Now func() time.Time
	// Retry is the policy for refresh requests that failed transiently.
	Retry retry.Policy
	// Name names the provider in messages ("Google", "Microsoft").
	Name string
	// Errors is the provider's error code table.
	Errors Errors
}

func (f *Flow) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Flow) ctx(ctx context.Context) context.Context {
	if f.HTTPClient == nil {
		return ctx
	}
	return context.WithValue(ctx, oauth2.HTTPClient, f.HTTPClient)
}

// ExpiryMargin is how long before its expiry an access token is refreshed
// anyway, so that it does not expire on its way to the provider. The
// credentials endpoint of the root package uses the same minute.
const ExpiryMargin = time.Minute

// Fresh reports whether t's access token can still be used at now: it is
// present and does not expire within ExpiryMargin. A token without an
// expiry is taken as fresh; the provider's 401 says otherwise.
func Fresh(t unical.Token, now time.Time) bool {
	return t.AccessToken != "" && (t.Expiry.IsZero() || t.Expiry.After(now.Add(ExpiryMargin)))
}

// Exchange redeems an authorization code (with its PKCE verifier when not
// empty). It is not retried: a code works once, and a failed attempt may
// have spent it. A refused code is CodeUnauthorized.
func (f *Flow) Exchange(ctx context.Context, code, verifier string, opts ...oauth2.AuthCodeOption) (unical.Token, error) {
	tok, _, err := f.ExchangeIDToken(ctx, code, verifier, opts...)
	return tok, err
}

// ExchangeIDToken is Exchange that also returns the answer's ID token
// (OpenID Connect Core 1.0 §3.1.3.3), "" when it has none.
func (f *Flow) ExchangeIDToken(ctx context.Context, code, verifier string, opts ...oauth2.AuthCodeOption) (unical.Token, string, error) {
	if verifier != "" {
		opts = append(opts, oauth2.VerifierOption(verifier))
	}
	ot, err := f.Config.Exchange(f.ctx(ctx), code, opts...)
	if err != nil {
		return unical.Token{}, "", f.classify(ctx, err, unical.CodeUnauthorized).err
	}
	return f.token(ot), idToken(ot), nil
}

// idToken is the id_token member of a token answer, "" without one.
func idToken(ot *oauth2.Token) string {
	s, _ := ot.Extra("id_token").(string)
	return s
}

// Refresh redeems a refresh token. A refused grant is rejected; transient
// failures are retried under f.Retry and then CodeUnavailable. When the
// server rotates the refresh token the new one is returned, otherwise the
// one given.
func (f *Flow) Refresh(ctx context.Context, refreshToken string, rejected unical.Code) (unical.Token, error) {
	tok, _, err := f.RefreshIDToken(ctx, refreshToken, rejected)
	return tok, err
}

// RefreshIDToken is Refresh that also returns the answer's ID token, ""
// when it has none (OpenID Connect Core 1.0 §12.2: a refresh "might not
// contain an id_token").
func (f *Flow) RefreshIDToken(ctx context.Context, refreshToken string, rejected unical.Code) (unical.Token, string, error) {
	if refreshToken == "" {
		return unical.Token{}, "", unical.Errorf(rejected, "The %s account has no refresh token; connect it again.", f.Name)
	}
	var (
		tok unical.Token
		id  string
	)
	res := f.Retry.Do(ctx, func(int) retry.Outcome {
		ot, err := f.Config.TokenSource(f.ctx(ctx), &oauth2.Token{RefreshToken: refreshToken}).Token()
		if err != nil {
			c := f.classify(ctx, err, rejected)
			return retry.Outcome{Err: c.err, Retry: c.retry, RetryAfter: c.retryAfter}
		}
		tok, id = f.token(ot), idToken(ot)
		return retry.Outcome{}
	})
	if res.Interrupted {
		return unical.Token{}, "", unical.WrapError(unical.CodeUnavailable, res.Last, "The %s token endpoint did not answer in time.", f.Name)
	}
	if res.Err != nil {
		var e *unical.Error
		if errors.As(res.Err, &e) && res.Wait > 0 && e.RetryAfter == 0 && e.Code == unical.CodeUnavailable {
			e.RetryAfter = retry.RoundUpSecond(res.Wait)
		}
		return unical.Token{}, "", res.Err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = refreshToken
	}
	return tok, id, nil
}

// RefreshSession refreshes the token of a stored account and persists
// the result through s.OnTokenRefresh before returning it, so that a
// rotated refresh token is saved before the old one could be thrown away
// and before the new access token is used. A refused grant is
// CodeAccountExpired. current is the token the call holds: s.Token, or
// one refreshed earlier in the same call (whose refresh token may have
// been rotated). Scopes the answer does not name stay current's.
func (f *Flow) RefreshSession(ctx context.Context, s *unical.Session, current unical.Token) (unical.Token, error) {
	tok, err := f.Refresh(ctx, current.RefreshToken, unical.CodeAccountExpired)
	if err != nil {
		return unical.Token{}, err
	}
	if len(tok.Scopes) == 0 {
		tok.Scopes = current.Scopes
	}
	if s.OnTokenRefresh != nil {
		if err := s.OnTokenRefresh(ctx, tok); err != nil {
			return unical.Token{}, err
		}
	}
	return tok, nil
}

// token converts an x/oauth2 token. The expiry is computed from
// expires_in with the flow's clock (x/oauth2 uses the wall clock), so that
// a test clock and the server's idea of expiry agree.
func (f *Flow) token(ot *oauth2.Token) unical.Token {
	tok := unical.Token{AccessToken: ot.AccessToken, RefreshToken: ot.RefreshToken, Expiry: ot.Expiry}
	if secs, ok := expiresIn(ot.Extra("expires_in")); ok {
		tok.Expiry = f.now().Add(time.Duration(secs) * time.Second)
	}
	if sc, ok := ot.Extra("scope").(string); ok {
		tok.Scopes = strings.Fields(sc)
	}
	return tok
}

// expiresIn reads expires_in as JSON decodes it: a number, or a string
// some servers send.
func expiresIn(v any) (int64, bool) {
	switch v := v.(type) {
	case float64:
		return int64(v), v > 0
	case json.Number:
		n, err := v.Int64()
		return n, err == nil && n > 0
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil && n > 0
	}
	return 0, false
}

// classified is one token endpoint failure, classified.
type classified struct {
	err        *unical.Error
	retry      bool
	retryAfter time.Duration
}

// classify turns a token endpoint failure into a code. rejected is what a
// refused grant means to the caller.
func (f *Flow) classify(ctx context.Context, err error, rejected unical.Code) classified {
	wrap := func(code unical.Code, format string, args ...any) *unical.Error {
		return unical.WrapError(code, fmt.Errorf("oauth: %s token endpoint: %w", strings.ToLower(f.Name), err), format, args...)
	}
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		if ctx.Err() != nil {
			return classified{err: wrap(unical.CodeUnavailable, "The %s token endpoint did not answer in time.", f.Name)}
		}
		// x/oauth2 returns the transport's error as is, and its own errors
		// for answers it cannot read (no access_token, not JSON); only the
		// former is worth another try.
		var netErr interface{ Timeout() bool }
		if errors.As(err, &netErr) {
			return classified{err: wrap(unical.CodeUnavailable, "The %s token endpoint cannot be reached.", f.Name), retry: true}
		}
		return classified{err: wrap(unical.CodeUpstream, "The %s token endpoint answered with something unical cannot read.", f.Name)}
	}
	status := 0
	var header http.Header
	if re.Response != nil {
		status, header = re.Response.StatusCode, re.Response.Header
	}
	code := re.ErrorCode
	switch {
	case code == "invalid_grant" || slices.Contains(f.Errors.Revoked, code):
		e := wrap(rejected, "%s refused the account's grant (%s): it was revoked, expired or already used; connect the account again.", f.Name, code)
		e.Reason = f.Errors.reason(code, re.ErrorDescription)
		return classified{err: e}
	case f.Errors.Client[code] != "":
		return classified{err: wrap(f.Errors.Client[code], "%s refused the application's OAuth client id or secret (%s).", f.Name, code)}
	case status == http.StatusTooManyRequests || status >= 500 || code == "temporarily_unavailable":
		ra, _ := retry.After(header, f.now())
		return classified{err: wrap(unical.CodeUnavailable, "The %s token endpoint is unavailable or throttling; try again later.", f.Name), retry: true, retryAfter: ra}
	case status >= 400 && status < 500 && rejected == unical.CodeUnauthorized:
		return classified{err: wrap(unical.CodeUnauthorized, "%s refused the credentials (%s).", f.Name, code)}
	}
	return classified{err: wrap(unical.CodeUpstream, "The %s token endpoint refused the request (%s).", f.Name, code)}
}

// CallTokens is the one access-token source of an OAuth provider call
// (a providerhttp.TokenSource), which Google and Microsoft share. It lives
// for one Provider method and one goroutine, so a token refreshed during
// the call serves its later requests, and the call refreshes at most
// once: a token refused again after a refresh is final.
type CallTokens struct {
	// Session is the account's; nil while an account is being connected,
	// when Token is used as it is and never refreshed.
	Session *unical.Session
	// Current is the token in use: the session's, then the refreshed one.
	Current unical.Token
	// Refreshed is set once Token was refreshed in this call.
	Refreshed bool
	// Now is the clock ([Fresh]).
	Now func() time.Time
	// Refresh refreshes the session's grant from current and hands the
	// new token to Session.OnTokenRefresh before returning it
	// ([Flow.RefreshSession]).
	Refresh func(ctx context.Context, s *unical.Session, current unical.Token) (unical.Token, error)
	// Mint returns the token of a delegated session (Session.Delegation
	// set), minted from the application's delegation credential.
	Mint func(ctx context.Context, force bool) (unical.Token, error)
	// Rejected is the error of a token that is neither fresh nor
	// refreshable any more in this call.
	Rejected error
}

// Token returns a usable access token, refreshing it once when it is
// missing, about to expire, or force is set (after a 401).
func (c *CallTokens) Token(ctx context.Context, force bool) (string, error) {
	if c.Session != nil && c.Session.Delegation != nil {
		tok, err := c.Mint(ctx, force)
		c.Current = tok
		return tok.AccessToken, err
	}
	fresh := Fresh(c.Current, c.Now())
	if fresh && !force {
		return c.Current.AccessToken, nil
	}
	if c.Session == nil || c.Refreshed {
		if fresh {
			return c.Current.AccessToken, nil
		}
		return "", c.Rejected
	}
	tok, err := c.Refresh(ctx, c.Session, c.Current)
	if err != nil {
		return "", err
	}
	c.Current, c.Refreshed = tok, true
	return tok.AccessToken, nil
}
