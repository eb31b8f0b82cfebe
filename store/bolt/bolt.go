package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/store/internal/storedoc"
	"github.com/unical/unical/storeversion"
	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

var _ unical.Store = (*Store)(nil)

// DefaultTimeout is how long Open waits for the file lock when
// Config.Timeout is zero.
const DefaultTimeout = time.Second

// formatVersion is written into new files and checked by Open, so that an
// older binary refuses a file whose layout it does not know.
const formatVersion = "1"

// Config configures Open. Path is required; the other fields' zero values
// are the defaults.
type Config struct {
	// Path is the bolt file, created with mode 0600 when it does not
	// exist.
	Path string
	// Timeout is how long Open waits for another process to release the
	// file before it fails with CodeUnavailable. Zero means DefaultTimeout;
	// there is no way to wait forever, because a server that hangs at start
	// is harder to diagnose than one that says the file is in use.
	Timeout time.Duration
	// NoSync skips the fsync after each write: a crash may lose or corrupt
	// the file. Only for tests and data that can be thrown away.
	NoSync bool
}

// Store is a [unical.Store] in one bbolt file. It is safe for concurrent use
// within one process; see the package comment for the bucket layout.
type Store struct {
	db   *bbolt.DB
	path string
	// accounts caches decoded account records (account.go).
	accounts accountCache
	// writes counts write transactions, for Version.
	writes atomic.Uint64
}

var _ storeversion.Store = (*Store)(nil)

// Version implements [storeversion.Store]: it changes after every write
// transaction. bbolt locks the file for one process, so every write to it
// passes through update in this Store.
func (s *Store) Version() uint64 { return s.writes.Load() }

// Bucket names; the layout is described in the package comment.
var (
	bucketMeta            = []byte("meta")
	bucketApplications    = []byte("applications")
	bucketAPIKeys         = []byte("apiKeys")
	bucketAPIKeysByApp    = []byte("apiKeys.byApp")
	bucketAccounts        = []byte("accounts")
	bucketAccountsByApp   = []byte("accounts.byApp")
	bucketAccountsByEmail = []byte("accounts.byEmail")
	bucketSubs            = []byte("subscriptions")
	bucketSubsByApp       = []byte("subscriptions.byApp")
	bucketSubsByAccount   = []byte("subscriptions.byAccount")
	bucketSubsByNextCheck = []byte("subscriptions.byNextCheck")
	bucketOutbox          = []byte("outbox")
	bucketOutboxPending   = []byte("outbox.pending")
	bucketOutboxBySub     = []byte("outbox.bySubscription")
	bucketOutboxFinished  = []byte("outbox.finished")
	bucketDeliveries      = []byte("deliveries")
	bucketDeliveriesBySub = []byte("deliveries.bySubscription")
	bucketDeliveriesByExp = []byte("deliveries.byExpiry")
	bucketFlows           = []byte("flows")
	bucketFlowsByExpiry   = []byte("flows.byExpiry")
	bucketFlowsByApp      = []byte("flows.byApp")
	bucketFlowCounts      = []byte("flows.countByApp")
	bucketBlobs           = []byte("blobs")
	bucketBlobsByExpiry   = []byte("blobs.byExpiry")
	bucketRecords         = []byte("records")
	// Buckets added after indexVersion "2" start empty in an older file,
	// which is right: it has no records of their kind.
	bucketIdempotency      = []byte("idempotency")
	bucketIdempotencyByExp = []byte("idempotency.byExpiry")
	bucketAudit            = []byte("audit")
	bucketAuditByApp       = []byte("audit.byApp")
	// Filled from idempotency by Open in a file older than indexVersion "4".
	bucketIdempotencyCounts = []byte("idempotency.countByApp")
	// Grants of scoped tokens (package scopedtoken), added after "4".
	bucketTokenGrants      = []byte("tokenGrants")
	bucketTokenGrantsByExp = []byte("tokenGrants.byExpiry")
)

var allBuckets = [][]byte{
	bucketMeta, bucketApplications, bucketAPIKeys, bucketAPIKeysByApp,
	bucketAccounts, bucketAccountsByApp, bucketAccountsByEmail,
	bucketSubs, bucketSubsByApp, bucketSubsByAccount, bucketSubsByNextCheck,
	bucketOutbox, bucketOutboxPending, bucketOutboxBySub, bucketOutboxFinished,
	bucketDeliveries, bucketDeliveriesBySub, bucketDeliveriesByExp,
	bucketFlows, bucketFlowsByExpiry, bucketFlowsByApp, bucketFlowCounts, bucketBlobs, bucketBlobsByExpiry, bucketRecords,
	bucketIdempotency, bucketIdempotencyByExp, bucketAudit, bucketAuditByApp, bucketIdempotencyCounts,
	bucketTokenGrants, bucketTokenGrantsByExp,
}

