package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/records"
	"github.com/unical/unical/store/internal/storedoc"
	bbolt "go.etcd.io/bbolt"
)

var _ records.BatchStore = (*Store)(nil)

// recordVersionLen is the length of the version in front of a stored
// record's data.
const recordVersionLen = 8

// recordBase is the records-bucket prefix of an account's collection.
func recordBase(appID, accountID, collection string) []byte {
	return keyOf(appID, accountID, collection, "")
}

// decodeRecord splits a stored value into its version and data.
func decodeRecord(k, v []byte) (uint64, []byte, error) {
	if len(v) < recordVersionLen {
		return 0, nil, fmt.Errorf("decode record %q: %d bytes, too short", k, len(v))
	}
	return binary.BigEndian.Uint64(v), bytes.Clone(v[recordVersionLen:]), nil
}

// PutRecord implements [records.Store]. The version comes from the
// records bucket's sequence, which never goes back, so a key never sees a
// version twice.
func (s *Store) PutRecord(ctx context.Context, appID, accountID, collection, key string, data []byte, ifVersion uint64) (uint64, error) {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, key); err != nil {
		return 0, err
	}
	var version uint64
	err := s.update(ctx, "put record", func(tx *bbolt.Tx) error {
		var err error
		version, err = s.putRecord(tx, appID, accountID, collection, key, data, ifVersion)
		return err
	})
	if err != nil {
		return 0, err
	}
	return version, nil
}

// putRecord writes a record in tx. The account is read through the
// decoded-account cache: every write of a VIRTUAL calendar checks it, and
// decoding it each time held the file's only write lock for longer.
func (s *Store) putRecord(tx *bbolt.Tx, appID, accountID, collection, key string, data []byte, ifVersion uint64) (uint64, error) {
	if accountID != storedoc.ApplicationRecords {
		if _, err := s.readAccount(tx, appID, accountID); err != nil {
			return 0, err
		}
	}
	k := append(recordBase(appID, accountID, collection), key...)
	b := tx.Bucket(bucketRecords)
	if err := checkRecordVersion(b, k, key, ifVersion, false); err != nil {
		return 0, err
	}
	v, err := b.NextSequence()
	if err != nil {
		return 0, err
	}
	val := binary.BigEndian.AppendUint64(make([]byte, 0, recordVersionLen+len(data)), v)
	return v, b.Put(k, append(val, data...))
}

// checkRecordVersion checks the compare-and-set condition of a write to
// the record under k: its version must be want, 0 meaning absent (or, with
// anyIfZero, any version of a present record).
func checkRecordVersion(b *bbolt.Bucket, k []byte, key string, want uint64, anyIfZero bool) error {
	v := b.Get(k)
	if v == nil {
		if want == 0 && !anyIfZero {
			return nil
		}
		return storedoc.NotFound("Record", key)
	}
	have, _, err := decodeRecord(k, v)
	if err != nil {
		return err
	}
	switch {
	case want == 0 && anyIfZero:
		return nil
	case want == 0:
		return storedoc.Conflict("Record %q already exists.", key)
	case have != want:
		return storedoc.Conflict("Record %q is at version %d, not %d.", key, have, want)
	}
	return nil
}

// GetRecord implements [records.Store].
func (s *Store) GetRecord(ctx context.Context, appID, accountID, collection, key string) (*records.Record, error) {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, key); err != nil {
		return nil, err
	}
	k := append(recordBase(appID, accountID, collection), key...)
	var rec *records.Record
	err := s.view(ctx, "get record", func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketRecords).Get(k)
		if v == nil {
			return storedoc.NotFound("Record", key)
		}
		version, data, err := decodeRecord(k, v)
		rec = &records.Record{Key: key, Data: data, Version: version}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// DeleteRecord implements [records.Store].
func (s *Store) DeleteRecord(ctx context.Context, appID, accountID, collection, key string, ifVersion uint64) error {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, key); err != nil {
		return err
	}
	return s.update(ctx, "delete record", func(tx *bbolt.Tx) error {
		return deleteRecord(tx, appID, accountID, collection, key, ifVersion)
	})
}

func deleteRecord(tx *bbolt.Tx, appID, accountID, collection, key string, ifVersion uint64) error {
	k := append(recordBase(appID, accountID, collection), key...)
	b := tx.Bucket(bucketRecords)
	if err := checkRecordVersion(b, k, key, ifVersion, true); err != nil {
		return err
	}
	return b.Delete(k)
}

// WriteRecords implements [records.BatchStore]: the writes are
// made in order in one write transaction, so one commit (and one fsync)
// makes them all, and any failure makes none.
func (s *Store) WriteRecords(ctx context.Context, appID string, writes []records.Write) ([]uint64, error) {
	for _, w := range writes {
		if err := storedoc.CheckRecordKey(appID, w.AccountID, w.Collection, w.Key); err != nil {
			return nil, err
		}
	}
	versions := make([]uint64, len(writes))
	err := s.update(ctx, "write records", func(tx *bbolt.Tx) error {
		for i, w := range writes {
			var err error
			if w.Delete {
				err = deleteRecord(tx, appID, w.AccountID, w.Collection, w.Key, w.IfVersion)
			} else {
				versions[i], err = s.putRecord(tx, appID, w.AccountID, w.Collection, w.Key, w.Data, w.IfVersion)
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

// ListRecords implements [records.Store].
func (s *Store) ListRecords(ctx context.Context, appID, accountID, collection, prefix, after string, limit int) ([]*records.Record, error) {
	if err := storedoc.CheckRecordKey(appID, accountID, collection, "-"); err != nil {
		return nil, err
	}
	if strings.IndexByte(prefix, 0) >= 0 || strings.IndexByte(after, 0) >= 0 {
		return nil, unical.Errorf(unical.CodeInvalid, "Record keys hold no NUL byte.")
	}
	base := recordBase(appID, accountID, collection)
	scope := append(bytes.Clone(base), prefix...)
	var recs []*records.Record
	err := s.view(ctx, "list records", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketRecords).Cursor()
		start := scope
		skip := []byte(nil)
		if after != "" && after >= prefix {
			start = append(bytes.Clone(base), after...)
			skip = start
		}
		for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, scope); k, v = c.Next() {
			if skip != nil && bytes.Equal(k, skip) {
				continue
			}
			version, data, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			recs = append(recs, &records.Record{Key: string(k[len(base):]), Data: data, Version: version})
			if limit > 0 && len(recs) >= limit {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// deleteAccountRecords removes every record of an account, for
// DeleteAccount.
func deleteAccountRecords(tx *bbolt.Tx, appID, accountID string) error {
	b := tx.Bucket(bucketRecords)
	prefix := keyOf(appID, accountID, "")
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
