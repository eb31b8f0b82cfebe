package webhook_test

import (
	"net/netip"
	"testing"

	"github.com/unical/unical/internal/webhook"
)

func TestForbiddenAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"192.168.1.1", true},
		{"100.64.0.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"fe80::1", true},
		{"fc00::1", true},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"::", true},
		{"224.0.0.1", true},
		{"ff02::1", true},
		{"255.255.255.255", true},
		{"93.184.216.34", false},
		{"2606:2800:220:1:248:1893:25c8:1946", false},
		{"172.32.0.1", false},
	}
	for _, tc := range tests {
		if got := webhook.ForbiddenAddr(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("ForbiddenAddr(%s) = %v, want %v", tc.addr, got, tc.want)
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
		{"hooks.example.com", false}, // judged when dialled
		{"8.8.8.8", false},
	}
	for _, tc := range tests {
		if got := webhook.ForbiddenHost(tc.host); got != tc.want {
			t.Errorf("ForbiddenHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}
