package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/google"
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

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "DELETE", st.URL+"/v1/endUserAccounts/"+accountID, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", st.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DELETE with a hanging revocation endpoint did not answer within 10 s: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("DELETE = %d, want 200", resp.StatusCode)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("revocation requests at the hanging endpoint = %d, want 1", n)
	}
	if r := st.do(t, "GET", "/v1/endUserAccounts/"+accountID, nil); r.Status != http.StatusNotFound {
		t.Errorf("account after delete: %d, want 404", r.Status)
	}
}
