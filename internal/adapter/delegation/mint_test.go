package delegation_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/delegation"
)

// tokenServer answers the client credentials grant with status and body,
// counting the requests.
func tokenServer(t *testing.T, status *atomic.Int32, body *atomic.Value) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var count atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(status.Load()))
		_, _ = io.WriteString(w, body.Load().(string))
	}))
	t.Cleanup(srv.Close)
	return srv, &count
}

func grant(t *testing.T, tokenURL string) *unical.DelegationGrant {
	t.Helper()
	secret, err := json.Marshal(delegation.Secret{ClientSecret: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	return &unical.DelegationGrant{Credential: unical.Delegation{TenantID: "tenant", ClientID: "app", TokenURL: tokenURL}, Secret: secret}
}

// TestMinter_KeepsTokens mints the tenant's token once, reuses it until
// shortly before it expires, and mints again when forced.
func TestMinter_KeepsTokens(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	var body atomic.Value
	status.Store(http.StatusOK)
	body.Store(`{"access_token":"at-1","token_type":"Bearer","expires_in":3600}`)
	srv, count := tokenServer(t, &status, &body)
	now := time.Now()
	m := &delegation.Minter{HTTPClient: srv.Client(), Now: func() time.Time { return now }}
	g := grant(t, srv.URL)

	for range 3 {
		tok, err := m.MicrosoftToken(t.Context(), g, false)
		if err != nil || tok.AccessToken != "at-1" {
			t.Fatalf("MicrosoftToken() = %+v, %v", tok, err)
		}
	}
	if n := count.Load(); n != 1 {
		t.Errorf("3 sessions sent %d token requests; want 1", n)
	}
	if _, err := m.MicrosoftToken(t.Context(), g, true); err != nil || count.Load() != 2 {
		t.Errorf("a forced mint: err %v, %d requests; want a second request", err, count.Load())
	}
	now = now.Add(59 * time.Minute) // within the margin before expiry
	if _, err := m.MicrosoftToken(t.Context(), g, false); err != nil || count.Load() != 3 {
		t.Errorf("a token about to expire: err %v, %d requests; want a new one", err, count.Load())
	}
}

// TestMinter_Refusals: an OAuth error answer expires the account with
// delegation_revoked, and refuses a connection naming the field at
// fault; a 429 or a 5xx says nothing about the credential.
func TestMinter_Refusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		status       int
		body         string
		wantCode     unical.Code
		wantReason   unical.StatusReason
		connectField string
	}{
		{"secret refused", http.StatusUnauthorized, `{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided."}`,
			unical.CodeAccountExpired, unical.StatusReasonDelegationRevoked, "providerType"},
		{"grant withdrawn", http.StatusBadRequest, `{"error":"unauthorized_client","error_description":"Client is unauthorized to retrieve access tokens using this method."}`,
			unical.CodeAccountExpired, unical.StatusReasonDelegationRevoked, "providerType"},
		{"unknown user (Google's answer)", http.StatusBadRequest, `{"error":"invalid_grant","error_description":"Invalid email or User ID"}`,
			unical.CodeAccountExpired, unical.StatusReasonDelegationRevoked, "email"},
		{"throttled", http.StatusTooManyRequests, `{"error":"temporarily_unavailable"}`, unical.CodeUnavailable, "", ""},
		{"down", http.StatusServiceUnavailable, `<html>busy</html>`, unical.CodeUnavailable, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var status atomic.Int32
			var body atomic.Value
			status.Store(int32(tc.status))
			body.Store(tc.body)
			srv, _ := tokenServer(t, &status, &body)
			m := &delegation.Minter{HTTPClient: srv.Client()}
			_, err := m.MicrosoftToken(t.Context(), grant(t, srv.URL), false)
			if unical.ErrorCode(err) != tc.wantCode || (tc.wantReason != "" && unical.ErrorReason(err) != tc.wantReason) {
				t.Fatalf("MicrosoftToken() error = %v (reason %q); want %s %q", err, unical.ErrorReason(err), tc.wantCode, tc.wantReason)
			}
			cerr := delegation.ConnectError(err)
			var e *unical.Error
			if tc.connectField == "" {
				if unical.ErrorCode(cerr) != tc.wantCode {
					t.Errorf("ConnectError() = %v; want %s unchanged", cerr, tc.wantCode)
				}
			} else if unical.ErrorCode(cerr) != unical.CodeInvalid || !errors.As(cerr, &e) || e.Field != tc.connectField {
				t.Errorf("ConnectError() = %v; want invalid naming %s", cerr, tc.connectField)
			}
		})
	}
}
