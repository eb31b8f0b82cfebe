package bolt

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

// CreateApplication stores a new application; CodeConflict if the id is
// taken.
func (s *Store) CreateApplication(ctx context.Context, app *unical.Application) error {
	rec, err := storedoc.FromApplication(app)
	if err != nil {
		return err
	}
	return s.update(ctx, "create application", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketApplications)
		if b.Get([]byte(rec.ID)) != nil {
			return storedoc.Conflict("Application %q already exists.", rec.ID)
		}
		return putJSON(b, []byte(rec.ID), rec)
	})
}

// GetApplication returns an application; CodeNotFound if there is none.
func (s *Store) GetApplication(ctx context.Context, id string) (*unical.Application, error) {
	var rec storedoc.Application
	err := s.view(ctx, "get application", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketApplications), []byte(id), &rec)
		if err == nil && !ok {
			err = storedoc.NotFound("Application", id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.ToApplication(), nil
}

// UpdateApplication replaces a stored application; CodeNotFound if there
// is none.
func (s *Store) UpdateApplication(ctx context.Context, app *unical.Application) error {
	rec, err := storedoc.FromApplication(app)
	if err != nil {
		return err
	}
	return s.update(ctx, "update application", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketApplications)
		if b.Get([]byte(rec.ID)) == nil {
			return storedoc.NotFound("Application", rec.ID)
		}
		return putJSON(b, []byte(rec.ID), rec)
	})
}

