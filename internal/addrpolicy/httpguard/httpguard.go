// Package httpguard builds the HTTP transport of outbound provider
// requests with internal/addrpolicy on every dial. It is the one place
// that makes an HTTP transport or client for a URL a user or operator
// configured: TestOutboundClientsAreGuarded (in this package) fails for
// any other construction in the module that is not on its allow-list.
package httpguard

import (
	"net/http"
	"time"

	"github.com/unical/unical/internal/addrpolicy"
)

// Transport returns http.DefaultTransport's settings with, unless
// allowPrivate, the address policy on every dial. A guarded transport uses
// no proxy (HTTPS_PROXY is ignored): the check must see the server's own
// address, and a proxy would hide it.
func Transport(allowPrivate bool) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if !allowPrivate {
		t.Proxy = nil
		t.DialContext = addrpolicy.Dialer(30*time.Second, false).DialContext
	}
	return t
}

// Client returns a client over Transport(allowPrivate) whose requests
// time out after timeout. Redirects are followed as net/http does; each
// one dials through the same policy.
func Client(timeout time.Duration, allowPrivate bool) *http.Client {
	return &http.Client{Timeout: timeout, Transport: Transport(allowPrivate)}
}
