package microsoft

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/retry"
)

// client makes the Graph requests of one provider call for one session.
// It holds the access token it refreshed, so a call that takes several
// requests refreshes at most once. It is not safe for concurrent use.
type client struct {
	p         *Provider
	s         *unical.Session
	base      string
	token     unical.Token
	refreshed bool
}

func (p *Provider) client(s *unical.Session) *client {
	return &client{p: p, s: s, base: apiBase(s.Settings), token: s.Token}
}

// accessToken returns a usable access token, refreshing it when it is
// missing, expires within a minute, or force is set. A refreshed token is
// handed to Session.OnTokenRefresh before it is used.
func (c *client) accessToken(ctx context.Context, force bool) (string, error) {
	t := c.token
	fresh := t.AccessToken != "" && (t.Expiry.IsZero() || t.Expiry.After(c.p.now().Add(time.Minute)))
	if fresh && !force {
		return t.AccessToken, nil
	}
	if t.RefreshToken == "" {
		return "", unical.Errorf(unical.CodeAccountExpired, "The Microsoft account has no refresh token; connect it again.")
	}
	tok, err := refresh(c.p.withClient(ctx), c.s.Settings, t.RefreshToken, unical.CodeAccountExpired)
	if err != nil {
		return "", err
	}
	if c.s.OnTokenRefresh != nil {
		if err := c.s.OnTokenRefresh(ctx, tok); err != nil {
			return "", err
		}
	}
	c.token, c.refreshed = tok, true
	return tok.AccessToken, nil
}

// refresh redeems a refresh token. A refused grant (invalid_grant,
// interaction_required) is returned with code rejected: CodeAccountExpired
// for stored accounts, CodeUnauthorized when connecting.
func refresh(ctx context.Context, settings unical.ProviderSettings, refreshToken string, rejected unical.Code) (unical.Token, error) {
	cfg := oauthConfig(settings, "")
	ot, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	if err != nil {
		return unical.Token{}, tokenError(err, rejected)
	}
	tok := fromOAuth(ot)
	if tok.RefreshToken == "" {
		tok.RefreshToken = refreshToken
	}
	return tok, nil
}

// fromOAuth converts an oauth2.Token, with the granted scopes of the
// token response.
func fromOAuth(ot *oauth2.Token) unical.Token {
	tok := unical.Token{AccessToken: ot.AccessToken, RefreshToken: ot.RefreshToken, Expiry: ot.Expiry}
	if s, ok := ot.Extra("scope").(string); ok {
		tok.Scopes = strings.Fields(s)
	}
	return tok
}

// tokenError translates a token endpoint failure. Only the error code is
// looked at, never the description text.
func tokenError(err error, rejected unical.Code) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		switch re.ErrorCode {
		case "invalid_grant", "interaction_required", "consent_required":
			return unical.WrapError(rejected, err, "Microsoft refused the account's credentials; connect it again.")
		case "invalid_client", "unauthorized_client":
			return unical.WrapError(unical.CodeUnauthorized, err, "Microsoft refused the application's client id or secret.")
		}
		if re.Response != nil && re.Response.StatusCode >= 500 {
			return unical.WrapError(unical.CodeUnavailable, err, "The Microsoft identity platform is unavailable.")
		}
		return unical.WrapError(unical.CodeUpstream, err, "The Microsoft identity platform refused the token request.")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return unical.WrapError(unical.CodeUnavailable, err, "The Microsoft identity platform did not answer in time.")
	}
	return unical.WrapError(unical.CodeUnavailable, err, "The Microsoft identity platform cannot be reached.")
}

// request is one Graph request.
type request struct {
	method string
	// target is a path below the API base ("/me/calendars") or an
	// absolute URL from an @odata.nextLink or deltaLink.
	target string
	query  url.Values
	body   any
	header map[string]string
}

