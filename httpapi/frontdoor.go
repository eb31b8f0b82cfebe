package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/internal/adapter/wirecode"
)

// codeTimeout exists only on the wire, like wirecode.MethodNotAllowed: the
// request deadline is the HTTP layer's, not a Client call's.
const codeTimeout = wirecode.Timeout

// frontDoor applies the per-address rate limit and the request deadline
// to every request, before routing and before authentication.
func (h *handler) frontDoor(next http.Handler) http.Handler {
	if h.ipLimit == nil && h.timeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Health checks are not limited: a load balancer that also
		// forwards the traffic shares its address with every client, and a
		// 429 there would take a busy replica out of rotation.
		start := time.Now()
		if h.ipLimit != nil && !isHealthPath(r.URL.Path) {
			if ok, wait := h.ipLimit.allowTime(h.clientAddr(r), start); !ok {
				h.refuse(w, r, rateLimited(wait, "Too many requests from this address."))
				return
			}
		}
		x := &exchange{ResponseWriter: w, start: start}
		if h.timeout > 0 {
			// Provider and store calls take this deadline (routeMux puts
			// it into the request's context), so a hung provider call
			// ends at the deadline and writeError answers 504.
			x.timed = true
			x.deadline.parent, x.deadline.deadline = r.Context(), start.Add(h.timeout)
			defer x.deadline.release()
		}
		next.ServeHTTP(x, r)
	})
}

// rateLimited is the 429 of our own limits.
func rateLimited(wait time.Duration, message string) error {
	return httpwire.RateLimited(wait, message)
}

// timedOut replaces a server-side failure of a request whose deadline,
// ctx's, passed: the failure is most likely the deadline's doing.
func (h *handler) timedOut(ctx context.Context, err error) error {
	if h.timeout <= 0 || ctx.Err() != context.DeadlineExceeded {
		return err
	}
	switch unical.ErrorCode(err) {
	case unical.CodeInternal, unical.CodeUpstream, unical.CodeUnavailable, unical.CodeStoreUnavailable:
		return unical.WrapError(codeTimeout, err, "The request did not finish within %s; a change it asked for may or may not have been made.", h.timeout)
	}
	return err
}

// clientAddr is the caller's address for the per-address limit: the
// connection's peer, or with TrustForwardedFor the last X-Forwarded-For
// entry (the one our proxy appended). An IPv6 address counts as its /64,
// the smallest block a host is usually given, so that rotating through it
// does not buy more requests.
func (h *handler) clientAddr(r *http.Request) netip.Addr {
	return clientAddr(r, h.trustForwardedFor)
}

// clientAddr is handler.clientAddr for any handler that limits by address.
func clientAddr(r *http.Request, trustForwardedFor bool) netip.Addr {
	if trustForwardedFor {
		if values := r.Header["X-Forwarded-For"]; len(values) > 0 {
			last := values[len(values)-1]
			if i := strings.LastIndexByte(last, ','); i >= 0 {
				last = last[i+1:]
			}
			if a, err := netip.ParseAddr(strings.TrimSpace(last)); err == nil {
				return addrKey(a)
			}
		}
	}
	a, err := netip.ParseAddr(peerHost(r.RemoteAddr))
	if err != nil {
		// Not an IP peer (a unix socket, a test): all such callers share
		// the zero address's bucket.
		return netip.Addr{}
	}
	return addrKey(a)
}

// peerHost is the host of a peer address, "host:port" or "[host]:port"
// as net/http writes RemoteAddr, or "" for any other. The port is left
// unparsed (netip.ParseAddrPort would parse it): the limit does not need
// it, and it is a third of the work.
func peerHost(addr string) string {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return ""
	}
	host := addr[:i]
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		return host[1 : len(host)-1]
	}
	if strings.IndexByte(host, ':') >= 0 {
		return "" // an IPv6 address without brackets
	}
	return host
}

func addrKey(a netip.Addr) netip.Addr {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}

// apiKeyID returns the key id of an API key that authenticated,
// "uk_<key id>_<secret>", so that the limiter never holds a secret.
func apiKeyID(key string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(key, "uk_"), "_")
	return id
}

// closeDelay is how long a refused connection stays half-open after the
// answer: closing it at once, with the unread body in its receive
// buffer, makes the kernel send a reset that can destroy the answer
// before the client reads it.
const closeDelay = 500 * time.Millisecond

// refuse answers err to a request whose body has not been read (a bad API
// key, a rate limit). A request without a body gets the ordinary answer.
// With a body pending, net/http would read up to 256 KiB of it after the
// handler returns, as slowly as the client sends it; instead the
// connection is taken over, answered and closed, so the refusal arrives
// at once and the body is never waited for.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if r.ContentLength == 0 || r.ProtoMajor != 1 {
		h.writeError(w, r, err)
		return
	}
	answer := httpwire.NewBuffer(w.Header().Clone())
	h.writeError(answer, r, err)
	conn, buf, herr := http.NewResponseController(w).Hijack()
	if herr != nil {
		// A wrapping ResponseWriter that cannot hand over the connection:
		// answer through it, asking net/http to close rather than drain.
		answer.Header().Set("Connection", "close")
		answer.CopyTo(w)
		return
	}
	body := answer.Bytes()
	resp := &http.Response{
		StatusCode: answer.Status(), ProtoMajor: 1, ProtoMinor: 1, Request: r,
		Header: answer.Header(), ContentLength: int64(len(body)),
		Body: io.NopCloser(bytes.NewReader(body)), Close: true,
	}
	_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if resp.Write(buf) == nil && buf.Flush() == nil {
		if half, ok := conn.(interface{ CloseWrite() error }); ok && half.CloseWrite() == nil {
			time.AfterFunc(closeDelay, func() { conn.Close() })
			return
		}
	}
	conn.Close()
}

// isHealthPath reports the unauthenticated probes of load balancers and
// scrapers, which the per-address limit lets through.
func isHealthPath(p string) bool {
	return p == "/healthz" || p == "/readyz" || p == "/metrics"
}
