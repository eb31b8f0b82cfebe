package bolt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/scopedtoken"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/store/storetest"
	"github.com/unical/unical/sweep"
	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// MustOpenStore opens a Store in a new file under tb.TempDir and closes it
// when the test ends.
func MustOpenStore(tb testing.TB) *bolt.Store {
	tb.Helper()
	return mustOpen(tb, filepath.Join(tb.TempDir(), "unical.db"))
}

// mustOpen opens the Store at path and closes it when the test ends;
// closing twice is harmless.
func mustOpen(tb testing.TB, path string) *bolt.Store {
	tb.Helper()
	s, err := bolt.Open(bolt.Config{Path: path})
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close(): %v", err)
		}
	})
	return s
}

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(tb testing.TB) unical.Store { return MustOpenStore(tb) })
}

var t0 = time.Date(2031, time.March, 14, 15, 9, 26, 0, time.UTC)

func TestOpen_Reopen(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "unical.db")
	s := mustOpen(t, path)
	app := &unical.Application{ID: "app_1", Name: "One", CreatedAt: t0, UpdatedAt: t0, SealedWebhookSecret: []byte{0, 1}}
	acct := &unical.AccountRecord{Account: unical.Account{ID: "acc_1", ApplicationID: "app_1", Email: "ada@example.com",
		ProviderType: unical.ProviderGoogle, Status: unical.AccountStatusActive}, SealedSecrets: []byte("sealed")}
	sub := &unical.SubscriptionRecord{Subscription: unical.Subscription{ID: "sub_1", EndUserAccountID: "acc_1"}, ApplicationID: "app_1"}
	msg := &outbox.Message{ID: "msg_1", ApplicationID: "app_1", SubscriptionID: "sub_1", Status: outbox.Pending, NextAttemptAt: t0}
	for _, err := range []error{
		s.CreateApplication(ctx, app),
		s.CreateAccount(ctx, acct),
		s.CreateSubscription(ctx, sub),
		s.EnqueueMessages(ctx, []*outbox.Message{msg}),
		s.PutBlob(ctx, "app_1", "k", []byte("blob"), t0.Add(time.Hour)),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A worker claims the message, then the process "crashes".
	claimed, err := s.ClaimMessages(ctx, "worker-1", t0, time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("ClaimMessages() = %d messages, %v; want 1", len(claimed), err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close(): %v", err)
	}

	s = mustOpen(t, path)
	gotApp, err := s.GetApplication(ctx, "app_1")
	if err != nil {
		t.Fatalf("GetApplication() after reopen: %v", err)
	}
	if d := cmp.Diff(app, gotApp); d != "" {
		t.Errorf("GetApplication() after reopen mismatch (-want +got):\n%s", d)
	}
	gotAcct, err := s.FindAccount(ctx, "app_1", unical.ProviderGoogle, "ADA@example.com")
	if err != nil {
		t.Fatalf("FindAccount() after reopen: %v", err)
	}
	if d := cmp.Diff(acct, gotAcct); d != "" {
		t.Errorf("FindAccount() after reopen mismatch (-want +got):\n%s", d)
	}
	if _, err := s.GetSubscription(ctx, "app_1", "sub_1"); err != nil {
		t.Errorf("GetSubscription() after reopen: %v", err)
	}
	if data, err := s.GetBlob(ctx, "app_1", "k", t0); err != nil || string(data) != "blob" {
		t.Errorf("GetBlob() after reopen = %q, %v; want \"blob\"", data, err)
	}
	// The lease survived: nobody gets the message before it expires, and
	// another worker does afterwards.
	if got, err := s.ClaimMessages(ctx, "worker-2", t0.Add(30*time.Second), time.Minute, 10); err != nil || len(got) != 0 {
		t.Errorf("ClaimMessages(lease held) after reopen = %d messages, %v; want none", len(got), err)
	}
	got, err := s.ClaimMessages(ctx, "worker-2", t0.Add(time.Minute), time.Minute, 10)
	if err != nil || len(got) != 1 || got[0].ID != "msg_1" {
		t.Fatalf("ClaimMessages(lease expired) after reopen = %v, %v; want msg_1", got, err)
	}
	claimed[0].Status = outbox.Delivered
	if code := unical.ErrorCode(s.UpdateMessage(ctx, claimed[0])); code != unical.CodeConflict {
		t.Errorf("UpdateMessage(crashed worker) code = %q, want %q", code, unical.CodeConflict)
	}
}

func TestOpen_ErrLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "unical.db")
	mustOpen(t, path)
	// bbolt's flock is per open file, so a second Open in this process
	// stands in for a second process.
	s, err := bolt.Open(bolt.Config{Path: path, Timeout: 100 * time.Millisecond})
	if err == nil {
		s.Close()
		t.Fatal("second Open() of a file in use succeeded")
	}
	if code := unical.ErrorCode(err); code != unical.CodeUnavailable {
		t.Errorf("second Open() code = %q, want %q (err: %v)", code, unical.CodeUnavailable, err)
	}
	if !errors.Is(err, bolterrors.ErrTimeout) {
		t.Errorf("second Open() = %v, want it to wrap bbolt's ErrTimeout", err)
	}
}

