package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/store/postgres"
)

// steadyVersion waits (up to 10 s) until s listens for changes, which
// shows as two calls of Version in a row returning the same number, and
// returns that number.
func steadyVersion(tb testing.TB, s *postgres.Store) uint64 {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if v := s.Version(); v == s.Version() {
			return v
		}
		if time.Now().After(deadline) {
			tb.Fatal("Version() still moves at every call after 10 s: the Store does not listen for changes")
		}
	}
}

// waitVersionMoves waits (up to 10 s) until s's version is no longer v.
func waitVersionMoves(tb testing.TB, s *postgres.Store, v uint64, after string) {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); s.Version() == v; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("Version() still %d 10 s after %s in another process", v, after)
		}
	}
}

// TestStore_Version: what one process changes in the applications, API
// keys and accounts moves the version of another process on the same
// database (so that what it cached of them is dropped), reads move
// nothing, a process's own change moves its version before the call
// returns, and while a process does not listen every call of Version
// answers a new number, so that nothing read is reused.
func TestStore_Version(t *testing.T) {
	t.Parallel()
	url := pgtest.Shared(t).NewDatabase(t)
	writer, reader := openURL(t, url), openURL(t, url)
	ctx := t.Context()
	acct := &unical.AccountRecord{Account: unical.Account{ID: "acc_1", ApplicationID: "app_1", Email: "ada@example.com",
		ProviderType: unical.ProviderGoogle, Status: unical.AccountStatusActive, CreatedAt: t0, UpdatedAt: t0}}
	writes := []struct {
		name  string
		write func() error
	}{
		{"CreateApplication", func() error {
			return writer.CreateApplication(ctx, &unical.Application{ID: "app_1", Name: "one", CreatedAt: t0, UpdatedAt: t0})
		}},
		{"UpdateApplication", func() error {
			return writer.UpdateApplication(ctx, &unical.Application{ID: "app_1", Name: "renamed", CreatedAt: t0, UpdatedAt: t0})
		}},
		{"CreateAPIKey", func() error {
			return writer.CreateAPIKey(ctx, &unical.APIKey{ID: "key_1", ApplicationID: "app_1", Hash: []byte("h"), CreatedAt: t0})
		}},
		{"DeleteAPIKey", func() error { return writer.DeleteAPIKey(ctx, "app_1", "key_1") }},
		{"CreateAccount", func() error { return writer.CreateAccount(ctx, acct) }},
		{"UpdateAccount", func() error {
			_, err := writer.UpdateAccount(ctx, "app_1", "acc_1", func(a *unical.AccountRecord) error {
				a.Status = unical.AccountStatusExpired
				return nil
			})
			return err
		}},
		{"DeleteAccount", func() error { return writer.DeleteAccount(ctx, "app_1", "acc_1") }},
		{"DeleteApplication", func() error { return writer.DeleteApplication(ctx, "app_1") }},
	}
	for _, w := range writes {
		v := steadyVersion(t, reader)
		if _, err := reader.GetApplication(ctx, "app_1"); err != nil && unical.ErrorCode(err) != unical.CodeNotFound {
			t.Fatal(err)
		}
		if _, err := reader.ListAccounts(ctx, "app_1", unical.AccountFilter{}); err != nil {
			t.Fatal(err)
		}
		if got := reader.Version(); got != v {
			t.Fatalf("Version() = %d after reads, want %d", got, v)
		}
		if err := w.write(); err != nil {
			t.Fatalf("%s(): %v", w.name, err)
		}
		waitVersionMoves(t, reader, v, w.name)
	}

	// Its own change moves a process's version at once.
	v := steadyVersion(t, reader)
	if err := reader.CreateApplication(ctx, &unical.Application{ID: "app_2", Name: "two", CreatedAt: t0, UpdatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if got := reader.Version(); got == v {
		t.Errorf("Version() = %d right after this process's CreateApplication, same as before", got)
	}

	// The listening connection dies: until the Store listens again, no
	// two calls answer the same number; then it settles again.
	steadyVersion(t, reader)
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var killed int
	err = admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'unicald changes'`).Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("terminating the reader's listening connection: %d terminated, %v", killed, err)
	}
	for deadline := time.Now().Add(10 * time.Second); reader.Version() == reader.Version(); time.Sleep(time.Millisecond) { //nolint:staticcheck // two reads, waiting for them to differ
		if time.Now().After(deadline) {
			t.Fatal("Version() still steady 10 s after its listening connection was terminated")
		}
	}
	v = steadyVersion(t, reader)
	if err := writer.UpdateApplication(ctx, &unical.Application{ID: "app_2", Name: "renamed", CreatedAt: t0, UpdatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	waitVersionMoves(t, reader, v, "UpdateApplication, after listening again")
}
