package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// tokenPath is the path of the fake's token endpoint, for faults.
func (st *graphStack) tokenPath(tb testing.TB) string {
	tb.Helper()
	u, err := url.Parse(st.Graph.TokenURL())
	if err != nil {
		tb.Fatal(err)
	}
	return u.Path
}

func (st *graphStack) credentials(tb testing.TB, accountID string) unical.Credentials {
	tb.Helper()
	var cred unical.Credentials
	st.must(tb, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil).Into(tb, &cred)
	return cred
}

func (st *graphStack) accountStatus(tb testing.TB, accountID string) unical.AccountStatus {
	tb.Helper()
	var acct unical.Account
	st.must(tb, "GET", "/v1/endUserAccounts/"+accountID, nil).Into(tb, &acct)
	return acct.Status
}

// TestMicrosoftCredentialsRefreshAndRotation: the credentials endpoint of a
// PROVIDER_B account whose access token expired refreshes it, shows the
// refresh token Microsoft rotated, and has stored it: with the fake set to
// revoke redeemed refresh tokens, a later refresh works only if the
// rotated token was kept.
func TestMicrosoftCredentialsRefreshAndRotation(t *testing.T) {
	t.Parallel()
	clock := graphtest.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	st := startGraphStack(t, graphtest.Options{RevokeRotatedRefreshTokens: true}, clock)
	acct := st.MustConnect(t)
	first := st.credentials(t, acct)
	if first.AccessToken == "" || first.RefreshToken == "" || !first.ExpiresAt.After(clock.Now()) {
		t.Fatalf("credentials after connecting = %+v", first)
	}

	for round := 1; round <= 2; round++ {
		clock.Advance(2 * time.Hour) // past the one-hour access token
		before := st.Graph.RequestCount(st.tokenPath(t))
		got := st.credentials(t, acct)
		if !got.ExpiresAt.After(clock.Now()) {
			t.Fatalf("round %d: credentials expire at %v, before now %v", round, got.ExpiresAt, clock.Now())
		}
		if got.AccessToken == first.AccessToken || got.RefreshToken == first.RefreshToken {
			t.Fatalf("round %d: credentials kept the old tokens: %+v", round, got)
		}
		if n := st.Graph.RequestCount(st.tokenPath(t)) - before; n != 1 {
			t.Errorf("round %d: %d token requests, want 1", round, n)
		}
		// The refreshed token is stored: asking again refreshes nothing
		// and shows the same tokens.
		again := st.credentials(t, acct)
		if again.AccessToken != got.AccessToken || again.RefreshToken != got.RefreshToken || !again.ExpiresAt.Equal(got.ExpiresAt) {
			t.Errorf("round %d: credentials asked again = %+v, want %+v", round, again, got)
		}
		// The handed-out access token is the one Graph accepts.
		req, _ := http.NewRequest("GET", st.Graph.GraphBaseURL()+"/me", nil)
		req.Header.Set("Authorization", "Bearer "+got.AccessToken)
		resp, err := st.Graph.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("round %d: Graph answered %d to the handed-out access token", round, resp.StatusCode)
		}
		first = got
	}
	if s := st.accountStatus(t, acct); s != unical.AccountStatusActive {
		t.Errorf("account status = %s, want ACTIVE", s)
	}
}

// TestMicrosoftTokenEndpointFailures: a throttled or failing token endpoint never
// makes a PROVIDER_B account EXPIRED; a revoked grant does.
func TestMicrosoftTokenEndpointFailures(t *testing.T) {
	t.Parallel()
	clock := graphtest.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	st := startGraphStack(t, graphtest.Options{}, clock)
	acct := st.MustConnect(t)
	token := st.tokenPath(t)

	// One 429 and the retry succeeds.
	clock.Advance(2 * time.Hour)
	st.Graph.InjectFault(graphtest.Fault{PathPrefix: token, Status: http.StatusTooManyRequests})
	st.must(t, "GET", "/v1/calendars/"+acct, nil)
	if s := st.accountStatus(t, acct); s != unical.AccountStatusActive {
		t.Fatalf("after a 429 then success: status %s, want ACTIVE", s)
	}

	// The token endpoint fails every try (the first and the provider's
	// three retries): 503, and the account stays ACTIVE.
	clock.Advance(2 * time.Hour)
	st.Graph.InjectFault(graphtest.Fault{PathPrefix: token, Status: http.StatusServiceUnavailable, Count: 4})
	wantError(t, "calendars while the token endpoint fails", st.do(t, "GET", "/v1/calendars/"+acct, nil), http.StatusServiceUnavailable, "provider_unavailable", "")
	st.Graph.InjectFault(graphtest.Fault{PathPrefix: token, Status: http.StatusTooManyRequests, Count: 4})
	wantError(t, "credentials while the token endpoint throttles", st.do(t, "GET", "/v1/endUserAccounts/"+acct+"/credentials", nil), http.StatusServiceUnavailable, "provider_unavailable", "")
	if s := st.accountStatus(t, acct); s != unical.AccountStatusActive {
		t.Fatalf("after token endpoint outages: status %s, want ACTIVE", s)
	}

	// invalid_grant: the account is EXPIRED.
	st.Graph.RevokeRefreshTokens(st.UserID)
	wantError(t, "calendars after revocation", st.do(t, "GET", "/v1/calendars/"+acct, nil), http.StatusConflict, "account_expired", "")
	if s := st.accountStatus(t, acct); s != unical.AccountStatusExpired {
		t.Errorf("after invalid_grant: status %s, want EXPIRED", s)
	}
}
