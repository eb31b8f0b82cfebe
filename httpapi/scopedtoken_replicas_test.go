package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/scopedtoken"
	"github.com/unical/unical/store/postgres"
)

// grantCountingStore is a PostgreSQL Store that counts its reads of
// token grants, to show when a replica answers from its cache.
type grantCountingStore struct {
	*postgres.Store
	reads atomic.Int64
}

func (s *grantCountingStore) GetTokenGrant(ctx context.Context, id string, now time.Time) ([]byte, error) {
	s.reads.Add(1)
	return s.Store.GetTokenGrant(ctx, id, now)
}

// TestReplicas_ScopedTokens runs two replicas on one PostgreSQL database,
// with an hour of cache time and one clock. Replica B keeps a token's
// grant in its cache, yet refuses the token once replica A revoked it
// (learnt from the database's notification, not from the cache time),
// and refuses an expired token at once. The token is nowhere in the
// database in plain text.
func TestReplicas_ScopedTokens(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t, pgtest.Options{}).NewDatabase(t)
	key := seal.NewKey()
	clock := &fakeClock{t: time.Now().UTC().Truncate(time.Second)}
	replica := func() (*unical.Client, *grantCountingStore, *httptest.Server) {
		store := &grantCountingStore{Store: mustOpenReplicaStore(t, dsn)}
		client, srv := mustServeReplica(t, unical.Config{Store: store, Providers: virtual.Add(nil, virtual.Config{Store: store}), MasterKey: key, CacheTTL: time.Hour, Now: clock.Now})
		return client, store, srv
	}
	clientA, _, srvA := replica()
	_, storeB, srvB := replica()
	ctx := t.Context()
	created, err := admin.Of(clientA).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("replicated")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := clientA.App(ctx, created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "room@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	send := func(srv *httptest.Server, method, path, header, value string, body any) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(header, value)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	issue := func() scopedtoken.Issued {
		t.Helper()
		code, body := send(srvA, "POST", "/v1/tokens", "x-api-key", created.APIKey,
			map[string]any{"endUserAccountIds": []string{acct.ID}, "scopes": []string{"freebusy.read"}, "ttlSeconds": 60})
		if code != http.StatusCreated {
			t.Fatalf("POST /v1/tokens on A = %d %s", code, body)
		}
		var issued scopedtoken.Issued
		if err := json.Unmarshal(body, &issued); err != nil {
			t.Fatal(err)
		}
		return issued
	}
	current := func(tok scopedtoken.Issued) int {
		code, _ := send(srvB, "GET", "/v1/tokens/current", "Authorization", "Bearer "+tok.Token, nil)
		return code
	}
	revoked, expiring := issue(), issue()

	// B reads each grant once, then from its cache (once its listening
	// connection is up: before, nothing is reused).
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, tok := range []scopedtoken.Issued{revoked, expiring} {
			if code := current(tok); code != http.StatusOK {
				t.Fatalf("GET /v1/tokens/current on B = %d, want 200", code)
			}
		}
		before := storeB.reads.Load()
		current(revoked)
		current(expiring)
		if storeB.reads.Load() == before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("replica B still reads every grant from the database after 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}

	if code, body := send(srvA, "DELETE", "/v1/tokens/"+revoked.ID, "x-api-key", created.APIKey, nil); code != http.StatusOK {
		t.Fatalf("DELETE /v1/tokens on A = %d %s", code, body)
	}
	start := time.Now()
	for current(revoked) != http.StatusUnauthorized {
		// Generous for a loaded machine; the cache alone would keep the
		// grant for an hour.
		if time.Since(start) > 10*time.Second {
			t.Fatal("replica B still takes the token 10 s after A revoked it")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("replica B refused the revoked token %s after A's revocation", time.Since(start))
	if code := current(expiring); code != http.StatusOK {
		t.Fatalf("the other token on B = %d after the revocation, want 200", code)
	}

	clock.Add(60 * time.Second)
	if code := current(expiring); code != http.StatusUnauthorized {
		t.Errorf("expired token on B = %d, want 401 at once", code)
	}

	dump := pgtest.DumpTables(t, dsn)
	if !strings.Contains(dump, expiring.ID) {
		t.Fatalf("the dump does not hold the token's id; it did not read the grants:\n%.2000s", dump)
	}
	for _, tok := range []scopedtoken.Issued{revoked, expiring} {
		_, secret, _ := scopedtoken.Split(tok.Token)
		for _, form := range []string{tok.Token, secret, hex.EncodeToString([]byte(secret)), base64.StdEncoding.EncodeToString([]byte(secret))} {
			if strings.Contains(dump, form) {
				t.Errorf("the database holds a token in plain text (as %q)", form)
			}
		}
	}
}
