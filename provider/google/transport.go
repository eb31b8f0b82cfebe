package google

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/oauthflow"
	"github.com/unical/unical/internal/adapter/providerhttp"
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
	// tokens hands out the call's access token, refreshed at most once.
	tokens *oauthflow.CallTokens
	// expiredCode is what rejected credentials mean: CodeAccountExpired for
	// a stored account, CodeUnauthorized while connecting.
	expiredCode unical.Code
}

func (p *Provider) conn(s *unical.Session) *conn {
	return p.newConn(s, s.Settings, s.Token, unical.CodeAccountExpired)
}

// newConn returns a conn for s (nil while connecting) with token.
func (p *Provider) newConn(s *unical.Session, settings unical.ProviderSettings, token unical.Token, expiredCode unical.Code) *conn {
	c := &conn{p: p, s: s, ep: endpointsFor(settings), expiredCode: expiredCode}
	c.tokens = &oauthflow.CallTokens{
		Session: s, Current: token, Now: p.now,
		Refresh: func(ctx context.Context, s *unical.Session, _ unical.Token) (unical.Token, error) {
			return p.RefreshToken(ctx, s)
		},
		// A delegated account has no refresh token: its tokens are minted
		// for the user (sub) from the application's service account.
		Mint: func(ctx context.Context, force bool) (unical.Token, error) {
			return p.minter.GoogleToken(ctx, s.Delegation, s.Email, force)
		},
		Rejected: unical.Errorf(expiredCode, "Google no longer accepts the account's credentials; reconnect it."),
	}
	return c
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
		Tokens:     c.tokens,
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
