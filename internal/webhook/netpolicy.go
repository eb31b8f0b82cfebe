package webhook

import (
	"net/netip"
	"strings"
)

// sharedAddressSpace is RFC 6598 carrier-grade NAT space: not public, but
// not covered by netip.Addr.IsPrivate.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// thisNetwork is 0.0.0.0/8, which some systems route to the local host.
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// ForbiddenAddr reports whether a delivery must not connect to ip unless
// private targets are allowed: loopback, private (RFC 1918, RFC 4193 and
// RFC 6598), link-local, unspecified, multicast and the broadcast address.
// IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry, so
// ::ffff:127.0.0.1 is loopback.
func ForbiddenAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid(),
		ip.IsLoopback(), ip.IsPrivate(), ip.IsUnspecified(),
		ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(),
		ip.IsInterfaceLocalMulticast(), ip.IsMulticast():
		return true
	case ip.Is4():
		return sharedAddressSpace.Contains(ip) || thisNetwork.Contains(ip) ||
			ip == netip.AddrFrom4([4]byte{255, 255, 255, 255})
	}
	return false
}

// ForbiddenHost reports whether a URL host (without port) names a
// forbidden address outright: an IP literal ForbiddenAddr refuses, or
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
	return ForbiddenAddr(ip)
}
