package bolt

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/unical/unical"
	bbolt "go.etcd.io/bbolt"
)

// flow is the stored form of [unical.OAuthFlow].
type flow struct {
	ID             string              `json:"id"`
	ApplicationID  string              `json:"applicationId"`
	ProviderType   unical.ProviderType `json:"providerType"`
	RedirectURL    string              `json:"redirectUrl"`
	State          string              `json:"state"`
	LoginHint      string              `json:"loginHint"`
	SealedVerifier []byte              `json:"sealedVerifier"`
	CreatedAt      time.Time           `json:"createdAt"`
	ExpiresAt      time.Time           `json:"expiresAt"`
}

func (rec *flow) expiryKey() []byte {
	return append(timeKey(rec.ExpiresAt), rec.ID...)
}

// appKey is the flow's flows.byApp key: its application's prefix, then
// the expiry key, so that an application's unexpired flows are one range.
func (rec *flow) appKey() []byte {
	return append(keyOf(rec.ApplicationID, ""), rec.expiryKey()...)
}

// CreateFlow stores a flow; CodeConflict if the id is taken. With a
// positive maxPending it first counts the application's flows unexpired at
// f.CreatedAt in flows.byApp, from CreatedAt on, so the count costs at
// most maxPending steps; at the cap it writes nothing and returns
// CodeRateLimited. The refusal rolls the transaction back, so it costs no
// disk write.
func (s *Store) CreateFlow(ctx context.Context, f *unical.OAuthFlow, maxPending int) error {
	if err := checkID("Flow id", f.ID); err != nil {
		return err
	}
	rec := &flow{
		ID: f.ID, ApplicationID: f.ApplicationID, ProviderType: f.ProviderType, RedirectURL: f.RedirectURL,
		State: f.State, LoginHint: f.LoginHint, SealedVerifier: f.SealedVerifier,
		CreatedAt: utc(f.CreatedAt), ExpiresAt: utc(f.ExpiresAt),
	}
	return s.update(ctx, "create flow", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketFlows)
		if b.Get([]byte(rec.ID)) != nil {
			return conflict("Flow %q already exists.", rec.ID)
		}
		if maxPending > 0 {
			if err := checkPendingFlows(tx, rec, maxPending); err != nil {
				return err
			}
		}
		if err := putJSON(b, []byte(rec.ID), rec); err != nil {
			return err
		}
		if err := tx.Bucket(bucketFlowsByApp).Put(rec.appKey(), nil); err != nil {
			return err
		}
		return tx.Bucket(bucketFlowsByExpiry).Put(rec.expiryKey(), nil)
	})
}

// checkPendingFlows refuses rec when its application has max flows
// unexpired at rec.CreatedAt.
func checkPendingFlows(tx *bbolt.Tx, rec *flow, max int) error {
	prefix := keyOf(rec.ApplicationID, "")
	c := tx.Bucket(bucketFlowsByApp).Cursor()
	n := 0
	var first []byte
	// A flow that expires at CreatedAt has expired, so the walk starts
	// just after that instant.
	start := append(bytes.Clone(prefix), timeKey(rec.CreatedAt.Add(time.Nanosecond))...)
	for k, _ := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if first == nil {
			first = bytes.Clone(k[len(prefix):])
		}
		if n++; n >= max {
			return &unical.Error{
				Code:       unical.CodeRateLimited,
				Message:    fmt.Sprintf("This application has %d sign-ins in progress, the most allowed; try again when one finishes or expires.", max),
				RetryAfter: keyTime(first).Sub(rec.CreatedAt),
			}
		}
	}
	return nil
}

// ConsumeFlow removes and returns a flow, so that it works once;
// CodeNotFound if it is unknown, used or expired at now (a flow that
// expires at now has expired). An expired flow is removed too.
func (s *Store) ConsumeFlow(ctx context.Context, id string, now time.Time) (*unical.OAuthFlow, error) {
	var rec flow
	err := s.update(ctx, "consume flow", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketFlows)
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("Flow", id)
		}
		return deleteFlow(tx, &rec)
	})
	if err != nil {
		return nil, err
	}
	// Checked after the commit, so that an expired flow is gone as well.
	if !now.Before(rec.ExpiresAt) {
		return nil, notFound("Flow", id)
	}
	return &unical.OAuthFlow{
		ID: rec.ID, ApplicationID: rec.ApplicationID, ProviderType: rec.ProviderType, RedirectURL: rec.RedirectURL,
		State: rec.State, LoginHint: rec.LoginHint, SealedVerifier: rec.SealedVerifier,
		CreatedAt: rec.CreatedAt, ExpiresAt: rec.ExpiresAt,
	}, nil
}

// deleteFlow removes a flow and its index entries.
func deleteFlow(tx *bbolt.Tx, rec *flow) error {
	if err := tx.Bucket(bucketFlows).Delete([]byte(rec.ID)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketFlowsByApp).Delete(rec.appKey()); err != nil {
		return err
	}
	return tx.Bucket(bucketFlowsByExpiry).Delete(rec.expiryKey())
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
	if err := checkID("Application id", appID); err != nil {
		return err
	}
	if key == "" {
		return unical.Errorf(unical.CodeInvalid, "Blob key is required.")
	}
	k := keyOf(appID, key)
	rec := &blob{ApplicationID: appID, Key: key, Data: data, ExpiresAt: utc(expires)}
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
			err = notFound("Blob", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.Data, nil
}
