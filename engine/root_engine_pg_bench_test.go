package engine_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/store/postgres"
)

// BenchmarkDeliveryStores measures signed deliveries through the outbox
// of each Store in one run, so that BENCHMARKS.md can give PostgreSQL as a
// ratio of bbolt on the same machine. PostgreSQL runs on the same cores,
// with its default durability (fsync and synchronous commit on), as bbolt
// syncs every commit.
//
//   - Engine/STORE: b.N queued messages drained by Client.Run (16 workers)
//     to a loopback HTTPS receiver: deliveries per second.
//   - Claim16Record16/STORE: the outbox alone, claiming 16 messages and
//     writing them back with their delivery-log entries in one commit.
func BenchmarkDeliveryStores(b *testing.B) {
	cluster := pgtest.Start(b, pgtest.Options{Durable: true})
	stores := []struct {
		name string
		open func(b *testing.B) unical.Store
	}{
		{"bolt", func(b *testing.B) unical.Store {
			s, err := bolt.Open(bolt.Config{Path: filepath.Join(b.TempDir(), "unical.db")})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
		{"postgres", func(b *testing.B) unical.Store {
			s, err := postgres.Open(b.Context(), postgres.Config{URL: cluster.NewDatabase(b)})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
	}
	for _, st := range stores {
		b.Run("Engine/"+st.name, func(b *testing.B) {
			rcv := &countingReceiver{arrived: map[string]time.Time{}, want: b.N, done: make(chan struct{})}
			url, sender := benchTarget(b, rcv)
			env := mustNewEngineEnvOn(b, st.open(b), func(cfg *apitest.Config) { cfg.Sender = sender })
			subID, _ := env.mustSubscribe(b, url+"/bench", 100000)
			env.mustEnqueueMany(b, subID, b.N)
			b.ResetTimer()
			env.run(b)
			select {
			case <-rcv.done:
			case <-time.After(10 * time.Minute):
				b.Fatal("deliveries did not finish")
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
	for _, st := range stores {
		b.Run("Claim16Record16/"+st.name, func(b *testing.B) {
			env := mustNewEngineEnvOn(b, st.open(b), nil)
			subID, _ := env.mustSubscribe(b, "https://hooks.example.com/bench", 100000)
			env.mustEnqueueMany(b, subID, b.N)
			ctx := context.Background()
			b.ResetTimer()
			for done := 0; done < b.N; {
				msgs, err := env.Store.ClaimMessages(ctx, "bench", time.Now(), time.Minute, 16)
				if err != nil || len(msgs) == 0 {
					b.Fatalf("ClaimMessages() = %d, %v", len(msgs), err)
				}
				results := deliveredResults(msgs)
				errs, err := env.Store.RecordDeliveries(ctx, results)
				if err != nil || slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
					b.Fatal(err, errs)
				}
				done += len(msgs)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
