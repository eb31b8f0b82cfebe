package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical/store/internal/storedoc"
)

// CreateTokenGrant implements scopedtoken.GrantStore. CodeNotFound when
// there is no such application.
func (s *Store) CreateTokenGrant(ctx context.Context, appID, id string, data []byte, expiresAt time.Time) error {
	if err := storedoc.CheckID("Application id", appID); err != nil {
		return err
	}
	if err := storedoc.CheckID("Token id", id); err != nil {
		return err
	}
	return s.tx(ctx, "create token grant", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO token_grants (id, application_id, data, expires_at)
			SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM applications WHERE id = $2)`,
			id, appID, data, expiresAt)
		if err == nil && tag.RowsAffected() == 0 {
			return storedoc.NotFound("Application", appID)
		}
		return err
	})
}

// GetTokenGrant implements scopedtoken.GrantStore.
func (s *Store) GetTokenGrant(ctx context.Context, id string, now time.Time) ([]byte, error) {
	var data []byte
	err := s.queryRow(ctx, "SELECT data FROM token_grants WHERE id = $1 AND expires_at > $2", []any{id, now}, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storedoc.NotFound("Token", id)
	}
	if err != nil {
		return nil, translate("get token grant", err)
	}
	return data, nil
}

// DeleteTokenGrant implements scopedtoken.GrantStore. The delete notifies
// every process sharing the database, as a deleted API key does, so that
// none of them goes on using a grant it read before.
func (s *Store) DeleteTokenGrant(ctx context.Context, appID, id string) error {
	n, err := s.execChanging(ctx, "delete token grant", "DELETE FROM token_grants WHERE application_id = $1 AND id = $2", appID, id)
	if err == nil && n == 0 {
		return storedoc.NotFound("Token", id)
	}
	return err
}

// SweepTokenGrants implements scopedtoken.GrantStore.
func (s *Store) SweepTokenGrants(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		n, err := s.exec(ctx, "sweep token grants", "DELETE FROM token_grants WHERE expires_at <= $1", now)
		return int(n), err
	}
	n, err := s.exec(ctx, "sweep token grants", `DELETE FROM token_grants WHERE id IN
		(SELECT id FROM token_grants WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`, now, limit)
	return int(n), err
}
