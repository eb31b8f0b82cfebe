package addrpolicy_test

import (
	"net/netip"
	"testing"

	"github.com/unical/unical/internal/addrpolicy"
)

func TestForbidden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"192.168.1.1", true},
		{"100.64.0.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"fe80::1", true},
		{"fe80::1%eth0", true}, // a zone must not hide the range
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"::", true},
		{"224.0.0.1", true},
		{"ff02::1", true},
		{"255.255.255.255", true},
		// IPv4-mapped forms are judged by the IPv4 address inside.
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:198.18.0.1", true},
		{"::ffff:7f00:1", true},
		// IPv4-translated (RFC 2765).
		{"::ffff:0:127.0.0.1", true},
		{"::ffff:0:8.8.8.8", true},
		// NAT64, well-known and local-use.
		{"64:ff9b::127.0.0.1", true},
		{"64:ff9b::a9fe:a9fe", true},
		{"64:ff9b::8.8.8.8", true},
		{"64:ff9b:1::10.0.0.1", true},
		// 6to4.
		{"2002:7f00:1::", true},
		{"2002:c0a8:101::1", true},
		{"2002:808:808::1", true},
		// IPv4-compatible IPv6.
		{"::127.0.0.1", true},
		{"::10.0.0.1", true},
		{"::8.8.8.8", true},
		// Teredo and documentation.
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
		{"2001:db8::1", true},
		// Benchmarking 198.18.0.0/15.
		{"198.18.0.1", true},
		{"198.19.255.254", true},
		// Reserved 240.0.0.0/4.
		{"240.0.0.1", true},
		{"250.1.2.3", true},
		{"255.255.255.254", true},
		// Other special IPv4 ranges.
		{"192.0.0.8", true},
		{"192.0.2.1", true},
		{"198.51.100.7", true},
		{"203.0.113.9", true},
		{"192.88.99.1", true}, // 6to4 relay anycast (RFC 7526)
		{"192.88.98.255", false},
		{"192.88.100.0", false},
		// IPv6 special-purpose ranges.
		{"2001:10::1", true},                 // ORCHID (RFC 4843)
		{"2001:1f:ffff:ffff::1", true},       // the end of ORCHID's /28
		{"2001:2::1", true},                  // benchmarking (RFC 5180)
		{"2001:20::1", true},                 // ORCHIDv2 (RFC 7343)
		{"2001:1ff:ffff:ffff:ffff::1", true}, // the end of 2001::/23 (RFC 2928)
		{"2001:200::1", false},               // just past it: a public allocation
		{"3fff::1", true},                    // documentation (RFC 9637)
		{"3fff:fff:ffff::1", true},           // the end of 3fff::/20
		{"3fff:1000::1", false},
		{"5f00::1", true},      // segment routing SIDs (RFC 9602)
		{"100:0:0:1::1", true}, // dummy prefix (RFC 9780)
		// Public addresses pass, also next to the refused ranges.
		{"93.184.216.34", false},
		{"8.8.8.8", false},
		{"::ffff:8.8.8.8", false},
		{"2606:2800:220:1:248:1893:25c8:1946", false},
		{"2001:4860:4860::8888", false},
		{"172.32.0.1", false},
		{"198.17.255.255", false},
		{"198.20.0.1", false},
		{"239.255.255.255", true}, // multicast
		{"223.255.255.255", false},
	}
	for _, tc := range tests {
		if got := addrpolicy.Forbidden(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("Forbidden(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

func TestForbiddenHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LOCALHOST.", true},
		{"api.localhost", true},
		{"127.0.0.1", true},
		{"[::1]", true},
		{"10.0.0.7", true},
		{"[64:ff9b::a00:1]", true},
		{"[2002:a00:1::]", true},
		{"hooks.example.com", false}, // judged when dialled
		{"8.8.8.8", false},
	}
	for _, tc := range tests {
		if got := addrpolicy.ForbiddenHost(tc.host); got != tc.want {
			t.Errorf("ForbiddenHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func TestTargetURLProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		raw          string
		allowPrivate bool
		want         string
	}{
		{"OK", "https://hooks.example.com/in?x=1", false, ""},
		{"Relative", "/hooks", false, "webhookUrl must be an absolute HTTPS URL."},
		{"Unparsable", "https://[::1", false, "webhookUrl must be an absolute HTTPS URL."},
		{"PlainHTTP", "http://hooks.example.com/", false, "webhookUrl must use https."},
		{"Credentials", "https://user:pw@hooks.example.com/", false, "webhookUrl must not carry credentials or a fragment."},
		{"Fragment", "https://hooks.example.com/#x", false, "webhookUrl must not carry credentials or a fragment."},
		{"Private", "https://10.0.0.1/", false, "webhookUrl must not point at a loopback, private or link-local address."},
		{"Localhost", "https://localhost:8443/", false, "webhookUrl must not point at a loopback, private or link-local address."},
		{"PrivateAllowed", "https://10.0.0.1/", true, ""},
		{"LoopbackHTTPAllowed", "http://127.0.0.1:9000/in", true, ""},
		// Plain http stays refused for hosts other than this machine.
		{"PrivateHTTPAllowed", "http://10.0.0.1/", true, "webhookUrl must use https."},
		{"LoopbackHTTPFragment", "http://localhost/#x", true, "webhookUrl must not carry credentials or a fragment."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := addrpolicy.TargetURLProblem("webhookUrl", tc.raw, tc.allowPrivate); got != tc.want {
				t.Errorf("TargetURLProblem(%q, %v) = %q, want %q", tc.raw, tc.allowPrivate, got, tc.want)
			}
		})
	}
}
