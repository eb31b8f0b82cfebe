package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/unical/unical"
	"github.com/unical/unical/store/internal/storedoc"
)

var _ unical.Store = (*Store)(nil)

// Store is a [unical.Store] in a PostgreSQL database, shared by every
// process that opens the same database. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	// accounts caches decoded accounts (cache.go).
	accounts accountCache
	// changes follows changes to what callers cache, for Version
	// (changes.go).
	changes changeFeed
}

// Config configures [Open]. URL is required.
type Config struct {
	// URL is the database: a postgres:// URL or a key=value connection
	// string, as libpq takes them.
	URL string
	// MaxConns caps the connections the Store keeps open to the database.
	// 0: the URL's pool_max_conns parameter counts, and without that
	// pgxpool's default: 4, or the number of CPUs when there are more.
	MaxConns int32
}

// Open connects to the database at cfg.URL, creates or migrates its schema,
// and returns the Store. Several processes may open the same database at
// once: migrations run under an advisory lock, one process at a time.
//
// It fails with CodeStoreUnavailable when the database cannot be reached,
// CodeInvalid when the URL cannot be parsed, and CodeInternal when the
// database's schema is newer than this binary knows. No error carries the
// URL's password.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		// pgconn's parse errors name the URL with its password masked.
		return nil, unical.WrapError(unical.CodeInvalid, fmt.Errorf("postgres: %w", err), "The PostgreSQL connection URL cannot be parsed.")
	}
	if cfg.MaxConns > 0 {
		pcfg.MaxConns = cfg.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, translate("open", err)
	}
	s := &Store{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes every connection. Methods called afterwards fail with
// CodeInternal.
func (s *Store) Close() error {
	s.stopListening()
	s.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return translate("ping", read(ctx, func() error { return s.pool.Ping(ctx) }))
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one forward-only step of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order. Their file
// names begin with the version: 0001_init.sql is version 1. Versions must
// run 1, 2, 3, ... without gaps, so that a missing file is a bug caught by
// the tests instead of a schema that silently skips a step.
func migrations() ([]migration, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: the name must start with its version, as in 0001_init.sql", e.Name())
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: version %d, want %d", m.name, m.version, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema version this binary migrates databases to.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrationLock is the key of the session advisory lock that migrations
// run under, so that replicas starting together migrate one at a time
// (the second finds the work done). It is "unical:m" in ASCII.
const migrationLock int64 = 0x756e6963616c3a6d

// migrate brings the schema to the newest version, one transaction per
// migration, recording each in unical_schema. A database whose recorded
// version is newer than this binary's is refused: an older binary must not
// write into a schema it does not know.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return storedoc.Internal(fmt.Errorf("postgres: %w", err))
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return translate("connect", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return translate("take the migration lock", err)
	}
	defer func() {
		// A lock left behind by a failed unlock goes with the connection.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", migrationLock); err != nil {
			conn.Conn().Close(ctx)
		}
	}()
	_, err = conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS unical_schema (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`)
	if err != nil {
		return translate("create unical_schema", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM unical_schema").Scan(&current); err != nil {
		return translate("read the schema version", err)
	}
	if current > len(ms) {
		return unical.WrapError(unical.CodeInternal,
			fmt.Errorf("postgres: the database schema is at version %d, newer than this binary's %d: run a unicald at least as new as the one that migrated it", current, len(ms)),
			"The database was migrated by a newer unicald.")
	}
	for _, m := range ms[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			_, err := tx.Exec(ctx, "INSERT INTO unical_schema (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return translate("migrate", err)
		}
	}
	return nil
}

// maxRetries bounds how often a call starts over after its connection
// turned out dead before the call did anything: after the database
// restarts, the pool still holds connections the old server closed, and
// each is found dead only when used.
const maxRetries = 2

// retryable reports whether a call that failed with err may start over
// on another connection.
func retryable(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && unavailable(err)
}

// tx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise. A transaction whose BEGIN fails for the connection's
// sake has done nothing, so it starts over on another connection.
func (s *Store) tx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			if attempt < maxRetries && retryable(ctx, err) {
				continue
			}
			return translate(op, err)
		}
		if err := fn(tx); err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return translate(op, err)
		}
		return translate(op, tx.Commit(ctx))
	}
}

// exec runs one writing statement in a transaction of its own (so that
// a dead connection is retried as tx does) and returns the rows it
// affected, or its translated error.
func (s *Store) exec(ctx context.Context, op, sql string, args ...any) (int64, error) {
	var n int64
	err := s.tx(ctx, op, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sql, args...)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// read runs fn, which only reads, and runs it again when it failed for
// its connection's sake: a read can always be repeated. It returns fn's
// error untranslated, so that callers can still tell pgx.ErrNoRows.
func read(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if attempt < maxRetries && retryable(ctx, err) {
			continue
		}
		return err
	}
}

// queryRow is pool.QueryRow(...).Scan(dest...) through read.
func (s *Store) queryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	return read(ctx, func() error { return s.pool.QueryRow(ctx, sql, args...).Scan(dest...) })
}

// queryAll runs a query through read and collects its rows with scan.
func queryAll[T any](ctx context.Context, s *Store, scan pgx.RowToFunc[T], sql string, args ...any) ([]T, error) {
	var out []T
	err := read(ctx, func() error {
		rows, err := s.pool.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, scan)
		return err
	})
	return out, err
}

// translate is the one place where driver, database and context errors
// become *unical.Error values: a database that cannot be reached is
// CodeStoreUnavailable, a uniqueness violation CodeConflict, anything else
// CodeInternal, with the cause kept for the logs.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if passed, ok := storedoc.Passed(err); ok {
		return passed
	}
	cause := fmt.Errorf("postgres: %s: %w", op, err)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return unical.WrapError(unical.CodeConflict, cause, "%s", conflictMessage(pe.ConstraintName))
	}
	if unavailable(err) {
		return &unical.Error{Code: unical.CodeStoreUnavailable, Message: "The database is unavailable; try again shortly.", RetryAfter: time.Second, Err: cause}
	}
	return storedoc.Internal(cause)
}

// conflictMessage names what a unique constraint keeps unique.
func conflictMessage(constraint string) string {
	switch constraint {
	case "accounts_email_key":
		return "An account with that email and provider type already exists."
	case "applications_pkey":
		return "The application already exists."
	case "api_keys_pkey":
		return "The API key already exists."
	case "accounts_pkey":
		return "The account already exists."
	case "subscriptions_pkey":
		return "The subscription already exists."
	case "outbox_pkey":
		return "A message with that id already exists."
	case "delivery_attempts_pkey":
		return "A delivery attempt with that id already exists."
	case "oauth_flows_pkey":
		return "The flow already exists."
	}
	return "The record already exists."
}

// unavailable reports whether err means the database could not be reached
// or dropped the connection, as opposed to refusing a statement: the
// errors for which trying again later, without a restart, can succeed.
func unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"): // connection exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // shutting down, crashed, starting up
			return true
		case pe.Code == "53300": // too many connections
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, context.DeadlineExceeded):
		return true // no answer in time, as from a database behind a dead network
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	return pgconn.SafeToRetry(err)
}

// checkText refuses a NUL byte in a text column other than an id.
func checkText(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return unical.Errorf(unical.CodeInvalid, "%s must not contain a NUL byte.", what)
	}
	return nil
}

// limitArg is a list limit as a query argument: NULL, which LIMIT takes as
// no limit, when limit is zero or less.
func limitArg(limit int) *int64 {
	if limit <= 0 {
		return nil
	}
	n := int64(limit)
	return &n
}
