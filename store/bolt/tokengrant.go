package bolt

import (
	"context"
	"time"

	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// tokenGrant is a stored grant of a scoped token (package scopedtoken):
// its data is the grant's JSON, which holds the hash of the token's
// secret, never the secret.
type tokenGrant struct {
	ApplicationID string    `json:"applicationId"`
	Data          []byte    `json:"data"`
	ExpiresAt     time.Time `json:"expiresAt"`
}

// tokenGrantExpiryKey is the grant's tokenGrants.byExpiry key.
func tokenGrantExpiryKey(expires time.Time, id string) []byte {
	return append(timeKey(expires), id...)
}

// CreateTokenGrant implements scopedtoken.GrantStore. CodeNotFound when
// there is no such application.
func (s *Store) CreateTokenGrant(ctx context.Context, appID, id string, data []byte, expiresAt time.Time) error {
	if err := storedoc.CheckID("Application id", appID); err != nil {
		return err
	}
	if err := storedoc.CheckID("Token id", id); err != nil {
		return err
	}
	rec := &tokenGrant{ApplicationID: appID, Data: data, ExpiresAt: storedoc.UTC(expiresAt)}
	return s.update(ctx, "create token grant", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketApplications).Get([]byte(appID)) == nil {
			return storedoc.NotFound("Application", appID)
		}
		b := tx.Bucket(bucketTokenGrants)
		if b.Get([]byte(id)) != nil {
			return storedoc.Conflict("Token %q already exists.", id)
		}
		if err := putJSON(b, []byte(id), rec); err != nil {
			return err
		}
		return tx.Bucket(bucketTokenGrantsByExp).Put(tokenGrantExpiryKey(rec.ExpiresAt, id), nil)
	})
}

// GetTokenGrant implements scopedtoken.GrantStore.
func (s *Store) GetTokenGrant(ctx context.Context, id string, now time.Time) ([]byte, error) {
	var rec tokenGrant
	err := s.view(ctx, "get token grant", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketTokenGrants), []byte(id), &rec)
		if err == nil && (!ok || !now.Before(rec.ExpiresAt)) {
			err = storedoc.NotFound("Token", id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.Data, nil
}

// DeleteTokenGrant implements scopedtoken.GrantStore.
func (s *Store) DeleteTokenGrant(ctx context.Context, appID, id string) error {
	return s.update(ctx, "delete token grant", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketTokenGrants)
		var rec tokenGrant
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok || rec.ApplicationID != appID {
			return storedoc.NotFound("Token", id)
		}
		if err := b.Delete([]byte(id)); err != nil {
			return err
		}
		return tx.Bucket(bucketTokenGrantsByExp).Delete(tokenGrantExpiryKey(rec.ExpiresAt, id))
	})
}

// SweepTokenGrants implements scopedtoken.GrantStore by walking
// tokenGrants.byExpiry; a sweep with nothing expired writes nothing.
func (s *Store) SweepTokenGrants(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = -1
	}
	nowKey := timeKey(now)
	var found bool
	err := s.view(ctx, "sweep token grants", func(tx *bbolt.Tx) error {
		found = len(expiredKeys(tx.Bucket(bucketTokenGrantsByExp), nil, nowKey, 1)) > 0
		return nil
	})
	if err != nil || !found {
		return 0, err
	}
	var n int
	err = s.update(ctx, "sweep token grants", func(tx *bbolt.Tx) error {
		index := tx.Bucket(bucketTokenGrantsByExp)
		keys := expiredKeys(index, nil, nowKey, limit)
		for _, k := range keys {
			if err := tx.Bucket(bucketTokenGrants).Delete(k[timeKeyLen:]); err != nil {
				return err
			}
			if err := index.Delete(k); err != nil {
				return err
			}
		}
		n = len(keys)
		return nil
	})
	return n, err
}
