package bolt_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
)

// BenchmarkGetAccount reads accounts from a file holding 1,000 of them.
func BenchmarkGetAccount(b *testing.B) {
	ctx := b.Context()
	s := MustOpenStore(b)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("acc_%06d", i)
		rec := &unical.AccountRecord{
			Account: unical.Account{
				ID: ids[i], ApplicationID: "app_1", Email: fmt.Sprintf("user%d@example.com", i),
				ProviderType: unical.ProviderGoogle, Status: unical.AccountStatusActive,
				AuthorizedScopes: []string{"calendar", "calendar.events"}, CreatedAt: t0, UpdatedAt: t0,
			},
			SealedSecrets: make([]byte, 200), TokenExpiry: t0,
		}
		if err := s.CreateAccount(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		if _, err := s.GetAccount(ctx, "app_1", ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkClaimAndUpdateMessage claims one message and marks it delivered,
// two committed (fsynced) write transactions: the ceiling of one outbox's
// deliveries per second when workers claim one message at a time.
func BenchmarkClaimAndUpdateMessage(b *testing.B) {
	ctx := b.Context()
	s := MustOpenStore(b)
	// Queue b.N messages. Delivered ones pile up as the loop runs; claims
	// never walk them.
	for start := 0; start < b.N; start += 1000 {
		batch := make([]*outbox.Message, 0, 1000)
		for i := start; i < min(start+1000, b.N); i++ {
			batch = append(batch, &outbox.Message{
				ID: fmt.Sprintf("msg_%09d", i), ApplicationID: "app_1", SubscriptionID: "sub_1",
				EventType: unical.EventTypeCalendarEventChanged, Payload: make([]byte, 300),
				CreatedAt: t0, Status: outbox.Pending, NextAttemptAt: t0.Add(time.Duration(i) * time.Millisecond),
			})
		}
		if err := s.EnqueueMessages(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	now := t0.Add(time.Duration(b.N) * time.Millisecond)
	b.ResetTimer()
	for range b.N {
		msgs, err := s.ClaimMessages(ctx, "worker", now, time.Minute, 1)
		if err != nil || len(msgs) != 1 {
			b.Fatalf("ClaimMessages() = %d messages, %v", len(msgs), err)
		}
		msgs[0].Status = outbox.Delivered
		msgs[0].Attempts = 1
		if err := s.UpdateMessage(ctx, msgs[0]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
