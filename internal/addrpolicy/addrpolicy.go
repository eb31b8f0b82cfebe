// Package addrpolicy decides which network addresses unical may connect to
// on behalf of its users: webhook receivers, provider endpoints and CalDAV
// servers. Without it, a URL an application or end user supplies could
// make the server reach its own loopback services, the private network
// around it or a cloud metadata endpoint (server-side request forgery).
//
// The policy is applied twice: to URL hosts that are IP literals or
// localhost when a URL is accepted, for a clear error early, and to every
// address actually dialled (a [net.Dialer] Control function), which is the
// check that counts: it runs after DNS resolution, so a name that resolves
// (or re-resolves, DNS rebinding) to an internal address is refused too.
// Package httpguard builds HTTP transports with it; this package stays
// free of net/http so that the root package can use it.
package addrpolicy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrForbidden is wrapped by the error of a connection the policy refused.
var ErrForbidden = errors.New("address not allowed: loopback, private, link-local or reserved")

// forbiddenPrefixes are the ranges that are neither public unicast nor
// covered by the netip.Addr predicates used in Forbidden: the IANA IPv4
// and IPv6 Special-Purpose Address Registries (RFC 6890) checked entry by
// entry. Left out are the registries' anycast services that are globally
// reachable and serve no internal network (AS112 in 192.31.196.0/24,
// 192.175.48.0/24 and 2620:4f:8000::/48; AMT in 192.52.193.0/24). The IPv6 ranges
// that carry an IPv4 address inside (IPv4-compatible, IPv4-translated,
// NAT64, 6to4, Teredo) are refused whole: each can reach an internal IPv4
// address through a translator or tunnel that this check cannot see.
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network", routed to the local host by some systems
	netip.MustParsePrefix("100.64.0.0/10"),   // RFC 6598 carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // RFC 6890 IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // RFC 5737 documentation
	netip.MustParsePrefix("192.88.99.0/24"),  // RFC 7526 deprecated 6to4 relay anycast: a relay leads into IPv6 tunnels
	netip.MustParsePrefix("198.18.0.0/15"),   // RFC 2544 benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // RFC 5737 documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // RFC 5737 documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, with 255.255.255.255 broadcast
	netip.MustParsePrefix("::/96"),           // IPv4-compatible IPv6 (RFC 4291 §2.5.5.1), with :: and ::1
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (RFC 2765)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 well-known prefix (RFC 6052)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // NAT64 local-use prefix (RFC 8215)
	netip.MustParsePrefix("100::/64"),        // discard-only (RFC 6666)
	netip.MustParsePrefix("100:0:0:1::/64"),  // dummy prefix (RFC 9780)
	// IETF protocol assignments (RFC 2928), whole: Teredo 2001::/32 (RFC
	// 4380), benchmarking 2001:2::/48 (RFC 5180), ORCHID 2001:10::/28
	// (RFC 4843), ORCHIDv2 2001:20::/28 (RFC 7343), drone remote ID
	// 2001:30::/28 (RFC 9374) and the anycast services: none is a web
	// server's address.
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"), // documentation (RFC 3849)
	netip.MustParsePrefix("2002::/16"),     // 6to4 (RFC 3056)
	netip.MustParsePrefix("3fff::/20"),     // documentation (RFC 9637)
	netip.MustParsePrefix("5f00::/16"),     // segment routing SIDs (RFC 9602)
	netip.MustParsePrefix("fec0::/10"),     // deprecated site-local
}

// Forbidden reports whether unical must not connect to ip unless private
// targets are allowed: loopback, private (RFC 1918, RFC 4193), link-local,
// unspecified, multicast, and the special ranges of forbiddenPrefixes.
// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4
// address it carries, which is where a dial to it goes.
func Forbidden(ip netip.Addr) bool {
	// A zone (fe80::1%eth0) would keep the address out of every prefix.
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return true
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ForbiddenHost reports whether a URL host (without port) names a
// forbidden address outright: an IP literal Forbidden refuses, or
// "localhost". Other names are only judged when they are resolved, at
// connection time.
func ForbiddenHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true // RFC 6761: always the loopback interface
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err != nil {
		return false
	}
	return Forbidden(ip)
}

// Control is a [net.Dialer] Control function that refuses forbidden
// addresses. It runs after resolution, just before connect(2), with the
// literal address being dialled.
func Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", ErrForbidden, address)
	}
	if Forbidden(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbidden, ap.Addr())
	}
	return nil
}

// Dialer returns a dialer with the given connect timeout that refuses
// forbidden addresses unless allowPrivate. Its DialContext is the hook for
// every client that is not HTTP (an SMTP relay): see [DialFunc].
func Dialer(timeout time.Duration, allowPrivate bool) *net.Dialer {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = Control
	}
	return d
}

// DialFunc returns Dialer(timeout, allowPrivate).DialContext, in the shape
// that clients taking a dial function want (net/smtp over a conn, a
// custom http.Transport): the one way to open a connection to a host a
// user or operator configured.
func DialFunc(timeout time.Duration, allowPrivate bool) func(ctx context.Context, network, address string) (net.Conn, error) {
	return Dialer(timeout, allowPrivate).DialContext
}

// LoopbackHost reports whether a URL host (without port) names this
// machine outright: "localhost" (RFC 6761) or a loopback IP literal.
// Names that merely resolve to loopback do not count, so the answer cannot
// change between the check and the connection.
func LoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && ip.Unmap().IsLoopback()
}
