package google

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/grants"
	"github.com/unical/unical/internal/testkit/googletest"
)

// TestRevokeGrant checks RevokeGrant's outcomes as the Client reads them
// (grants.Retryable): revoked, or already gone (400
// invalid_token), is success; an outage or throttling may pass and is
// retried; another refusal is final.
func TestRevokeGrant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		unknown   bool // revoke a token Google does not know
		fault     *googletest.Fault
		wantCode  unical.Code // "" for success
		wantRetry bool
		// wantRevoked is whether the grant is gone afterwards.
		wantRevoked bool
	}{
		{name: "Revoked", wantRevoked: true},
		{name: "AlreadyInvalid", unknown: true},
		{name: "Unavailable", fault: &googletest.Fault{Status: http.StatusServiceUnavailable}, wantCode: unical.CodeUnavailable, wantRetry: true},
		{name: "InternalError", fault: &googletest.Fault{Status: http.StatusInternalServerError}, wantCode: unical.CodeUnavailable, wantRetry: true},
		{name: "Throttled", fault: &googletest.Fault{Status: http.StatusTooManyRequests}, wantCode: unical.CodeRateLimited, wantRetry: true},
		{name: "Forbidden", fault: &googletest.Fault{Status: http.StatusForbidden}, wantCode: unical.CodeUpstream},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.settings.RevokeURL = f.srv.RevokeURL()
			s := f.session(t, alice)
			token := s.Token.RefreshToken
			if tc.unknown {
				s.Token.RefreshToken = "1//not-a-token"
			}
			if tc.fault != nil {
				fault := *tc.fault
				fault.Method, fault.PathPrefix, fault.Times = "POST", "/revoke", 1
				f.srv.InjectFault(fault)
			}
			err := f.p.RevokeGrant(t.Context(), s)
			if got := unical.ErrorCode(err); err != nil && got != tc.wantCode || err == nil && tc.wantCode != "" {
				t.Fatalf("RevokeGrant() = %v, want code %q", err, tc.wantCode)
			}
			if got := grants.Retryable(err); err != nil && got != tc.wantRetry {
				t.Errorf("RevocationRetryable(%v) = %v, want %v", err, got, tc.wantRetry)
			}
			var want []string
			if tc.fault == nil {
				want = []string{s.Token.RefreshToken}
			}
			if d := cmp.Diff(want, f.srv.RevokeRequests()); d != "" {
				t.Errorf("tokens at the revocation endpoint (-want +got):\n%s", d)
			}
			_, err = f.p.RefreshToken(t.Context(), &unical.Session{Settings: f.settings, Token: unical.Token{RefreshToken: token}, OnTokenRefresh: s.OnTokenRefresh})
			if revoked := unical.ErrorCode(err) == unical.CodeAccountExpired; revoked != tc.wantRevoked {
				t.Errorf("refresh after RevokeGrant: %v; want the grant revoked: %v", err, tc.wantRevoked)
			}
		})
	}
}
