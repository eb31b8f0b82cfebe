package postgres_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/provider/memory"
)

// TestOutbox_SeveralProcesses claims one outbox from three Stores on one
// database, each with its own connection pool as three unicald processes
// have: every message is claimed exactly once, and the claims of a
// process that "dies" (stops writing back) are taken over by another once
// their lease has ended, not before.
func TestOutbox_SeveralProcesses(t *testing.T) {
	t.Parallel()
	url := pgtest.Shared(t).NewDatabase(t)
	stores := []unical.Store{openURL(t, url), openURL(t, url), openURL(t, url)}
	ctx := t.Context()
	const n = 300
	var msgs []*outbox.Message
	for i := range n {
		msgs = append(msgs, &outbox.Message{ID: fmt.Sprintf("msg_%04d", i), ApplicationID: "app_1",
			EventType: unical.EventTypeAccountCreated, Payload: []byte(`{}`), CreatedAt: t0, NextAttemptAt: t0})
	}
	if err := stores[0].EnqueueMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	claimedBy := map[string]string{}
	var wg sync.WaitGroup
	for p, s := range stores {
		owner := fmt.Sprintf("process-%d", p)
		wg.Go(func() {
			for {
				got, err := s.ClaimMessages(ctx, owner, t0, time.Minute, 7)
				if err != nil {
					t.Errorf("%s: ClaimMessages(): %v", owner, err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, m := range got {
					if other, dup := claimedBy[m.ID]; dup {
						t.Errorf("%s claimed %s, which %s holds", owner, m.ID, other)
					}
					claimedBy[m.ID] = owner
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claimedBy) != n {
		t.Fatalf("%d messages claimed, want %d", len(claimedBy), n)
	}

	// Every lease is held until t0+1m: nothing is claimable before, all
	// is claimable by another process when the leases end.
	if got, err := stores[1].ClaimMessages(ctx, "process-1", t0.Add(time.Minute-time.Microsecond), time.Minute, n); err != nil || len(got) != 0 {
		t.Errorf("ClaimMessages() while the leases run = %d messages, %v; want none", len(got), err)
	}
	got, err := stores[1].ClaimMessages(ctx, "process-1", t0.Add(time.Minute), time.Minute, n)
	if err != nil || len(got) != n {
		t.Fatalf("ClaimMessages() when the leases end = %d messages, %v; want %d", len(got), err, n)
	}
	// The dead process's late write-back loses to the new claim.
	for _, m := range got {
		if claimedBy[m.ID] != "process-0" {
			continue
		}
		stale := *m
		stale.LeaseOwner, stale.LeaseExpiry = "process-0", t0.Add(time.Minute)
		stale.Status, stale.Attempts = outbox.Delivered, 1
		if err := stores[0].UpdateMessage(ctx, &stale); unical.ErrorCode(err) != unical.CodeConflict {
			t.Errorf("UpdateMessage() with the expired, re-claimed lease: err = %v, want CodeConflict", err)
		}
		break
	}
}

// TestStore_SecretsStaySealed connects an account and configures an
// application through a Client on PostgreSQL, then reads every row of
// every table as text: neither the refresh token nor the client secret
// is there, in plain text, hex (bytea) or base64 (bytes in JSON).
func TestStore_SecretsStaySealed(t *testing.T) {
	t.Parallel()
	url := pgtest.Shared(t).NewDatabase(t)
	store := openURL(t, url)
	const refreshToken, clientSecret = "refresh-Plain-7f3a9c", "client-Secret-51e0d2"
	prov := memory.New(memory.Config{Type: unical.ProviderGoogle})
	prov.AddUser("ada@example.com", refreshToken, "")
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{prov}, MasterKey: seal.NewKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx := t.Context()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{
		Name: unical.Some("sealed"),
		Providers: map[unical.ProviderType]unical.ProviderSettings{
			unical.ProviderGoogle: {ClientID: "cid", ClientSecret: clientSecret},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.CreateAccount(ctx, &unical.AccountCreateParams{
		Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some(refreshToken),
	}); err != nil {
		t.Fatal(err)
	}

	dump := pgtest.DumpTables(t, url)
	if !strings.Contains(dump, "ada@example.com") {
		t.Fatalf("the dump does not hold the account's email; it did not read the tables:\n%.2000s", dump)
	}
	for _, secret := range []string{refreshToken, clientSecret} {
		for _, form := range []string{secret, hex.EncodeToString([]byte(secret)), base64.StdEncoding.EncodeToString([]byte(secret))} {
			if strings.Contains(dump, form) {
				t.Errorf("the database holds %q in plain text (as %q)", secret, form)
			}
		}
	}
}
