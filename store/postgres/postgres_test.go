package postgres_test

import (
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/scopedtoken"
	"github.com/unical/unical/store/postgres"
	"github.com/unical/unical/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// mustOpen opens a Store with empty tables on the shared cluster and
// closes it when the test ends. The database may be one an earlier test
// migrated and left with its tables emptied (pgtest.NewClearedDatabase):
// the migration tests use fresh databases instead.
func mustOpen(tb testing.TB) *postgres.Store {
	tb.Helper()
	url := pgtest.Shared(tb).NewClearedDatabase(tb, "unical_schema")
	s, err := postgres.Open(tb.Context(), postgres.Config{URL: url, MaxConns: 4})
	if err != nil {
		tb.Fatalf("Open(): %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(tb testing.TB) unical.Store { return mustOpen(tb) })
}

var _ scopedtoken.GrantStore = (*postgres.Store)(nil)