func TestOpen_FileMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "unical.db")
	mustOpen(t, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("file mode = %v, want -rw-------", got)
	}
}

func TestOpen_ErrNotBolt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("not a database, just a long enough line of text to be read as one page"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := bolt.Open(bolt.Config{Path: path})
	if err == nil {
		s.Close()
		t.Fatal("Open(text file) succeeded")
	}
	if code := unical.ErrorCode(err); code != unical.CodeInternal {
		t.Errorf("Open(text file) code = %q, want %q (err: %v)", code, unical.CodeInternal, err)
	}
}

func TestOpen_ErrNewerFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "unical.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("version"), []byte("99"))
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
	s, err := bolt.Open(bolt.Config{Path: path})
	if err == nil {
		s.Close()
		t.Fatal("Open(newer format) succeeded")
	}
	if code := unical.ErrorCode(err); code != unical.CodeInternal {
		t.Errorf("Open(newer format) code = %q, want %q (err: %v)", code, unical.CodeInternal, err)
	}
}

func TestStore_ErrClosed(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := s.GetApplication(t.Context(), "app_1")
	if code := unical.ErrorCode(err); code != unical.CodeInternal {
		t.Errorf("GetApplication() on a closed store code = %q, want %q (err: %v)", code, unical.CodeInternal, err)
	}
	if !errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		t.Errorf("GetApplication() on a closed store = %v, want it to wrap bbolt's ErrDatabaseNotOpen", err)
	}
}

func TestStore_ErrInvalidID(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"empty application id", s.CreateApplication(t.Context(), &unical.Application{})},
		{"NUL in application id", s.CreateApplication(t.Context(), &unical.Application{ID: "app\x00x"})},
		{"empty account id", s.CreateAccount(t.Context(), &unical.AccountRecord{Account: unical.Account{ApplicationID: "app_1"}})},
		{"empty blob key", s.PutBlob(t.Context(), "app_1", "", nil, t0)},
		{"plaintext client secret", s.CreateApplication(t.Context(), &unical.Application{ID: "app_1",
			Providers: map[unical.ProviderType]unical.ProviderSettings{unical.ProviderGoogle: {ClientSecret: "plain"}}})},
	} {
		if code := unical.ErrorCode(tc.err); code != unical.CodeInvalid {
			t.Errorf("%s: code = %q, want %q (err: %v)", tc.name, code, unical.CodeInvalid, tc.err)
		}
	}
}

func TestStore_ErrCanceled(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.GetApplication(ctx, "app_1")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("GetApplication(canceled) = %v, want it to wrap context.Canceled", err)
	}
}

