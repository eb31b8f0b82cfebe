package caldav

import (
	"context"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type srvResolver map[string][]*net.SRV

func (r srvResolver) LookupSRV(_ context.Context, service, proto, name string) (string, []*net.SRV, error) {
	if a, ok := r["_"+service+"._"+proto+"."+name]; ok {
		return "", a, nil
	}
	return "", nil, &net.DNSError{Err: "no such host", IsNotFound: true}
}

func (r srvResolver) LookupTXT(_ context.Context, name string) ([]string, error) {
	if name == "_caldavs._tcp.example.com" {
		return []string{"txtvers=1 path=/dav/principals/"}, nil
	}
	return nil, &net.DNSError{Err: "no such host", IsNotFound: true}
}

// TestDiscover: the servers tried for an email's domain, in order.
func TestDiscover(t *testing.T) {
	t.Parallel()
	resolver := srvResolver{
		"_caldavs._tcp.example.com": {{Target: "dav1.example.com.", Port: 443}, {Target: "dav2.example.com.", Port: 8443}},
		"_caldav._tcp.example.com":  {{Target: "plain.example.com.", Port: 80}},
		"_caldavs._tcp.nocal.test":  {{Target: ".", Port: 0}},
	}
	tests := []struct {
		name         string
		email        string
		allowPrivate bool
		want         []string
	}{
		{"SRV targets with the TXT path, then the domain", "Ann@Example.com", false,
			[]string{"https://dav1.example.com:443/dav/principals/", "https://dav2.example.com:8443/dav/principals/", "https://example.com"}},
		{"plain http SRV only where http is allowed", "ann@example.com", true,
			[]string{"https://dav1.example.com:443/dav/principals/", "https://dav2.example.com:8443/dav/principals/", "http://plain.example.com:80/", "https://example.com"}},
		{"no records: the domain", "bob@other.test", false, []string{"https://other.test"}},
		{`target "." says no service`, "bob@nocal.test", false, []string{"https://nocal.test"}},
		{"no domain", "bob", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Provider{resolver: resolver, allowPrivate: tt.allowPrivate}
			if diff := cmp.Diff(tt.want, p.discover(t.Context(), tt.email)); diff != "" {
				t.Errorf("discover(%q) (-want +got):\n%s", tt.email, diff)
			}
		})
	}
}
