package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// flowExpiryKey is the flow's flows.byExpiry key: when it expires, then its
// id.
func flowExpiryKey(rec *storedoc.Flow) []byte {
	return append(timeKey(rec.ExpiresAt), rec.ID...)
}

// flowAppKey is the flow's flows.byApp key: its application's prefix, then
// the expiry key, so that an application's unexpired flows are one range.
func flowAppKey(rec *storedoc.Flow) []byte {
	return append(keyOf(rec.ApplicationID, ""), flowExpiryKey(rec)...)
}

// CreateFlow stores a flow; CodeConflict if the id is taken. With a
// positive maxPending it checks the application's stored flows in
// flows.countByApp, which costs one read: under the cap, the flow is
// stored. At the cap, some of them may have expired: it removes the
// application's flows expired at f.CreatedAt (the front of its range in
// flows.byApp) and checks again. Still at the cap, it returns
// CodeRateLimited and writes nothing but those removals, so a flood of
// refused calls costs a seek each and no disk write.
func (s *Store) CreateFlow(ctx context.Context, f *unical.OAuthFlow, maxPending int) error {
	rec, err := storedoc.FromFlow(f)
	if err != nil {
		return err
	}
	// refused is the cap's answer when expired flows were removed on the
	// way: the transaction commits the removals and the caller still gets
	// the refusal.
	var refused error
	err = s.update(ctx, "create flow", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketFlows)
		if b.Get([]byte(rec.ID)) != nil {
			return storedoc.Conflict("Flow %q already exists.", rec.ID)
		}
		if maxPending > 0 && flowCount(tx, rec.ApplicationID) >= maxPending {
			removed, err := deleteExpiredFlows(tx, rec.ApplicationID, rec.CreatedAt)
			if err != nil {
				return err
			}
			if flowCount(tx, rec.ApplicationID) >= maxPending {
				refused = flowCapError(tx, rec, maxPending)
				if removed == 0 {
					return refused // nothing to keep: roll back
				}
				return nil
			}
		}
		if err := putJSON(b, []byte(rec.ID), rec); err != nil {
			return err
		}
		if err := tx.Bucket(bucketFlowsByApp).Put(flowAppKey(rec), nil); err != nil {
			return err
		}
		if err := addFlowCount(tx, rec.ApplicationID, 1); err != nil {
			return err
		}
		return tx.Bucket(bucketFlowsByExpiry).Put(flowExpiryKey(rec), nil)
	})
	if err != nil {
		return err
	}
	return refused
}

// flowCapError is the refusal of rec at the cap, with RetryAfter until the
// application's first unexpired flow expires.
func flowCapError(tx *bbolt.Tx, rec *storedoc.Flow, max int) error {
	prefix := keyOf(rec.ApplicationID, "")
	e := &unical.Error{
		Code:    unical.CodeRateLimited,
		Message: fmt.Sprintf("This application has %d sign-ins in progress, the most allowed; try again when one finishes or expires.", max),
	}
	k, _ := tx.Bucket(bucketFlowsByApp).Cursor().Seek(prefix)
	if k != nil && bytes.HasPrefix(k, prefix) && len(k) >= len(prefix)+timeKeyLen {
		e.RetryAfter = keyTime(k[len(prefix):]).Sub(rec.CreatedAt)
	}
	return e
}

