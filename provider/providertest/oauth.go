package providertest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// testTokenEndpoint: an OAuth provider refreshes on demand and hands the
// new token (with a rotated refresh token) to OnTokenRefresh before
// returning it; throttling and outages of the token endpoint are retried
// and then CodeUnavailable, never CodeAccountExpired; a revoked grant is
// CodeAccountExpired.
func testTokenEndpoint(t *testing.T, h *Harness) {
	if h.OAuth == nil {
		t.Skip("not an OAuth provider")
	}
	refresher, ok := h.Provider.(unical.TokenRefresher)
	if !ok {
		t.Fatalf("%T does not implement unical.TokenRefresher", h.Provider)
	}
	s := *h.Session
	var stored []unical.Token
	s.OnTokenRefresh = func(ctx context.Context, tok unical.Token) error {
		stored = append(stored, tok)
		if h.Session.OnTokenRefresh != nil {
			return h.Session.OnTokenRefresh(ctx, tok)
		}
		return nil
	}
	refresh := func(what string) (unical.Token, error) {
		t.Helper()
		before := len(stored)
		tok, err := refresher.RefreshToken(ctxOf(t), &s)
		if err == nil {
			if len(stored) != before+1 || !cmp.Equal(stored[len(stored)-1], tok) {
				t.Errorf("%s: OnTokenRefresh did not get the returned token before it was returned", what)
			}
			if tok.AccessToken == "" || !tok.Expiry.After(time.Now()) {
				t.Errorf("%s: token %+v is not usable", what, redact(tok))
			}
			old := s.Token.RefreshToken
			if h.OAuth.Rotates && tok.RefreshToken == old || !h.OAuth.Rotates && tok.RefreshToken != old {
				t.Errorf("%s: refresh token changed %v, want rotation %v", what, tok.RefreshToken != old, h.OAuth.Rotates)
			}
			s.Token = tok
		}
		return tok, err
	}

	if _, err := refresh("refresh"); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	h.OAuth.FailTokenEndpoint(t, 1, http.StatusTooManyRequests)
	if _, err := refresh("refresh after one 429"); err != nil {
		t.Fatalf("refresh after one 429: %v", err)
	}
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		h.OAuth.FailTokenEndpoint(t, h.OAuth.Attempts, status)
		_, err := refresh("token endpoint failing")
		wantCode(t, "refresh while the token endpoint answers "+http.StatusText(status), err, unical.CodeUnavailable)
	}
	h.OAuth.RevokeGrant(t)
	_, err := refresh("revoked grant")
	wantCode(t, "refresh of a revoked grant", err, unical.CodeAccountExpired)
}

// redact keeps secrets out of test logs.
func redact(t unical.Token) unical.Token {
	if t.AccessToken != "" {
		t.AccessToken = "<set>"
	}
	if t.RefreshToken != "" {
		t.RefreshToken = "<set>"
	}
	return t
}
