// Package providerhttp is the one HTTP transport of the OAuth providers
// (Google and Microsoft Graph): it sends a request with the account's
// bearer token, refreshes the token and repeats the request once when the
// server answers 401, reads the answer up to a cap, and retries what the
// provider classifies as transient under one [retry.Policy]. What an
// answer means stays with each provider, in its Classify function.
package providerhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/retry"
)

// TokenSource hands out the access token of one provider call. Token
// refreshes a token that is missing or about to expire, and any token when
// force is set (after a 401); a source that cannot refresh returns the
// error the caller should see.
type TokenSource interface {
	Token(ctx context.Context, force bool) (string, error)
}

// Request is one request. Body is sent as is (nil sends none) and may be
// sent again on a retry.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Response is an answer read in full (up to Caller.MaxBody).
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// Caller sends requests for one provider call.
type Caller struct {
	Client *http.Client
	// Tokens gives the bearer token; Refresh401 says whether a 401 may
	// be answered by a forced refresh and one more try (false while an
	// account is being connected, when there is nothing to refresh).
	Tokens     TokenSource
	Refresh401 bool
	Policy     retry.Policy
	// MaxBody caps how much of an answer is read.
	MaxBody int64
	// Classify turns an answer into the outcome of the attempt: a nil
	// Err accepts it.
	Classify func(*Response) retry.Outcome
	// SendFailed classifies a request that got no answer; ctxDone is set
	// when the call's context ended.
	SendFailed func(err error, ctxDone bool) retry.Outcome
	// TokenFailed turns the token source's error into the caller's.
	TokenFailed func(error) error
	// TimedOut is the message of the error returned when the context ends
	// during a wait between tries.
	TimedOut string
}

// Do sends req until an answer is accepted, a failure is final or the
// policy's retries are spent, and returns the accepted answer. The error
// of a transient failure given up on carries the wait the next try would
// have used as its RetryAfter (rounded up to seconds), so that it can be
// handed on as a 429 or 503 with Retry-After.
func (c Caller) Do(ctx context.Context, req Request) (*Response, error) {
	var accepted *Response
	refreshed := false
	res := c.Policy.Do(ctx, func(int) retry.Outcome {
		for {
			tok, err := c.Tokens.Token(ctx, refreshed)
			if err != nil {
				if c.TokenFailed != nil {
					err = c.TokenFailed(err)
				}
				return retry.Outcome{Err: err}
			}
			resp, err := c.send(ctx, req, tok)
			if err != nil {
				return c.SendFailed(err, ctx.Err() != nil)
			}
			if resp.StatusCode == http.StatusUnauthorized && c.Refresh401 && !refreshed {
				refreshed = true
				continue
			}
			o := c.Classify(resp)
			if o.Err == nil {
				accepted = resp
			}
			return o
		}
	})
	switch {
	case res.Interrupted:
		return nil, unical.WrapError(unical.CodeUnavailable, res.Err, "%s", c.TimedOut)
	case res.Err != nil:
		var e *unical.Error
		if errors.As(res.Err, &e) && res.Wait > 0 && e.RetryAfter == 0 {
			e.RetryAfter = retry.RoundUpSecond(res.Wait)
		}
		return nil, res.Err
	}
	return accepted, nil
}

func (c Caller) send(ctx context.Context, req Request, token string) (*Response, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		hr.Header[k] = v
	}
	if token != "" { // a provider without credentials (a public feed) has none
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Client.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.MaxBody))
	if err != nil {
		return nil, err
	}
	return &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// DefaultClient returns c, or when it is nil the client a provider uses
// by default: one whose requests time out after 30 seconds.
func DefaultClient(c *http.Client) *http.Client {
	if c == nil {
		return &http.Client{Timeout: 30 * time.Second}
	}
	return c
}

// Retries reads a provider Config's MaxRetries: 0 means def, a negative
// value none.
func Retries(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// Wait reads a provider Config's duration d: zero or negative means def.
func Wait(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Clock reads a provider Config's clock: nil means time.Now.
func Clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// JSONHeader is the header of a JSON request: Accept, and Content-Type
// when there is a body.
func JSONHeader(hasBody bool) http.Header {
	h := http.Header{"Accept": {"application/json"}}
	if hasBody {
		h.Set("Content-Type", "application/json")
	}
	return h
}
