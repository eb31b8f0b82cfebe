package adminapi_test

import (
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
)

// loopbackListener counts the connections made to a TCP listener on
// 127.0.0.1, closing each at once; it returns the listener's address.
func loopbackListener(t *testing.T) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = &atomic.Int64{}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	return ln.Addr().String(), accepted
}

// TestDelegationAddressPolicy holds delegation credentials and provider
// settings to the outbound address policy: without
// AllowPrivateTargets, a loopback or private URL is refused when saved,
// naming the field, and a credential that names one anyway (saved under
// another policy) is verified without a connection to it. With
// AllowPrivateTargets the same listener is reached, which shows that it
// would see a connection.
func TestDelegationAddressPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		allowPrivate bool
	}{
		{"production policy", false},
		{"allow private targets", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, func(cfg *apitest.Config) { cfg.AllowPrivateTargets = tc.allowPrivate })
			app := s.createApp(t, "policy")
			base := "/admin/v1/applications/" + app.Application.ID
			addr, accepted := loopbackListener(t)
			key, _ := serviceAccountKey(t)
			google := func(field, value string) map[string]any {
				body := map[string]any{"serviceAccountKey": key, "domains": []string{"corp.example.com"}}
				if field != "" {
					body[field] = value
				}
				return body
			}
			microsoft := func(field, value string) map[string]any {
				body := map[string]any{"tenantId": "t", "clientId": "c", "clientSecret": "s", "domains": []string{"corp.example.com"}}
				body[field] = value
				return body
			}
			refused := []struct {
				name, path string
				body       any
				field      string
			}{
				{"Google token URL on loopback", "/delegations/provider_a", google("tokenUrl", "http://"+addr+"/token"), "tokenUrl"},
				{"Google API on a private address", "/delegations/provider_a", google("apiBaseUrl", "https://10.1.2.3/calendar/v3"), "apiBaseUrl"},
				{"Google directory on IPv6 loopback", "/delegations/provider_a", google("directoryUrl", "https://[::1]:8443/admin"), "directoryUrl"},
				{"Graph token URL on localhost", "/delegations/provider_b", microsoft("tokenUrl", "https://localhost/token"), "tokenUrl"},
				{"Graph API on the metadata address", "/delegations/provider_b", microsoft("apiBaseUrl", "http://169.254.169.254/latest"), "apiBaseUrl"},
				{"provider token URL on loopback", "/providers/provider_a", map[string]any{"clientId": "id", "tokenUrl": "http://" + addr + "/token"}, "tokenUrl"},
				{"provider revoke URL on a private address", "/providers/provider_a", map[string]any{"clientId": "id", "revokeUrl": "https://192.168.1.1/revoke"}, "revokeUrl"},
				{"provider user info on loopback", "/providers/provider_a", map[string]any{"clientId": "id", "userInfoUrl": "http://127.0.0.2/me"}, "userInfoUrl"},
			}
			for _, r := range refused {
				got := s.admin(t, "PUT", base+r.path, r.body)
				if tc.allowPrivate {
					if got.status != http.StatusOK {
						t.Errorf("%s: status %d with AllowPrivateTargets, want 200\n%s", r.name, got.status, got.body)
					}
					continue
				}
				wantError(t, got, http.StatusBadRequest, "invalid_request", r.field)
			}

			// A credential that names the listener anyway: saved with a
			// public URL, then changed in the store as an older server
			// or one with AllowPrivateTargets would have left it.
			s.must(t, "PUT", base+"/delegations/provider_a", google("tokenUrl", "https://oauth2.example/token"), nil)
			stored, err := s.store.GetApplication(t.Context(), app.Application.ID)
			if err != nil {
				t.Fatal(err)
			}
			d := stored.Delegations[unical.ProviderGoogle]
			d.TokenURL, d.APIBaseURL = "http://"+addr+"/token", "http://"+addr+"/calendar/v3"
			stored.Delegations[unical.ProviderGoogle] = d
			if err := s.store.UpdateApplication(t.Context(), stored); err != nil {
				t.Fatal(err)
			}
			s.client.Invalidate(app.Application.ID)
			accepted.Store(0)
			var v admin.DelegationView
			s.must(t, "POST", base+"/delegations/provider_a/verify", map[string]string{"email": "ada@corp.example.com"}, &v)
			if v.Status != admin.DelegationFailing || v.StatusReason != "Google's token endpoint could not be reached." {
				t.Errorf("verify: status %q, reason %q; want failing, the token endpoint not reached", v.Status, v.StatusReason)
			}
			switch n := accepted.Load(); {
			case tc.allowPrivate && n == 0:
				t.Errorf("verify with AllowPrivateTargets made no connection to the listener")
			case !tc.allowPrivate && n != 0:
				t.Errorf("verify under the production policy connected %d times to a loopback listener", n)
			}
		})
	}
}
