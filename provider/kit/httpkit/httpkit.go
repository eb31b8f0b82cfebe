// Package httpkit is the HTTP side of a unical provider, the same code
// the bundled providers run: [Caller] sends one provider call's requests
// with the account's bearer token ([TokenSource]; none when it hands out
// ""), refreshes the token and repeats the request once on 401, reads
// the answer up to a cap and retries what the provider's Classify calls
// transient under a [Policy] (exponential backoff with jitter, a server's
// Retry-After honoured up to a bound). What an answer means stays with
// the provider: Classify turns it into an [Outcome].
//
// Requests to servers that users or applications name (CalDAV servers,
// published feeds) go through [GuardedTransport], which refuses every
// connection to a loopback, private, link-local or reserved address
// after DNS resolution, so that a URL cannot make the server reach its
// own network (server-side request forgery); [URLProblem] says so early
// for a URL whose host is such an address written out.
package httpkit

import (
	"net/http"
	"time"

	"github.com/unical/unical/internal/adapter/providerhttp"
	"github.com/unical/unical/internal/addrpolicy"
	"github.com/unical/unical/internal/addrpolicy/httpguard"
	"github.com/unical/unical/internal/retry"
)

type (
	// TokenSource hands out the access token of one provider call;
	// force asks for a refreshed one (after a 401). An empty token sends
	// no Authorization header.
	TokenSource = providerhttp.TokenSource
	// Request is one request; its Body may be sent again on a retry.
	Request = providerhttp.Request
	// Response is an answer read in full, up to Caller.MaxBody.
	Response = providerhttp.Response
	// Caller sends the requests of one provider call (see the package
	// comment).
	Caller = providerhttp.Caller
	// Policy is a retry policy: how many retries, the backoff between
	// them and the longest Retry-After waited for.
	Policy = retry.Policy
	// Backoff is exponential backoff with jitter.
	Backoff = retry.Backoff
	// Outcome is what one attempt came to: accepted (nil Err), final, or
	// to be retried after RetryAfter.
	Outcome = retry.Outcome
)

// DefaultClient returns c, or when it is nil a client whose requests
// time out after 30 seconds.
func DefaultClient(c *http.Client) *http.Client { return providerhttp.DefaultClient(c) }

// RetryAfter reads a Retry-After header (delay-seconds or an HTTP date,
// RFC 9110 §10.2.3) as a wait from now.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) { return retry.After(h, now) }

// GuardedTransport returns http.DefaultTransport's settings with, unless
// allowPrivate, the address policy checked on every dial (and no proxy,
// which would hide the address dialled).
func GuardedTransport(allowPrivate bool) *http.Transport { return httpguard.Transport(allowPrivate) }

// URLProblem refuses, unless allowPrivate, a URL whose host is a
// loopback, private or link-local IP literal or localhost: it returns
// why, as a sentence naming field, or "". A name that resolves to such an
// address passes here and is refused when dialled by GuardedTransport.
func URLProblem(field, raw string, allowPrivate bool) string {
	return addrpolicy.TargetHostProblem(field, raw, allowPrivate)
}
