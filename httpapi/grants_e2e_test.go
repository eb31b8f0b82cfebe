package httpapi_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/internal/testkit/graphtest"
)

// TestKeepAliveThroughHTTPAPI: Microsoft ends a refresh token unused for
// a while (90 days; a day here) with AADSTS700082. An account nobody
// calls stays ACTIVE while the engine's grant checks keep its refresh
// token in use, and two engines over one Store share the checks, one
// check per due account; without the checks the first call after the
// idle spell finds the account EXPIRED.
func TestKeepAliveThroughHTTPAPI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		interval   time.Duration // Config.GrantCheckInterval
		keepAlive  time.Duration // Config.GrantKeepAlive
		wantStatus int
		wantCode   string
	}{
		{name: "KeepAlive", interval: -1, keepAlive: 6 * time.Hour, wantStatus: http.StatusOK},
		{name: "Checks", interval: 3 * time.Hour, keepAlive: -1, wantStatus: http.StatusOK},
		{name: "Neither", interval: -1, keepAlive: -1, wantStatus: http.StatusConflict, wantCode: "account_expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := graphtest.NewClock(time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC))
			var cfg apitest.Config
			st := startGraphStackWith(t, graphtest.Options{RefreshTokenLifetime: 24 * time.Hour}, clock, func(c *apitest.Config) {
				c.GrantCheckInterval, c.GrantKeepAlive = tc.interval, tc.keepAlive
				cfg = *c
			})
			// A second replica: another Client over the same Store.
			replica, err := unical.New(cfg.Config)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { replica.Close() })
			accountID := st.MustConnect(t)

			// Three idle days, in steps of an hour, both replicas checking
			// at every step.
			checked := 0
			for range 72 {
				clock.Advance(time.Hour)
				var wg sync.WaitGroup
				counts := make([]int, 2)
				for i, c := range []*unical.Client{st.Client, replica} {
					wg.Go(func() {
						n, err := engine.CheckGrants(t.Context(), c, cfg.Settings)
						if err != nil {
							t.Errorf("CheckGrants() = %v", err)
						}
						counts[i] = n
					})
				}
				wg.Wait()
				if counts[0]+counts[1] > 1 {
					t.Fatalf("at %s the replicas checked the one account %d times", clock.Now(), counts[0]+counts[1])
				}
				checked += counts[0] + counts[1]
			}
			if tc.wantStatus == http.StatusOK && checked == 0 {
				t.Error("no replica checked the account in three days")
			}

			r := st.do(t, "GET", "/v1/calendars/"+accountID, nil)
			if r.Status != tc.wantStatus || (tc.wantCode != "" && r.Error(t).Code != tc.wantCode) {
				t.Fatalf("GET calendars after three idle days = %d %s, want %d %s", r.Status, r.Body, tc.wantStatus, tc.wantCode)
			}
			var acct unical.Account
			st.must(t, "GET", "/v1/endUserAccounts/"+accountID, nil).Into(t, &acct)
			want := unical.AccountStatusActive
			if tc.wantStatus != http.StatusOK {
				want = unical.AccountStatusExpired
			}
			if acct.Status != want {
				t.Errorf("account status = %s (%s), want %s", acct.Status, acct.StatusReason, want)
			}
		})
	}
}