// ListApplications returns every application, oldest first: by creation
// time, then by id. There are few applications, so they are sorted in
// memory.
func (s *Store) ListApplications(ctx context.Context) ([]*unical.Application, error) {
	var apps []*unical.Application
	err := s.view(ctx, "list applications", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketApplications).ForEach(func(k, v []byte) error {
			var rec storedoc.Application
			if err := decode(k, v, &rec); err != nil {
				return err
			}
			apps = append(apps, rec.ToApplication())
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(apps, func(a, b *unical.Application) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return apps, nil
}

// apiKey is the stored form of [unical.APIKey], hash included.
type apiKey struct {
	ID            string    `json:"id"`
	ApplicationID string    `json:"applicationId"`
	Hash          []byte    `json:"hash"`
	CreatedAt     time.Time `json:"createdAt"`
	LastUsedAt    time.Time `json:"lastUsedAt,omitzero"`
	Label         string    `json:"label,omitempty"`
}

func (rec *apiKey) toAPIKey() *unical.APIKey {
	return &unical.APIKey{ID: rec.ID, ApplicationID: rec.ApplicationID, Hash: rec.Hash, CreatedAt: rec.CreatedAt, LastUsedAt: rec.LastUsedAt, Label: rec.Label}
}

// CreateAPIKey stores a key; CodeConflict if the id is taken.
func (s *Store) CreateAPIKey(ctx context.Context, key *unical.APIKey) error {
	if err := storedoc.CheckID("API key id", key.ID); err != nil {
		return err
	}
	if err := storedoc.CheckID("Application id", key.ApplicationID); err != nil {
		return err
	}
	rec := &apiKey{ID: key.ID, ApplicationID: key.ApplicationID, Hash: key.Hash, CreatedAt: storedoc.UTC(key.CreatedAt), LastUsedAt: storedoc.UTC(key.LastUsedAt), Label: key.Label}
	return s.update(ctx, "create API key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		if b.Get([]byte(rec.ID)) != nil {
			return storedoc.Conflict("API key %q already exists.", rec.ID)
		}
		if err := putJSON(b, []byte(rec.ID), rec); err != nil {
			return err
		}
		return tx.Bucket(bucketAPIKeysByApp).Put(keyOf(rec.ApplicationID, rec.ID), nil)
	})
}

// GetAPIKey returns a key by id, whatever its application; CodeNotFound if
// there is none.
func (s *Store) GetAPIKey(ctx context.Context, id string) (*unical.APIKey, error) {
	var rec apiKey
	err := s.view(ctx, "get API key", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketAPIKeys), []byte(id), &rec)
		if err == nil && !ok {
			err = storedoc.NotFound("API key", id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec.toAPIKey(), nil
}

// ListAPIKeys returns an application's keys, oldest first: by creation
// time, then by id.
func (s *Store) ListAPIKeys(ctx context.Context, appID string) ([]*unical.APIKey, error) {
	var keys []*unical.APIKey
	err := s.view(ctx, "list API keys", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		return scanIDs(tx.Bucket(bucketAPIKeysByApp), keyOf(appID, ""), "", func(id string) (bool, error) {
			var rec apiKey
			if _, err := getJSON(b, []byte(id), &rec); err != nil {
				return false, err
			}
			keys = append(keys, rec.toAPIKey())
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(keys, func(a, b *unical.APIKey) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return keys, nil
}

// DeleteAPIKey removes one of an application's keys; CodeNotFound if the
// application has no such key.
func (s *Store) DeleteAPIKey(ctx context.Context, appID, id string) error {
	return s.update(ctx, "delete API key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		var rec apiKey
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok || rec.ApplicationID != appID {
			return storedoc.NotFound("API key", id)
		}
		if err := b.Delete([]byte(id)); err != nil {
			return err
		}
		return tx.Bucket(bucketAPIKeysByApp).Delete(keyOf(appID, id))
	})
}

// MarkAPIKeyUsed sets a key's LastUsedAt to at unless it holds a later
// time; CodeNotFound if there is no such key.
func (s *Store) MarkAPIKeyUsed(ctx context.Context, id string, at time.Time) error {
	return s.update(ctx, "mark API key used", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		var rec apiKey
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok {
			return storedoc.NotFound("API key", id)
		}
		if !rec.LastUsedAt.Before(at) {
			return nil
		}
		rec.LastUsedAt = storedoc.UTC(at)
		return putJSON(b, []byte(id), &rec)
	})
}

// SetAPIKeyLabel sets the label of one of an application's keys;
// CodeNotFound if the application has no such key.
func (s *Store) SetAPIKeyLabel(ctx context.Context, appID, id, label string) (*unical.APIKey, error) {
	var rec apiKey
	err := s.update(ctx, "label API key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAPIKeys)
		ok, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !ok || rec.ApplicationID != appID {
			return storedoc.NotFound("API key", id)
		}
		rec.Label = label
		return putJSON(b, []byte(id), &rec)
	})
	if err != nil {
		return nil, err
	}
	return rec.toAPIKey(), nil
}

// DeleteApplication removes an application and its API keys in one
// transaction; CodeNotFound if there is none, CodeConflict while it has
// accounts.
func (s *Store) DeleteApplication(ctx context.Context, id string) error {
	return s.update(ctx, "delete application", func(tx *bbolt.Tx) error {
		apps := tx.Bucket(bucketApplications)
		if apps.Get([]byte(id)) == nil {
			return storedoc.NotFound("Application", id)
		}
		prefix := keyOf(id, "")
		if k, _ := tx.Bucket(bucketAccountsByApp).Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
			return storedoc.Conflict("Application %q still has accounts.", id)
		}
		var keyIDs []string
		err := scanIDs(tx.Bucket(bucketAPIKeysByApp), prefix, "", func(keyID string) (bool, error) {
			keyIDs = append(keyIDs, keyID)
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, keyID := range keyIDs {
			if err := tx.Bucket(bucketAPIKeys).Delete([]byte(keyID)); err != nil {
				return err
			}
			if err := tx.Bucket(bucketAPIKeysByApp).Delete(keyOf(id, keyID)); err != nil {
				return err
			}
		}
		if err := deleteAccountRecords(tx, id, storedoc.ApplicationRecords); err != nil {
			return err
		}
		return apps.Delete([]byte(id))
	})
}
