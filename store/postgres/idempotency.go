package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/store/internal/storedoc"
)

// idempotencyColumns are the columns scanIdempotency reads, in its order.
const idempotencyColumns = `application_id, key, fingerprint, claim, created_at, lease_expiry, expires_at,
	response_status, response_code, response_body`

// scanIdempotency reads the idempotencyColumns of a row.
func scanIdempotency(row pgx.CollectableRow) (*idempotency.Record, error) {
	var r idempotency.Record
	var status *int32
	var code *string
	var body []byte
	err := row.Scan(&r.ApplicationID, &r.Key, &r.Fingerprint, &r.Claim, &r.CreatedAt, &r.LeaseExpiry, &r.ExpiresAt, &status, &code, &body)
	if err != nil {
		return nil, err
	}
	r.CreatedAt, r.LeaseExpiry, r.ExpiresAt = storedoc.UTC(r.CreatedAt), storedoc.UTC(r.LeaseExpiry), storedoc.UTC(r.ExpiresAt)
	if status != nil {
		r.Response = &idempotency.Response{Status: int(*status), SealedBody: body}
		if code != nil {
			r.Response.Code = *code
		}
	}
	return &r, nil
}

// responseArgs are the response columns' arguments for resp (all NULL for
// none).
func responseArgs(resp *idempotency.Response) (status *int32, code *string, body []byte) {
	if resp == nil {
		return nil, nil, nil
	}
	st, c := int32(resp.Status), resp.Code
	return &st, &c, resp.SealedBody
}

// BeginIdempotent implements [idempotency.Store]: the record's row
// lock makes the read, the check and the write one atomic step across
// processes. The bound counts the application's rows after a new key's
// insert, in the primary key's index and at most maxKeys+1 of them,
// and sums the lengths of their kept bodies (octet_length reads a
// stored value's size without reading the value); first uses of new
// keys committing at the same moment do not see each other, so they may
// pass the bound by as many.
func (s *Store) BeginIdempotent(ctx context.Context, rec *idempotency.Record, maxKeys int, maxBytes int64) (*idempotency.Record, error) {
	if err := storedoc.CheckIdempotencyKey(rec.ApplicationID, rec.Key); err != nil {
		return nil, err
	}
	status, code, body := responseArgs(rec.Response)
	args := []any{rec.ApplicationID, rec.Key, rec.Fingerprint, rec.Claim, rec.CreatedAt, rec.LeaseExpiry, rec.ExpiresAt, status, code, body}
	var held *idempotency.Record
	err := s.tx(ctx, "begin idempotent", func(tx pgx.Tx) error {
		held = nil
		// Inserting first waits for a concurrent first use of the key to
		// commit or roll back, and then finds its row.
		tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (`+idempotencyColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return checkIdempotencyBound(ctx, tx, rec.ApplicationID, maxKeys, maxBytes) // an error rolls the insert back
		}
		rows, err := tx.Query(ctx, "SELECT "+idempotencyColumns+" FROM idempotency_keys WHERE application_id = $1 AND key = $2 FOR UPDATE",
			rec.ApplicationID, rec.Key)
		if err != nil {
			return err
		}
		old, err := pgx.CollectExactlyOneRow(rows, scanIdempotency)
		if err != nil {
			return err
		}
		if !storedoc.Free(old, rec) {
			held = old
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET fingerprint = $3, claim = $4, created_at = $5, lease_expiry = $6,
				expires_at = $7, response_status = $8, response_code = $9, response_body = $10
			WHERE application_id = $1 AND key = $2`, args...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return held, nil
}

// checkIdempotencyBound refuses the new key just inserted for appID when
// the application's records, the new one counted, pass maxKeys or
// maxBytes (each when positive).
func checkIdempotencyBound(ctx context.Context, tx pgx.Tx, appID string, maxKeys int, maxBytes int64) error {
	if maxKeys > 0 {
		var n int
		err := tx.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM idempotency_keys WHERE application_id = $1 LIMIT $2) AS held",
			appID, maxKeys+1).Scan(&n)
		if err != nil {
			return err
		}
		if n > maxKeys {
			return storedoc.IdempotencyBound(maxKeys, maxBytes)
		}
	}
	if maxBytes > 0 {
		var size int64
		err := tx.QueryRow(ctx, "SELECT coalesce(sum(octet_length(response_body)), 0) FROM idempotency_keys WHERE application_id = $1",
			appID).Scan(&size)
		if err != nil {
			return err
		}
		if size >= maxBytes {
			return storedoc.IdempotencyBound(maxKeys, maxBytes)
		}
	}
	return nil
}

// CompleteIdempotent implements [idempotency.Store].
func (s *Store) CompleteIdempotent(ctx context.Context, appID, key, claim string, resp *idempotency.Response) error {
	if err := storedoc.CheckIdempotencyKey(appID, key); err != nil {
		return err
	}
	return s.tx(ctx, "complete idempotent", func(tx pgx.Tx) error {
		var heldBy string
		var done bool
		err := tx.QueryRow(ctx, `SELECT claim, response_status IS NOT NULL FROM idempotency_keys
			WHERE application_id = $1 AND key = $2 FOR UPDATE`, appID, key).Scan(&heldBy, &done)
		found := !errors.Is(err, pgx.ErrNoRows)
		if found && err != nil {
			return err
		}
		if err := storedoc.CheckHeld(key, found, heldBy == claim && !done); err != nil {
			return err
		}
		if resp == nil {
			_, err = tx.Exec(ctx, "DELETE FROM idempotency_keys WHERE application_id = $1 AND key = $2", appID, key)
			return err
		}
		status, code, body := responseArgs(resp)
		_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET response_status = $3, response_code = $4, response_body = $5
			WHERE application_id = $1 AND key = $2`, appID, key, status, code, body)
		return err
	})
}
