package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/store/internal/storedoc"
)

// applicationDoc checks app and returns its stored JSON.
func applicationDoc(app *unical.Application) ([]byte, error) {
	rec, err := storedoc.FromApplication(app)
	if err != nil {
		return nil, err
	}
	return encode(rec)
}

func decodeApplication(data []byte) (*unical.Application, error) {
	var rec storedoc.Application
	if err := decode("application", data, &rec); err != nil {
		return nil, err
	}
	return rec.ToApplication(), nil
}

// encode returns v's stored JSON.
func encode(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, storedoc.Internal(fmt.Errorf("postgres: encode: %w", err))
	}
	return data, nil
}

// decode decodes a stored JSON document of the given kind into v.
func decode(kind string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return storedoc.Internal(fmt.Errorf("postgres: decode %s: %w", kind, err))
	}
	return nil
}

// CreateApplication stores a new application; CodeConflict if the id is
// taken.
func (s *Store) CreateApplication(ctx context.Context, app *unical.Application) error {
	data, err := applicationDoc(app)
	if err != nil {
		return err
	}
	_, err = s.execChanging(ctx, "create application", "INSERT INTO applications (id, created_at, data) VALUES ($1, $2, $3)", app.ID, app.CreatedAt, data)
	return err
}

// GetApplication returns an application; CodeNotFound if there is none.
func (s *Store) GetApplication(ctx context.Context, id string) (*unical.Application, error) {
	var data []byte
	err := s.queryRow(ctx, "SELECT data FROM applications WHERE id = $1", []any{id}, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storedoc.NotFound("Application", id)
	}
	if err != nil {
		return nil, translate("get application", err)
	}
	return decodeApplication(data)
}

// UpdateApplication replaces a stored application; CodeNotFound if there
// is none.
func (s *Store) UpdateApplication(ctx context.Context, app *unical.Application) error {
	data, err := applicationDoc(app)
	if err != nil {
		return err
	}
	n, err := s.execChanging(ctx, "update application", "UPDATE applications SET created_at = $2, data = $3 WHERE id = $1", app.ID, app.CreatedAt, data)
	if err != nil {
		return err
	}
	if n == 0 {
		return storedoc.NotFound("Application", app.ID)
	}
	return nil
}

// ListApplications returns every application, oldest first: by creation
// time, then by id.
func (s *Store) ListApplications(ctx context.Context) ([]*unical.Application, error) {
	docs, err := queryAll(ctx, s, pgx.RowTo[[]byte], "SELECT data FROM applications ORDER BY created_at, id")
	if err != nil {
		return nil, translate("list applications", err)
	}
	apps := make([]*unical.Application, len(docs))
	for i, data := range docs {
		if apps[i], err = decodeApplication(data); err != nil {
			return nil, err
		}
	}
	return apps, nil
}

// CreateAPIKey stores a key; CodeConflict if the id is taken.
func (s *Store) CreateAPIKey(ctx context.Context, key *unical.APIKey) error {
	if err := storedoc.CheckID("API key id", key.ID); err != nil {
		return err
	}
	if err := storedoc.CheckID("Application id", key.ApplicationID); err != nil {
		return err
	}
	_, err := s.execChanging(ctx, "create API key", "INSERT INTO api_keys ("+apiKeyColumns+") VALUES ($1, $2, $3, $4, $5, $6)",
		key.ID, key.ApplicationID, key.Hash, key.CreatedAt, key.LastUsedAt, key.Label)
	return err
}

// apiKeyColumns are the columns scanAPIKey reads, in its order.
const apiKeyColumns = "id, application_id, hash, created_at, last_used_at, label"

// scanAPIKey reads the apiKeyColumns of a row.
func scanAPIKey(row pgx.CollectableRow) (*unical.APIKey, error) {
	var k unical.APIKey
	if err := row.Scan(&k.ID, &k.ApplicationID, &k.Hash, &k.CreatedAt, &k.LastUsedAt, &k.Label); err != nil {
		return nil, err
	}
	k.CreatedAt, k.LastUsedAt = storedoc.UTC(k.CreatedAt), storedoc.UTC(k.LastUsedAt)
	return &k, nil
}

// GetAPIKey returns a key by id, whatever its application; CodeNotFound if
// there is none.
func (s *Store) GetAPIKey(ctx context.Context, id string) (*unical.APIKey, error) {
	keys, err := queryAll(ctx, s, scanAPIKey, "SELECT "+apiKeyColumns+" FROM api_keys WHERE id = $1", id)
	if err == nil && len(keys) == 0 {
		return nil, storedoc.NotFound("API key", id)
	}
	if err != nil {
		return nil, translate("get API key", err)
	}
	return keys[0], nil
}

// ListAPIKeys returns an application's keys, oldest first: by creation
// time, then by id.
func (s *Store) ListAPIKeys(ctx context.Context, appID string) ([]*unical.APIKey, error) {
	keys, err := queryAll(ctx, s, scanAPIKey,
		"SELECT "+apiKeyColumns+" FROM api_keys WHERE application_id = $1 ORDER BY created_at, id", appID)
	if err != nil {
		return nil, translate("list API keys", err)
	}
	return keys, nil
}

// DeleteAPIKey removes one of an application's keys; CodeNotFound if the
// application has no such key.
func (s *Store) DeleteAPIKey(ctx context.Context, appID, id string) error {
	n, err := s.execChanging(ctx, "delete API key", "DELETE FROM api_keys WHERE id = $1 AND application_id = $2", id, appID)
	if err != nil {
		return err
	}
	if n == 0 {
		return storedoc.NotFound("API key", id)
	}
	return nil
}

// MarkAPIKeyUsed sets a key's LastUsedAt to at, unless it already holds a
// later time; CodeNotFound if there is no such key.
func (s *Store) MarkAPIKeyUsed(ctx context.Context, id string, at time.Time) error {
	return s.tx(ctx, "mark API key used", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND last_used_at < $2", id, at)
		if err != nil || tag.RowsAffected() > 0 {
			return err
		}
		var one int
		err = tx.QueryRow(ctx, "SELECT 1 FROM api_keys WHERE id = $1", id).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return storedoc.NotFound("API key", id)
		}
		return err
	})
}

// SetAPIKeyLabel sets the label of one of an application's keys;
// CodeNotFound if the application has no such key.
func (s *Store) SetAPIKeyLabel(ctx context.Context, appID, id, label string) (*unical.APIKey, error) {
	keys, err := queryAll(ctx, s, scanAPIKey,
		"UPDATE api_keys SET label = $3 WHERE id = $1 AND application_id = $2 RETURNING "+apiKeyColumns, id, appID, label)
	if err != nil {
		return nil, translate("label API key", err)
	}
	if len(keys) == 0 {
		return nil, storedoc.NotFound("API key", id)
	}
	return keys[0], nil
}

// DeleteApplication removes an application and its API keys in one
// transaction; CodeNotFound if there is none, CodeConflict while it has
// accounts.
func (s *Store) DeleteApplication(ctx context.Context, id string) error {
	return s.changing(ctx, "delete application", func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 FROM applications WHERE id = $1 FOR UPDATE", id).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return storedoc.NotFound("Application", id)
		}
		if err != nil {
			return err
		}
		var hasAccounts bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM accounts WHERE application_id = $1)", id).Scan(&hasAccounts); err != nil {
			return err
		}
		if hasAccounts {
			return storedoc.Conflict("Application %q still has accounts.", id)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM api_keys WHERE application_id = $1", id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM records WHERE application_id = $1 AND account_id = ''", id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM applications WHERE id = $1", id)
		return err
	})
}