// indexVersion is the set of index buckets a file has filled. Open fills
// the ones an older file lacks: "2" added outbox.finished, flows.byApp and
// flows.countByApp, "3" subscriptions.byNextCheck, "4"
// idempotency.countByApp.
const indexVersion = "4"

// Open opens the bolt file at cfg.Path, creating it with mode 0600 when it
// does not exist. It returns CodeUnavailable when another process holds the
// file for longer than the timeout, and CodeInternal when the file is not a
// unical bolt file or has a newer format.
func Open(cfg Config) (*Store, error) {
	path, timeout, noSync := cfg.Path, DefaultTimeout, cfg.NoSync
	if path == "" {
		return nil, storedoc.Internal(errors.New("bolt: Config.Path is required"))
	}
	if cfg.Timeout > 0 {
		timeout = cfg.Timeout
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: timeout, NoSync: noSync})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, unical.WrapError(unical.CodeUnavailable,
			fmt.Errorf("bolt: open %s: another process holds the file (gave up after %s): %w", path, timeout, err),
			"The database file is in use by another process.")
	}
	if err != nil {
		return nil, storedoc.Internal(fmt.Errorf("bolt: open %s: %w", path, err))
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		switch v := meta.Get([]byte("version")); {
		case v == nil:
			return meta.Put([]byte("version"), []byte(formatVersion))
		case string(v) != formatVersion:
			return fmt.Errorf("file format version %q is not supported (want %q)", v, formatVersion)
		}
		switch string(meta.Get([]byte("indexes"))) {
		case indexVersion:
			return nil
		case "3":
		case "2":
			if err := backfillNextCheck(tx); err != nil {
				return err
			}
		default:
			if err := backfillIndexes(tx); err != nil {
				return err
			}
			if err := backfillNextCheck(tx); err != nil {
				return err
			}
		}
		if err := backfillIdempotencyCounts(tx); err != nil {
			return err
		}
		return meta.Put([]byte("indexes"), []byte(indexVersion))
	})
	if err != nil {
		db.Close()
		return nil, storedoc.Internal(fmt.Errorf("bolt: open %s: %w", path, err))
	}
	return &Store{db: db, path: path}, nil
}

// backfillIndexes fills outbox.finished, flows.byApp and flows.countByApp
// from the records of
// a file written before they existed, so that the sweep finds old
// delivered and failed messages and the pending-flow cap counts old flows.
func backfillIndexes(tx *bbolt.Tx) error {
	var msgs []*message
	err := tx.Bucket(bucketOutbox).ForEach(func(k, v []byte) error {
		var rec message
		if err := decode(k, v, &rec); err != nil {
			return err
		}
		if rec.Status != outbox.Pending {
			msgs = append(msgs, &rec)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, rec := range msgs {
		if err := indexMessage(tx, rec); err != nil {
			return err
		}
	}
	var flows []*storedoc.Flow
	err = tx.Bucket(bucketFlows).ForEach(func(k, v []byte) error {
		var rec storedoc.Flow
		if err := decode(k, v, &rec); err != nil {
			return err
		}
		flows = append(flows, &rec)
		return nil
	})
	if err != nil {
		return err
	}
	for _, rec := range flows {
		if err := tx.Bucket(bucketFlowsByApp).Put(flowAppKey(rec), nil); err != nil {
			return err
		}
		if err := addFlowCount(tx, rec.ApplicationID, 1); err != nil {
			return err
		}
	}
	return nil
}

// backfillNextCheck fills subscriptions.byNextCheck from the records of a
// file written before it existed.
func backfillNextCheck(tx *bbolt.Tx) error {
	idx := tx.Bucket(bucketSubsByNextCheck)
	return tx.Bucket(bucketSubs).ForEach(func(k, v []byte) error {
		var rec storedoc.Subscription
		if err := decode(k, v, &rec); err != nil {
			return err
		}
		return idx.Put(nextCheckKey(&rec), nil)
	})
}

// Close closes the file and releases its lock. Methods called afterwards
// fail with CodeInternal.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return storedoc.Internal(fmt.Errorf("bolt: close %s: %w", s.path, err))
	}
	return nil
}

// view runs fn in a read transaction; see update.
func (s *Store) view(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return storedoc.Internal(fmt.Errorf("bolt: %s: %w", op, err))
	}
	return translate(op, s.db.View(fn))
}