// deleteExpiredFlows removes an application's flows expired at now and
// returns how many.
func deleteExpiredFlows(tx *bbolt.Tx, appID string, now time.Time) (int, error) {
	prefix := keyOf(appID, "")
	keys := expiredKeys(tx.Bucket(bucketFlowsByApp), prefix, timeKey(now), -1)
	for _, k := range keys {
		if err := deleteFlowByID(tx, string(k[len(prefix)+timeKeyLen:])); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// flowCount is the number of stored flows of an application, expired or
// not, from flows.countByApp.
func flowCount(tx *bbolt.Tx, appID string) int {
	v := tx.Bucket(bucketFlowCounts).Get(keyOf(appID, ""))
	if len(v) != 8 {
		return 0
	}
	return int(binary.BigEndian.Uint64(v))
}

// addFlowCount changes an application's flow count by delta.
func addFlowCount(tx *bbolt.Tx, appID string, delta int) error {
	n := max(flowCount(tx, appID)+delta, 0)
	k := keyOf(appID, "")
	if n == 0 {
		return tx.Bucket(bucketFlowCounts).Delete(k)
	}
	return tx.Bucket(bucketFlowCounts).Put(k, binary.BigEndian.AppendUint64(nil, uint64(n)))
}

// ConsumeFlow removes and returns a flow, so that it works once;
// CodeNotFound if it is unknown, used or expired at now (a flow that
// expires at now has expired). An expired flow is removed too.
func (s *Store) ConsumeFlow(ctx context.Context, id string, now time.Time) (*unical.OAuthFlow, error) {
	var rec storedoc.Flow
	err := s.update(ctx, "consume flow", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketFlows)
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok {
			return storedoc.NotFound("Flow", id)
		}
		return deleteFlow(tx, &rec)
	})
	if err != nil {
		return nil, err
	}
	// Checked after the commit, so that an expired flow is gone as well.
	if !now.Before(rec.ExpiresAt) {
		return nil, storedoc.NotFound("Flow", id)
	}
	return rec.ToFlow(), nil
}

// deleteFlow removes a flow, its index entries and its count.
func deleteFlow(tx *bbolt.Tx, rec *storedoc.Flow) error {
	if err := tx.Bucket(bucketFlows).Delete([]byte(rec.ID)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketFlowsByApp).Delete(flowAppKey(rec)); err != nil {
		return err
	}
	if err := addFlowCount(tx, rec.ApplicationID, -1); err != nil {
		return err
	}
	return tx.Bucket(bucketFlowsByExpiry).Delete(flowExpiryKey(rec))
}

// deleteFlowByID is deleteFlow for a flow known by id; a missing one is
// already gone.
func deleteFlowByID(tx *bbolt.Tx, id string) error {
	var rec storedoc.Flow
	ok, err := getJSON(tx.Bucket(bucketFlows), []byte(id), &rec)
	if err != nil || !ok {
		return err
	}
	return deleteFlow(tx, &rec)
}

// blob is a stored blob with its expiry. It repeats its application and
// key, so that GetBlob checks the owner instead of trusting the key alone.
type blob struct {
	ApplicationID string    `json:"applicationId"`
	Key           string    `json:"key"`
	Data          []byte    `json:"data"`
	ExpiresAt     time.Time `json:"expiresAt"`
}

// blobExpiryKey is the blobs.byExpiry key of the blob under k.
func blobExpiryKey(expires time.Time, k []byte) []byte {
	return append(timeKey(expires), k...)
}

// PutBlob stores data under the application's key until expires,
// replacing what was there. CodeInvalid for an empty key.
func (s *Store) PutBlob(ctx context.Context, appID, key string, data []byte, expires time.Time) error {
	if err := storedoc.CheckID("Application id", appID); err != nil {
		return err
	}
	if key == "" {
		return unical.Errorf(unical.CodeInvalid, "Blob key is required.")
	}
	k := keyOf(appID, key)
	rec := &blob{ApplicationID: appID, Key: key, Data: data, ExpiresAt: storedoc.UTC(expires)}
	return s.update(ctx, "put blob", func(tx *bbolt.Tx) error {
		b, byExpiry := tx.Bucket(bucketBlobs), tx.Bucket(bucketBlobsByExpiry)
		var old blob
		ok, err := getJSON(b, k, &old)
		if err != nil {
			return err
		}
		if ok {
			if err := byExpiry.Delete(blobExpiryKey(old.ExpiresAt, k)); err != nil {
				return err
			}
		}
		if err := putJSON(b, k, rec); err != nil {
			return err
		}
		return byExpiry.Put(blobExpiryKey(rec.ExpiresAt, k), nil)
	})
}

// GetBlob returns the data under the application's key; CodeNotFound if
// there is none or it expired at now (a blob that expires at now has
// expired).
func (s *Store) GetBlob(ctx context.Context, appID, key string, now time.Time) ([]byte, error) {
	var rec blob
	err := s.view(ctx, "get blob", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketBlobs), keyOf(appID, key), &rec)
		if err == nil && (!ok || rec.ApplicationID != appID || rec.Key != key || !now.Before(rec.ExpiresAt)) {
			err = storedoc.NotFound("Blob", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.Data, nil
}
