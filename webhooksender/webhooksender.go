// Package webhooksender is the HTTP client that sends unical's webhook
// requests: a [engine.Sender] for engine.Config.Sender, and usable
// on its own by any Go program that posts to URLs its users chose.
//
// It refuses to connect to loopback, private, link-local, unspecified and
// multicast addresses, and to the special ranges that reach them (NAT64,
// 6to4, Teredo), unless Config.AllowPrivate is set; such an attempt fails
// with an error wrapping [ErrForbiddenAddress]. The check runs on the
// address actually dialled, after DNS resolution, so a name that resolves
// (or re-resolves) to an internal address is refused too. [ForbiddenHost]
// applies the same policy to a URL when it is registered, so that an
// obviously internal target is refused before anything is sent. Redirects
// are never followed: a 3xx is a failed attempt, because following one
// would let a receiver point the request anywhere. No proxy is used: it
// would hide the receiver's address from the check.
//
// Server certificates are checked against the system roots, which on Unix
// honour the standard SSL_CERT_FILE and SSL_CERT_DIR variables, so a
// private CA bundle needs no setting of ours.
package webhooksender

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/netip"
	"time"

	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/addrpolicy"
	"github.com/unical/unical/internal/retry"
)

// DefaultTimeout bounds one attempt when Config.Timeout is zero. Svix
// counts a 2xx within 15 seconds as delivered.
const DefaultTimeout = 15 * time.Second

// DefaultUserAgent is the User-Agent of the requests when
// Config.UserAgent is empty.
const DefaultUserAgent = "unical-webhooks"

// maxResponseBody is how much of a receiver's answer is read, so that a
// receiver cannot make us download much; only the status code and
// Retry-After count.
const maxResponseBody = 64 << 10

// Config configure a Client.
type Config struct {
	// AllowPrivate lets deliveries reach loopback and private addresses,
	// for development against a receiver on the same machine or network.
	AllowPrivate bool
	// Timeout bounds one attempt: connecting, sending and reading the
	// status. Zero means DefaultTimeout.
	Timeout time.Duration
	// TLSConfig replaces the TLS settings; nil means the system roots
	// (with SSL_CERT_FILE honoured). Tests use it to trust their server.
	TLSConfig *tls.Config
	// UserAgent is sent with each request; empty means DefaultUserAgent.
	UserAgent string
}

// ErrForbiddenAddress is wrapped by the error of an attempt refused by the
// address policy.
var ErrForbiddenAddress = addrpolicy.ErrForbidden

// ForbiddenAddress reports whether the policy refuses ip when private
// targets are not allowed. An IPv4-mapped IPv6 address is judged as the
// IPv4 address it carries.
func ForbiddenAddress(ip netip.Addr) bool { return addrpolicy.Forbidden(ip) }

// ForbiddenHost reports whether a URL host (without port, as
// [net/url.URL.Hostname] returns it) is refused outright: an IP literal
// ForbiddenAddress refuses, or localhost. Other names pass here and are
// judged when they are resolved, at connection time.
func ForbiddenHost(host string) bool { return addrpolicy.ForbiddenHost(host) }

// Client sends webhook requests. It is safe for concurrent use.
type Client struct {
	http      *http.Client
	userAgent string
}

// New returns a Client.
func New(opts Config) *Client {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	dialer := addrpolicy.Dialer(timeout, opts.AllowPrivate)
	t := &http.Transport{
		// No proxy: the address check must see the receiver's address, and
		// a proxy would both hide it and carry the request anywhere.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       opts.TLSConfig,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	ua := opts.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	return &Client{
		http: &http.Client{
			Transport: t,
			Timeout:   timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		userAgent: ua,
	}
}

// Send POSTs body to url with the given headers and returns the response
// status code and Retry-After. A transport failure (refused address,
// timeout, TLS error) is an error with status 0.
func (c *Client) Send(ctx context.Context, url string, header map[string][]string, body []byte) (engine.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return engine.Response{}, err
	}
	for k, v := range header {
		req.Header[http.CanonicalHeaderKey(k)] = v
	}
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return engine.Response{}, err
	}
	defer resp.Body.Close()
	// Draining a little lets the connection be reused for the next message.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBody))
	// An HTTP date is read against this machine's clock, the only one a
	// real request has; an unreadable header counts as none.
	wait, _ := retry.After(resp.Header, time.Now())
	return engine.Response{StatusCode: resp.StatusCode, RetryAfter: wait}, nil
}

// CloseIdleConnections closes kept-alive connections.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }
