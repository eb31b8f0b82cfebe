package storetest

import (
	"errors"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// accountMessage returns a pending enduseraccount.* message about acct.
func accountMessage(acct *unical.AccountRecord, eventType string) *outbox.Message {
	msg := newMessage(acct.ApplicationID, "", base)
	msg.EventType = eventType
	msg.Payload = []byte(`{"eventType":"` + eventType + `","endUserAccountId":"` + acct.ID + `","status":"` + string(acct.Status) + `"}`)
	return msg
}

// withID gives msg the id id, to collide with a queued message.
func withID(msg *outbox.Message, id string) *outbox.Message {
	msg.ID = id
	return msg
}

// wantMessage fails tb unless the store holds msg as queued.
func wantMessage(tb testing.TB, s unical.Store, msg *outbox.Message) {
	tb.Helper()
	got, err := s.GetMessage(tb.Context(), msg.ApplicationID, msg.ID)
	if err != nil {
		tb.Errorf("GetMessage(%s): %v", msg.ID, err)
		return
	}
	if d := diff(msg, got); d != "" {
		tb.Errorf("GetMessage(%s) mismatch (-want +got):\n%s", msg.ID, d)
	}
}

// wantNoMessage fails tb if the store holds a message with msg's id.
func wantNoMessage(tb testing.TB, s unical.Store, msg *outbox.Message) {
	tb.Helper()
	_, err := s.GetMessage(tb.Context(), msg.ApplicationID, msg.ID)
	wantCode(tb, "GetMessage(not queued)", err, unical.CodeNotFound)
}

// The account changes that report themselves to the application's webhook
// queue their messages in the same atomic write: both or neither.
var accountMessageTests = []testCase{
	{"Create/QueuesMessages", func(t *testing.T, s unical.Store) {
		rec := fullAccount(newID("acc"), "app_A", unical.ProviderGoogle, "ada@example.com")
		msg := accountMessage(rec, unical.EventTypeAccountCreated)
		mustOK(t, "CreateAccount(with message)", s.CreateAccount(t.Context(), rec, msg))
		wantMessage(t, s, msg)
	}},
	{"Create/ErrConflictQueuesNothing", func(t *testing.T, s unical.Store) {
		mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		dup := fullAccount(newID("acc"), "app_A", unical.ProviderGoogle, "ada@example.com")
		msg := accountMessage(dup, unical.EventTypeAccountCreated)
		wantCode(t, "CreateAccount(taken email, with message)", s.CreateAccount(t.Context(), dup, msg), unical.CodeConflict)
		wantNoMessage(t, s, msg)
	}},
	{"Create/ErrMessageCreatesNothing", func(t *testing.T, s unical.Store) {
		taken := newMessage("app_A", "", base)
		mustEnqueue(t, s, taken)
		rec := fullAccount(newID("acc"), "app_A", unical.ProviderGoogle, "ada@example.com")
		msg := accountMessage(rec, unical.EventTypeAccountCreated)
		msg.ID = taken.ID
		wantCode(t, "CreateAccount(message id taken)", s.CreateAccount(t.Context(), rec, msg), unical.CodeConflict)
		_, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		wantCode(t, "GetAccount(refused)", err, unical.CodeNotFound)
		wantMessage(t, s, taken)
	}},
	{"Update/QueuesMessages", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		var msgs []*outbox.Message
		got, err := s.UpdateAccountAndEnqueue(t.Context(), "app_A", rec.ID, func(a *unical.AccountRecord) ([]*outbox.Message, error) {
			a.Status = unical.AccountStatusExpired
			// Built from the changed record, as the Client does.
			msgs = []*outbox.Message{accountMessage(a, unical.EventTypeAccountUpdated), accountMessage(a, unical.EventTypeAccountCredentialUpdated)}
			return msgs, nil
		})
		mustOK(t, "UpdateAccountAndEnqueue()", err)
		if got.Status != unical.AccountStatusExpired {
			t.Errorf("UpdateAccountAndEnqueue().Status = %s, want EXPIRED", got.Status)
		}
		stored, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		if stored.Status != unical.AccountStatusExpired {
			t.Errorf("GetAccount().Status = %s, want EXPIRED", stored.Status)
		}
		for _, m := range msgs {
			wantMessage(t, s, m)
		}
	}},
	{"Update/ErrFnQueuesNothing", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		stop := errors.New("stop")
		var msg *outbox.Message
		_, err := s.UpdateAccountAndEnqueue(t.Context(), "app_A", rec.ID, func(a *unical.AccountRecord) ([]*outbox.Message, error) {
			a.Status = unical.AccountStatusExpired
			msg = accountMessage(a, unical.EventTypeAccountUpdated)
			return []*outbox.Message{msg}, stop
		})
		if !errors.Is(err, stop) {
			t.Fatalf("UpdateAccountAndEnqueue(fn fails) = %v, want fn's error", err)
		}
		wantNoMessage(t, s, msg)
		got, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		if d := diff(rec, got); d != "" {
			t.Errorf("GetAccount() after a failed update mismatch (-want +got):\n%s", d)
		}
	}},
	{"Update/ErrMessageUpdatesNothing", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		taken := newMessage("app_A", "", base)
		mustEnqueue(t, s, taken)
		_, err := s.UpdateAccountAndEnqueue(t.Context(), "app_A", rec.ID, func(a *unical.AccountRecord) ([]*outbox.Message, error) {
			a.Status = unical.AccountStatusExpired
			return []*outbox.Message{withID(accountMessage(a, unical.EventTypeAccountUpdated), taken.ID)}, nil
		})
		wantCode(t, "UpdateAccountAndEnqueue(message id taken)", err, unical.CodeConflict)
		got, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		mustOK(t, "GetAccount()", err)
		if d := diff(rec, got); d != "" {
			t.Errorf("GetAccount() after a refused message mismatch (-want +got):\n%s", d)
		}
		wantMessage(t, s, taken)
	}},
	{"Update/ErrNotFoundQueuesNothing", func(t *testing.T, s unical.Store) {
		rec := fullAccount(newID("acc"), "app_A", unical.ProviderGoogle, "ada@example.com")
		msg := accountMessage(rec, unical.EventTypeAccountUpdated)
		_, err := s.UpdateAccountAndEnqueue(t.Context(), "app_A", rec.ID, func(a *unical.AccountRecord) ([]*outbox.Message, error) {
			return []*outbox.Message{msg}, nil
		})
		wantCode(t, "UpdateAccountAndEnqueue(unknown)", err, unical.CodeNotFound)
		wantNoMessage(t, s, msg)
	}},
	{"Delete/QueuesMessages", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		msg := accountMessage(rec, unical.EventTypeAccountDeleted)
		mustOK(t, "DeleteAccount(with message)", s.DeleteAccount(t.Context(), "app_A", rec.ID, msg))
		_, err := s.GetAccount(t.Context(), "app_A", rec.ID)
		wantCode(t, "GetAccount(deleted)", err, unical.CodeNotFound)
		wantMessage(t, s, msg)
	}},
	{"Delete/ErrNotFoundQueuesNothing", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		msg := accountMessage(rec, unical.EventTypeAccountDeleted)
		wantCode(t, "DeleteAccount(other app)", s.DeleteAccount(t.Context(), "app_B", rec.ID, msg), unical.CodeNotFound)
		wantNoMessage(t, s, msg)
	}},
	{"Delete/ErrMessageDeletesNothing", func(t *testing.T, s unical.Store) {
		rec := mustCreateAccount(t, s, "app_A", unical.ProviderGoogle, "ada@example.com")
		taken := newMessage("app_A", "", base)
		mustEnqueue(t, s, taken)
		msg := withID(accountMessage(rec, unical.EventTypeAccountDeleted), taken.ID)
		wantCode(t, "DeleteAccount(message id taken)", s.DeleteAccount(t.Context(), "app_A", rec.ID, msg), unical.CodeConflict)
		if _, err := s.GetAccount(t.Context(), "app_A", rec.ID); err != nil {
			t.Errorf("GetAccount() after a refused delete: %v", err)
		}
		wantMessage(t, s, taken)
	}},
}