// do sends r and decodes a 2xx answer into out (when not nil). It
// refreshes the token once on 401 and retries 429, 503 and 504 up to
// MaxRetries times, waiting Retry-After or a growing backoff.
func (c *client) do(ctx context.Context, r request, out any) error {
	target := r.target
	if !strings.HasPrefix(target, "https://") && !strings.HasPrefix(target, "http://") {
		target = c.base + target
	} else if !strings.HasPrefix(target, c.base+"/") {
		return unical.Errorf(unical.CodeInvalid, "The page or sync token does not belong to this account's Graph endpoint.")
	}
	if len(r.query) > 0 {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		// Graph wants %20 rather than + in $filter and $expand.
		target += sep + strings.ReplaceAll(r.query.Encode(), "+", "%20")
	}
	var payload []byte
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return unical.WrapError(unical.CodeInternal, err, "Cannot encode the Graph request.")
		}
		payload = b
	}
	triedRefresh := false
	for attempt := 0; ; attempt++ {
		tok, err := c.accessToken(ctx, false)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, bytes.NewReader(payload))
		if err != nil {
			return unical.WrapError(unical.CodeInternal, err, "Cannot build the Graph request.")
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Accept", "application/json")
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range r.header {
			req.Header.Set(k, v)
		}
		resp, err := c.p.httpClient.Do(req)
		if err != nil {
			if ctx.Err() != nil || attempt >= c.p.maxRetries {
				return unical.WrapError(unical.CodeUnavailable, err, "Microsoft Graph cannot be reached.")
			}
			if err := c.wait(ctx, c.backoff(attempt)); err != nil {
				return err
			}
			continue
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
		resp.Body.Close()
		if err != nil {
			return unical.WrapError(unical.CodeUnavailable, err, "Microsoft Graph's answer was cut off.")
		}
		switch st := resp.StatusCode; {
		case st >= 200 && st < 300:
			if out != nil && len(bytes.TrimSpace(data)) > 0 {
				if err := json.Unmarshal(data, out); err != nil {
					return unical.WrapError(unical.CodeUpstream, err, "Microsoft Graph answered with JSON unical cannot read.")
				}
			}
			return nil
		case st == http.StatusUnauthorized && !triedRefresh:
			triedRefresh = true
			if _, err := c.accessToken(ctx, true); err != nil {
				return err
			}
			continue
		case (st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable || st == http.StatusGatewayTimeout) && attempt < c.p.maxRetries:
			wait := c.backoff(attempt)
			if ra, ok := retryAfter(resp.Header); ok {
				if ra > c.p.maxRetryWait {
					return graphFailure(st, resp.Header, data)
				}
				wait = ra
			}
			if err := c.wait(ctx, wait); err != nil {
				return err
			}
			continue
		default:
			return graphFailure(st, resp.Header, data)
		}
	}
}

// backoff is the wait before try attempt+1 when Graph gives no
// Retry-After: 250ms, 500ms, 1s, ... capped by MaxRetryWait, with jitter in
// the upper half so that throttled clients do not retry in step.
func (c *client) backoff(attempt int) time.Duration {
	return retry.Backoff{Base: 250 * time.Millisecond, Max: c.p.maxRetryWait}.Wait(attempt)
}

func (c *client) wait(ctx context.Context, d time.Duration) error {
	unical.NoteRetry(ctx) // every wait here is before a retry
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return unical.WrapError(unical.CodeUnavailable, ctx.Err(), "Microsoft Graph did not answer in time.")
	case <-t.C:
		return nil
	}
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 §10.2.3), and fractional seconds, which Graph's own sample
// 429 shows in some revisions of concepts/throttling.md
// ("Retry-After: 2.128").
func retryAfter(h http.Header) (time.Duration, bool) {
	if d, ok := retry.After(h, time.Now()); ok {
		return d, true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After")), 64)
	if err != nil || !(f >= 0 && f < 1e6) {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// graphFailure translates a Graph error answer (concepts/errors.md) by
// status and error code.
func graphFailure(status int, h http.Header, body []byte) error {
	var ge graphError
	_ = json.Unmarshal(body, &ge)
	code, msg := ge.Error.Code, ge.Error.Message
	cause := fmt.Errorf("microsoft: graph %d %s: %s", status, code, msg)
	wrap := func(c unical.Code, format string, args ...any) error {
		e := unical.WrapError(c, cause, format, args...)
		if ra, ok := retryAfter(h); ok {
			e.RetryAfter = ra
		}
		return e
	}
	switch code {
	case "syncStateNotFound", "syncStateInvalid", "resyncRequired":
		return wrap(unical.CodeGone, "Microsoft Graph no longer accepts the sync token; sync from scratch.")
	case "ErrorInvalidIdMalformed", "ErrorItemNotFound", "itemNotFound":
		return wrap(unical.CodeNotFound, "Not found.")
	}
	switch {
	case status == http.StatusNotFound:
		return wrap(unical.CodeNotFound, "Not found.")
	case status == http.StatusUnauthorized:
		return wrap(unical.CodeAccountExpired, "Microsoft Graph refused the account's access token; connect the account again.")
	case status == http.StatusForbidden:
		return wrap(unical.CodeInvalid, "The account may not do this in Microsoft Graph: %s", msg)
	case status == http.StatusConflict:
		return wrap(unical.CodeConflict, "Microsoft Graph reports a conflict: %s", msg)
	case status == http.StatusGone:
		return wrap(unical.CodeGone, "Microsoft Graph no longer accepts the sync token; sync from scratch.")
	case status == http.StatusPreconditionFailed:
		return wrap(unical.CodePrecondition, "The event changed in Microsoft Graph since it was read.")
	case status == http.StatusRequestEntityTooLarge:
		return wrap(unical.CodeTooLarge, "The request is too large for Microsoft Graph.")
	case status == http.StatusTooManyRequests:
		return wrap(unical.CodeRateLimited, "Microsoft Graph is throttling this account; retry later.")
	case status == http.StatusNotImplemented:
		return wrap(unical.CodeNotImplemented, "Microsoft Graph does not support this.")
	case status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
		return wrap(unical.CodeUnavailable, "Microsoft Graph is unavailable; retry later.")
	case status == http.StatusBadRequest:
		return wrap(unical.CodeInvalid, "Microsoft Graph refused the request: %s", msg)
	}
	return wrap(unical.CodeUpstream, "Microsoft Graph answered with an error.")
}

// pathID escapes an id for a URL path.
func pathID(id string) string { return url.PathEscape(id) }
