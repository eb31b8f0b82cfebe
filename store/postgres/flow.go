package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/store/internal/storedoc"
	"github.com/unical/unical/sweep"
)

// flowLockSpace is the first key of the transaction advisory locks that
// serialise CreateFlow per application, so that the cap's count and the
// insert are one step across processes ("unical:f" in ASCII, folded to
// 32 bits).
const flowLockSpace int32 = 0x756e6963

// CreateFlow stores a flow; CodeConflict if the id is taken. With a
// positive maxPending it counts the application's stored flows under a
// per-application lock: under the cap, the flow is stored. At the cap,
// some may have expired: it removes the application's flows expired at
// f.CreatedAt and counts again. Still at the cap, it returns
// CodeRateLimited with RetryAfter until the first unexpired one expires,
// keeping the removals.
func (s *Store) CreateFlow(ctx context.Context, f *unical.OAuthFlow, maxPending int) error {
	rec, err := storedoc.FromFlow(f)
	if err != nil {
		return err
	}
	data, err := encode(rec)
	if err != nil {
		return err
	}
	var refused error
	err = s.tx(ctx, "create flow", func(tx pgx.Tx) error {
		refused = nil
		var taken bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM oauth_flows WHERE id = $1)", f.ID).Scan(&taken); err != nil {
			return err
		}
		if taken {
			return storedoc.Conflict("Flow %q already exists.", f.ID)
		}
		if maxPending > 0 {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", flowLockSpace, f.ApplicationID); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM oauth_flows WHERE application_id = $1", f.ApplicationID).Scan(&n); err != nil {
				return err
			}
			if n >= maxPending {
				tag, err := tx.Exec(ctx, "DELETE FROM oauth_flows WHERE application_id = $1 AND expires_at <= $2", f.ApplicationID, f.CreatedAt)
				if err != nil {
					return err
				}
				if n -= int(tag.RowsAffected()); n >= maxPending {
					var first time.Time
					err := tx.QueryRow(ctx, "SELECT min(expires_at) FROM oauth_flows WHERE application_id = $1", f.ApplicationID).Scan(&first)
					if err != nil {
						return err
					}
					refused = &unical.Error{
						Code:       unical.CodeRateLimited,
						Message:    fmt.Sprintf("This application has %d sign-ins in progress, the most allowed; try again when one finishes or expires.", maxPending),
						RetryAfter: first.Sub(f.CreatedAt),
					}
					return nil // commit the removals, refuse the flow
				}
			}
		}
		_, err := tx.Exec(ctx, "INSERT INTO oauth_flows (id, application_id, expires_at, data) VALUES ($1, $2, $3, $4)",
			f.ID, f.ApplicationID, f.ExpiresAt, data)
		return err
	})
	if err != nil {
		return err
	}
	return refused
}

// ConsumeFlow removes and returns a flow, so that it works once;
// CodeNotFound if it is unknown, used or expired at now (a flow that
// expires at now has expired). An expired flow is removed too.
func (s *Store) ConsumeFlow(ctx context.Context, id string, now time.Time) (*unical.OAuthFlow, error) {
	var data []byte
	err := s.tx(ctx, "consume flow", func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "DELETE FROM oauth_flows WHERE id = $1 RETURNING data", id).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			return storedoc.NotFound("Flow", id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var rec storedoc.Flow
	if err := decode("flow", data, &rec); err != nil {
		return nil, err
	}
	if !now.Before(rec.ExpiresAt) {
		return nil, storedoc.NotFound("Flow", id)
	}
	return rec.ToFlow(), nil
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
	if err := checkText("Blob key", key); err != nil {
		return err
	}
	_, err := s.exec(ctx, "put blob", `INSERT INTO blobs (application_id, key, data, expires_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (application_id, key) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
		appID, key, data, expires)
	return err
}

// GetBlob returns the data under the application's key; CodeNotFound if
// there is none or it expired at now.
func (s *Store) GetBlob(ctx context.Context, appID, key string, now time.Time) ([]byte, error) {
	var data []byte
	err := s.queryRow(ctx, "SELECT data FROM blobs WHERE application_id = $1 AND key = $2 AND expires_at > $3",
		[]any{appID, key, now}, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storedoc.NotFound("Blob", key)
	}
	if err != nil {
		return nil, translate("get blob", err)
	}
	return data, nil
}

// Sweep removes expired flows, blobs and delivery attempts, and delivered
// and failed messages past their retention, at most req.Limit records in
// one transaction. Each kind is found through an index in time order, so
// a sweep costs what it removes. Replicas may sweep at the same time: rows
// another sweep is removing are skipped, not waited for.
func (s *Store) Sweep(ctx context.Context, req sweep.Request) (sweep.Result, error) {
	var res sweep.Result
	err := s.tx(ctx, "sweep", func(tx pgx.Tx) error {
		res = sweep.Result{}
		budget := func() *int64 {
			if req.Limit <= 0 {
				return nil
			}
			n := int64(req.Limit - res.Total())
			return &n
		}
		steps := []struct {
			count *int
			sql   string
			arg   any
			skip  bool
		}{
			{&res.Flows, "DELETE FROM oauth_flows WHERE id IN (SELECT id FROM oauth_flows WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)", req.Now, false},
			{&res.Blobs, "DELETE FROM blobs WHERE (application_id, key) IN (SELECT application_id, key FROM blobs WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)", req.Now, false},
			{&res.Attempts, "DELETE FROM delivery_attempts WHERE id IN (SELECT id FROM delivery_attempts WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)", req.Now, false},
			{&res.DeliveredMessages, "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE status = 'delivered' AND next_attempt_at < $1 ORDER BY status, next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)", req.DeliveredBefore, req.DeliveredBefore.IsZero()},
			{&res.FailedMessages, "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE status = 'failed' AND next_attempt_at < $1 ORDER BY status, next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)", req.FailedBefore, req.FailedBefore.IsZero()},
			{&res.IdempotencyKeys, "DELETE FROM idempotency_keys WHERE (application_id, key) IN (SELECT application_id, key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)", req.Now, false},
		}
		for _, st := range steps {
			limit := budget()
			if st.skip || limit != nil && *limit <= 0 {
				continue
			}
			tag, err := tx.Exec(ctx, st.sql, st.arg, limit)
			if err != nil {
				return err
			}
			*st.count = int(tag.RowsAffected())
		}
		return nil
	})
	if err != nil {
		return sweep.Result{}, err
	}
	return res, nil
}
