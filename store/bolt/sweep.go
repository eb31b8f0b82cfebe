package bolt

import (
	"bytes"
	"context"
	"time"

	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/internal/storedoc"
	"github.com/unical/unical/sweep"
	bbolt "go.etcd.io/bbolt"
)

// Sweep removes expired flows, blobs, delivery attempts and idempotency
// records, and delivered and failed messages past their retention, at most
// req.Limit records in one transaction. Each kind is found by walking an
// index in time order (flows.byExpiry, blobs.byExpiry, deliveries.byExpiry,
// outbox.finished, idempotency.byExpiry),
// so a sweep costs what it removes, never what it keeps. bbolt does not
// give freed pages back to the file system; it reuses them for later
// writes, so a swept file stops growing instead of shrinking.
func (s *Store) Sweep(ctx context.Context, req sweep.Request) (sweep.Result, error) {
	var res sweep.Result
	err := s.update(ctx, "sweep", func(tx *bbolt.Tx) error {
		res = sweep.Result{} // bbolt runs fn once, but keep it exact
		budget := func() int {
			if req.Limit <= 0 {
				return -1
			}
			return req.Limit - res.Total()
		}
		nowKey := timeKey(req.Now)
		var err error
		if res.Flows, err = sweepFlows(tx, nowKey, budget()); err != nil {
			return err
		}
		if res.Blobs, err = sweepBlobs(tx, nowKey, budget()); err != nil {
			return err
		}
		if res.Attempts, err = pruneAttempts(tx, req.Now, budget()); err != nil {
			return err
		}
		if res.DeliveredMessages, err = sweepMessages(tx, outbox.Delivered, req.DeliveredBefore, budget()); err != nil {
			return err
		}
		if res.FailedMessages, err = sweepMessages(tx, outbox.Failed, req.FailedBefore, budget()); err != nil {
			return err
		}
		res.IdempotencyKeys, err = sweepIdempotency(tx, nowKey, budget())
		return err
	})
	if err != nil {
		return sweep.Result{}, err
	}
	return res, nil
}

// expiredKeys returns up to max keys (no bound when max is negative) of an
// index whose keys start with prefix and then a timeKey at or before
// until. Keys are copied, because the caller deletes while bbolt's cursor
// would not stay valid.
func expiredKeys(b *bbolt.Bucket, prefix, until []byte, max int) [][]byte {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && max != 0 && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		rest := k[len(prefix):]
		if len(rest) < timeKeyLen || bytes.Compare(rest[:timeKeyLen], until) > 0 {
			break
		}
		keys = append(keys, bytes.Clone(k))
		max--
	}
	return keys
}

// sweepFlows removes up to max flows that expired at now.
func sweepFlows(tx *bbolt.Tx, nowKey []byte, max int) (int, error) {
	keys := expiredKeys(tx.Bucket(bucketFlowsByExpiry), nil, nowKey, max)
	for _, k := range keys {
		var rec storedoc.Flow
		ok, err := getJSON(tx.Bucket(bucketFlows), k[timeKeyLen:], &rec)
		if err != nil {
			return 0, err
		}
		if !ok {
			// Only the index entry is left (a consumed flow's entry is
			// removed with it, so this is an older file's leftover).
			if err := tx.Bucket(bucketFlowsByExpiry).Delete(k); err != nil {
				return 0, err
			}
			continue
		}
		if err := deleteFlow(tx, &rec); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// sweepBlobs removes up to max blobs that expired at now.
func sweepBlobs(tx *bbolt.Tx, nowKey []byte, max int) (int, error) {
	index := tx.Bucket(bucketBlobsByExpiry)
	keys := expiredKeys(index, nil, nowKey, max)
	for _, k := range keys {
		if err := tx.Bucket(bucketBlobs).Delete(k[timeKeyLen:]); err != nil {
			return 0, err
		}
		if err := index.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// sweepMessages removes up to max messages with status whose last attempt
// was due before before; a zero before removes none.
func sweepMessages(tx *bbolt.Tx, status outbox.Status, before time.Time, max int) (int, error) {
	if before.IsZero() {
		return 0, nil
	}
	// "Before" is strict, and expiredKeys includes its bound, so the bound
	// is the last instant before it that a timeKey can hold.
	keys := expiredKeys(tx.Bucket(bucketOutboxFinished), keyOf(string(status), ""), timeKey(before.Add(-time.Nanosecond)), max)
	prefixLen := len(status) + 1
	for _, k := range keys {
		id := k[prefixLen+timeKeyLen:]
		var rec message
		ok, err := getJSON(tx.Bucket(bucketOutbox), id, &rec)
		if err != nil {
			return 0, err
		}
		if ok {
			if err := tx.Bucket(bucketOutbox).Delete(id); err != nil {
				return 0, err
			}
		}
		if err := tx.Bucket(bucketOutboxFinished).Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
