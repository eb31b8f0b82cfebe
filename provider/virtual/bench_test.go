package virtual

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/unical/unical/internal/adapter/eventbook"
	"github.com/unical/unical/records"
)

// countingStore counts the record calls and the bytes written through it.
type countingStore struct {
	records.Store
	calls, written int
}

func (c *countingStore) PutRecord(ctx context.Context, appID, accountID, coll, key string, data []byte, ifVersion uint64) (uint64, error) {
	c.calls++
	c.written += len(data)
	return c.Store.PutRecord(ctx, appID, accountID, coll, key, data, ifVersion)
}

func (c *countingStore) GetRecord(ctx context.Context, appID, accountID, coll, key string) (*records.Record, error) {
	c.calls++
	return c.Store.GetRecord(ctx, appID, accountID, coll, key)
}

// BenchmarkCreateEvent measures a write into an empty calendar and into
// one of 100,000 events: with a record per event the two make the same
// store calls and write the same bytes, reported per write beside the
// time (BENCHMARKS.md reports the ratios).
func BenchmarkCreateEvent(b *testing.B) {
	for _, n := range []int{0, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			p, store, s := newTestAccount(b)
			ctx := b.Context()
			// The calendar is filled record by record, as the provider
			// stores it, without the provider's per-write steps.
			now := time.Now()
			for i := range n {
				e := eventbook.New().Create(fmt.Sprintf("evtfill%06d", i), int64(i+1), eventParams(fmt.Sprint("fill ", i)), s.Email, now)
				data, err := json.Marshal(&eventbook.Entry{Event: *e, Version: int64(i + 1)})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := store.PutRecord(ctx, s.ApplicationID, s.AccountID, eventCollection, eventKey(PrimaryCalendarID, e.ID), data, 0); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := p.putHead(ctx, s, PrimaryCalendarID, &head{Calendar: primaryCalendar(s), Version: int64(n)}, 0); err != nil {
				b.Fatal(err)
			}
			counted := &countingStore{Store: store}
			p = New(Config{Store: counted})
			params := eventParams("booking")
			b.ResetTimer()
			for b.Loop() {
				if _, err := p.CreateEvent(ctx, s, PrimaryCalendarID, params); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(counted.calls)/float64(b.N), "storecalls/op")
			b.ReportMetric(float64(counted.written)/float64(b.N), "bytes-written/op")
		})
	}
}
