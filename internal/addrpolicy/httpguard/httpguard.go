// Package httpguard builds the HTTP transport of outbound provider
// requests with internal/addrpolicy on every dial.
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