// update runs fn in a write transaction. bbolt has one writer at a time, so
// every read-check-write inside fn is atomic. bbolt takes no context: ctx is
// only checked before the transaction starts.
func (s *Store) update(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return storedoc.Internal(fmt.Errorf("bolt: %s: %w", op, err))
	}
	// The count moves after the commit, before the caller hears of it, so
	// a reader that saw the old version read the old data or a newer one.
	defer s.writes.Add(1)
	return translate(op, s.db.Update(fn))
}

// claimDue claims what due finds, one id at a time with claim, in a write
// transaction; but it looks in a read transaction first, so that an idle
// claim (nothing due) writes nothing: the engine and every replica ask
// every moment, and a write would sync the file and move the version that
// the API's caches of keys and answers follow. The write walks due again
// (the read may be stale) and claims after the walk, not during it,
// because a bbolt cursor is not stable across changes to its bucket.
func (s *Store) claimDue(ctx context.Context, op string, due func(tx *bbolt.Tx) []string, claim func(tx *bbolt.Tx, id string) error) error {
	var found bool
	err := s.view(ctx, op, func(tx *bbolt.Tx) error {
		found = len(due(tx)) > 0
		return nil
	})
	if err != nil || !found {
		return err
	}
	return s.update(ctx, op, func(tx *bbolt.Tx) error {
		for _, id := range due(tx) {
			if err := claim(tx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// translate is the one place where bbolt, JSON and context errors become
// *unical.Error values: anything that is not already an *unical.Error is a
// storage failure, CodeInternal, with the cause kept for the logs.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if passed, ok := storedoc.Passed(err); ok {
		return passed
	}
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return storedoc.Internal(fmt.Errorf("bolt: %s: the store is closed: %w", op, err))
	}
	return storedoc.Internal(fmt.Errorf("bolt: %s: %w", op, err))
}

// keyOf joins parts with NUL bytes. keyOf(appID, "") is the prefix of all
// of an application's entries in an index.
func keyOf(parts ...string) []byte {
	return []byte(strings.Join(parts, "\x00"))
}

// timeKeyLen is the length of a timeKey.
const timeKeyLen = 12

// timeKey encodes t so that byte order is time order, for every time
// including the zero time: 8 bytes of Unix seconds with the sign bit
// flipped, then 4 bytes of nanoseconds, all big-endian.
func timeKey(t time.Time) []byte {
	b := make([]byte, timeKeyLen)
	binary.BigEndian.PutUint64(b, uint64(t.Unix())^(1<<63))
	binary.BigEndian.PutUint32(b[8:], uint32(t.Nanosecond()))
	return b
}

// keyTime decodes the time at the start of a key made with timeKey.
func keyTime(k []byte) time.Time {
	sec := int64(binary.BigEndian.Uint64(k) ^ (1 << 63))
	return time.Unix(sec, int64(binary.BigEndian.Uint32(k[8:]))).UTC()
}

// getJSON decodes the record under k into v; it reports false when there is
// none.
func getJSON(b *bbolt.Bucket, k []byte, v any) (bool, error) {
	data := b.Get(k)
	if data == nil {
		return false, nil
	}
	return true, decode(k, data, v)
}

// decode decodes the record data stored under k into v.
func decode(k, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %q: %w", k, err)
	}
	return nil
}

// putJSON encodes v and stores it under k.
func putJSON(b *bbolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", k, err)
	}
	return b.Put(k, data)
}

// putJSONCopy is putJSON that also decodes what it stored into out, so that
// a record handed back to the caller shares nothing with the one the
// caller's update function saw.
func putJSONCopy(b *bbolt.Bucket, k []byte, v, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", k, err)
	}
	if err := b.Put(k, data); err != nil {
		return err
	}
	return decode(k, data, out)
}

// scanIDs calls fn with the rest of every key under prefix that sorts after
// prefix+after, in key order, until fn returns false. An empty after starts
// at the beginning.
func scanIDs(b *bbolt.Bucket, prefix []byte, after string, fn func(id string) (bool, error)) error {
	c := b.Cursor()
	start := append(bytes.Clone(prefix), after...)
	k, _ := c.Seek(start)
	if after != "" && bytes.Equal(k, start) {
		k, _ = c.Next()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		more, err := fn(string(k[len(prefix):]))
		if err != nil || !more {
			return err
		}
	}
	return nil
}
