package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/postgres"
)

// countingStore is a PostgreSQL Store that counts the reads the request
// path makes, to show which requests are answered from caches.
type countingStore struct {
	*postgres.Store
	reads atomic.Int64
}

func (s *countingStore) GetAPIKey(ctx context.Context, id string) (*unical.APIKey, error) {
	s.reads.Add(1)
	return s.Store.GetAPIKey(ctx, id)
}

func (s *countingStore) GetAccount(ctx context.Context, appID, id string) (*unical.AccountRecord, error) {
	s.reads.Add(1)
	return s.Store.GetAccount(ctx, appID, id)
}

func (s *countingStore) ListAccounts(ctx context.Context, appID string, filter unical.AccountFilter) ([]*unical.AccountRecord, error) {
	s.reads.Add(1)
	return s.Store.ListAccounts(ctx, appID, filter)
}

// TestReplicas_CachesFollowOtherReplicas runs two replicas (each a
// Client, a handler and a Store of its own) on one PostgreSQL database,
// with an application and key cache time of an hour. Replica B answers
// repeated account reads without reading the database, yet sees an
// account deleted and an API key revoked through replica A: it learns of
// them from the database's notifications, not from the cache time.
func TestReplicas_CachesFollowOtherReplicas(t *testing.T) {
	t.Parallel()
	url := pgtest.Start(t, pgtest.Options{}).NewDatabase(t)
	key := seal.NewKey()
	replica := func() (*unical.Client, *countingStore, *httptest.Server) {
		store := &countingStore{Store: mustOpenReplicaStore(t, url)}
		prov := memory.New(memory.Config{Type: unical.ProviderGoogle})
		prov.AddUser("ada@example.com", "refresh-ada", "")
		client, srv := mustServeReplica(t, unical.Config{Store: store, Providers: []unical.Provider{prov}, MasterKey: key, CacheTTL: time.Hour})
		return client, store, srv
	}
	clientA, _, srvA := replica()
	_, storeB, srvB := replica()
	ctx := t.Context()

	adminA := admin.Of(clientA)
	created, err := adminA.CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("replicated")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := clientA.App(ctx, created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		t.Fatal(err)
	}
	second, err := adminA.CreateAPIKey(ctx, created.ApplicationID, "")
	if err != nil {
		t.Fatal(err)
	}
	keyID, key2 := second.Key.ID, second.APIKey
	get := func(srv *httptest.Server, method, path, apiKey string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("x-api-key", apiKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// waitFor asks B until done says it sees the change, up to 10 s (a
	// cache kept for its hour would fail), and returns how long it took.
	waitFor := func(what string, done func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !done() {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("replica B does not see %s 10 s after replica A made it", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return time.Since(start)
	}

	// B reads the account and the list once from the database, then from
	// its caches. Every 200 names the account.
	paths := []string{"/v1/endUserAccounts/" + acct.ID, "/v1/endUserAccounts?limit=50"}
	waitFor("the listening connection up", func() bool {
		for _, p := range paths {
			if code, body := get(srvB, "GET", p, key2); code != http.StatusOK || !strings.Contains(body, acct.ID) {
				t.Fatalf("GET %s on B = %d %s, want 200 with the account", p, code, body)
			}
		}
		before := storeB.reads.Load()
		for _, p := range paths {
			get(srvB, "GET", p, key2)
		}
		return storeB.reads.Load() == before
	})

	// An account deleted through A: B answers 404 and an empty list.
	if code, body := get(srvA, "DELETE", "/v1/endUserAccounts/"+acct.ID, created.APIKey); code != http.StatusOK {
		t.Fatalf("DELETE on A = %d %s", code, body)
	}
	took := waitFor("the account deleted", func() bool {
		code, _ := get(srvB, "GET", paths[0], key2)
		return code == http.StatusNotFound
	})
	if code, body := get(srvB, "GET", paths[1], key2); code != http.StatusOK || strings.Contains(body, acct.ID) {
		t.Errorf("GET %s on B after the delete = %d %s, want 200 without the account", paths[1], code, body)
	}
	t.Logf("B saw the deleted account after %v", took)

	// A key revoked through A stops working on B; the other key works.
	if err := adminA.RevokeAPIKey(ctx, created.ApplicationID, keyID); err != nil {
		t.Fatal(err)
	}
	took = waitFor("the key revoked", func() bool {
		code, _ := get(srvB, "GET", paths[1], key2)
		return code == http.StatusUnauthorized
	})
	t.Logf("B refused the revoked key after %v", took)
	if code, body := get(srvB, "GET", paths[1], created.APIKey); code != http.StatusOK {
		t.Errorf("GET %s on B with the key still valid = %d %s, want 200", paths[1], code, body)
	}
}

// mustOpenReplicaStore opens a PostgreSQL Store of one replica on the
// database at url, closed when the test ends.
func mustOpenReplicaStore(t *testing.T, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), postgres.Config{URL: url, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mustServeReplica makes a replica's Client of cfg and serves /v1 over it,
// both stopped when the test ends.
func mustServeReplica(t *testing.T, cfg unical.Config) (*unical.Client, *httptest.Server) {
	t.Helper()
	client, err := unical.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	srv := httptest.NewServer(httpapi.NewHandler(httpapi.Config{Client: client}))
	t.Cleanup(srv.Close)
	return client, srv
}
