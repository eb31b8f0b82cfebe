package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/grants"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/googletest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/google"
	"github.com/unical/unical/store/bolt"
)

// TestGoogleE2E_DeleteWithHangingRevocation points the application's
// revocation endpoint at a server that never answers: DELETE
// /v1/endUserAccounts/{id} still answers, within 10 seconds (the
// revocation waits at most google.RevokeTimeout), and the account is
// gone.
func TestGoogleE2E_DeleteWithHangingRevocation(t *testing.T) {
	t.Parallel()
	st := mustNewGoogleStack(t)
	accountID := st.connect(t)
	var hits atomic.Int64
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the caller hang up
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // runs first
	_, err := st.Admin.SetProviderSettings(t.Context(), st.AppID, google.ProviderType, &admin.ProviderSettingsParams{
		ClientID: e2eClientID, AuthURL: st.google.AuthURL(), TokenURL: st.google.TokenURL(), UserInfoURL: st.google.UserinfoURL(),
		APIBaseURL: st.google.APIBaseURL(), RevokeURL: hang.URL + "/revoke",
	})
	if err != nil {
		t.Fatal(err)
	}

	st.deleteAccountWithin(t, accountID, 10*time.Second)
	if n := hits.Load(); n != 1 {
		t.Errorf("revocation requests at the hanging endpoint = %d, want 1", n)
	}
	if r := st.do(t, "GET", "/v1/endUserAccounts/"+accountID, nil); r.Status != http.StatusNotFound {
		t.Errorf("account after delete: %d, want 404", r.Status)
	}
}

// revocationStack is a Google stack whose engine retries quickly and
// whose application's own webhook endpoint is rcv, so that a test sees
// every message the engine sends.
func revocationStack(t *testing.T, rcv *apitest.Receiver, configure func(*apitest.Config)) *googleStack {
	t.Helper()
	st := mustNewGoogleStackWith(t, googletest.Options{}, func(cfg *apitest.Config) {
		cfg.Sender = rcv.Sender()
		cfg.OutboxPollInterval = 20 * time.Millisecond
		cfg.ChangePollInterval = -1
		cfg.GrantCheckInterval, cfg.GrantKeepAlive = -1, -1
		cfg.RetryJitter = -1
		cfg.RetrySchedule = []time.Duration{0, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
		cfg.Revoker = grants.RevokeOrQueue
		if configure != nil {
			configure(cfg)
		}
	})
	_, secret, err := st.Admin.UpdateApplication(t.Context(), st.AppID, &admin.ApplicationParams{WebhookURL: unical.Some(rcv.URL + "/account-hook")})
	if err != nil {
		t.Fatal(err)
	}
	rcv.SetSecret(secret)
	return st
}

// deleteAccountWithin sends DELETE /v1/endUserAccounts/{id} and fails
// unless it answers 200 within d.
func (st *googleStack) deleteAccountWithin(t *testing.T, accountID string, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "DELETE", st.URL+"/v1/endUserAccounts/"+accountID, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", st.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DELETE did not answer within %s: %v", d, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE = %d, want 200", resp.StatusCode)
	}
}

