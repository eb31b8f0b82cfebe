package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"time"

	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// idempotencyRecord is a stored idempotency.Record. It repeats its
// application and key, so that reads check the owner instead of trusting
// the key alone.
type idempotencyRecord struct {
	ApplicationID string                `json:"applicationId"`
	Key           string                `json:"key"`
	Fingerprint   string                `json:"fingerprint"`
	Claim         string                `json:"claim"`
	CreatedAt     time.Time             `json:"createdAt"`
	LeaseExpiry   time.Time             `json:"leaseExpiry"`
	ExpiresAt     time.Time             `json:"expiresAt"`
	Response      *idempotency.Response `json:"response,omitempty"`
}

func (r *idempotencyRecord) record() *idempotency.Record {
	out := &idempotency.Record{
		ApplicationID: r.ApplicationID, Key: r.Key, Fingerprint: r.Fingerprint, Claim: r.Claim,
		CreatedAt: storedoc.UTC(r.CreatedAt), LeaseExpiry: storedoc.UTC(r.LeaseExpiry), ExpiresAt: storedoc.UTC(r.ExpiresAt),
	}
	if r.Response != nil {
		resp := *r.Response
		out.Response = &resp
	}
	return out
}

// idempotencyExpiryKey is the idempotency.byExpiry key of the record under k.
func idempotencyExpiryKey(expires time.Time, k []byte) []byte {
	return append(timeKey(expires), k...)
}

// BeginIdempotent implements [idempotency.Store]: bbolt's single
// writer makes the read, the check and the write one atomic step. The
// bound reads the application's count and bytes in
// idempotency.countByApp.
func (s *Store) BeginIdempotent(ctx context.Context, rec *idempotency.Record, maxKeys int, maxBytes int64) (*idempotency.Record, error) {
	if err := storedoc.CheckIdempotencyKey(rec.ApplicationID, rec.Key); err != nil {
		return nil, err
	}
	k := keyOf(rec.ApplicationID, rec.Key)
	fresh := &idempotencyRecord{
		ApplicationID: rec.ApplicationID, Key: rec.Key, Fingerprint: rec.Fingerprint, Claim: rec.Claim,
		CreatedAt: storedoc.UTC(rec.CreatedAt), LeaseExpiry: storedoc.UTC(rec.LeaseExpiry), ExpiresAt: storedoc.UTC(rec.ExpiresAt),
	}
	if rec.Response != nil {
		resp := *rec.Response
		fresh.Response = &resp
	}
	var held *idempotency.Record
	err := s.update(ctx, "begin idempotent", func(tx *bbolt.Tx) error {
		held = nil
		b, byExpiry := tx.Bucket(bucketIdempotency), tx.Bucket(bucketIdempotencyByExp)
		var old idempotencyRecord
		ok, err := getJSON(b, k, &old)
		if err != nil {
			return err
		}
		if ok {
			if cur := old.record(); !storedoc.Free(cur, rec) {
				held = cur
				return nil
			}
			if err := byExpiry.Delete(idempotencyExpiryKey(old.ExpiresAt, k)); err != nil {
				return err
			}
			if err := addIdempotencyCount(tx, rec.ApplicationID, 0, -keptBytes(old.Response)); err != nil {
				return err
			}
		} else {
			n, size := idempotencyCount(tx, rec.ApplicationID)
			if (maxKeys > 0 && n >= maxKeys) || (maxBytes > 0 && size >= maxBytes) {
				return storedoc.IdempotencyBound(maxKeys, maxBytes)
			}
			if err := addIdempotencyCount(tx, rec.ApplicationID, 1, 0); err != nil {
				return err
			}
		}
		if err := putJSON(b, k, fresh); err != nil {
			return err
		}
		if err := addIdempotencyCount(tx, rec.ApplicationID, 0, keptBytes(fresh.Response)); err != nil {
			return err
		}
		return byExpiry.Put(idempotencyExpiryKey(fresh.ExpiresAt, k), sizeValue(keptBytes(fresh.Response)))
	})
	if err != nil {
		return nil, err
	}
	return held, nil
}

