package postgres

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical/audit"
	"github.com/unical/unical/store/internal/storedoc"
)

// AppendAudit stores an audit entry and removes up to
// storedoc.AuditPruneLimit of the entries made before removeBefore, in
// one transaction.
func (s *Store) AppendAudit(ctx context.Context, e *audit.Entry, removeBefore time.Time) error {
	if err := storedoc.CheckAuditEntry(e); err != nil {
		return err
	}
	rec := *e
	rec.At = storedoc.UTC(rec.At)
	data, err := json.Marshal(&rec)
	if err != nil {
		return storedoc.Internal(err)
	}
	return s.tx(ctx, "append audit entry", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < $1 ORDER BY at LIMIT $2)",
			removeBefore, storedoc.AuditPruneLimit); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO audit_log (id, application_id, at, data) VALUES ($1, $2, $3, $4)", rec.ID, rec.ApplicationID, rec.At, data)
		return err
	})
}

// ListAudit returns audit entries newest first, of one application or
// (appID "") of all, with ids before before, at most limit of them.
func (s *Store) ListAudit(ctx context.Context, appID, before string, limit int) ([]*audit.Entry, error) {
	q, args := "SELECT data FROM audit_log WHERE true", []any{}
	if appID != "" {
		args = append(args, appID)
		q += " AND application_id = $1"
	}
	if before != "" {
		args = append(args, before)
		q += " AND id < $" + strconv.Itoa(len(args))
	}
	args = append(args, limit)
	q += " ORDER BY id DESC LIMIT $" + strconv.Itoa(len(args))
	out, err := queryAll(ctx, s, func(row pgx.CollectableRow) (*audit.Entry, error) {
		var data []byte
		if err := row.Scan(&data); err != nil {
			return nil, err
		}
		var e audit.Entry
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, err
		}
		e.At = storedoc.UTC(e.At)
		return &e, nil
	}, q, args...)
	if err != nil {
		return nil, translate("list audit entries", err)
	}
	return out, nil
}