// waitRevoked waits, at most 30 seconds, until the fake Google has
// revoked a token, and checks that it revoked exactly token, once, and
// that the grant is gone: its refresh token is refused.
func (st *googleStack) waitRevoked(t *testing.T, token string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(st.google.RevokeRequests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if d := cmp.Diff([]string{token}, st.google.RevokeRequests()); d != "" {
		t.Fatalf("tokens revoked at Google (-want +got):\n%s", d)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {e2eClientID}, "client_secret": {e2eSecret}}
	resp, err := http.PostForm(st.google.TokenURL(), form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("refresh with the deleted account's token = %d, want 400 (revoked)", resp.StatusCode)
	}
}

// TestGoogleE2E_FailedRevocationRetried: when Google's revocation
// endpoint hangs, is down or throttles as an account is deleted, DELETE
// still answers at once and the account is gone, and the engine revokes
// the grant later, from the outbox, with the deleted account's refresh
// token. The queued revocation is the server's own work: the
// application's webhook endpoint gets only the enduseraccount messages,
// and its delivery log lists only what the endpoint got.
func TestGoogleE2E_FailedRevocationRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault googletest.Fault
	}{
		// The request is held longer than google.RevokeTimeout.
		{"Hangs", googletest.Fault{Method: "POST", PathPrefix: "/revoke", Times: 1, Delay: time.Minute}},
		// Down for the DELETE and the engine's first try.
		{"Unavailable", googletest.Fault{Method: "POST", PathPrefix: "/revoke", Times: 2, Status: http.StatusServiceUnavailable}},
		{"Throttled", googletest.Fault{Method: "POST", PathPrefix: "/revoke", Times: 1, Status: http.StatusTooManyRequests}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rcv := apitest.NewReceiver(t)
			st := revocationStack(t, rcv, nil)
			accountID := st.connect(t)
			var cred unical.Credentials
			st.must(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil, &cred)
			go func() { _ = engine.Run(t.Context(), st.Client, st.Engine) }()

			st.google.InjectFault(tc.fault)
			st.deleteAccountWithin(t, accountID, 10*time.Second)
			if r := st.do(t, "GET", "/v1/endUserAccounts/"+accountID, nil); r.Status != http.StatusNotFound {
				t.Errorf("account after delete: %d, want 404", r.Status)
			}
			st.waitRevoked(t, cred.RefreshToken)

			// The deletion's own message arrives; nothing else does.
			deadline := time.Now().Add(30 * time.Second)
			for !slices.Contains(deliveredTypes(t, rcv), unical.EventTypeAccountDeleted) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			ids := map[string]bool{}
			for _, d := range rcv.Deliveries() {
				ids[d.Header.Get("webhook-id")] = true
				if p := d.Payload(t); !strings.HasPrefix(p.EventType, "enduseraccount.") || strings.Contains(string(d.Body), cred.RefreshToken) {
					t.Errorf("the application's endpoint got %s", d.Body)
				}
			}
			if len(ids) == 0 {
				t.Fatal("the application's endpoint got nothing")
			}
			var log struct {
				Data []outbox.Attempt `json:"data"`
			}
			st.must(t, "GET", "/v1/applicationWebhook/deliveries", nil, &log)
			for _, a := range log.Data {
				if !ids[a.MessageID] || !strings.HasPrefix(a.EventType, "enduseraccount.") {
					t.Errorf("the delivery log lists %+v, which the endpoint never got", a)
				}
			}
		})
	}
}

// deliveredTypes returns the event types of what rcv got, in order.
func deliveredTypes(t *testing.T, rcv *apitest.Receiver) []string {
	var types []string
	for _, d := range rcv.Deliveries() {
		types = append(types, d.Payload(t).EventType)
	}
	return types
}

// TestGoogleE2E_RevocationSurvivesRestart: a revocation that failed as
// its account was deleted is kept in the bbolt file, sealed (neither of
// the account's tokens is in the file in plaintext), and a server started
// again on the file with the same master key revokes the grant.
func TestGoogleE2E_RevocationSurvivesRestart(t *testing.T) {
	t.Parallel()
	rcv := apitest.NewReceiver(t)
	var cfg apitest.Config
	st := revocationStack(t, rcv, func(c *apitest.Config) { cfg = *c })
	accountID := st.connect(t)
	var cred unical.Credentials
	st.must(t, "GET", "/v1/endUserAccounts/"+accountID+"/credentials", nil, &cred)

	// No engine runs: the server stops before anyone retries.
	st.google.InjectFault(googletest.Fault{Method: "POST", PathPrefix: "/revoke", Times: 1, Status: http.StatusServiceUnavailable})
	st.deleteAccountWithin(t, accountID, 10*time.Second)
	if got := st.google.RevokeRequests(); len(got) != 0 {
		t.Fatalf("revoked %d tokens with the endpoint down", len(got))
	}
	if err := st.Client.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Store.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(st.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string]string{"refresh token": cred.RefreshToken, "access token": cred.AccessToken} {
		if secret == "" || bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the bbolt file holds the deleted account's %s %q in plaintext (or it is empty)", name, secret)
		}
	}

	store, err := bolt.Open(bolt.Config{Path: st.DBPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg.Store = store
	restarted, err := unical.New(cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restarted.Close() })
	go func() { _ = engine.Run(t.Context(), restarted, cfg.Settings) }()
	st.waitRevoked(t, cred.RefreshToken)
}