// TestGoogleE2E_GrantCheckExpiresRevoked: a grant revoked at Google while
// nobody calls expires the account at the engine's next grant check, and
// the application gets one enduseraccount.updated saying so, however
// many checks follow.
func TestGoogleE2E_GrantCheckExpiresRevoked(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	const interval = 100 * time.Millisecond
	st := mustNewGoogleStackWith(t, googletest.Options{}, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.AllowPrivateTargets = true
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = -1
		cfg.RetryJitter = -1
		cfg.GrantCheckInterval = interval
	})
	_, secret, err := st.Admin.UpdateApplication(t.Context(), st.AppID, &admin.ApplicationParams{WebhookURL: unical.Some(rcv.URL + "/account-hook")})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(secret)
	accountID := st.connect(t)
	go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()

	st.google.RevokeAccess(e2eClientID, e2eUser)
	updated := func() []unical.MessagePayload {
		var got []unical.MessagePayload
		for _, d := range rcv.Deliveries() {
			if p := d.Payload(t); d.Verified && p.EventType == unical.EventTypeAccountUpdated {
				got = append(got, p)
			}
		}
		return got
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(updated()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// Many more checks come due; none may report the expiry again.
	time.Sleep(10 * interval)
	got := updated()
	if len(got) != 1 {
		t.Fatalf("enduseraccount.updated messages = %d, want 1", len(got))
	}
	if p := got[0]; p.EndUserAccountID != accountID || p.EndUserAccount == nil ||
		p.EndUserAccount.Status != unical.AccountStatusExpired || p.EndUserAccount.StatusReason != unical.StatusReasonRefreshTokenRevoked {
		t.Errorf("enduseraccount.updated = %+v, want account %s EXPIRED with refresh_token_revoked", p, accountID)
	}
	var acct unical.Account
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID, nil, &acct)
	if acct.Status != unical.AccountStatusExpired {
		t.Errorf("account status = %s, want EXPIRED", acct.Status)
	}
}

// TestGrantCheckCountsCalls: a call that refreshed an account's token
// showed its grant alive, so the engine's check refreshes it again only
// once the account has gone a whole period without a refresh.
func TestGrantCheckCountsCalls(t *testing.T) {
	t.Parallel()
	clock := graphtest.NewClock(time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC))
	st := startGraphStackWith(t, graphtest.Options{}, clock, func(c *apitest.Config) {
		c.GrantCheckInterval, c.GrantKeepAlive = 6*time.Hour, -1
	})
	accountID := st.MustConnect(t)
	check := func() int {
		t.Helper()
		n, err := engine.CheckGrants(t.Context(), st.Client, st.Engine)
		if err != nil {
			t.Fatalf("CheckGrants() = %v", err)
		}
		return n
	}
	var got []int
	clock.Advance(time.Hour)
	got = append(got, check()) // first seen: scheduled within the period
	clock.Advance(5*time.Hour + time.Minute)
	st.must(t, "GET", "/v1/calendars/"+accountID, nil) // the expired access token is refreshed
	got = append(got, check())                         // due, but refreshed a moment ago
	clock.Advance(6*time.Hour + time.Minute)
	got = append(got, check()) // a period without a refresh
	if diff := cmp.Diff([]int{0, 0, 1}, got); diff != "" {
		t.Errorf("accounts checked at each step (-want +got):\n%s", diff)
	}
}

// TestGoogleE2E_KeepAlive: Google ends a refresh token unused for six
// months. An account nobody calls for seven months stays ACTIVE under the
// engine's keep-alive (every 30 days by default), and without it the
// first call finds it EXPIRED.
func TestGoogleE2E_KeepAlive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		keepAlive  time.Duration // Config.GrantKeepAlive
		wantStatus int
	}{
		{name: "KeepAlive", wantStatus: http.StatusOK},
		{name: "Off", keepAlive: -1, wantStatus: http.StatusConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := graphtest.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
			st := mustNewGoogleStackWith(t, googletest.Options{Now: clock.Now}, func(cfg *apitest.Config) {
				cfg.Now = clock.Now
				cfg.GrantCheckInterval, cfg.GrantKeepAlive = -1, tc.keepAlive
			})
			accountID := st.connect(t)
			for range 7 * 30 {
				clock.Advance(24 * time.Hour)
				if _, err := engine.CheckGrants(t.Context(), st.Client, st.Engine); err != nil {
					t.Fatalf("CheckGrants() = %v", err)
				}
			}
			if r := st.do(t, "GET", "/v1/calendars/"+accountID, nil); r.Status != tc.wantStatus {
				t.Errorf("GET calendars after seven idle months = %d %s, want %d", r.Status, r.Body, tc.wantStatus)
			}
		})
	}
}
