package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/store/postgres"
)

var t0 = time.Date(2031, time.March, 14, 15, 9, 26, 0, time.UTC)

// openURL opens a Store at url and closes it when the test ends.
func openURL(tb testing.TB, url string) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(tb.Context(), postgres.Config{URL: url, MaxConns: 2})
	if err != nil {
		tb.Fatalf("Open(): %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// schemaVersions returns the versions recorded in unical_schema.
func schemaVersions(tb testing.TB, url string) []int {
	tb.Helper()
	conn, err := pgx.Connect(tb.Context(), url)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(tb.Context(), "SELECT version FROM unical_schema ORDER BY version")
	if err != nil {
		tb.Fatal(err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		tb.Fatal(err)
	}
	return vs
}

func allVersions() []int {
	var vs []int
	for v := 1; v <= postgres.SchemaVersion(); v++ {
		vs = append(vs, v)
	}
	return vs
}

// TestOpen_MigratesOnceAndReopens opens an empty database from several
// goroutines at once, as replicas starting together do: every Open
// succeeds, each migration is recorded once, and data written through one
// Store is there after the others and a later Open.
func TestOpen_MigratesOnceAndReopens(t *testing.T) {
	t.Parallel()
	if postgres.SchemaVersion() < 1 {
		t.Fatalf("SchemaVersion() = %d; the embedded migrations did not load", postgres.SchemaVersion())
	}
	url := pgtest.Shared(t).NewDatabase(t)
	stores := make([]*postgres.Store, 3)
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(t.Context(), postgres.Config{URL: url, MaxConns: 2}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open() #%d: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	if diff := cmp.Diff(allVersions(), schemaVersions(t, url)); diff != "" {
		t.Errorf("unical_schema after concurrent opens (-want +got):\n%s", diff)
	}
	app := &unical.Application{ID: "app_1", Name: "One", CreatedAt: t0, UpdatedAt: t0}
	if err := stores[0].CreateApplication(t.Context(), app); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(stores[1:], openURL(t, url)) {
		got, err := s.GetApplication(t.Context(), "app_1")
		if err != nil {
			t.Fatalf("GetApplication() through another Store: %v", err)
		}
		if got.Name != "One" {
			t.Errorf("GetApplication().Name = %q, want %q", got.Name, "One")
		}
	}
	if diff := cmp.Diff(allVersions(), schemaVersions(t, url)); diff != "" {
		t.Errorf("unical_schema after a reopen (-want +got):\n%s", diff)
	}
}

// TestOpen_NewerSchema refuses a database that a newer binary migrated,
// with an error that says so, and leaves the database as it was.
func TestOpen_NewerSchema(t *testing.T) {
	t.Parallel()
	url := pgtest.Shared(t).NewDatabase(t)
	openURL(t, url).Close()
	newer := postgres.SchemaVersion() + 1
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "INSERT INTO unical_schema (version, name) VALUES ($1, 'from_the_future.sql')", newer); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(t.Context(), postgres.Config{URL: url})
	if err == nil {
		s.Close()
		t.Fatal("Open() of a database with a newer schema succeeded")
	}
	if code := unical.ErrorCode(err); code != unical.CodeInternal {
		t.Errorf("Open() code = %q, want %q", code, unical.CodeInternal)
	}
	for _, want := range []string{"schema is at version", "newer than this binary"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open() error = %q; want it to contain %q", err, want)
		}
	}
	if diff := cmp.Diff(append(allVersions(), newer), schemaVersions(t, url)); diff != "" {
		t.Errorf("unical_schema after the refused open (-want +got):\n%s", diff)
	}
}

// TestOpen_Unreachable fails with CodeStoreUnavailable, and the error does
// not carry the URL's password.
func TestOpen_Unreachable(t *testing.T) {
	t.Parallel()
	const password = "s3cret-Pa55word"
	// Port 1 on loopback: nothing listens there, so the connection is
	// refused at once.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, postgres.Config{URL: "postgres://unical:" + password + "@127.0.0.1:1/unical?sslmode=disable&connect_timeout=5"})
	if err == nil {
		s.Close()
		t.Fatal("Open() of an unreachable database succeeded")
	}
	if code := unical.ErrorCode(err); code != unical.CodeStoreUnavailable {
		t.Errorf("Open() code = %q, want %q (err: %v)", code, unical.CodeStoreUnavailable, err)
	}
	if strings.Contains(err.Error(), password) {
		t.Errorf("Open() error carries the password: %v", err)
	}
}

// TestOpen_BadURL is CodeInvalid without the password.
func TestOpen_BadURL(t *testing.T) {
	t.Parallel()
	const password = "s3cret-Pa55word"
	_, err := postgres.Open(t.Context(), postgres.Config{URL: "postgres://unical:" + password + "@127.0.0.1:notaport/unical"})
	if code := unical.ErrorCode(err); code != unical.CodeInvalid {
		t.Errorf("Open() code = %q, want %q (err: %v)", code, unical.CodeInvalid, err)
	}
	if err != nil && strings.Contains(err.Error(), password) {
		t.Errorf("Open() error carries the password: %v", err)
	}
}

// TestStore_DatabaseRestart stops the database under a running Store:
// calls fail with CodeStoreUnavailable and write nothing; once the
// database is back, the same Store works again without being reopened.
func TestStore_DatabaseRestart(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	s := openURL(t, c.NewDatabase(t))
	ctx := t.Context()
	app := &unical.Application{ID: "app_1", Name: "One", CreatedAt: t0, UpdatedAt: t0}
	if err := s.CreateApplication(ctx, app); err != nil {
		t.Fatal(err)
	}
	if err := c.StopServer(); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"GetApplication", func(ctx context.Context) error { _, err := s.GetApplication(ctx, "app_1"); return err }},
		{"CreateApplication", func(ctx context.Context) error {
			return s.CreateApplication(ctx, &unical.Application{ID: "app_2", CreatedAt: t0, UpdatedAt: t0})
		}},
		{"ClaimMessages", func(ctx context.Context) error { _, err := s.ClaimMessages(ctx, "w", t0, time.Minute, 10); return err }},
		{"Ping", s.Ping},
	}
	for _, c := range calls {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := c.call(cctx)
		cancel()
		if code := unical.ErrorCode(err); code != unical.CodeStoreUnavailable {
			t.Errorf("%s() with the database down: code = %q, want %q (err: %v)", c.name, code, unical.CodeStoreUnavailable, err)
		}
	}
	if err := c.StartServer(); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetApplication(ctx, "app_1")
	if err != nil {
		t.Fatalf("GetApplication() after the database came back: %v", err)
	}
	if got.Name != "One" {
		t.Errorf("GetApplication().Name = %q, want %q", got.Name, "One")
	}
	if _, err := s.GetApplication(ctx, "app_2"); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("GetApplication(app_2), written while the database was down: err = %v, want CodeNotFound", err)
	}
	if err := s.CreateApplication(ctx, &unical.Application{ID: "app_2", CreatedAt: t0, UpdatedAt: t0}); err != nil {
		t.Errorf("CreateApplication() after the database came back: %v", err)
	}
}