// TestOpen_BackfillsIndexes opens a file written before outbox.finished and
// flows.byApp existed: Open fills them, so the sweep removes old delivered
// messages and the flow cap counts old flows.
func TestOpen_BackfillsIndexes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "unical.db")
	s := mustOpen(t, path)
	msg := &outbox.Message{ID: "msg_1", ApplicationID: "app_1", Status: outbox.Pending, NextAttemptAt: t0}
	if err := s.EnqueueMessages(ctx, []*outbox.Message{msg}); err != nil {
		t.Fatal(err)
	}
	claimed, err := s.ClaimMessages(ctx, "w", t0, time.Minute, 1)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("ClaimMessages() = %v, %v", claimed, err)
	}
	claimed[0].Status = outbox.Delivered
	if err := s.UpdateMessage(ctx, claimed[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateFlow(ctx, &unical.OAuthFlow{ID: "flow_1", ApplicationID: "app_1", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Make it an older file: no new indexes, no marker.
	makeOlder(t, path, "", "outbox.finished", "flows.byApp")

	s = mustOpen(t, path)
	err = s.CreateFlow(ctx, &unical.OAuthFlow{ID: "flow_2", ApplicationID: "app_1", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, 1)
	if unical.ErrorCode(err) != unical.CodeRateLimited {
		t.Errorf("CreateFlow(cap 1, one old flow) = %v, want CodeRateLimited", err)
	}
	got, err := s.Sweep(ctx, sweep.Request{Now: t0, DeliveredBefore: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sweep.Result{DeliveredMessages: 1}, got); d != "" {
		t.Errorf("Sweep() on a backfilled file mismatch (-want +got):\n%s", d)
	}
}

// TestStore_Version: reads and idle claims leave the version alone; every
// write moves it, which is what lets the API reuse an answer read at the
// same version.
func TestStore_Version(t *testing.T) {
	s := MustOpenStore(t)
	ctx := t.Context()
	now := time.Now().UTC()
	v0 := s.Version()
	if err := s.CreateApplication(ctx, &unical.Application{ID: "app_A", Name: "A", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	v1 := s.Version()
	if v1 == v0 {
		t.Fatalf("Version() = %d after a write, same as before", v1)
	}
	if _, err := s.GetApplication(ctx, "app_A"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListAccounts(ctx, "app_A", unical.AccountFilter{}); err != nil {
		t.Fatal(err)
	}
	// The engine's idle claims find nothing due: reads, not writes.
	if got, err := s.ClaimMessages(ctx, "engine_1", now, time.Minute, 10); err != nil || len(got) != 0 {
		t.Fatalf("ClaimMessages() on an empty outbox = %v, %v; want none", got, err)
	}
	if got, err := s.ClaimDueSubscriptions(ctx, now, time.Minute, 10); err != nil || len(got) != 0 {
		t.Fatalf("ClaimDueSubscriptions() with none due = %v, %v; want none", got, err)
	}
	if v := s.Version(); v != v1 {
		t.Errorf("Version() = %d after reads and idle claims, want %d", v, v1)
	}
	rec := &unical.AccountRecord{Account: unical.Account{ID: "acc_1", ApplicationID: "app_A", Email: "a@example.com", ProviderType: unical.ProviderGoogle, CreatedAt: now, UpdatedAt: now}}
	if err := s.CreateAccount(ctx, rec); err != nil {
		t.Fatal(err)
	}
	v2 := s.Version()
	if v2 == v1 {
		t.Errorf("Version() = %d after CreateAccount, same as before", v2)
	}
	if err := s.DeleteAccount(ctx, "app_A", "acc_1"); err != nil {
		t.Fatal(err)
	}
	if v := s.Version(); v == v2 {
		t.Errorf("Version() = %d after DeleteAccount, same as before", v)
	}
}

// TestOpen_BackfillsNextCheck opens a file of index version 2, written
// before subscriptions.byNextCheck existed: Open indexes its
// subscriptions, so they are claimed for polling, and does not count its
// flows a second time.
func TestOpen_BackfillsNextCheck(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "unical.db")
	s := mustOpen(t, path)
	acct := &unical.AccountRecord{Account: unical.Account{ID: "acc_1", ApplicationID: "app_1", Email: "a@example.com", ProviderType: unical.ProviderGoogle, CreatedAt: t0, UpdatedAt: t0}}
	if err := s.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	sub := &unical.SubscriptionRecord{Subscription: unical.Subscription{ID: "sub_1", EndUserAccountID: "acc_1", CreatedAt: t0}, ApplicationID: "app_1"}
	if err := s.CreateSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateFlow(ctx, &unical.OAuthFlow{ID: "flow_1", ApplicationID: "app_1", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	makeOlder(t, path, "2", "subscriptions.byNextCheck")

	s = mustOpen(t, path)
	got, err := s.ClaimDueSubscriptions(ctx, t0, time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "sub_1" {
		t.Errorf("ClaimDueSubscriptions() on a backfilled file = %v, want sub_1", got)
	}
	err = s.CreateFlow(ctx, &unical.OAuthFlow{ID: "flow_2", ApplicationID: "app_1", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, 2)
	if err != nil {
		t.Errorf("CreateFlow(cap 2, one old flow) = %v, want it stored: the old flow was counted twice", err)
	}
}

// TestOpen_BackfillsIdempotencyCounts opens a file of index version 3,
// written before idempotency.countByApp existed: Open counts its
// idempotency records, so the bound holds for them.
func TestOpen_BackfillsIdempotencyCounts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "unical.db")
	s := mustOpen(t, path)
	claim := func(key string) *idempotency.Record {
		return &idempotency.Record{ApplicationID: "app_1", Key: key, Fingerprint: "f", Claim: "c_" + key,
			CreatedAt: t0, LeaseExpiry: t0.Add(time.Minute), ExpiresAt: t0.Add(24 * time.Hour)}
	}
	for _, key := range []string{"k1", "k2"} {
		if _, err := s.BeginIdempotent(ctx, claim(key), 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	makeOlder(t, path, "3", "idempotency.countByApp")

	s = mustOpen(t, path)
	if _, err := s.BeginIdempotent(ctx, claim("k3"), 2, 0); unical.ErrorCode(err) != unical.CodeRateLimited {
		t.Errorf("BeginIdempotent(bound 2, two old records) = %v, want CodeRateLimited", err)
	}
	if _, err := s.BeginIdempotent(ctx, claim("k3"), 3, 0); err != nil {
		t.Errorf("BeginIdempotent(bound 3, two old records) = %v, want it stored", err)
	}
}

// makeOlder turns the closed file at path into one written by an older
// unical: the index buckets named are gone and the index marker says
// indexes ("" for a file from before the marker).
func makeOlder(t *testing.T, path, indexes string, buckets ...string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, name := range buckets {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		meta := tx.Bucket([]byte("meta"))
		if indexes == "" {
			return meta.Delete([]byte("indexes"))
		}
		return meta.Put([]byte("indexes"), []byte(indexes))
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
}

var _ scopedtoken.GrantStore = (*bolt.Store)(nil)
