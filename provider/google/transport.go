package google

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/oauthflow"
	"github.com/unical/unical/internal/providerhttp"
	"github.com/unical/unical/internal/retry"
)

// maxResponse bounds the bodies read from Google.
const maxResponse = 16 << 20

// conn is one provider call on behalf of one account. It is used by one
// goroutine and lives for one Provider method, so a token refreshed during
// the call is reused by its later requests.
type conn struct {
	p  *Provider
	s  *unical.Session // nil while connecting: no refresh, no callback
	ep endpoints
	// token is the token in use.
	token unical.Token
	// refreshed is set once the token was refreshed in this call.
	refreshed bool
	// expiredCode is what rejected credentials mean: CodeAccountExpired for
	// a stored account, CodeUnauthorized while connecting.
	expiredCode unical.Code
}

func (p *Provider) conn(s *unical.Session) *conn {
	return &conn{p: p, s: s, ep: endpointsFor(s.Settings), token: s.Token, expiredCode: unical.CodeAccountExpired}
}

// accessToken returns a usable access token, refreshing it when it is
// missing, about to expire, or force is set (after a 401).
func (c *conn) accessToken(ctx context.Context, force bool) (string, error) {
	if c.s != nil && c.s.Delegation != nil {
		// A delegated account has no refresh token: its tokens are minted
		// for the user (sub) from the application's service account.
		tok, err := c.p.minter.GoogleToken(ctx, c.s.Delegation, c.s.Email, force)
		c.token = tok
		return tok.AccessToken, err
	}
	t := c.token
	fresh := oauthflow.Fresh(t, c.p.now())
	if fresh && !force {
		return t.AccessToken, nil
	}
	if c.s == nil || c.refreshed {
		if fresh {
			return t.AccessToken, nil
		}
		return "", unical.Errorf(c.expiredCode, "Google no longer accepts the account's credentials; reconnect it.")
	}
	nt, err := c.p.RefreshToken(ctx, c.s)
	if err != nil {
		return "", err
	}
	c.token, c.refreshed = nt, true
	return nt.AccessToken, nil
}

// api returns the URL of a Calendar API path (already escaped) with query.
func (c *conn) api(path string, query url.Values) string {
	u := c.ep.api + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return u
}

// do sends one JSON request to rawURL and decodes the answer into out (when
// not nil), with the retries and error translation of this package. A 401
// refreshes the token once and repeats the request at once.
func (c *conn) do(ctx context.Context, method, rawURL string, in, out any) error {
	return c.doWith(ctx, method, rawURL, callOpts{}, in, out)
}

// callOpts are the less common settings of one request.
type callOpts struct {
	// ifMatch is sent as If-Match, making a write conditional on the
	// etag Google last returned (errors guide: 412 conditionNotMet).
	ifMatch string
	// safe marks a POST that changes nothing (freeBusy.query) or that
	// carries a client-chosen id, so it may be repeated after a network
	// failure.
	safe bool
}

// doWith is do with opts.
func (c *conn) doWith(ctx context.Context, method, rawURL string, opts callOpts, in, out any) error {
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return unical.WrapError(unical.CodeInternal, err, "Internal error.")
		}
		body = b
	}
	header := providerhttp.JSONHeader(body != nil)
	if opts.ifMatch != "" {
		header.Set("If-Match", opts.ifMatch)
	}
	idempotent := method != http.MethodPost || opts.safe
	caller := providerhttp.Caller{
		Client:     c.p.client,
		Tokens:     c,
		Refresh401: c.s != nil,
		Policy:     c.p.policy(),
		MaxBody:    maxResponse,
		Classify: func(r *providerhttp.Response) retry.Outcome {
			if r.StatusCode < 300 {
				return retry.Outcome{}
			}
			return c.p.apiOutcome(&http.Response{StatusCode: r.StatusCode, Header: r.Header}, r.Body, c.expiredCode).retryOutcome()
		},
		SendFailed: func(err error, _ bool) retry.Outcome {
			return transportOutcome(ctx, err, idempotent).retryOutcome()
		},
		TokenFailed: func(err error) error { return asError(err) },
		TimedOut:    "Google did not answer in time.",
	}
	resp, err := caller.Do(ctx, providerhttp.Request{Method: method, URL: rawURL, Header: header, Body: body})
	if err != nil {
		return err
	}
	if out != nil && resp.StatusCode != http.StatusNoContent && len(resp.Body) > 0 {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return unical.WrapError(unical.CodeUpstream, err, "Google answered with a body that is not the expected JSON.")
		}
	}
	return nil
}

// Token implements [providerhttp.TokenSource].
func (c *conn) Token(ctx context.Context, force bool) (string, error) {
	return c.accessToken(ctx, force)
}

// escapeID escapes a calendar or event id for a URL path: ids contain '@'
// and '#' (holiday calendars), and may contain '/'.
func escapeID(id string) string {
	return strings.ReplaceAll(url.PathEscape(id), "+", "%2B")
}

// outcome is the result of one attempt of a call: err is final unless
// retry is set, retryAfter is what the server asked for (zero if nothing).
type outcome struct {
	err        *unical.Error
	retry      bool
	retryAfter time.Duration
}

// policy is the provider's retry policy: MaxRetries retries, waits
// growing exponentially from BaseBackoff with jitter and never below a
// Retry-After the server sent; a Retry-After above MaxBackoff is not
// waited for at all.
func (p *Provider) policy() retry.Policy {
	return retry.Policy{
		MaxRetries:    p.maxRetries,
		Backoff:       retry.Backoff{Base: p.baseBackoff, Max: p.maxBackoff, Jitter: p.jitter},
		MaxRetryAfter: p.maxBackoff,
		Sleep:         p.sleep,
	}
}

// retryOutcome is o as the retry policy reads it.
func (o outcome) retryOutcome() retry.Outcome {
	if o.err == nil {
		return retry.Outcome{}
	}
	return retry.Outcome{Err: o.err, Retry: o.retry, RetryAfter: o.retryAfter}
}

// backoff is the wait before retry n (0-based) when Google names none.
func (p *Provider) backoff(n int) time.Duration { return p.policy().Backoff.Wait(n) }

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func (p *Provider) retryAfter(h http.Header) time.Duration {
	d, _ := retry.After(h, p.now())
	return d
}
