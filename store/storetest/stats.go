package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/storestats"
)

// statsTests hold a [storestats.Store] to its counts; a Store without
// Stats skips them. Stats counts the whole Store, which is why it needs
// the new, empty Store every case gets.
var statsTests = []testCase{
	{"CountsAccountsAndPendingMessages", testStats},
}

// testStats counts accounts of two applications by provider type and
// status, and the pending messages with the creation time of the oldest;
// a delivered message is no longer pending.
func testStats(t *testing.T, s unical.Store) {
	ss, ok := s.(storestats.Store)
	if !ok {
		t.Skip("the Store has no Stats")
	}
	ctx := t.Context()
	now := base

	if st, err := ss.Stats(ctx); err != nil || st.PendingMessages != 0 || !st.OldestPending.IsZero() || len(st.Accounts) != 0 {
		t.Fatalf("Stats() of an empty store = %+v, %v", st, err)
	}
	for _, app := range []string{"app_1", "app_2"} {
		if err := s.CreateApplication(ctx, &unical.Application{ID: app, Name: app, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range []struct {
		app    string
		typ    unical.ProviderType
		status unical.AccountStatus
	}{
		{"app_1", unical.ProviderGoogle, unical.AccountStatusActive},
		{"app_2", unical.ProviderGoogle, unical.AccountStatusActive},
		{"app_2", unical.ProviderGoogle, unical.AccountStatusExpired},
		{"app_1", unical.ProviderCalDAV, unical.AccountStatusActive},
	} {
		rec := &unical.AccountRecord{Account: unical.Account{
			ID: "acc_" + string(rune('a'+i)), ApplicationID: a.app, Email: string(rune('a'+i)) + "@example.com",
			ProviderType: a.typ, Status: a.status, CreatedAt: now, UpdatedAt: now,
		}}
		if err := s.CreateAccount(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	// Ids sort by creation time, as the Client's do; the oldest is due last.
	var msgs []*outbox.Message
	for i, id := range []string{"msg_1", "msg_2", "msg_3"} {
		msgs = append(msgs, &outbox.Message{ID: id, ApplicationID: "app_1", EventType: unical.EventTypeAccountCreated,
			Payload: []byte(`{}`), CreatedAt: now.Add(time.Duration(i-10) * time.Minute), Status: outbox.Pending,
			NextAttemptAt: now.Add(-time.Duration(i) * time.Second)})
	}
	if err := s.EnqueueMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	claimed, err := s.ClaimMessages(ctx, "worker", now, time.Minute, 1)
	if err != nil || len(claimed) != 1 || claimed[0].ID != "msg_3" {
		t.Fatalf("ClaimMessages() = %v, %v; want msg_3, due first", claimed, err)
	}
	claimed[0].Status, claimed[0].Attempts = outbox.Delivered, 1
	if err := s.UpdateMessage(ctx, claimed[0]); err != nil {
		t.Fatal(err)
	}

	got, err := ss.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &storestats.Stats{
		Accounts: map[unical.ProviderType]map[unical.AccountStatus]int{
			unical.ProviderGoogle: {unical.AccountStatusActive: 2, unical.AccountStatusExpired: 1},
			unical.ProviderCalDAV: {unical.AccountStatusActive: 1},
		},
		PendingMessages: 2,
		OldestPending:   now.Add(-10 * time.Minute),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stats() (-want +got):\n%s", diff)
	}
}
