package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/records"
	"github.com/unical/unical/store/internal/storedoc"
)

// whyNoRecord explains a compare-and-set that matched no row: CodeNotFound
// when there is no record, else CodeConflict (another version).
func whyNoRecord(ctx context.Context, tx pgx.Tx, appID, accountID, collection, key string, want uint64) error {
	var have int64
	err := tx.QueryRow(ctx, "SELECT version FROM records WHERE application_id = $1 AND account_id = $2 AND collection = $3 AND key = $4",
		appID, accountID, collection, key).Scan(&have)
	if errors.Is(err, pgx.ErrNoRows) {
		return storedoc.NotFound("Record", key)
	}
	if err != nil {
		return err
	}
	if want == 0 {
		return storedoc.Conflict("Record %q already exists.", key)
	}
	return storedoc.Conflict("Record %q is at version %d, not %d.", key, have, want)
}

var _ records.BatchStore = (*Store)(nil)

// PutRecord implements [records.Store]. Versions come from the
// record_versions sequence, so a key never sees a version twice.
func (s *Store) PutRecord(ctx context.Context, appID, accountID, collection, key string, data []byte, ifVersion uint64) (uint64, error) {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, key); err != nil {
		return 0, err
	}
	var version uint64
	err := s.tx(ctx, "put record", func(tx pgx.Tx) error {
		var err error
		version, err = putRecord(ctx, tx, appID, accountID, collection, key, data, ifVersion)
		return err
	})
	if err != nil {
		return 0, err
	}
	return version, nil
}

func putRecord(ctx context.Context, tx pgx.Tx, appID, accountID, collection, key string, data []byte, ifVersion uint64) (uint64, error) {
	// FOR SHARE keeps the account from going (with its records) while
	// the record is written.
	if accountID != storedoc.ApplicationRecords {
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 FROM accounts WHERE id = $1 AND application_id = $2 FOR SHARE", accountID, appID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, storedoc.NotFound("Account", accountID)
		}
		if err != nil {
			return 0, err
		}
	}
	var version int64
	var err error
	if ifVersion == 0 {
		err = tx.QueryRow(ctx, `INSERT INTO records (application_id, account_id, collection, key, data, version)
			VALUES ($1, $2, $3, $4, $5, nextval('record_versions'))
			ON CONFLICT DO NOTHING RETURNING version`, appID, accountID, collection, key, data).Scan(&version)
	} else {
		err = tx.QueryRow(ctx, `UPDATE records SET data = $5, version = nextval('record_versions')
			WHERE application_id = $1 AND account_id = $2 AND collection = $3 AND key = $4 AND version = $6
			RETURNING version`, appID, accountID, collection, key, data, int64(ifVersion)).Scan(&version)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, whyNoRecord(ctx, tx, appID, accountID, collection, key, ifVersion)
	}
	return uint64(version), err
}

// scanRecord reads key, data, version.
func scanRecord(row pgx.CollectableRow) (*records.Record, error) {
	var r records.Record
	var version int64
	if err := row.Scan(&r.Key, &r.Data, &version); err != nil {
		return nil, err
	}
	r.Version = uint64(version)
	return &r, nil
}

// GetRecord implements [records.Store].
func (s *Store) GetRecord(ctx context.Context, appID, accountID, collection, key string) (*records.Record, error) {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, key); err != nil {
		return nil, err
	}
	recs, err := queryAll(ctx, s, scanRecord, `SELECT key, data, version FROM records
		WHERE application_id = $1 AND account_id = $2 AND collection = $3 AND key = $4`, appID, accountID, collection, key)
	if err != nil {
		return nil, translate("get record", err)
	}
	if len(recs) == 0 {
		return nil, storedoc.NotFound("Record", key)
	}
	return recs[0], nil
}

// DeleteRecord implements [records.Store].
func (s *Store) DeleteRecord(ctx context.Context, appID, accountID, collection, key string, ifVersion uint64) error {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, key); err != nil {
		return err
	}
	return s.tx(ctx, "delete record", func(tx pgx.Tx) error {
		return deleteRecord(ctx, tx, appID, accountID, collection, key, ifVersion)
	})
}

func deleteRecord(ctx context.Context, tx pgx.Tx, appID, accountID, collection, key string, ifVersion uint64) error {
	tag, err := tx.Exec(ctx, `DELETE FROM records
		WHERE application_id = $1 AND account_id = $2 AND collection = $3 AND key = $4 AND ($5 = 0 OR version = $5)`,
		appID, accountID, collection, key, int64(ifVersion))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		if ifVersion == 0 {
			return storedoc.NotFound("Record", key)
		}
		return whyNoRecord(ctx, tx, appID, accountID, collection, key, ifVersion)
	}
	return nil
}

// WriteRecords implements [records.BatchStore]: the writes are
// made in order in one transaction, committed once; any failure rolls
// them all back.
func (s *Store) WriteRecords(ctx context.Context, appID string, writes []records.Write) ([]uint64, error) {
	for _, w := range writes {
		if err := storedoc.CheckRecordKey(appID, w.AccountID, w.Collection, w.Key); err != nil {
			return nil, err
		}
	}
	versions := make([]uint64, len(writes))
	err := s.tx(ctx, "write records", func(tx pgx.Tx) error {
		for i, w := range writes {
			var err error
			if w.Delete {
				err = deleteRecord(ctx, tx, appID, w.AccountID, w.Collection, w.Key, w.IfVersion)
			} else {
				versions[i], err = putRecord(ctx, tx, appID, w.AccountID, w.Collection, w.Key, w.Data, w.IfVersion)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return versions, nil
}

// ListRecords implements [records.Store]: keys compare byte by byte
// (COLLATE "C").
func (s *Store) ListRecords(ctx context.Context, appID, accountID, collection, prefix, after string, limit int) ([]*records.Record, error) {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, "-"); err != nil {
		return nil, err
	}
	if strings.IndexByte(prefix, 0) >= 0 || strings.IndexByte(after, 0) >= 0 {
		return nil, unical.Errorf(unical.CodeInvalid, "Record keys hold no NUL byte.")
	}
	recs, err := queryAll(ctx, s, scanRecord, `SELECT key, data, version FROM records
		WHERE application_id = $1 AND account_id = $2 AND collection = $3 AND starts_with(key, $4) AND key > $5
		ORDER BY key LIMIT $6`, appID, accountID, collection, prefix, after, limitArg(limit))
	if err != nil {
		return nil, translate("list records", err)
	}
	return recs, nil
}