// CompleteIdempotent implements [idempotency.Store].
func (s *Store) CompleteIdempotent(ctx context.Context, appID, key, claim string, resp *idempotency.Response) error {
	if err := storedoc.CheckIdempotencyKey(appID, key); err != nil {
		return err
	}
	k := keyOf(appID, key)
	return s.update(ctx, "complete idempotent", func(tx *bbolt.Tx) error {
		b, byExpiry := tx.Bucket(bucketIdempotency), tx.Bucket(bucketIdempotencyByExp)
		var rec idempotencyRecord
		ok, err := getJSON(b, k, &rec)
		if err != nil {
			return err
		}
		found := ok && rec.ApplicationID == appID && rec.Key == key
		if err := storedoc.CheckHeld(key, found, rec.Claim == claim && rec.Response == nil); err != nil {
			return err
		}
		if resp == nil {
			if err := b.Delete(k); err != nil {
				return err
			}
			if err := addIdempotencyCount(tx, appID, -1, 0); err != nil {
				return err
			}
			return byExpiry.Delete(idempotencyExpiryKey(rec.ExpiresAt, k))
		}
		kept := *resp
		rec.Response = &kept
		if err := putJSON(b, k, &rec); err != nil {
			return err
		}
		if err := addIdempotencyCount(tx, appID, 0, keptBytes(&kept)); err != nil {
			return err
		}
		// The index entry carries the size, for the sweep to take off.
		return byExpiry.Put(idempotencyExpiryKey(rec.ExpiresAt, k), sizeValue(keptBytes(&kept)))
	})
}

// sweepIdempotency removes up to max idempotency records that expired at
// now.
func sweepIdempotency(tx *bbolt.Tx, nowKey []byte, max int) (int, error) {
	index := tx.Bucket(bucketIdempotencyByExp)
	keys := expiredKeys(index, nil, nowKey, max)
	for _, k := range keys {
		size := sizeOf(index.Get(k))
		if err := tx.Bucket(bucketIdempotency).Delete(k[timeKeyLen:]); err != nil {
			return 0, err
		}
		appID, _, _ := bytes.Cut(k[timeKeyLen:], []byte{0})
		if err := addIdempotencyCount(tx, string(appID), -1, -size); err != nil {
			return 0, err
		}
		if err := index.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// idempotencyCount is the number of stored idempotency records of an
// application, expired or not, and the bytes of their kept bodies, from
// idempotency.countByApp: a count of 8 bytes, then the bytes, 8 more (a
// file older than the bytes holds the count alone; its records' bodies
// are not counted, and their index entries carry no size to take off).
func idempotencyCount(tx *bbolt.Tx, appID string) (n int, size int64) {
	v := tx.Bucket(bucketIdempotencyCounts).Get(keyOf(appID, ""))
	if len(v) < 8 {
		return 0, 0
	}
	return int(binary.BigEndian.Uint64(v)), sizeOf(v[8:])
}

// addIdempotencyCount changes an application's count by delta and its
// bytes by deltaBytes.
func addIdempotencyCount(tx *bbolt.Tx, appID string, delta int, deltaBytes int64) error {
	if delta == 0 && deltaBytes == 0 {
		return nil
	}
	n, size := idempotencyCount(tx, appID)
	n, size = max(n+delta, 0), max(size+deltaBytes, 0)
	k := keyOf(appID, "")
	if n == 0 {
		return tx.Bucket(bucketIdempotencyCounts).Delete(k)
	}
	v := binary.BigEndian.AppendUint64(nil, uint64(n))
	return tx.Bucket(bucketIdempotencyCounts).Put(k, append(v, sizeValue(size)...))
}

// keptBytes is what a kept answer counts against the application's
// bytes: its sealed body.
func keptBytes(r *idempotency.Response) int64 {
	if r == nil {
		return 0
	}
	return int64(len(r.SealedBody))
}

// sizeValue encodes a byte count as 8 bytes.
func sizeValue(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// sizeOf decodes sizeValue; 0 for anything else (an index entry written
// before sizes were kept).
func sizeOf(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// backfillIdempotencyCounts fills idempotency.countByApp from the records
// of a file written before it existed.
func backfillIdempotencyCounts(tx *bbolt.Tx) error {
	counts := map[string]int{}
	err := tx.Bucket(bucketIdempotency).ForEach(func(k, _ []byte) error {
		appID, _, _ := bytes.Cut(k, []byte{0})
		counts[string(appID)]++
		return nil
	})
	if err != nil {
		return err
	}
	for appID, n := range counts {
		if err := tx.Bucket(bucketIdempotencyCounts).Put(keyOf(appID, ""), binary.BigEndian.AppendUint64(nil, uint64(n))); err != nil {
			return err
		}
	}
	return nil
}
